// Change request reviews, requested reviewers, contributors and the organization's change request
// list (issue 28); the rules are in src/services/reviews.ts.
import { z } from 'zod';
import { route, ok, created, noContent, type Reply } from '../http/route.js';
import { entityId, listQuery } from '../http/validate.js';
import * as service from '../services/reviews.js';
import { changeRequestDescription } from './change-requests.js';

const crParams = { spaceId: entityId, changeRequestId: entityId };
const format = z.enum(['markdown', 'document']).default('markdown');

const jsonDocument = z
  .object({ object: z.literal('document'), data: z.record(z.string(), z.unknown()).default({}), nodes: z.array(z.any()) })
  .passthrough();
/** A review comment: the description's `Document`, or `{markdown}` / `{document}`. */
const reviewComment = z.union([
  z.object({ markdown: z.string().max(100_000) }).strict(),
  z.object({ document: jsonDocument }).strict(),
  jsonDocument.transform((doc) => ({ document: doc })),
]);

const userIds = z.array(entityId).max(service.MAX_REQUESTED_USERS, { message: `at most ${service.MAX_REQUESTED_USERS} users` });

/** A value given once, several times or comma-separated, as a list. */
const statusList = (max: number) =>
  z
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
    .pipe(
      z
        .array(z.enum(['draft', 'open', 'archived', 'merged']))
        .max(max)
        .optional(),
    );

const userList = z.array(entityId).max(100, { message: 'at most 100 users' });
/** The description's MergeRulesSpaceConfiguration (PATCH /spaces/{spaceId} `mergeRules`). */
export const mergeRulesSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('inherit') }).strict(),
  z.object({ type: z.literal('none') }).strict(),
  z
    .object({
      type: z.literal('rules'),
      rules: z
        .array(
          z
            .object({
              rule: z.string().min(1).max(100),
              users: userList.optional(),
              expression: z.string().max(2000).optional(),
              message: z.string().max(500).optional(),
            })
            .strict(),
        )
        .max(20),
    })
    .strict(),
]);

export const reviewRoutes = [
  route({
    method: 'GET',
    path: '/v1/spaces/:spaceId/change-requests/:changeRequestId/reviews',
    params: crParams,
    query: { ...listQuery, format, outdated: z.enum(['true', 'false']).optional() },
    handler: async ({ app, principal, params, query }) =>
      ok(
        await service.listReviews(app, principal, params.spaceId, params.changeRequestId, {
          ...query,
          outdated: query.outdated === undefined ? undefined : query.outdated === 'true',
        }),
      ),
  }),
  route({
    method: 'POST',
    path: '/v1/spaces/:spaceId/change-requests/:changeRequestId/reviews',
    params: crParams,
    body: z.object({ status: z.enum(['approved', 'changes-requested']), comment: reviewComment.optional() }).strict(),
    handler: async ({ app, principal, params, body }) =>
      created(await service.submitReview(app, principal, params.spaceId, params.changeRequestId, body)),
  }),
  route({
    method: 'GET',
    path: '/v1/spaces/:spaceId/change-requests/:changeRequestId/reviews/:reviewId',
    params: { ...crParams, reviewId: entityId },
    query: { format },
    handler: async ({ app, principal, params, query }) =>
      ok(await service.getReview(app, principal, params.spaceId, params.changeRequestId, params.reviewId, query.format)),
  }),
  route({
    method: 'GET',
    path: '/v1/spaces/:spaceId/change-requests/:changeRequestId/requested-reviewers',
    params: crParams,
    query: listQuery,
    handler: async ({ app, principal, params, query }) =>
      ok(await service.listRequestedReviewers(app, principal, params.spaceId, params.changeRequestId, query)),
  }),
  route({
    method: 'POST',
    path: '/v1/spaces/:spaceId/change-requests/:changeRequestId/requested-reviewers',
    params: crParams,
    body: z
      .object({
        users: userIds,
        subject: z.string().max(100, { message: 'must be at most 100 characters' }).optional(),
        // Stored as the change request's description (as PATCH stores it).
        description: changeRequestDescription.optional(),
      })
      .strict(),
    handler: async ({ app, principal, params, body }) =>
      ok(await service.requestReviewers(app, principal, params.spaceId, params.changeRequestId, body)),
  }),
  route({
    method: 'DELETE',
    path: '/v1/spaces/:spaceId/change-requests/:changeRequestId/requested-reviewers/:userId',
    params: { ...crParams, userId: entityId },
    handler: async ({ app, principal, params }): Promise<Reply> =>
      (await service.removeRequestedReviewer(app, principal, params.spaceId, params.changeRequestId, params.userId))
        ? { status: 205 }
        : noContent(),
  }),
  route({
    method: 'GET',
    path: '/v1/spaces/:spaceId/change-requests/:changeRequestId/contributors',
    params: crParams,
    handler: async ({ app, principal, params }) =>
      ok(await service.listContributors(app, principal, params.spaceId, params.changeRequestId)),
  }),
  route({
    method: 'GET',
    path: '/v1/orgs/:organizationId/change-requests',
    params: { organizationId: entityId },
    query: {
      ...listQuery,
      status: statusList(4),
      creator: entityId.optional(),
      contributor: entityId.optional(),
      requestedReviewer: entityId.optional(),
      site: entityId.optional(),
      space: entityId.optional(),
      topic: z.string().max(200).optional(),
      styleguideRun: z.string().max(200).optional(),
      finding: z.enum(['none', 'all']).optional(),
      orderBy: z.enum(['updatedAt', 'createdAt']).optional(),
    },
    handler: async ({ app, principal, params, query }) =>
      ok(await service.listOrgChangeRequests(app, principal, params.organizationId, query)),
  }),
];
