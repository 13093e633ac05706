import { z } from 'zod';
import { route, ok, noContent } from '../http/route.js';
import { entityId, roleSchema, listQuery } from '../http/validate.js';
import * as service from '../services/members.js';

const orgParams = { organizationId: entityId };
const memberParams = { organizationId: entityId, userId: entityId };
const order = z.enum(['asc', 'desc']).default('desc');

export const memberRoutes = [
  route({
    method: 'GET',
    path: '/v1/orgs/:organizationId/members',
    params: orgParams,
    query: {
      ...listQuery,
      order,
      sort: z.enum(['joinedAt', 'lastSeenAt', 'name']).default('joinedAt'),
      role: z.enum(['admin', 'create', 'review', 'edit', 'comment', 'read', 'guest']).optional(),
      search: z.string().max(256).optional(),
    },
    handler: async ({ app, principal, params, query }) => ok(await service.listMembers(app, principal, params.organizationId, query)),
  }),
  route({
    method: 'GET',
    path: '/v1/orgs/:organizationId/members/:userId',
    params: memberParams,
    handler: async ({ app, principal, params }) => ok(await service.getMember(app, principal, params.organizationId, params.userId)),
  }),
  route({
    method: 'PATCH',
    path: '/v1/orgs/:organizationId/members/:userId',
    params: memberParams,
    body: z.object({ role: roleSchema.nullable() }).strict(),
    handler: async ({ app, principal, params, body }) =>
      ok(await service.updateMemberRole(app, principal, params.organizationId, params.userId, body.role)),
  }),
  route({
    method: 'DELETE',
    path: '/v1/orgs/:organizationId/members/:userId',
    params: memberParams,
    handler: async ({ app, principal, params }) => {
      await service.removeMember(app, principal, params.organizationId, params.userId);
      return noContent();
    },
  }),
  route({
    method: 'POST',
    path: '/v1/orgs/:organizationId/ping',
    params: orgParams,
    handler: async ({ app, principal, params }) => ok(await service.ping(app, principal, params.organizationId)),
  }),
  route({
    method: 'POST',
    path: '/v1/orgs/:organizationId/members/:userId/sso',
    params: memberParams,
    handler: async ({ app, principal, params }) => ok(await service.setSsoMember(app, principal, params.organizationId, params.userId)),
  }),
  route({
    method: 'GET',
    path: '/v1/orgs/:organizationId/members/:userId/spaces',
    params: memberParams,
    query: { ...listQuery, order },
    handler: async ({ app, principal, params, query }) =>
      ok(await service.listMemberSpaces(app, principal, params.organizationId, params.userId, query)),
  }),
  route({
    method: 'GET',
    path: '/v1/orgs/:organizationId/members/:userId/teams',
    params: memberParams,
    query: { ...listQuery, title: z.string().max(256).optional() },
    handler: async ({ app, principal, params, query }) =>
      ok(await service.listMemberTeams(app, principal, params.organizationId, params.userId, query)),
  }),
];
