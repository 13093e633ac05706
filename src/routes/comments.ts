import { z } from 'zod';
import { route, ok, noContent, type RouteDef } from '../http/route.js';
import { entityId, listQuery } from '../http/validate.js';
import * as service from '../services/comments.js';
import type { BaseRef } from '../services/comments.js';

// Every operation exists under two bases: a space's main content and one change request
// ({changeRequestId} is its id or its number). The rules are in src/services/comments.ts.

const format = z.enum(['markdown', 'document']).default('markdown');

const jsonDocument = z
  .object({ object: z.literal('document'), data: z.record(z.string(), z.unknown()), nodes: z.array(z.any()) })
  .passthrough();

// A comment body: `{markdown}`, `{document}`, or the document itself (the public description's
// `body: Document`, which the official client sends); the last is read as `{document}`.
const document = z.union([
  z.object({ markdown: z.string().max(100_000) }).strict(),
  z.object({ document: jsonDocument }).strict(),
  jsonDocument.extend({ data: z.record(z.string(), z.unknown()).default({}) }).transform((doc) => ({ document: doc })),
]);

const emojis = z.array(z.string().min(1).max(64)).max(50);

/** `authors` as one comma-separated value (and as repeated keys where the query parser keeps them). */
const authors = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .transform((v) =>
    v === undefined
      ? undefined
      : (Array.isArray(v) ? v : [v])
          .flatMap((s) => s.split(','))
          .map((s) => s.trim())
          .filter(Boolean),
  )
  .pipe(z.array(entityId).max(100, { message: 'at most 100 authors' }).optional());

const postComment = z
  .object({
    node: z.string().min(1).max(200).optional(),
    page: entityId.optional(),
    body: document,
    tableCell: z
      .object({ record: z.string().min(1).max(200), definition: z.string().min(1).max(200) })
      .strict()
      .optional(),
  })
  .strict();

const updateShape = {
  body: document.optional(),
  addedReactions: emojis.optional(),
  removedReactions: emojis.optional(),
};
const updateComment = z.object({ resolved: z.boolean().optional(), ...updateShape }).strict();
// The space base does not resolve replies (the public description's UpdateCommentReplySchema).
const updateReplyInSpace = z.object(updateShape).strict();

const commentId = { commentId: entityId };
const replyId = { commentId: entityId, commentReplyId: entityId };

type BaseParams = { spaceId: typeof entityId; changeRequestId: z.ZodType<string | undefined> };

function routesFor(prefix: string, params: BaseParams, kind: 'space' | 'change-request'): RouteDef[] {
  const ref = (params: { spaceId: string; changeRequestId?: string }): BaseRef => ({
    spaceId: params.spaceId,
    changeRequestId: params.changeRequestId,
  });
  return [
    route({
      method: 'GET',
      path: `${prefix}/comments`,
      params,
      query: {
        ...listQuery,
        order: z.enum(['asc', 'desc']).default('desc'),
        status: z.enum(['all', 'open', 'resolved']).default('all'),
        targetPage: entityId.optional(),
        authors,
        format,
      },
      handler: async ({ app, principal, params, query }) => ok(await service.listComments(app, principal, ref(params), query)),
    }),
    route({
      method: 'POST',
      path: `${prefix}/comments`,
      params,
      query: { format },
      body: postComment,
      handler: async ({ app, principal, params, query, body }) =>
        ok(await service.postComment(app, principal, ref(params), body, query.format)),
    }),
    route({
      method: 'GET',
      path: `${prefix}/comments/:commentId`,
      params: { ...params, ...commentId },
      query: { format },
      handler: async ({ app, principal, params, query }) =>
        ok(await service.getComment(app, principal, ref(params), params.commentId, query.format)),
    }),
    route({
      method: 'PUT',
      path: `${prefix}/comments/:commentId`,
      params: { ...params, ...commentId },
      query: { format },
      body: updateComment,
      handler: async ({ app, principal, params, query, body }) =>
        ok(await service.updateComment(app, principal, ref(params), params.commentId, body, query.format)),
    }),
    route({
      method: 'DELETE',
      path: `${prefix}/comments/:commentId`,
      params: { ...params, ...commentId },
      handler: async ({ app, principal, params }) => {
        await service.deleteComment(app, principal, ref(params), params.commentId);
        return noContent();
      },
    }),
    // The seed lists replies only on the change request base; the public description has them on
    // both (listCommentRepliesInSpace), so both bases serve them.
    route({
      method: 'GET',
      path: `${prefix}/comments/:commentId/replies`,
      params: { ...params, ...commentId },
      query: { ...listQuery, format },
      handler: async ({ app, principal, params, query }) =>
        ok(await service.listReplies(app, principal, ref(params), params.commentId, query)),
    }),
    route({
      method: 'POST',
      path: `${prefix}/comments/:commentId/replies`,
      params: { ...params, ...commentId },
      query: { format },
      body: z.object({ body: document }).strict(),
      handler: async ({ app, principal, params, query, body }) =>
        ok(await service.postReply(app, principal, ref(params), params.commentId, body, query.format)),
    }),
    route({
      method: 'GET',
      path: `${prefix}/comments/:commentId/replies/:commentReplyId`,
      params: { ...params, ...replyId },
      query: { format },
      handler: async ({ app, principal, params, query }) =>
        ok(await service.getReply(app, principal, ref(params), params.commentId, params.commentReplyId, query.format)),
    }),
    route({
      method: 'PUT',
      path: `${prefix}/comments/:commentId/replies/:commentReplyId`,
      params: { ...params, ...replyId },
      query: { format },
      body: kind === 'space' ? updateReplyInSpace : updateComment,
      handler: async ({ app, principal, params, query, body }) =>
        ok(await service.updateReply(app, principal, ref(params), params.commentId, params.commentReplyId, body, query.format)),
    }),
    route({
      method: 'DELETE',
      path: `${prefix}/comments/:commentId/replies/:commentReplyId`,
      params: { ...params, ...replyId },
      handler: async ({ app, principal, params }) => {
        await service.deleteReply(app, principal, ref(params), params.commentId, params.commentReplyId);
        return noContent();
      },
    }),
    route({
      method: 'GET',
      path: `${prefix}/commenters`,
      params,
      query: listQuery,
      handler: async ({ app, principal, params, query }) => ok(await service.listCommenters(app, principal, ref(params), query)),
    }),
  ];
}

export const commentRoutes: RouteDef[] = [
  ...routesFor('/v1/spaces/:spaceId', { spaceId: entityId, changeRequestId: entityId.optional() }, 'space'),
  ...routesFor('/v1/spaces/:spaceId/change-requests/:changeRequestId', { spaceId: entityId, changeRequestId: entityId }, 'change-request'),
];
