import { z } from 'zod';
import { mergeRulesSchema } from './reviews.js';
import { route, ok, created, noContent } from '../http/route.js';
import { entityId, roleSchema, listQuery } from '../http/validate.js';
import * as service from '../services/spaces.js';
import { listOrgSpaces } from '../services/space-lists.js';

const spaceParams = { spaceId: entityId };
const LANGUAGES = [
  'en',
  'fr',
  'de',
  'es',
  'it',
  'pt',
  'pt-br',
  'ru',
  'ja',
  'zh',
  'zh-tw',
  'yue',
  'ko',
  'ar',
  'hi',
  'nl',
  'pl',
  'tr',
  'sv',
  'no',
  'da',
  'fi',
  'el',
  'cs',
  'hu',
  'ro',
  'th',
  'vi',
  'id',
  'ms',
  'he',
  'uk',
  'sk',
  'bg',
  'hr',
  'lt',
  'lv',
  'et',
  'sl',
] as const;
const VISIBILITIES = ['public', 'unlisted', 'share-link', 'visitor-auth', 'in-collection', 'private'] as const;
const title = z.string().max(50, { message: 'must be at most 50 characters' });
const emoji = z.string().max(50, { message: 'must be at most 50 characters' });
const pointer = z.union([
  z.object({ type: z.literal('space'), space: entityId }).strict(),
  z.object({ type: z.literal('collection'), collection: entityId }).strict(),
]);
export const positionSchema = z.object({ before: pointer.optional(), after: pointer.optional() }).strict();

/**
 * `ComputedContentSourceRevision` of the public description: only its OpenAPI form is computed by
 * this server (a translation or an integration source is refused naming `body.computedSource.type`).
 */
const computedSource = z
  .object({
    type: z.literal('builtin:openapi'),
    dependencies: z
      .object({
        spec: z
          .object({
            ref: z.object({ kind: z.literal('openapi'), spec: z.string().min(1).max(100) }).strict(),
            // The resolved form (ComputedContentDependencyOpenAPI) carries the spec's value too; ignored.
            value: z.unknown().optional(),
          })
          .strict(),
      })
      .strict(),
    props: z
      .object({
        models: z.boolean(),
        downloadLink: z.boolean().optional(),
        grouping: z.enum(['by-tag', 'by-operation']).optional(),
      })
      .strict(),
  })
  .strict();

export const spaceRoutes = [
  route({
    method: 'POST',
    path: '/v1/orgs/:organizationId/spaces',
    params: { organizationId: entityId },
    body: z
      .object({
        title,
        emoji,
        parent: entityId,
        language: z.enum(LANGUAGES),
        editMode: z.enum(['live', 'locked']),
        visibility: z.enum(VISIBILITIES),
        empty: z.literal(true),
        template: z
          .object({
            id: z.string().min(1).max(100),
            params: z
              .object({ contentRefs: z.record(z.string(), z.object({ kind: z.literal('file'), file: entityId })).optional() })
              .optional(),
          })
          .strict(),
        computedSource,
      })
      .partial()
      .strict(),
    bodyRequired: false,
    handler: async ({ app, principal, params, body }) =>
      created(await service.createSpace(app, principal, params.organizationId, body ?? {})),
  }),
  route({
    method: 'GET',
    path: '/v1/orgs/:organizationId/spaces',
    params: { organizationId: entityId },
    query: listQuery,
    handler: async ({ app, principal, params, query }) => ok(await listOrgSpaces(app, principal, params.organizationId, query)),
  }),
  route({
    method: 'GET',
    path: '/v1/spaces/:spaceId',
    params: spaceParams,
    query: { shareKey: z.string().max(200).optional() },
    handler: async ({ app, principal, params, query }) => ok(await service.getSpace(app, principal, params.spaceId, query)),
  }),
  route({
    method: 'PATCH',
    path: '/v1/spaces/:spaceId',
    params: spaceParams,
    body: z
      .object({
        title,
        emoji,
        editMode: z.enum(['live', 'locked']),
        defaultLevel: z.union([roleSchema, z.literal('inherit'), z.null()]),
        language: z.enum(LANGUAGES),
        visibility: z.enum(VISIBILITIES),
        mergeRules: mergeRulesSchema,
      })
      .partial()
      .strict(),
    handler: async ({ app, principal, params, body }) => ok(await service.updateSpace(app, principal, params.spaceId, body)),
  }),
  route({
    method: 'DELETE',
    path: '/v1/spaces/:spaceId',
    params: spaceParams,
    handler: async ({ app, principal, params }) => {
      await service.deleteSpace(app, principal, params.spaceId);
      return noContent();
    },
  }),
  route({
    method: 'POST',
    path: '/v1/spaces/:spaceId/duplicate',
    params: spaceParams,
    handler: async ({ app, principal, params }) => created(await service.duplicateSpace(app, principal, params.spaceId)),
  }),
  route({
    method: 'POST',
    path: '/v1/spaces/:spaceId/restore',
    params: spaceParams,
    handler: async ({ app, principal, params }) => ok(await service.restoreSpace(app, principal, params.spaceId)),
  }),
  route({
    method: 'POST',
    path: '/v1/spaces/:spaceId/move',
    params: spaceParams,
    body: z
      .object({ parent: entityId.nullable().optional(), position: positionSchema.optional() })
      .strict()
      .refine((b) => b.parent !== undefined || b.position !== undefined, { message: 'give "parent", "position" or both' }),
    handler: async ({ app, principal, params, body }) => ok(await service.moveSpace(app, principal, params.spaceId, body)),
  }),
  route({
    method: 'POST',
    path: '/v1/spaces/:spaceId/transfer',
    params: spaceParams,
    body: z.object({ organization: entityId }).strict(),
    handler: async ({ app, principal, params, body }) => ok(await service.transferSpace(app, principal, params.spaceId, body.organization)),
  }),
];
