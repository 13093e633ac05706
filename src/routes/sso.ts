// The token-free endpoints of single sign-on: our SAML service provider (metadata, start,
// assertion consumer), the page after a login, and each organization's login page.
import type { IncomingMessage } from 'node:http';
import { route, type Reply } from '../http/route.js';
import { unauthenticated } from '../core/errors.js';
import { entityId } from '../http/validate.js';
import { readFormBody } from '../http/body.js';
import { cookieValue } from '../http/cookies.js';
import { clientAddress } from '../http/client-address.js';
import * as sso from '../services/sso.js';

const html = (body: string, status = 200, headers: Record<string, string> = {}): Reply => ({
  status,
  body,
  headers: {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
    ...headers,
  },
});
const providerParams = { samlProviderId: entityId };
/** Browsers get pages; API clients (and anything that does not ask for HTML) get the JSON error body. */
const wantsHtml = (req: IncomingMessage) => /\btext\/html\b/i.test(String(req.headers.accept ?? ''));

export const ssoRoutes = [
  route({
    method: 'GET',
    path: '/sso/saml/:samlProviderId/metadata',
    auth: false,
    params: providerParams,
    handler: async ({ app, params }) => ({
      status: 200,
      body: await sso.spMetadata(app, params.samlProviderId),
      headers: { 'content-type': 'application/samlmetadata+xml; charset=utf-8' },
    }),
  }),
  route({
    method: 'GET',
    path: '/sso/saml/:samlProviderId/start',
    auth: false,
    params: providerParams,
    handler: async ({ app, params }) => ({
      status: 302,
      body: 'Redirecting to the identity provider',
      headers: { location: await sso.startLogin(app, params.samlProviderId), 'cache-control': 'no-store' },
    }),
  }),
  route({
    method: 'POST',
    path: '/sso/saml/:samlProviderId/acs',
    auth: false,
    rawBody: true,
    params: providerParams,
    handler: async ({ app, req, params, log }) => {
      const form = await readFormBody(req, app.config.bodyLimitBytes);
      try {
        const session = await sso.consumeLogin(
          app,
          params.samlProviderId,
          form.get('SAMLResponse') ?? undefined,
          log,
          clientAddress(req, app.config),
        );
        const secure = app.config.publicUrl.startsWith('https:') ? '; Secure' : '';
        const maxAge = Math.floor(sso.SESSION_TTL_MS / 1000);
        return {
          status: 303,
          headers: {
            location: '/sso/welcome',
            'set-cookie': `${sso.SESSION_COOKIE}=${session}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${secure}`,
            'cache-control': 'no-store',
          },
        };
      } catch (err) {
        if (err instanceof sso.LoginRefused && wantsHtml(req)) return html(sso.loginFailedPage(), 400);
        throw err;
      }
    },
  }),
  route({
    method: 'GET',
    path: '/sso/welcome',
    auth: false,
    handler: async ({ app, req }) => {
      const page = await sso.welcomePage(app, cookieValue(req, sso.SESSION_COOKIE), clientAddress(req, app.config));
      if (page) return html(page);
      if (wantsHtml(req)) return html(sso.loginFailedPage(), 401);
      throw unauthenticated("No session: sign in through your organization's identity provider");
    },
  }),
  route({
    method: 'GET',
    path: '/sso/orgs/:organizationId',
    auth: false,
    params: { organizationId: entityId },
    handler: async ({ app, params }) => html(await sso.orgLoginPage(app, params.organizationId)),
  }),
];
