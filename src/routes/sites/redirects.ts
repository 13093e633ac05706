// Site redirects (issue 29 item 1): the six operations of the 0.202.0 description.
import { z } from 'zod';
import { route, ok, created, noContent } from '../../http/route.js';
import type { RouteDef } from '../../http/route.js';
import { entityId, listQuery } from '../../http/validate.js';
import * as redirects from '../../services/sites/redirects.js';
import { MAX_SOURCE_LENGTH, SOURCE_PATTERN } from '../../sites/redirects.js';
import { qOptionalBool, shareKeyQuery, siteParams } from './sites.js';

const SITE = '/v1/orgs/:organizationId/sites/:siteId';
const source = z
  .string()
  .min(1)
  .max(MAX_SOURCE_LENGTH)
  .regex(SOURCE_PATTERN, { message: 'must be an absolute path, optionally ending in * or /*' });
const url = z
  .string()
  .max(2048)
  .regex(/^[^\0-\x1f\x7f]*$/, { message: 'must not contain control characters' });
const destination = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('site-section'), siteSectionId: entityId }).strict(),
  z.object({ kind: z.literal('site-space'), siteSpaceId: entityId }).strict(),
  z.object({ kind: z.literal('site-page'), siteSpaceId: entityId, pageId: entityId }).strict(),
  z.object({ kind: z.literal('external'), url }).strict(),
]);
const inputDestination = z.union([
  destination,
  z
    .object({
      kind: z.literal('path'),
      spaceId: entityId,
      path: z
        .string()
        .max(1024)
        .regex(/^[^\0]*$/),
    })
    .strict(),
]);
const redirectParams = { ...siteParams, siteRedirectId: entityId };

export const siteRedirectRoutes: RouteDef[] = [
  route({
    method: 'GET',
    path: `${SITE}/redirects`,
    params: siteParams,
    query: {
      ...listQuery,
      search: z.string().max(512).optional(),
      draft: qOptionalBool,
      orderBy: z.enum(['createdAt', 'updatedAt', 'source']).optional(),
    },
    handler: async ({ app, principal, params, query }) =>
      ok(await redirects.listRedirects(app, principal, params.organizationId, params.siteId, query)),
  }),
  route({
    method: 'POST',
    path: `${SITE}/redirects`,
    params: siteParams,
    body: z
      .object({
        source,
        captureWildcard: z.boolean().optional(),
        draft: z.boolean().optional(),
        permanent: z.boolean().optional(),
        destination: inputDestination,
      })
      .strict(),
    handler: async ({ app, principal, params, body }) =>
      created(await redirects.createRedirect(app, principal, params.organizationId, params.siteId, body)),
  }),
  route({
    method: 'PUT',
    path: `${SITE}/redirects`,
    params: siteParams,
    body: z
      .object({
        redirects: z
          .array(
            z.union([
              z.object({ source, intent: z.literal('publish') }).strict(),
              z
                .object({
                  source,
                  intent: z.enum(['live', 'draft']).optional(),
                  captureWildcard: z.boolean().optional(),
                  permanent: z.boolean().optional(),
                  destination: inputDestination.nullable(),
                })
                .strict(),
            ]),
          )
          .min(1)
          .max(redirects.MAX_BULK),
      })
      .strict(),
    handler: async ({ app, principal, params, body }) =>
      ok(await redirects.bulkUpsertRedirects(app, principal, params.organizationId, params.siteId, body.redirects)),
  }),
  route({
    method: 'PATCH',
    path: `${SITE}/redirects/:siteRedirectId`,
    params: redirectParams,
    body: z
      .object({
        source,
        captureWildcard: z.boolean(),
        draft: z.boolean(),
        permanent: z.boolean(),
        destination,
      })
      .partial()
      .strict(),
    handler: async ({ app, principal, params, body }) =>
      ok(await redirects.updateRedirect(app, principal, params.organizationId, params.siteId, params.siteRedirectId, body)),
  }),
  route({
    method: 'DELETE',
    path: `${SITE}/redirects/:siteRedirectId`,
    params: redirectParams,
    handler: async ({ app, principal, params }) => {
      const existed = await redirects.deleteRedirect(app, principal, params.organizationId, params.siteId, params.siteRedirectId);
      return existed ? { status: 205 } : noContent();
    },
  }),
  route({
    method: 'GET',
    path: `${SITE}/redirect`,
    params: siteParams,
    query: { ...shareKeyQuery, source },
    handler: async ({ app, principal, params, query }) =>
      ok(await redirects.redirectBySource(app, principal, params.organizationId, params.siteId, query.source)),
  }),
];
