import { z } from 'zod';
import { invalid } from '../core/errors.js';
import { ROLES } from '../core/roles.js';
import { MAX_LIMIT } from '../core/pagination.js';

/** Parse `input` with `schema`; on failure a 400 whose message names each offending field. */
export function validate<T>(schema: z.ZodType<T>, input: unknown, where: 'path' | 'query' | 'body'): T {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const parts = result.error.issues.slice(0, 5).map((issue) => {
    const field = [where, ...issue.path.map(String)].join('.');
    return `${field}: ${issue.message}`;
  });
  throw invalid(`Invalid request: ${parts.join('; ')}`);
}

// Query-string helpers: query values arrive as strings.
export const qBool = (def: boolean) =>
  z
    .enum(['true', 'false', '1', '0'], { message: 'expected true or false' })
    .optional()
    .transform((v) => (v === undefined ? def : v === 'true' || v === '1'));

export const qInt = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, { message: 'expected a whole number' })
    .transform(Number)
    .pipe(
      z
        .number()
        .min(min, { message: `must be at least ${min}` })
        .max(max, { message: `must be at most ${max}` }),
    );

export const entityId = z
  .string()
  .regex(/^[a-zA-Z0-9_-]+$/, { message: 'must be an identifier' })
  .max(128);

export const roleSchema = z.enum(ROLES);

/** `page` and `limit` as every list operation takes them. */
export const listQuery = {
  page: z.string().max(1024).optional(),
  limit: qInt(0, MAX_LIMIT).optional(),
};

/** Query parameters; a key given several times (`authors=a&authors=b`) becomes an array. */
export function queryObject(params: URLSearchParams): Record<string, string | string[]> {
  const q: Record<string, string | string[]> = {};
  for (const key of new Set(params.keys())) {
    const values = params.getAll(key);
    q[key] = values.length > 1 ? values : values[0];
  }
  return q;
}
