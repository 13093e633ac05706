import { z } from 'zod';
import { route, ok, created, noContent } from '../http/route.js';
import { entityId, listQuery, roleSchema } from '../http/validate.js';
import * as service from '../services/saml.js';
import { currentUser } from '../services/users.js';

const orgParams = { organizationId: entityId };
const providerParams = { organizationId: entityId, samlProviderId: entityId };
const ssoUrl = z
  .string()
  .max(2048)
  .url()
  .refine((u) => /^https?:\/\//i.test(u), { message: 'must be an http(s) URL' });
const fields = {
  label: z.string().trim().min(1).max(30),
  entityID: z.string().trim().min(1).max(1024),
  certificate: z.string().min(1).max(10_000),
  ssoURL: ssoUrl,
  defaultTeam: entityId.nullable().optional(),
  defaultRole: roleSchema.nullable().optional(),
};

export const samlRoutes = [
  route({
    method: 'GET',
    path: '/v1/orgs/:organizationId/saml',
    params: orgParams,
    query: { ...listQuery },
    handler: async ({ app, principal, params, query }) => ok(await service.listProviders(app, principal, params.organizationId, query)),
  }),
  route({
    method: 'POST',
    path: '/v1/orgs/:organizationId/saml',
    params: orgParams,
    // The description makes all but label optional; a provider cannot work without them, so they are required here.
    body: z.object(fields),
    handler: async ({ app, principal, params, body }) => created(await service.createProvider(app, principal, params.organizationId, body)),
  }),
  route({
    method: 'GET',
    path: '/v1/orgs/:organizationId/saml/:samlProviderId',
    params: providerParams,
    handler: async ({ app, principal, params }) =>
      ok(await service.getProvider(app, principal, params.organizationId, params.samlProviderId)),
  }),
  route({
    method: 'PATCH',
    path: '/v1/orgs/:organizationId/saml/:samlProviderId',
    params: providerParams,
    body: z.object(fields).partial(),
    handler: async ({ app, principal, params, body }) =>
      ok(await service.updateProvider(app, principal, params.organizationId, params.samlProviderId, body)),
  }),
  route({
    method: 'DELETE',
    path: '/v1/orgs/:organizationId/saml/:samlProviderId',
    params: providerParams,
    handler: async ({ app, principal, params }) => {
      await service.deleteProvider(app, principal, params.organizationId, params.samlProviderId);
      return noContent();
    },
  }),
  route({
    method: 'GET',
    path: '/v1/orgs/:organizationId/sso',
    params: orgParams,
    handler: async ({ app, principal, params }) => ok(await service.listSsoLogins(app, principal, params.organizationId)),
  }),
  route({
    method: 'GET',
    path: '/v1/user',
    session: true,
    handler: async ({ app, principal }) => ok(await currentUser(app, principal)),
  }),
];
