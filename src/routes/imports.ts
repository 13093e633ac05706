import { z } from 'zod';
import { route, created } from '../http/route.js';
import { entityId } from '../http/validate.js';
import * as service from '../services/imports.js';

// `source` is an enum in the public description (ContentImportSource: `website` or `file`); only
// website imports exist here.
const importBody = z
  .object({
    url: z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }).max(2048),
    source: z.enum(['website'], { message: 'must be "website" (importing from files is not supported)' }),
  })
  .strict();

export const importRoutes = [
  route({
    method: 'POST',
    path: '/v1/spaces/:spaceId/content/import',
    params: { spaceId: entityId },
    body: importBody,
    handler: async ({ app, principal, params, body }) => {
      const r = await service.startImport(app, principal, params.spaceId, body);
      return created(r.body, { location: r.location });
    },
  }),
  route({
    method: 'POST',
    path: '/v1/spaces/:spaceId/change-requests/:changeRequestId/content/import',
    params: { spaceId: entityId, changeRequestId: entityId },
    body: importBody,
    handler: async ({ app, principal, params, body }) => {
      const r = await service.startImport(app, principal, params.spaceId, body, params.changeRequestId);
      return created(r.body, { location: r.location });
    },
  }),
];
