import { z } from 'zod';
import { route, ok, noContent } from '../http/route.js';
import { entityId } from '../http/validate.js';
import * as service from '../services/templates.js';

const contentRef = z.object({ kind: z.literal('file'), file: entityId, space: entityId.optional() }).strict();

export const templateRoutes = [
  route({
    method: 'POST',
    path: '/v1/spaces/:spaceId/content/template',
    params: { spaceId: entityId },
    body: z
      .object({
        id: z.string().min(1).max(100),
        params: z
          .object({ contentRefs: z.record(z.string().max(100), contentRef).optional() })
          .strict()
          .optional(),
        changeRequestId: entityId.optional(),
      })
      .strict(),
    handler: async ({ app, principal, params, body }) => {
      await service.applyTemplateToSpace(app, principal, params.spaceId, body);
      return noContent();
    },
  }),
  // The built-in templates, their content-ref slots and page outline (not in the public description).
  route({
    method: 'GET',
    path: '/v1/templates',
    handler: async () => ok(service.listTemplates()),
  }),
];
