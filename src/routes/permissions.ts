// The permission operations of spaces and collections: one definition serves both bases.
import { z } from 'zod';
import { route, ok, noContent, type Reply } from '../http/route.js';
import { entityId, listQuery, roleSchema } from '../http/validate.js';
import type { GrantTarget } from '../db/repos/grants.js';
import * as service from '../services/permissions.js';

const memberRoleOrGuest = roleSchema.nullable();
const ids = z.array(z.string().min(1).max(320)).min(1).max(service.MAX_INVITEES);
const gone = (removed: boolean): Reply => (removed ? { status: 205 } : noContent());

function routesFor(target: GrantTarget, base: string, idName: 'spaceId' | 'collectionId') {
  const idParams = { [idName]: entityId } as Record<'spaceId' | 'collectionId', typeof entityId>;
  const id = (p: Record<string, string>) => p[idName];
  return [
    route({
      method: 'POST',
      path: `${base}/:${idName}/permissions`,
      params: idParams,
      body: z.object({ role: memberRoleOrGuest, teams: ids.optional(), users: ids.optional() }),
      handler: async ({ app, principal, params, body }) => {
        await service.invite(app, principal, target, id(params), body);
        return noContent();
      },
    }),
    route({
      method: 'GET',
      path: `${base}/:${idName}/permissions/teams`,
      params: idParams,
      query: { ...listQuery },
      handler: async ({ app, principal, params, query }) => ok(await service.listTeamGrants(app, principal, target, id(params), query)),
    }),
    route({
      method: 'PATCH',
      path: `${base}/:${idName}/permissions/teams/:teamId`,
      params: { ...idParams, teamId: entityId },
      body: z.object({ role: memberRoleOrGuest }),
      handler: async ({ app, principal, params, body }) => {
        await service.updateTeamGrant(app, principal, target, id(params), params.teamId, body.role);
        return noContent();
      },
    }),
    route({
      method: 'DELETE',
      path: `${base}/:${idName}/permissions/teams/:teamId`,
      params: { ...idParams, teamId: entityId },
      handler: async ({ app, principal, params }) => gone(await service.removeTeamGrant(app, principal, target, id(params), params.teamId)),
    }),
    route({
      method: 'GET',
      path: `${base}/:${idName}/permissions/users`,
      params: idParams,
      query: { ...listQuery },
      handler: async ({ app, principal, params, query }) => ok(await service.listUserGrants(app, principal, target, id(params), query)),
    }),
    route({
      method: 'PATCH',
      path: `${base}/:${idName}/permissions/users/:userId`,
      params: { ...idParams, userId: entityId },
      body: z.object({ role: memberRoleOrGuest }),
      handler: async ({ app, principal, params, body }) => {
        await service.updateUserGrant(app, principal, target, id(params), params.userId, body.role);
        return noContent();
      },
    }),
    route({
      method: 'DELETE',
      path: `${base}/:${idName}/permissions/users/:userId`,
      params: { ...idParams, userId: entityId },
      handler: async ({ app, principal, params }) => gone(await service.removeUserGrant(app, principal, target, id(params), params.userId)),
    }),
    route({
      method: 'GET',
      path: `${base}/:${idName}/permissions/aggregate`,
      params: idParams,
      query: { ...listQuery, role: roleSchema.optional() },
      handler: async ({ app, principal, params, query }) => ok(await service.aggregate(app, principal, target, id(params), query)),
    }),
  ];
}

export const permissionRoutes = [
  ...routesFor('space', '/v1/spaces', 'spaceId'),
  ...routesFor('collection', '/v1/collections', 'collectionId'),
];
