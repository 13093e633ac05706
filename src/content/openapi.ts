import SwaggerParser from '@apidevtools/swagger-parser';
import YAML from 'yaml';
import { DomainError } from '../core/errors.js';
import { validateBundled, type ValidationWarning } from './openapi-validate.js';
import { referenceGroups } from './openapi-render.js';

export type { ValidationWarning };

/** The document cannot be parsed or its references resolved: a final outcome of its processing. */
export class SpecParseError extends DomainError {
  readonly code = 'PARSE_ERROR';
  constructor(message: string) {
    super('unprocessable', message);
    this.name = 'SpecParseError';
  }
}

interface ProcessedSpec {
  /** One document with every external `$ref` pulled in (internal refs kept): what is stored. */
  bundled: Record<string, unknown>;
  openapi: string;
  title?: string;
  apiVersion?: string;
  /** What strict validation found: recorded and shown, never a reason to refuse the document. */
  warnings: ValidationWarning[];
  /** Groups of operations (by tag) a reference split into pages shows, at most MAX_GROUPS. */
  groups: { key: string; title: string }[];
}

/** Most groups (tag pages) kept for a reference split into pages. */
const MAX_GROUPS = 200;

/**
 * Parse (JSON or YAML), bundle external `$ref`s and validate an OpenAPI 3.0/3.1 or Swagger 2.0
 * document. Only a document that cannot be parsed or whose references cannot be resolved is a
 * SpecParseError; what strict validation finds comes back as warnings. External files are read only through `readRef` (the caller's guarded fetch); local
 * files are never read. Errors from `readRef` propagate unchanged so the caller can classify them.
 */
export async function processSpec(
  text: string,
  baseUrl: string | undefined,
  readRef: (url: string) => Promise<Buffer>,
): Promise<ProcessedSpec> {
  let doc: unknown;
  try {
    doc = YAML.parse(text, { maxAliasCount: 1000, logLevel: 'error' });
  } catch (err) {
    throw new SpecParseError(`The document is neither valid JSON nor valid YAML: ${firstLine(err)}`);
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new SpecParseError('The document is not an object');
  const warnings = normalizeVersions(doc as Record<string, any>);
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
    // The checks of SwaggerParser.validate(bundled), with the schema validators compiled once.
    warnings.push(...(await validateBundled(bundled)));
  } catch (err) {
    // Only dereferencing throws here: an internal reference that points nowhere.
    throw new SpecParseError(`Could not resolve references: ${firstLine(err)}`);
  }
  return {
    bundled,
    openapi: String(version),
    title: typeof bundled.info?.title === 'string' ? bundled.info.title : undefined,
    apiVersion: bundled.info?.version !== undefined ? String(bundled.info.version) : undefined,
    warnings,
    groups: referenceGroups(bundled).slice(0, MAX_GROUPS),
  };
}

/**
 * Version numbers written as YAML numbers (`swagger: 2.0`, `version: 1.0`), a very common slip
 * swagger-parser refuses outright: read as the string the author meant, with a warning.
 */
function normalizeVersions(doc: Record<string, any>): ValidationWarning[] {
  const warnings: ValidationWarning[] = [];
  if (doc.swagger === 2) {
    doc.swagger = '2.0';
    warnings.push({ code: 'SCHEMA_VALIDATION', message: '#/swagger must be a string; read as "2.0"' });
  }
  const info = doc.info;
  if (info && typeof info === 'object' && typeof info.version === 'number') {
    const shown = Number.isInteger(info.version) ? `${info.version}.0` : String(info.version);
    info.version = shown;
    warnings.push({ code: 'SCHEMA_VALIDATION', message: `#/info/version must be a string; read as "${shown}"` });
  }
  return warnings;
}

function firstLine(err: unknown): string {
  return String((err as Error)?.message ?? err)
    .split('\n')[0]
    .slice(0, 500);
}
