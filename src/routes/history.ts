// History (issue 28): revisions of a space, what they and change requests changed, documents by id,
// reusable content and page meta links; the rules are in src/services/history.ts.
import { z } from 'zod';
import { route, ok, okJson } from '../http/route.js';
import { entityId, listQuery } from '../http/validate.js';
import * as content from '../services/content.js';
import * as history from '../services/history.js';
import { changeRequestTarget } from '../services/change-requests.js';
import { readFlags, pageFlags, okJsonParts } from './content.js';

const revParams = { spaceId: entityId, revisionId: entityId };
const crParams = { spaceId: entityId, changeRequestId: entityId };
/** A page path: slugs joined by slashes (find-my-way gives the rest of the path after the prefix). */
const pagePath = z.string().min(1).max(2048);
const documentFlags = { evaluated: pageFlags.evaluated, dereferenced: pageFlags.dereferenced };
const changesLimit = {
  limit: z
    .string()
    .regex(/^\d+$/, { message: 'expected a whole number' })
    .transform(Number)
    .pipe(
      z
        .number()
        .min(0)
        .max(history.MAX_CHANGES, { message: `must be at most ${history.MAX_CHANGES}` }),
    )
    .optional(),
};

export const historyRoutes = [
  // ---- revisions ----
  route({
    method: 'GET',
    path: '/v1/spaces/:spaceId/revisions/:revisionId',
    params: revParams,
    query: readFlags,
    handler: async ({ app, principal, params, query }) =>
      okJsonParts(await history.readRevisionJson(app, principal, params.spaceId, params.revisionId, query)),
  }),
  route({
    method: 'GET',
    path: '/v1/spaces/:spaceId/revisions/:revisionId/changes',
    params: revParams,
    query: { ...readFlags, ...changesLimit },
    handler: async ({ app, principal, params, query }) =>
      ok(await history.revisionChanges(app, principal, params.spaceId, params.revisionId, query)),
  }),
  route({
    method: 'GET',
    path: '/v1/spaces/:spaceId/revisions/:revisionId/pages',
    params: revParams,
    query: readFlags,
    handler: async ({ app, principal, params, query }) =>
      okJsonParts(await content.readPagesJson(app, await history.revisionTarget(app, principal, params.spaceId, params.revisionId), query)),
  }),
  route({
    method: 'GET',
    path: '/v1/spaces/:spaceId/revisions/:revisionId/files',
    params: revParams,
    query: { ...listQuery, ...readFlags },
    handler: async ({ app, principal, params, query }) =>
      ok(await content.listFiles(app, await history.revisionTarget(app, principal, params.spaceId, params.revisionId), query)),
  }),
  route({
    method: 'GET',
    path: '/v1/spaces/:spaceId/revisions/:revisionId/files/:fileId',
    params: { ...revParams, fileId: entityId },
    query: readFlags,
    handler: async ({ app, principal, params, query }) =>
      ok(
        await content.readFile(app, await history.revisionTarget(app, principal, params.spaceId, params.revisionId), params.fileId, query),
      ),
  }),
  route({
    method: 'GET',
    path: '/v1/spaces/:spaceId/revisions/:revisionId/page/:pageId',
    params: { ...revParams, pageId: entityId },
    query: pageFlags,
    handler: async ({ app, principal, params, query }) =>
      okJson(
        await content.readPageJson(
          app,
          await history.revisionTarget(app, principal, params.spaceId, params.revisionId),
          params.pageId,
          query,
        ),
      ),
  }),
  route({
    method: 'GET',
    path: '/v1/spaces/:spaceId/revisions/:revisionId/page/:pageId/document',
    params: { ...revParams, pageId: entityId },
    query: documentFlags,
    handler: async ({ app, principal, params, query }) =>
      ok(
        await history.readPageDocument(
          app,
          await history.revisionTarget(app, principal, params.spaceId, params.revisionId),
          params.pageId,
          query,
        ),
      ),
  }),
  route({
    method: 'GET',
    path: '/v1/spaces/:spaceId/revisions/:revisionId/page/:pageId/meta-links',
    params: { ...revParams, pageId: entityId },
    handler: async ({ app, principal, params }) =>
      ok(
        await history.readPageMetaLinks(
          app,
          await history.revisionTarget(app, principal, params.spaceId, params.revisionId),
          params.pageId,
        ),
      ),
  }),
  route({
    method: 'GET',
    path: '/v1/spaces/:spaceId/revisions/:revisionId/path/*',
    params: { ...revParams, '*': pagePath },
    query: pageFlags,
    handler: async ({ app, principal, params, query }) =>
      okJson(
        await history.readPageByPath(
          app,
          await history.revisionTarget(app, principal, params.spaceId, params.revisionId),
          params['*'],
          query,
        ),
      ),
  }),
  route({
    method: 'GET',
    path: '/v1/spaces/:spaceId/revisions/:revisionId/reusable-contents/:reusableContentId',
    params: { ...revParams, reusableContentId: entityId },
    query: readFlags,
    handler: async ({ app, principal, params, query }) =>
      ok(
        await history.readReusableContent(
          app,
          await history.revisionTarget(app, principal, params.spaceId, params.revisionId),
          params.reusableContentId,
          query,
        ),
      ),
  }),
  route({
    method: 'GET',
    path: '/v1/spaces/:spaceId/revisions/:revisionId/reusable-contents/:reusableContentId/document',
    params: { ...revParams, reusableContentId: entityId },
    query: documentFlags,
    handler: async ({ app, principal, params, query }) =>
      okJson(
        await history.readReusableContentDocument(
          app,
          await history.revisionTarget(app, principal, params.spaceId, params.revisionId),
          params.reusableContentId,
          query,
        ),
      ),
  }),

  // ---- the space's current content ----
  route({
    method: 'GET',
    path: '/v1/spaces/:spaceId/content/path/*',
    params: { spaceId: entityId, '*': pagePath },
    query: pageFlags,
    handler: async ({ app, principal, params, query }) =>
      okJson(await history.readPageByPath(app, await content.mainTarget(app, principal, params.spaceId), params['*'], query)),
  }),
  route({
    method: 'GET',
    path: '/v1/spaces/:spaceId/content/page/:pageId/meta-links',
    params: { spaceId: entityId, pageId: entityId },
    handler: async ({ app, principal, params }) =>
      ok(await history.readPageMetaLinks(app, await content.mainTarget(app, principal, params.spaceId), params.pageId)),
  }),
  route({
    method: 'GET',
    path: '/v1/spaces/:spaceId/content/reusable-contents/:reusableContentId',
    params: { spaceId: entityId, reusableContentId: entityId },
    query: readFlags,
    handler: async ({ app, principal, params, query }) =>
      ok(await history.readReusableContent(app, await content.mainTarget(app, principal, params.spaceId), params.reusableContentId, query)),
  }),
  route({
    method: 'GET',
    path: '/v1/spaces/:spaceId/documents/:documentId',
    params: { spaceId: entityId, documentId: entityId },
    query: { schema: z.enum(['current', 'next']).optional() },
    handler: async ({ app, principal, params }) => okJson(await history.readDocument(app, principal, params.spaceId, params.documentId)),
  }),

  // ---- change requests ----
  route({
    method: 'GET',
    path: '/v1/spaces/:spaceId/change-requests/:changeRequestId/changes',
    params: crParams,
    query: changesLimit,
    handler: async ({ app, principal, params, query }) =>
      ok(await history.changeRequestChanges(app, principal, params.spaceId, params.changeRequestId, query)),
  }),
  route({
    method: 'GET',
    path: '/v1/spaces/:spaceId/change-requests/:changeRequestId/content/page/:pageId/meta-links',
    params: { ...crParams, pageId: entityId },
    handler: async ({ app, principal, params }) =>
      ok(
        await history.readPageMetaLinks(
          app,
          await changeRequestTarget(app, principal, params.spaceId, params.changeRequestId),
          params.pageId,
        ),
      ),
  }),
  route({
    method: 'GET',
    path: '/v1/spaces/:spaceId/change-requests/:changeRequestId/content/reusable-contents/:reusableContentId',
    params: { ...crParams, reusableContentId: entityId },
    query: readFlags,
    handler: async ({ app, principal, params, query }) =>
      ok(
        await history.readReusableContent(
          app,
          await changeRequestTarget(app, principal, params.spaceId, params.changeRequestId),
          params.reusableContentId,
          query,
        ),
      ),
  }),
];
