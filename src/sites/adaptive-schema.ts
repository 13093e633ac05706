// The adaptive-content schema of a site: which visitor claims exist, their types and descriptions.
// `adaptiveJsonSchema` is a faithful transcription of the public description's
// `SiteAdaptiveJSONSchema` (closed objects everywhere; claims are booleans, strings with or without
// an enum, numbers, arrays of those, or nested objects of claims). A test checks it accepts and
// refuses the same documents as ajv on the description itself. The stored document is echoed
// exactly as it was put.
import { z } from 'zod';

const MAX_DEPTH = 5;
const MAX_CLAIMS = 500;
const name = z.string().min(1).max(100);
const description = z.string().max(1024);

const booleanClaim = z.object({ type: z.literal('boolean'), description }).strict();
const enumClaim = z.object({ type: z.literal('string'), enum: z.array(z.string().max(256)).max(100), description }).strict();
const stringClaim = z.object({ type: z.literal('string'), description }).strict();
const numberClaim = z.object({ type: z.literal('number'), description }).strict();
const primitive = z.union([booleanClaim, enumClaim, stringClaim, numberClaim]);
const arrayClaim = z.object({ type: z.literal('array'), description, items: primitive }).strict();

type Claim =
  | z.infer<typeof primitive>
  | z.infer<typeof arrayClaim>
  | { type: 'object'; description: string; properties: Record<string, Claim>; additionalProperties: false };

const claim: z.ZodType<Claim> = z.lazy(() =>
  z.union([
    primitive,
    arrayClaim,
    z
      .object({
        type: z.literal('object'),
        description,
        properties: z.record(name, claim),
        additionalProperties: z.literal(false),
      })
      .strict(),
  ]),
);

const UNSIGNED_DESCRIPTION = 'Unsigned claims of the site visitor.';
const unsigned = z
  .object({
    type: z.literal('object'),
    description: z.literal(UNSIGNED_DESCRIPTION),
    properties: z.record(name, claim),
    additionalProperties: z.literal(false),
  })
  .strict();

// `properties.unsigned`, when present, has the fixed unsigned shape; every other key is a claim.
const claimsRoot = z.record(name, z.unknown()).superRefine((rec, ctx) => {
  for (const [key, value] of Object.entries(rec)) {
    const r = (key === 'unsigned' ? unsigned : claim).safeParse(value);
    if (!r.success) for (const issue of r.error.issues) ctx.addIssue({ ...issue, path: [key, ...issue.path] } as never);
  }
});

export const adaptiveJsonSchema = z
  .object({
    $schema: z.literal('http://json-schema.org/draft-07/schema#').optional(),
    type: z.literal('object'),
    properties: claimsRoot,
    additionalProperties: z.literal(false),
  })
  .strict()
  .superRefine((doc, ctx) => {
    let count = 0;
    const walk = (props: Record<string, unknown>, depth: number) => {
      if (depth > MAX_DEPTH) ctx.addIssue({ code: 'custom', message: `claims are nested more than ${MAX_DEPTH} levels deep`, path: [] });
      for (const v of Object.values(props)) {
        count++;
        const nested = (v as { properties?: Record<string, unknown> }).properties;
        if (nested && depth <= MAX_DEPTH) walk(nested, depth + 1);
      }
    };
    walk(doc.properties, 1);
    if (count > MAX_CLAIMS) ctx.addIssue({ code: 'custom', message: `more than ${MAX_CLAIMS} claims`, path: ['properties'] });
  });

export type AdaptiveJsonSchema = z.infer<typeof adaptiveJsonSchema>;

/** The schema a site has before any PUT: no signed claims, an empty unsigned object. */
export function defaultAdaptiveSchema(): AdaptiveJsonSchema {
  return {
    type: 'object',
    properties: { unsigned: { type: 'object', description: UNSIGNED_DESCRIPTION, properties: {}, additionalProperties: false } },
    additionalProperties: false,
  };
}

export interface TemplateCondition {
  description: string;
  condition: string;
}

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const access = (base: string, key: string) => (IDENT.test(key) ? `${base}.${key}` : `${base}[${JSON.stringify(key)}]`);

/**
 * Ready-made conditions for the schema's claims: `== true` for booleans, one `== "value"` per enum
 * value, one `.includes("value")` per enum value of an array claim; nested objects (and the unsigned
 * claims) recurse. Free strings and numbers get none (there is no value to suggest).
 */
export function templateConditions(schema: AdaptiveJsonSchema): TemplateCondition[] {
  const out: TemplateCondition[] = [];
  const walk = (props: Record<string, unknown>, base: string) => {
    for (const [key, raw] of Object.entries(props)) {
      const c = raw as Claim;
      const path = access(base, key);
      const label = c.description || key;
      if (c.type === 'boolean') out.push({ description: `${label} is true`, condition: `${path} == true` });
      else if (c.type === 'string' && 'enum' in c)
        for (const v of c.enum) out.push({ description: `${label} is "${v}"`, condition: `${path} == ${JSON.stringify(v)}` });
      else if (c.type === 'array' && c.items.type === 'string' && 'enum' in c.items)
        for (const v of c.items.enum)
          out.push({ description: `${label} includes "${v}"`, condition: `${path}.includes(${JSON.stringify(v)})` });
      else if (c.type === 'object') walk(c.properties, path);
    }
  };
  walk(schema.properties, 'visitor.claims');
  return out;
}
