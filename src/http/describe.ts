// The server describes itself: an OpenAPI 3.1 document generated from the route table's own zod
// schemas (path and query parameters, request bodies, auth), so it cannot drift from what the
// server validates. Response bodies follow the public GitBook description (`@gitbook/api`); here
// every operation names its success range and the shared error shape.
import { z } from 'zod';
import type { RouteDef } from './route.js';

interface DescribeOptions {
  title: string;
  version: string;
  serverUrl: string;
}

type JsonSchema = Record<string, unknown>;

const ERROR_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'integer', description: 'The HTTP status of the response' },
        message: { type: 'string', description: 'What went wrong, naming the field when a field is at fault' },
      },
    },
  },
};

const ERRORS: Record<string, string> = {
  '400': 'Invalid request: the message names the offending field',
  '401': 'Missing or invalid bearer token',
  '403': 'The caller lacks the permission',
  '404': 'Not found, or not visible to the caller',
  '409': 'Conflicts with the current state or a concurrent change',
  '413': 'Request body too large',
  '429': 'Rate limit exceeded (see Retry-After and X-RateLimit-* headers)',
  '503': 'A conflicting change was in progress; retry',
};

/** `/v1/spaces/:spaceId/*` -> `/v1/spaces/{spaceId}/{path}` and the parameter names in order. */
export function openapiPath(path: string): { path: string; names: string[] } {
  const names: string[] = [];
  const out = path
    .split('/')
    .map((seg) => {
      if (seg.startsWith(':')) {
        names.push(seg.slice(1));
        return `{${seg.slice(1)}}`;
      }
      if (seg === '*') {
        names.push('*');
        return '{path}';
      }
      return seg;
    })
    .join('/');
  return { path: out, names };
}

function schemaOf(type: z.ZodType): JsonSchema {
  const s = z.toJSONSchema(type, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema;
  delete s.$schema;
  return s;
}

function isOptional(type: z.ZodType): boolean {
  return type.safeParse(undefined).success;
}

function operationId(r: RouteDef): string {
  const segments = r.path.split('/').filter(Boolean);
  // `v1` names nothing beside other segments, but is the whole of the API root's path (`getV1`, not the home page's `get`).
  const words = segments
    .filter((s) => s !== 'v1' || segments.length === 1)
    .map((s) => (s.startsWith(':') ? `by-${s.slice(1)}` : s === '*' ? 'path' : s));
  const camel = [r.method.toLowerCase(), ...words].join('-').replace(/[^a-zA-Z0-9]+(.)/g, (_, c: string) => c.toUpperCase());
  return camel;
}

export function describeRoutes(routes: RouteDef[], opts: DescribeOptions): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const tags = new Set<string>();
  for (const r of routes) {
    const { path, names } = openapiPath(r.path);
    const parameters: unknown[] = [];
    for (const name of names) {
      const type = (r.params as Record<string, z.ZodType> | undefined)?.[name];
      parameters.push({
        name: name === '*' ? 'path' : name,
        in: 'path',
        required: true,
        schema: type ? schemaOf(type) : { type: 'string' },
        ...(name === '*' ? { description: 'The rest of the path (may contain slashes)' } : {}),
      });
    }
    for (const [name, type] of Object.entries((r.query ?? {}) as Record<string, z.ZodType>)) {
      parameters.push({ name, in: 'query', required: !isOptional(type), schema: schemaOf(type) });
    }
    const responses: Record<string, unknown> = {
      '2XX': { description: r.method === 'DELETE' ? 'Done (204 whether or not it existed)' : 'Success' },
    };
    const errorCodes = ['400', ...(r.auth === false ? [] : ['401', '403']), '404', '429'];
    if (r.body) errorCodes.push('409', '413');
    for (const code of errorCodes) responses[code] = { $ref: `#/components/responses/Error${code}` };
    responses['503'] = { $ref: '#/components/responses/Error503' };
    const tag = r.tag ?? 'System';
    tags.add(tag);
    const op: Record<string, unknown> = {
      operationId: operationId(r),
      summary: r.summary ?? `${r.method} ${path}`,
      tags: [tag],
      parameters,
      responses,
      ...(r.auth === false ? { security: [] } : {}),
    };
    if (r.body) {
      op.requestBody = {
        required: r.bodyRequired !== false,
        content: { 'application/json': { schema: schemaOf(r.body as z.ZodType) } },
      };
    }
    paths[path] ??= {};
    paths[path][r.method.toLowerCase()] = op;
  }
  const errorResponses = Object.fromEntries(
    Object.entries(ERRORS).map(([code, description]) => [
      `Error${code}`,
      { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
    ]),
  );
  return {
    openapi: '3.1.0',
    info: {
      title: opts.title,
      version: opts.version,
      description:
        'Generated from the route table of this server: every route with the parameters and bodies it validates. ' +
        'Response bodies follow the public GitBook API description; every error is `{"error": {"code", "message"}}`. ' +
        'Every GET also answers HEAD (same status and headers, no body).',
    },
    servers: [{ url: opts.serverUrl }],
    tags: [...tags].sort().map((name) => ({ name })),
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An API token (`npm run cli -- token create`)' } },
      schemas: { Error: ERROR_SCHEMA },
      responses: errorResponses,
    },
  };
}
