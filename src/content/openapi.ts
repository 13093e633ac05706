import SwaggerParser from '@apidevtools/swagger-parser';
import YAML from 'yaml';
import { validateBundled } from './openapi-validate.js';

export class SpecParseError extends Error {
  readonly code = 'PARSE_ERROR';
}

interface ProcessedSpec {
  /** One document with every external `$ref` pulled in (internal refs kept): what is stored. */
  bundled: Record<string, unknown>;
  openapi: string;
  title?: string;
  apiVersion?: string;
}

/**
 * Parse (JSON or YAML), bundle external `$ref`s and validate an OpenAPI 3.0/3.1 or Swagger 2.0
 * document. External files are read only through `readRef` (the caller's guarded fetch); local
 * files are never read. Errors from `readRef` propagate unchanged so the caller can classify them.
 */
export async function processSpec(
  text: string,
  baseUrl: string | undefined,
  readRef: (url: string) => Promise<Buffer>,
): Promise<ProcessedSpec> {
  let doc: unknown;
  try {
    doc = YAML.parse(text, { maxAliasCount: 1000 });
  } catch (err) {
    throw new SpecParseError(`The document is neither valid JSON nor valid YAML: ${firstLine(err)}`);
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new SpecParseError('The document is not an object');
  const version = (doc as any).openapi ?? (doc as any).swagger;
  if (typeof version !== 'string' && typeof version !== 'number') {
    throw new SpecParseError('The document has no "openapi" or "swagger" version field');
  }

  let refError: unknown;
  const resolve = {
    file: false,
    http: false,
    guarded: {
      order: 1,
      canRead: /^https?:\/\//i,
      read: async (file: { url: string }) => {
        try {
          return await readRef(file.url);
        } catch (err) {
          refError = err;
          throw err;
        }
      },
    },
  } as any;

  let bundled: any;
  try {
    // `doc` is ours alone (freshly parsed, only `version` read from it above): bundling may work in place.
    const parser = new SwaggerParser();
    bundled = baseUrl ? await parser.bundle(baseUrl, doc as any, { resolve }) : await parser.bundle(doc as any, { resolve });
  } catch (err) {
    if (refError) throw refError;
    throw new SpecParseError(`Could not resolve references: ${firstLine(err)}`);
  }
  try {
    // Same acceptance as SwaggerParser.validate(bundled), with the schema validators compiled once.
    await validateBundled(bundled);
  } catch (err) {
    throw new SpecParseError(`Invalid OpenAPI document: ${firstLine(err)}`);
  }
  return {
    bundled,
    openapi: String(version),
    title: typeof bundled.info?.title === 'string' ? bundled.info.title : undefined,
    apiVersion: bundled.info?.version !== undefined ? String(bundled.info.version) : undefined,
  };
}

function firstLine(err: unknown): string {
  return String((err as Error)?.message ?? err)
    .split('\n')[0]
    .slice(0, 500);
}
