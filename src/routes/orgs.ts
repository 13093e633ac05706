import { z } from 'zod';
import { route, ok, noContent } from '../http/route.js';
import { entityId, roleSchema, listQuery } from '../http/validate.js';
import * as service from '../services/organizations.js';

const orgParams = { organizationId: entityId };

const domain = z
  .string()
  .max(253)
  .regex(/^(?=.{1,253}$)([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\.)+[a-zA-Z]{2,63}$/, {
    message: 'must be a domain name such as example.com',
  });

const orgPatch = z
  .object({
    title: z
      .string()
      .min(2)
      .max(255)
      .regex(/\S.*\S/, { message: 'must contain at least two non-blank characters' }),
    emailDomains: z.array(domain).max(100),
    hostname: z
      .string()
      .min(3)
      .max(32)
      .regex(/^[a-z0-9][a-z0-9-]*[a-z0-9]$/, { message: 'must be lowercase letters, digits and hyphens' }),
    defaultRole: roleSchema.nullable(),
    defaultContent: z
      .object({ type: z.literal('site'), site: entityId })
      .strict()
      .nullable(),
    logo: z
      .url({ protocol: /^https?$/ })
      .max(2048)
      .nullable(),
    sso: z.boolean(),
    ai: z.boolean(),
    inviteLinks: z.boolean(),
  })
  .partial()
  .strict();

export const orgRoutes = [
  route({
    method: 'GET',
    path: '/v1/orgs',
    query: listQuery,
    handler: async ({ app, principal, query }) => ok(await service.listOrganizations(app, principal, query)),
  }),
  route({
    method: 'GET',
    path: '/v1/orgs/:organizationId',
    params: orgParams,
    handler: async ({ app, principal, params }) => ok(await service.getOrganization(app, principal, params.organizationId)),
  }),
  route({
    method: 'PATCH',
    path: '/v1/orgs/:organizationId',
    params: orgParams,
    body: orgPatch,
    handler: async ({ app, principal, params, body }) => ok(await service.updateOrganization(app, principal, params.organizationId, body)),
  }),
  route({
    method: 'GET',
    path: '/v1/email-domains/:emailDomain/orgs',
    params: { emailDomain: domain },
    handler: async ({ app, principal, params }) => ok(await service.organizationsForEmailDomain(app, principal, params.emailDomain)),
  }),
  route({
    method: 'DELETE',
    path: '/v1/orgs/:organizationId/link-invites/:inviteId',
    params: { ...orgParams, inviteId: entityId },
    handler: async ({ app, principal, params }) => {
      await service.deleteLinkInvite(app, principal, params.organizationId, params.inviteId);
      return noContent();
    },
  }),
];
