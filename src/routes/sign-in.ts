// Sign-in by e-mail: ask for a link (token-free, rate-limited per client address), open it, use it.
import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import { gone, notFound } from '../core/errors.js';
import { route, type Reply } from '../http/route.js';
import { entityId } from '../http/validate.js';
import { readFormBody } from '../http/body.js';
import { clientAddress } from '../http/client-address.js';
import * as service from '../services/sign-in.js';

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

export const signInRoutes = [
  route({
    method: 'POST',
    path: '/sign-in/email',
    summary: 'E-mail a single-use sign-in link to a known address (the same answer for any address)',
    auth: false,
    body: z.object({ email: z.email().max(320) }).strict(),
    handler: async ({ app, body }) => ({ status: 202, body: await service.requestSignInLink(app, body.email) }),
  }),
  route({
    method: 'GET',
    path: '/sign-in/:token',
    auth: false,
    params: { token: entityId },
    handler: async ({ app, req, params }) => {
      const r = await service.signInPage(app, params.token);
      return pageReply(req, r);
    },
  }),
  route({
    method: 'POST',
    path: '/sign-in/:token',
    auth: false,
    rawBody: true,
    params: { token: entityId },
    handler: async ({ app, req, params }) => {
      await readFormBody(req, app.config.bodyLimitBytes);
      const r = await service.completeSignIn(app, params.token, clientAddress(req, app.config));
      return pageReply(req, r);
    },
  }),
];
