import { z } from 'zod';
import { route } from '../http/route.js';
import { entityId } from '../http/validate.js';
import { renderPublished, appRedirect } from '../services/published.js';

// Token-free HTML views: a published space, and redirects for the `/app/...` URLs of resources.
export const publishedRoutes = [
  route({
    method: 'GET',
    path: '/s/:spaceId',
    auth: false,
    params: { spaceId: entityId },
    query: { share: z.string().max(200).optional() },
    handler: async ({ app, params, query }) => renderPublished(app, params.spaceId, '', query.share),
  }),
  route({
    method: 'GET',
    path: '/s/:spaceId/*',
    auth: false,
    params: { spaceId: entityId, '*': z.string().max(2000) },
    query: { share: z.string().max(200).optional() },
    handler: async ({ app, params, query }) => renderPublished(app, params.spaceId, params['*'], query.share), // find-my-way already decoded the wildcard,
  }),
  route({
    method: 'GET',
    path: '/app/*',
    auth: false,
    params: { '*': z.string().max(2000) },
    handler: async ({ app, params }) => appRedirect(app, params['*']),
  }),
];
