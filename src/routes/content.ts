import { z } from 'zod';
import { route, ok, okJson, userFileReply, type Reply } from '../http/route.js';
import { entityId, qBool, listQuery } from '../http/validate.js';
import * as content from '../services/content.js';
import * as history from '../services/history.js';
import { openSignedFile } from '../services/files.js';
import { proxiedImage } from '../services/image-proxy.js';

const spaceParams = { spaceId: entityId };
/** A 200 whose body is JSON already encoded, in parts (a cached pages tree): written as they are. */
export const okJsonParts = (chunks: readonly Buffer[]): Reply => ({
  status: 200,
  chunks,
  headers: { 'content-type': 'application/json; charset=utf-8' },
});

export const readFlags = { metadata: qBool(true), computed: qBool(true) };
/** `true`, `false` (default), or the named partial mode (`deterministic-only`, `reusable-contents`), as a flag. */
const qBoolOr = (mode: string) =>
  z
    .enum(['true', 'false', '1', '0', mode], { message: `expected true, false or ${mode}` })
    .optional()
    .transform((v) => v !== undefined && v !== 'false' && v !== '0');

export const pageFlags = {
  ...readFlags,
  format: z.enum(['markdown', 'document']).default('markdown'),
  // Variables are the only expressions: deterministic-only evaluates them as true does.
  evaluated: qBoolOr('deterministic-only'),
  // Reusable content is the only reference expanded: reusable-contents does what true does.
  dereferenced: qBoolOr('reusable-contents'),
  // Accepted; page links in Markdown are kept as written.
  'format.markdown.refs': z.enum(['relative', 'stable']).optional(),
  cachedMetadata: qBool(false),
};

export const contentRoutes = [
  route({
    method: 'GET',
    path: '/v1/spaces/:spaceId/content',
    params: spaceParams,
    query: readFlags,
    handler: async ({ app, principal, params, query }) =>
      okJsonParts(await history.readCurrentRevisionJson(app, principal, params.spaceId, query)),
  }),
  route({
    method: 'GET',
    path: '/v1/spaces/:spaceId/content/pages',
    params: spaceParams,
    query: readFlags,
    handler: async ({ app, principal, params, query }) =>
      okJsonParts(await content.readPagesJson(app, await content.mainTarget(app, principal, params.spaceId), query)),
  }),
  route({
    method: 'GET',
    path: '/v1/spaces/:spaceId/content/files',
    params: spaceParams,
    query: { ...listQuery, ...readFlags },
    handler: async ({ app, principal, params, query }) =>
      ok(await content.listFiles(app, await content.mainTarget(app, principal, params.spaceId), query)),
  }),
  route({
    method: 'GET',
    path: '/v1/spaces/:spaceId/content/files/:fileId',
    params: { ...spaceParams, fileId: entityId },
    query: readFlags,
    handler: async ({ app, principal, params, query }) =>
      ok(await content.readFile(app, await content.mainTarget(app, principal, params.spaceId), params.fileId, query)),
  }),
  route({
    method: 'GET',
    path: '/v1/spaces/:spaceId/content/page/:pageId',
    params: { ...spaceParams, pageId: entityId },
    query: pageFlags,
    handler: async ({ app, principal, params, query }) =>
      okJson(await content.readPageJson(app, await content.mainTarget(app, principal, params.spaceId), params.pageId, query)),
  }),
  route({
    method: 'GET',
    path: '/files/:sha256',
    auth: false,
    params: { sha256: z.string().regex(/^[0-9a-f]{64}$/) },
    query: {
      name: z.string().max(500),
      type: z.string().max(200),
      // Optional here so that a link from before links expired gets a 410 saying so, not a 400.
      exp: z
        .string()
        .regex(/^\d{1,12}$/, { message: 'expected a whole number' })
        .transform(Number)
        .optional(),
      sig: z.string().max(100),
    },
    handler: async ({ app, params, query }): Promise<Reply> => {
      const f = await openSignedFile(app, params.sha256, query);
      // The bytes under this URL never change, but the URL stops working at `exp`: cache until then.
      return userFileReply(f, `private, max-age=${f.remainingSeconds}, immutable`);
    },
  }),
  route({
    method: 'GET',
    path: '/images/proxy',
    auth: false,
    query: { url: z.string().min(1).max(4096), sig: z.string().max(100) },
    handler: async ({ app, query }): Promise<Reply> => {
      const image = await proxiedImage(app, query.url, query.sig);
      return {
        status: 200,
        body: image.body,
        headers: {
          'content-type': image.contentType,
          'cache-control': 'public, max-age=86400',
          'x-content-type-options': 'nosniff',
          // An SVG opened directly must not run script on this origin.
          'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
        },
      };
    },
  }),
];
