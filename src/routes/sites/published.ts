import { z } from 'zod';
import { route, type Reply } from '../../http/route.js';
import { entityId } from '../../http/validate.js';
import { renderPublished, appRedirect, type PublishedPage } from '../../services/sites/published.js';

function htmlReply(page: PublishedPage): Reply {
  if (page.redirect) return { status: page.temporary ? 302 : 301, headers: { location: page.redirect } };
  return {
    status: 200,
    body: page.html,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; img-src * data:; style-src 'unsafe-inline'",
      ...(page.indexable ? {} : { 'x-robots-tag': 'noindex' }),
    },
  };
}

// Token-free HTML views: a published space, and redirects for the `/app/...` URLs of resources.
export const publishedRoutes = [
  route({
    method: 'GET',
    path: '/s/:spaceId',
    auth: false,
    params: { spaceId: entityId },
    query: { share: z.string().max(200).optional() },
    handler: async ({ app, params, query }) => htmlReply(await renderPublished(app, params.spaceId, '', query.share)),
  }),
  route({
    method: 'GET',
    path: '/s/:spaceId/*',
    auth: false,
    params: { spaceId: entityId, '*': z.string().max(2000) },
    query: { share: z.string().max(200).optional() },
    // find-my-way already decoded the wildcard.
    handler: async ({ app, params, query }) => htmlReply(await renderPublished(app, params.spaceId, params['*'], query.share)),
  }),
  route({
    method: 'GET',
    path: '/app/*',
    auth: false,
    params: { '*': z.string().max(2000) },
    handler: async ({ app, params }): Promise<Reply> => ({ status: 302, headers: { location: await appRedirect(app, params['*']) } }),
  }),
];
