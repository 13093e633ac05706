import { z } from 'zod';
import { route, ok, okJson, created } from '../http/route.js';
import { entityId, qBool, listQuery } from '../http/validate.js';
import * as service from '../services/change-requests.js';
import * as content from '../services/content.js';
import { readFlags, pageFlags, okJsonParts } from './content.js';

const crParams = { spaceId: entityId, changeRequestId: entityId };
const subject = z.string().max(100, { message: 'must be at most 100 characters' });

/**
 * A change request's description: the description's JSONDocument (not nullable: send a document
 * without nodes to empty it). Its nodes and size are checked by the service (400 naming the node).
 */
export const changeRequestDescription = z
  .object(
    { object: z.literal('document'), data: z.record(z.string(), z.unknown()).default({}), nodes: z.array(z.any()) },
    { message: 'must be a JSON document {"object": "document", "data", "nodes"}' },
  )
  .passthrough();
/** The description's ChangeRequestLinkInput list; `expanded` (read-only) is accepted and dropped. */
const changeRequestLinks = z
  .array(
    z
      .object({
        id: entityId.optional(),
        ref: z
          .object({
            kind: z.literal('url'),
            url: z
              .url({ protocol: /^https?$/, message: 'must be an http or https URL' })
              .max(2048, { message: 'must be at most 2048 characters' }),
          })
          .strict(),
        title: z.string().max(128, { message: 'must be at most 128 characters' }).optional(),
        expanded: z.unknown().optional(),
      })
      .strict()
      .transform(({ expanded: _expanded, ...link }) => link),
  )
  .max(10, { message: 'at most 10 links' });

const documentInput = z.union([
  z.object({ markdown: z.string().max(2_000_000) }).strict(),
  z
    .object({
      document: z.object({ object: z.literal('document'), data: z.record(z.string(), z.unknown()), nodes: z.array(z.any()) }).passthrough(),
    })
    .strict(),
]);
const pageMeta = {
  title: z.string().min(1).max(500).optional(),
  slug: z.string().max(100).optional(),
  emoji: z.string().max(50).optional(),
  icon: z.string().max(100).optional(),
  description: z.string().max(1000).optional(),
  hidden: z.boolean().optional(),
  noIndex: z.boolean().optional(),
  noRobotsIndex: z.boolean().optional(),
};
const change = z.discriminatedUnion('operation', [
  z
    .object({
      operation: z.literal('insert_page'),
      into: entityId.optional(),
      at: z.number().int().min(0).optional(),
      ref: z.string().min(1).max(200).optional(),
      document: documentInput,
      ...pageMeta,
    })
    .strict(),
  z
    .object({
      operation: z.literal('update_page'),
      page: entityId,
      into: entityId.nullable().optional(),
      at: z.number().int().min(0).optional(),
      document: documentInput.optional(),
      ...pageMeta,
    })
    .strict(),
  z.object({ operation: z.literal('delete_page'), page: entityId }).strict(),
  z
    .object({ operation: z.literal('revert_page'), page: entityId, revision: entityId.optional(), block: z.array(z.string()).optional() })
    .strict(),
  z
    .object({
      operation: z.literal('insert_files'),
      files: z
        .array(
          z
            .object({
              ref: z.string().min(1).max(200).optional(),
              name: z.string().min(1).max(256),
              contentType: z.string().max(200).optional(),
              url: z
                .url({ protocol: /^https?$/ })
                .max(2048)
                .optional(),
              base64: z.string().optional(),
            })
            .strict()
            .refine((f) => (f.url === undefined) !== (f.base64 === undefined), { message: 'set exactly one of url and base64' }),
        )
        .min(1)
        .max(20),
    })
    .strict(),
]);

