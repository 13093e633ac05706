// Custom fonts (issue 29 item 2), generateStorageUploadURL, the signed upload URL it returns, and
// the font files served to anyone.
import { z } from 'zod';
import { readRawBody } from '../../http/body.js';
import { route, created, noContent, ok } from '../../http/route.js';
import type { RouteDef } from '../../http/route.js';
import { entityId } from '../../http/validate.js';
import { HttpError } from '../../http/errors.js';
import * as fonts from '../../services/sites/fonts.js';

const ORG = '/v1/orgs/:organizationId';
const orgParams = { organizationId: entityId };
const fontParams = { organizationId: entityId, fontId: entityId };
const family = z
  .string()
  .min(1)
  .max(50)
  .regex(/^[^\0]*$/, { message: 'must not contain NUL characters' });
const weight = z.number().int().min(1).max(1000);
const storageKey = z.string().min(1).max(512);

/** The description answers a font without its regular weight with 412. */
async function precondition<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (err) {
    if (err instanceof fonts.MissingFontWeight) throw new HttpError(412, err.message);
    throw err;
  }
}

export const fontRoutes: RouteDef[] = [
  route({
    method: 'POST',
    path: `${ORG}/storage/upload`,
    params: orgParams,
    body: z
      .object({
        file: z
          .object({
            name: z
              .string()
              .min(1)
              .max(256)
              .regex(/^[^\0]*$/),
            type: z.string().min(1).max(128),
            size: z.number(),
          })
          .strict(),
        kind: z.enum(['customization_font', 'import_file', 'organization_file']),
      })
      .strict(),
    handler: async ({ app, principal, params, body }) => created(await fonts.createUploadUrl(app, principal, params.organizationId, body)),
  }),
  route({
    method: 'PUT',
    path: '/v1/storage/uploads/:uploadId',
    summary: 'Receive the bytes of a signed upload (generateStorageUploadURL): the signature in the URL is the auth',
    auth: false,
    rawBody: true,
    params: { uploadId: entityId },
    query: { exp: z.coerce.number().int(), sig: z.string().max(128) },
    handler: async ({ app, req, params, query }) => {
      const bytes = await readRawBody(req, fonts.FONT_MAX_BYTES);
      await fonts.receiveUpload(app, params.uploadId, query, String(req.headers['content-type'] ?? ''), bytes);
      return { status: 200, body: {} };
    },
  }),
  route({
    method: 'GET',
    path: `${ORG}/fonts`,
    params: orgParams,
    handler: async ({ app, principal, params }) => ok(await fonts.listFonts(app, principal, params.organizationId)),
  }),
  route({
    method: 'PUT',
    path: `${ORG}/fonts`,
    params: orgParams,
    body: z
      .object({
        fontFamily: family,
        fontFaces: z.array(z.object({ weight, storageKey }).strict()).min(1).max(fonts.MAX_FACES),
      })
      .strict(),
    handler: async ({ app, principal, params, body }) =>
      created(await precondition(fonts.createFont(app, principal, params.organizationId, body))),
  }),
  route({
    method: 'GET',
    path: `${ORG}/fonts/:fontId`,
    params: fontParams,
    handler: async ({ app, principal, params }) => ok(await fonts.getFont(app, principal, params.organizationId, params.fontId)),
  }),
  route({
    method: 'POST',
    path: `${ORG}/fonts/:fontId`,
    params: fontParams,
    body: z
      .object({
        fontFamily: family,
        fontFaces: z.array(z.object({ weight, storageKey: storageKey.nullable() }).strict()).max(fonts.MAX_FACES),
      })
      .partial()
      .strict(),
    handler: async ({ app, principal, params, body }) =>
      created(await precondition(fonts.updateFont(app, principal, params.organizationId, params.fontId, body))),
  }),
  route({
    method: 'DELETE',
    path: `${ORG}/fonts/:fontId`,
    params: fontParams,
    handler: async ({ app, principal, params }) =>
      (await fonts.deleteFont(app, principal, params.organizationId, params.fontId)) ? { status: 205 } : noContent(),
  }),
  route({
    method: 'GET',
    path: '/fonts/:fontId/:weight',
    summary: 'A custom font file, for readers (no token)',
    auth: false,
    params: { fontId: entityId, weight: z.coerce.number().int().min(1).max(1000) },
    handler: async ({ app, params }) => {
      const f = await fonts.openFontFile(app, params.fontId, params.weight);
      return {
        status: 200,
        stream: f.stream,
        headers: {
          'content-type': f.contentType,
          'content-length': String(f.size),
          'cache-control': 'public, max-age=3600',
          'access-control-allow-origin': '*',
          'x-content-type-options': 'nosniff',
        },
      };
    },
  }),
];
