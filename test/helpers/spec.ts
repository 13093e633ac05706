import { createRequire } from 'node:module';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// Responses are checked against the public OpenAPI description shipped in @gitbook/api: what a
// client of that API expects is what the DESIGN says we must send.
const require = createRequire(import.meta.url);
const doc = require('@gitbook/api/spec/openapi.json');
const ID = 'https://spec.local/openapi.json';

const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
const addFormats = (addFormatsModule as any).default ?? addFormatsModule;
addFormats(ajv);
// The description's own formats, beside the standard ones (unknown to Ajv, each compiled schema
// using them printed a warning). `Emoji`: "Unicode codepoint or character of the emoji", as
// characters (🚀, 🗺️, 👩‍💻, 1️⃣) or hex code points (1f680, 1f469-200d-1f4bb); the empty string is
// a space without one, as the API has always written it. `Icon`: "Name of the icon" (gear, book-open).
const EMOJI_CHARS =
  /^(?=.*(?:\p{Extended_Pictographic}|\p{Emoji_Presentation}|\p{Regional_Indicator}|\u20e3))(?:\p{Extended_Pictographic}|\p{Emoji_Presentation}|\p{Emoji_Component}|\p{Emoji_Modifier}|\u200d|\ufe0f|\u20e3)+$/u;
const EMOJI_CODEPOINTS = /^[0-9a-f]{2,6}(?:-[0-9a-f]{2,6})*$/i;
ajv.addFormat('emoji', { type: 'string', validate: (s: string) => s === '' || EMOJI_CHARS.test(s) || EMOJI_CODEPOINTS.test(s) });
ajv.addFormat('icon', { type: 'string', validate: /^[a-z0-9]+(?:[-_][a-z0-9]+)*$/i });
ajv.addSchema({ $id: ID, components: doc.components }, undefined, undefined, false);

function rebase(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(rebase);
  if (schema && typeof schema === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(schema))
      out[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `${ID}${v}` : rebase(v);
    return out;
  }
  return schema;
}

const cache = new Map<string, ReturnType<typeof ajv.compile>>();

function responseSchema(method: string, path: string, status: number) {
  const op = doc.paths[path]?.[method.toLowerCase()];
  if (!op) throw new Error(`No operation ${method} ${path} in the public description`);
  let resp = op.responses[String(status)];
  if (resp?.$ref) resp = doc.components.responses[resp.$ref.split('/').pop()];
  const schema = resp?.content?.['application/json']?.schema;
  if (!schema) throw new Error(`No JSON schema for ${method} ${path} ${status}`);
  return schema;
}

/** Throws with the validation errors when `body` does not match the described response. */
export function assertMatchesSpec(method: string, path: string, status: number, body: unknown): void {
  const key = `${method} ${path} ${status}`;
  let validate = cache.get(key);
  if (!validate) {
    validate = ajv.compile(rebase(responseSchema(method, path, status)) as object);
    cache.set(key, validate);
  }
  if (!validate(body)) {
    throw new Error(`${key}: response does not match the public description:\n${JSON.stringify(validate.errors?.slice(0, 8), null, 2)}`);
  }
}

export function assertMatchesSchema(name: string, body: unknown): void {
  const key = `schema ${name}`;
  let validate = cache.get(key);
  if (!validate) {
    validate = ajv.compile({ $ref: `${ID}#/components/schemas/${name}` });
    cache.set(key, validate);
  }
  if (!validate(body)) throw new Error(`${name}: does not match:\n${JSON.stringify(validate.errors?.slice(0, 8), null, 2)}`);
}