export const changeRequestRoutes = [
  route({
    method: 'GET',
    path: '/v1/spaces/:spaceId/change-requests',
    params: { spaceId: entityId },
    query: { ...listQuery, status: z.enum(['draft', 'open', 'archived', 'merged']).optional(), creator: entityId.optional() },
    handler: async ({ app, principal, params, query }) => ok(await service.listChangeRequests(app, principal, params.spaceId, query)),
  }),
  route({
    method: 'POST',
    path: '/v1/spaces/:spaceId/change-requests',
    params: { spaceId: entityId },
    body: z.object({ subject: subject.optional(), agentTaskId: z.string().max(200).optional() }).strict(),
    bodyRequired: false,
    handler: async ({ app, principal, params, body }) =>
      created(await service.createChangeRequest(app, principal, params.spaceId, body?.subject ?? '')),
  }),
  route({
    method: 'GET',
    path: '/v1/spaces/:spaceId/change-requests/:changeRequestId',
    params: crParams,
    handler: async ({ app, principal, params }) =>
      ok(await service.getChangeRequest(app, principal, params.spaceId, params.changeRequestId)),
  }),
  route({
    method: 'PATCH',
    path: '/v1/spaces/:spaceId/change-requests/:changeRequestId',
    params: crParams,
    body: z
      .object({
        subject: subject.optional(),
        description: changeRequestDescription.optional(),
        links: changeRequestLinks.optional(),
        status: z.enum(['draft', 'open', 'archived']).optional(),
      })
      .strict(),
    handler: async ({ app, principal, params, body }) =>
      ok(await service.updateChangeRequest(app, principal, params.spaceId, params.changeRequestId, body)),
  }),
  route({
    method: 'POST',
    path: '/v1/spaces/:spaceId/change-requests/:changeRequestId/merge',
    params: crParams,
    handler: async ({ app, principal, params }) =>
      ok(await service.mergeChangeRequest(app, principal, params.spaceId, params.changeRequestId)),
  }),
  route({
    method: 'POST',
    path: '/v1/spaces/:spaceId/change-requests/:changeRequestId/update',
    params: crParams,
    handler: async ({ app, principal, params }) => ok(await service.updateFromMain(app, principal, params.spaceId, params.changeRequestId)),
  }),
  route({
    method: 'POST',
    path: '/v1/spaces/:spaceId/change-requests/:changeRequestId/content',
    params: crParams,
    query: { compat: qBool(true) },
    body: z.object({ changes: z.array(change).min(1).max(50) }).strict(),
    handler: async ({ app, principal, params, query, body }) => {
      const r = await service.applyContentChanges(app, principal, params.spaceId, params.changeRequestId, body.changes);
      return ok(query.compat ? r.changeRequest : r);
    },
  }),
  route({
    method: 'GET',
    path: '/v1/spaces/:spaceId/change-requests/:changeRequestId/content',
    params: crParams,
    query: readFlags,
    handler: async ({ app, principal, params, query }) =>
      okJsonParts(
        await content.readRevisionJson(
          app,
          await service.changeRequestTarget(app, principal, params.spaceId, params.changeRequestId),
          query,
        ),
      ),
  }),
  route({
    method: 'GET',
    path: '/v1/spaces/:spaceId/change-requests/:changeRequestId/content/pages',
    params: crParams,
    query: readFlags,
    handler: async ({ app, principal, params, query }) =>
      okJsonParts(
        await content.readPagesJson(app, await service.changeRequestTarget(app, principal, params.spaceId, params.changeRequestId), query),
      ),
  }),
  route({
    method: 'GET',
    path: '/v1/spaces/:spaceId/change-requests/:changeRequestId/content/files',
    params: crParams,
    query: { ...listQuery, ...readFlags },
    handler: async ({ app, principal, params, query }) =>
      ok(await content.listFiles(app, await service.changeRequestTarget(app, principal, params.spaceId, params.changeRequestId), query)),
  }),
  route({
    method: 'GET',
    path: '/v1/spaces/:spaceId/change-requests/:changeRequestId/content/files/:fileId',
    params: { ...crParams, fileId: entityId },
    query: readFlags,
    handler: async ({ app, principal, params, query }) =>
      ok(
        await content.readFile(
          app,
          await service.changeRequestTarget(app, principal, params.spaceId, params.changeRequestId),
          params.fileId,
          query,
        ),
      ),
  }),
  route({
    method: 'GET',
    path: '/v1/spaces/:spaceId/change-requests/:changeRequestId/content/page/:pageId',
    params: { ...crParams, pageId: entityId },
    query: pageFlags,
    handler: async ({ app, principal, params, query }) =>
      okJson(
        await content.readPageJson(
          app,
          await service.changeRequestTarget(app, principal, params.spaceId, params.changeRequestId),
          params.pageId,
          query,
        ),
      ),
  }),
];
