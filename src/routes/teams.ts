import { z } from 'zod';
import { route, ok, created, noContent } from '../http/route.js';
import { entityId, listQuery } from '../http/validate.js';
import * as service from '../services/teams.js';

const orgParams = { organizationId: entityId };
const teamParams = { organizationId: entityId, teamId: entityId };
const memberParams = { organizationId: entityId, teamId: entityId, userId: entityId };
const title = z.string().trim().min(1).max(64);
const teamRole = z.enum(['owner', 'member']);
// A user id or an e-mail address.
const userRef = z.string().min(1).max(320);
const userRefs = z.array(userRef).max(service.MAX_MEMBERS_PER_REQUEST);

export const teamRoutes = [
  route({
    method: 'GET',
    path: '/v1/orgs/:organizationId/teams',
    params: orgParams,
    query: { ...listQuery, owner: entityId.optional(), title: z.string().max(256).optional() },
    handler: async ({ app, principal, params, query }) => ok(await service.listTeams(app, principal, params.organizationId, query)),
  }),
  route({
    method: 'PUT',
    path: '/v1/orgs/:organizationId/teams',
    params: orgParams,
    body: z.object({ title, members: z.array(entityId).max(service.MAX_MEMBERS_PER_REQUEST).optional() }),
    handler: async ({ app, principal, params, body }) => created(await service.createTeam(app, principal, params.organizationId, body)),
  }),
  route({
    method: 'GET',
    path: '/v1/orgs/:organizationId/teams/:teamId',
    params: teamParams,
    handler: async ({ app, principal, params }) => ok(await service.getTeam(app, principal, params.organizationId, params.teamId)),
  }),
  route({
    method: 'PATCH',
    path: '/v1/orgs/:organizationId/teams/:teamId',
    params: teamParams,
    body: z.object({ title }),
    handler: async ({ app, principal, params, body }) =>
      ok(await service.updateTeam(app, principal, params.organizationId, params.teamId, body)),
  }),
  route({
    method: 'DELETE',
    path: '/v1/orgs/:organizationId/teams/:teamId',
    params: teamParams,
    handler: async ({ app, principal, params }) => {
      await service.deleteTeam(app, principal, params.organizationId, params.teamId);
      return noContent();
    },
  }),
  route({
    method: 'GET',
    path: '/v1/orgs/:organizationId/teams/:teamId/members',
    params: teamParams,
    query: { ...listQuery },
    handler: async ({ app, principal, params, query }) =>
      ok(await service.listTeamMembers(app, principal, params.organizationId, params.teamId, query)),
  }),
  route({
    method: 'PUT',
    path: '/v1/orgs/:organizationId/teams/:teamId/members',
    params: teamParams,
    body: z.object({
      add: userRefs.optional(),
      remove: userRefs.optional(),
      memberships: z
        .record(userRef, z.object({ role: teamRole }))
        .refine((m) => Object.keys(m).length <= service.MAX_MEMBERS_PER_REQUEST, { message: 'too many entries' })
        .optional(),
    }),
    handler: async ({ app, principal, params, body }) => {
      await service.updateTeamMembers(app, principal, params.organizationId, params.teamId, body);
      return noContent();
    },
  }),
  route({
    method: 'PUT',
    path: '/v1/orgs/:organizationId/teams/:teamId/members/:userId',
    params: memberParams,
    body: z.object({ role: teamRole.default('member') }),
    bodyRequired: false,
    handler: async ({ app, principal, params, body }) => {
      await service.addTeamMember(app, principal, params.organizationId, params.teamId, params.userId, body?.role ?? 'member');
      return noContent();
    },
  }),
  route({
    method: 'DELETE',
    path: '/v1/orgs/:organizationId/teams/:teamId/members/:userId',
    params: memberParams,
    handler: async ({ app, principal, params }) => {
      await service.removeTeamMember(app, principal, params.organizationId, params.teamId, params.userId);
      return noContent();
    },
  }),
];
