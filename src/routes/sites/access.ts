import { z } from 'zod';
import { route, ok, noContent } from '../../http/route.js';
import type { RouteDef } from '../../http/route.js';
import { entityId, roleSchema, listQuery } from '../../http/validate.js';
import * as permissions from '../../services/sites/permissions.js';
import { searchSite } from '../../services/sites/search.js';
import { siteParams } from './sites.js';

const SITE = '/v1/orgs/:organizationId/sites/:siteId';
const ids = z.array(entityId).min(1).max(100);

/** searchSiteContent's body (both of the description's forms: `scope`, or the older top-level fields). */
export const siteSearchBody = z
  .object({
    query: z
      .string()
      .max(512)
      .refine((s) => s.trim().length > 0, { message: 'must not be blank' }),
    scope: z
      .object({
        mode: z.enum(['default', 'all', 'specific', 'current']),
        currentSiteSpace: entityId.optional(),
        siteSpaceIds: ids.optional(),
        restrictTo: z.enum(['currentSiteSpace', 'otherSiteSpaces']).optional(),
      })
      .strict()
      .optional(),
    mode: z.enum(['specific', 'current', 'all']).optional(),
    siteSpaceIds: ids.optional(),
    siteSpaceId: entityId.optional(),
  })
  .strict();

export const siteAccessRoutes: RouteDef[] = [
  route({
    method: 'POST',
    path: `${SITE}/search`,
    params: siteParams,
    query: listQuery,
    body: siteSearchBody,
    handler: async ({ app, principal, params, body, query }) =>
      ok(await searchSite(app, principal, params.organizationId, params.siteId, body, query)),
  }),
  route({
    method: 'POST',
    path: `${SITE}/permissions`,
    params: siteParams,
    body: z
      .object({ role: roleSchema.nullable(), users: ids.optional(), teams: ids.optional() })
      .strict()
      .refine((b) => b.users !== undefined || b.teams !== undefined, { message: 'give "users", "teams" or both' }),
    handler: async ({ app, principal, params, body }) => {
      await permissions.inviteToSite(app, principal, params.organizationId, params.siteId, body);
      return noContent();
    },
  }),
  route({
    method: 'GET',
    path: `${SITE}/permissions/aggregate`,
    params: siteParams,
    query: {
      ...listQuery,
      role: z.union([roleSchema, z.literal('guest')]).optional(),
      search: z.string().max(256).optional(),
      team: entityId.optional(),
      sort: z.enum(['joinedAt', 'lastSeenAt', 'name']).optional(),
      order: z.enum(['asc', 'desc']).optional(),
    },
    handler: async ({ app, principal, params, query }) =>
      ok(await permissions.listAggregate(app, principal, params.organizationId, params.siteId, query)),
  }),
  route({
    method: 'GET',
    path: `${SITE}/permissions/users`,
    params: siteParams,
    query: listQuery,
    handler: async ({ app, principal, params, query }) =>
      ok(await permissions.listUserPermissions(app, principal, params.organizationId, params.siteId, query)),
  }),
  route({
    method: 'GET',
    path: `${SITE}/permissions/teams`,
    params: siteParams,
    query: listQuery,
    handler: async ({ app, principal, params, query }) =>
      ok(await permissions.listTeamPermissions(app, principal, params.organizationId, params.siteId, query)),
  }),
  route({
    method: 'PATCH',
    path: `${SITE}/permissions/users/:userId`,
    params: { ...siteParams, userId: entityId },
    body: z.object({ role: roleSchema }).strict(),
    handler: async ({ app, principal, params, body }) => {
      await permissions.updateGrant(app, principal, params.organizationId, params.siteId, 'user', params.userId, body.role);
      return noContent();
    },
  }),
  route({
    method: 'DELETE',
    path: `${SITE}/permissions/users/:userId`,
    params: { ...siteParams, userId: entityId },
    handler: async ({ app, principal, params }) => {
      await permissions.removeGrant(app, principal, params.organizationId, params.siteId, 'user', params.userId);
      return noContent();
    },
  }),
  route({
    method: 'PATCH',
    path: `${SITE}/permissions/teams/:teamId`,
    params: { ...siteParams, teamId: entityId },
    body: z.object({ role: roleSchema }).strict(),
    handler: async ({ app, principal, params, body }) => {
      await permissions.updateGrant(app, principal, params.organizationId, params.siteId, 'team', params.teamId, body.role);
      return noContent();
    },
  }),
  route({
    method: 'DELETE',
    path: `${SITE}/permissions/teams/:teamId`,
    params: { ...siteParams, teamId: entityId },
    handler: async ({ app, principal, params }) => {
      await permissions.removeGrant(app, principal, params.organizationId, params.siteId, 'team', params.teamId);
      return noContent();
    },
  }),
];
