// Invites: by e-mail (inviteUsersToOrganization), invite links (createOrganizationInvite,
// listOrganizationInviteLinks, getOrganizationInviteLink, updateOrganizationInviteById; the DELETE
// is in orgs.ts, a seed operation), joinOrganizationWithInvite, and the token-free pages an
// e-mail's link opens (/invites/{token}).
import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import { gone, notFound } from '../core/errors.js';
import { route, ok, created, type Reply } from '../http/route.js';
import { entityId, roleSchema, listQuery } from '../http/validate.js';
import { readFormBody } from '../http/body.js';
import { clientAddress } from '../http/client-address.js';
import * as service from '../services/invites.js';

const orgParams = { organizationId: entityId };
const linkParams = { organizationId: entityId, inviteId: entityId };
const email = z.email().max(320);
const roleOrGuest = roleSchema.nullable();

/**
 * A page for browsers; a refusal (unknown, used, expired) for anything else is the API's error body,
 * like the SSO pages (src/routes/sso.ts).
 */
function pageReply(req: IncomingMessage, r: { status: number; html: string; reason?: string }): Reply {
  if (r.status < 400 || /\btext\/html\b/i.test(String(req.headers.accept ?? ''))) return html(r.html, r.status);
  throw r.status === 404 ? notFound(r.reason) : gone(r.reason ?? 'This link is no longer valid');
}

const html = (body: string, status = 200): Reply => ({
  status,
  body,
  headers: {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'",
  },
});

export const inviteRoutes = [
  route({
    method: 'POST',
    path: '/v1/orgs/:organizationId/invites',
    summary: 'Invite users by e-mail (admins)',
    params: orgParams,
    body: z
      .object({
        emails: z
          .array(z.union([email, z.object({ email, role: roleOrGuest })]))
          .min(1)
          .max(service.MAX_INVITES_PER_CALL),
        role: roleOrGuest.optional(),
        sso: z.boolean().optional(),
        teams: z.array(entityId).max(50).optional(),
        spaces: z
          .array(z.object({ space: entityId, role: roleSchema }))
          .max(50)
          .optional(),
      })
      .strict(),
    handler: async ({ app, principal, params, body }) => ok(await service.inviteByEmail(app, principal, params.organizationId, body)),
  }),
  route({
    method: 'POST',
    path: '/v1/orgs/:organizationId/invites/:inviteId',
    summary: 'Join an organization with an invite token',
    params: linkParams,
    handler: async ({ app, principal, params, req }) =>
      ok(await service.join(app, principal, params.organizationId, params.inviteId, clientAddress(req, app.config))),
  }),
  route({
    method: 'GET',
    path: '/v1/orgs/:organizationId/link-invites',
    params: orgParams,
    query: listQuery,
    handler: async ({ app, principal, params, query }) => ok(await service.listLinks(app, principal, params.organizationId, query)),
  }),
  route({
    method: 'POST',
    path: '/v1/orgs/:organizationId/link-invites',
    summary: 'Create an invite link (admins; needs the inviteLinks setting)',
    params: orgParams,
    body: z.union([
      z.object({ role: roleOrGuest }).strict(),
      z.object({ level: roleOrGuest, space: entityId }).strict(),
      z.object({ level: roleOrGuest, collection: entityId }).strict(),
    ]),
    handler: async ({ app, principal, params, body }) => created(await service.createLink(app, principal, params.organizationId, body)),
  }),
  route({
    method: 'GET',
    path: '/v1/orgs/:organizationId/link-invites/:inviteId',
    params: linkParams,
    handler: async ({ app, principal, params }) => ok(await service.getLink(app, principal, params.organizationId, params.inviteId)),
  }),
  route({
    method: 'PATCH',
    path: '/v1/orgs/:organizationId/link-invites/:inviteId',
    params: linkParams,
    body: z.union([z.object({ role: roleOrGuest }).strict(), z.object({ level: roleOrGuest }).strict()]),
    handler: async ({ app, principal, params, body }) =>
      ok(await service.updateLink(app, principal, params.organizationId, params.inviteId, body)),
  }),
  route({
    method: 'GET',
    path: '/invites/:token',
    summary: "The page an invite e-mail's link opens",
    auth: false,
    params: { token: entityId },
    handler: async ({ app, req, params }) => {
      const r = await service.invitePageFor(app, params.token);
      return pageReply(req, r);
    },
  }),
  route({
    method: 'POST',
    path: '/invites/:token',
    summary: 'Accept an e-mail invite in a browser (signs the invitee in)',
    auth: false,
    rawBody: true,
    params: { token: entityId },
    handler: async ({ app, req, params }) => {
      await readFormBody(req, app.config.bodyLimitBytes); // the button's empty form
      const r = await service.acceptInBrowser(app, params.token, clientAddress(req, app.config));
      if (r.kind === 'sso') return { status: 303, headers: { location: r.location, 'cache-control': 'no-store' } };
      return pageReply(req, r);
    },
  }),
];
