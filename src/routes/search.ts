import { z } from 'zod';
import type { RouteDef } from '../http/route.js';
import { route, ok } from '../http/route.js';
import { entityId, listQuery } from '../http/validate.js';
import { searchOrganization, searchSpace } from '../services/search.js';

/** The search text: required, at most 512 characters (as the public description), not blank. */
const searchQuery = {
  ...listQuery,
  query: z
    .string({ message: 'is required' })
    .max(512)
    .refine((s) => s.trim() !== '', { message: 'must not be empty' }),
};

export const searchRoutes: RouteDef[] = [
  route({
    method: 'GET',
    path: '/v1/spaces/:spaceId/search',
    params: { spaceId: entityId },
    query: searchQuery,
    handler: async ({ app, principal, params, query }) => ok(await searchSpace(app, principal, params.spaceId, query)),
  }),
  route({
    method: 'GET',
    path: '/v1/orgs/:organizationId/search',
    params: { organizationId: entityId },
    query: searchQuery,
    handler: async ({ app, principal, params, query }) => ok(await searchOrganization(app, principal, params.organizationId, query)),
  }),
];
