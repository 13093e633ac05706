import { z } from 'zod';
import { route, ok, type RouteDef } from '../http/route.js';
import { entityId, listQuery } from '../http/validate.js';
import * as links from '../services/links.js';

const spaceParams = { spaceId: entityId };
const linkQuery = { ...listQuery, status: z.enum(['ok', 'broken', 'in-app']).optional() };

export const linkRoutes: RouteDef[] = [
  route({
    method: 'GET',
    path: '/v1/spaces/:spaceId/links',
    params: spaceParams,
    query: linkQuery,
    handler: async ({ app, principal, params, query }) =>
      ok(await links.listSpaceLinks(app, principal, await links.mainLinkScope(app, principal, params.spaceId), query)),
  }),
  route({
    method: 'GET',
    path: '/v1/spaces/:spaceId/content/page/:pageId/links',
    params: { ...spaceParams, pageId: entityId },
    query: linkQuery,
    handler: async ({ app, principal, params, query }) =>
      ok(await links.listPageLinks(app, principal, await links.mainLinkScope(app, principal, params.spaceId), params.pageId, query)),
  }),
  route({
    method: 'GET',
    path: '/v1/spaces/:spaceId/content/page/:pageId/backlinks',
    params: { ...spaceParams, pageId: entityId },
    query: listQuery,
    handler: async ({ app, principal, params, query }) =>
      ok(await links.listPageBacklinks(app, principal, await links.mainLinkScope(app, principal, params.spaceId), params.pageId, query)),
  }),
  route({
    method: 'GET',
    path: '/v1/spaces/:spaceId/content/files/:fileId/backlinks',
    params: { ...spaceParams, fileId: entityId },
    query: listQuery,
    handler: async ({ app, principal, params, query }) =>
      ok(await links.listFileBacklinks(app, principal, await links.mainLinkScope(app, principal, params.spaceId), params.fileId, query)),
  }),
  route({
    method: 'GET',
    path: '/v1/spaces/:spaceId/change-requests/:changeRequestId/content/page/:pageId/links',
    params: { ...spaceParams, changeRequestId: entityId, pageId: entityId },
    query: linkQuery,
    handler: async ({ app, principal, params, query }) =>
      ok(
        await links.listPageLinks(
          app,
          principal,
          await links.changeRequestLinkScope(app, principal, params.spaceId, params.changeRequestId),
          params.pageId,
          query,
        ),
      ),
  }),
  route({
    method: 'GET',
    path: '/v1/spaces/:spaceId/change-requests/:changeRequestId/content/files/:fileId/backlinks',
    params: { ...spaceParams, changeRequestId: entityId, fileId: entityId },
    query: listQuery,
    handler: async ({ app, principal, params, query }) =>
      ok(
        await links.listFileBacklinks(
          app,
          principal,
          await links.changeRequestLinkScope(app, principal, params.spaceId, params.changeRequestId),
          params.fileId,
          query,
        ),
      ),
  }),
];
