import { z } from 'zod';
import { route, ok, created, noContent } from '../http/route.js';
import type { RouteDef } from '../http/route.js';
import { entityId, qBool, roleSchema, listQuery } from '../http/validate.js';
import * as service from '../services/collections.js';
import { positionSchema } from './spaces.js';

const collectionParams = { collectionId: entityId };
// Limits from the public description (CollectionTitle, CollectionDescription).
const title = z.string().max(50, { message: 'must be at most 50 characters' });
const description = z.string().max(100, { message: 'must be at most 100 characters' });

export const collectionRoutes: RouteDef[] = [
  route({
    method: 'GET',
    path: '/v1/orgs/:organizationId/collections',
    params: { organizationId: entityId },
    // nested=true (default): every visible collection at any depth, in tree order; false: top level only.
    query: { ...listQuery, nested: qBool(true) },
    handler: async ({ app, principal, params, query }) =>
      ok(await service.listOrgCollections(app, principal, params.organizationId, query)),
  }),
  route({
    method: 'POST',
    path: '/v1/orgs/:organizationId/collections',
    params: { organizationId: entityId },
    body: z.object({ title, parent: entityId }).partial().strict(),
    bodyRequired: false,
    handler: async ({ app, principal, params, body }) => {
      const c = await service.createCollection(app, principal, params.organizationId, body ?? {});
      return created(c, { location: c.urls.location });
    },
  }),
  route({
    method: 'GET',
    path: '/v1/collections/:collectionId',
    params: collectionParams,
    handler: async ({ app, principal, params }) => ok(await service.getCollection(app, principal, params.collectionId)),
  }),
  route({
    method: 'PATCH',
    path: '/v1/collections/:collectionId',
    params: collectionParams,
    body: z
      .object({
        title,
        description: description.nullable(),
        defaultLevel: z.union([roleSchema, z.literal('inherit'), z.null()], { message: 'must be a role, "inherit" or null' }),
      })
      .partial()
      .strict(),
    handler: async ({ app, principal, params, body }) => ok(await service.updateCollection(app, principal, params.collectionId, body)),
  }),
  route({
    method: 'DELETE',
    path: '/v1/collections/:collectionId',
    params: collectionParams,
    handler: async ({ app, principal, params }) => {
      await service.deleteCollection(app, principal, params.collectionId);
      return noContent();
    },
  }),
  route({
    method: 'GET',
    path: '/v1/collections/:collectionId/spaces',
    params: collectionParams,
    query: listQuery,
    handler: async ({ app, principal, params, query }) =>
      ok(await service.listCollectionSpaces(app, principal, params.collectionId, query)),
  }),
  route({
    method: 'POST',
    path: '/v1/collections/:collectionId/move',
    params: collectionParams,
    body: z
      .object({ parent: entityId.nullable().optional(), position: positionSchema.optional() })
      .strict()
      .refine((b) => b.parent !== undefined || b.position !== undefined, { message: 'give "parent", "position" or both' }),
    handler: async ({ app, principal, params, body }) => ok(await service.moveCollection(app, principal, params.collectionId, body)),
  }),
  route({
    method: 'POST',
    path: '/v1/collections/:collectionId/transfer',
    params: collectionParams,
    body: z.object({ organization: entityId }).strict(),
    handler: async ({ app, principal, params, body }) =>
      ok(await service.transferCollection(app, principal, params.collectionId, body.organization)),
  }),
];
