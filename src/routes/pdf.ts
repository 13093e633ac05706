import { z } from 'zod';
import { route, ok, type Reply, type RouteDef } from '../http/route.js';
import { errorBody } from '../http/errors.js';
import { entityId, qBool } from '../http/validate.js';
import * as service from '../services/pdf.js';

// See src/services/pdf.ts for what is exported and how the link answers.
const pdfQuery = { only: qBool(false), page: entityId.optional() };

export const pdfRoutes: RouteDef[] = [
  route({
    method: 'GET',
    path: '/v1/spaces/:spaceId/change-requests/:changeRequestId/pdf',
    params: { spaceId: entityId, changeRequestId: entityId },
    query: pdfQuery,
    handler: async ({ app, principal, params, query }) => {
      const r = await service.requestChangeRequestPdf(app, principal, params.spaceId, params.changeRequestId, query);
      return ok({ url: r.url }, { location: r.location, 'cache-control': 'no-store' });
    },
  }),
  route({
    method: 'GET',
    path: '/v1/spaces/:spaceId/pdf',
    params: { spaceId: entityId },
    query: pdfQuery,
    handler: async ({ app, principal, params, query }) => {
      const r = await service.requestSpacePdf(app, principal, params.spaceId, query);
      return ok({ url: r.url }, { location: r.location, 'cache-control': 'no-store' });
    },
  }),
  route({
    method: 'GET',
    path: '/pdf/:renderId',
    auth: false,
    params: { renderId: entityId },
    query: {
      exp: z
        .string()
        .regex(/^\d{1,12}$/, { message: 'expected a whole number' })
        .transform(Number),
      sig: z.string().max(100),
    },
    handler: async ({ app, params, query }): Promise<Reply> => {
      const pdf = await service.openPdf(app, params.renderId, query);
      if (pdf.kind === 'pending') {
        // The body is the usual error shape, with the not-ready status as its code.
        return {
          status: 202,
          body: errorBody(202, pdf.message),
          headers: { 'retry-after': String(pdf.retryAfterSeconds), location: pdf.location, 'cache-control': 'no-store' },
        };
      }
      return {
        status: 200,
        stream: pdf.stream,
        headers: {
          'content-type': 'application/pdf',
          'content-length': String(pdf.size),
          'content-disposition': `inline; filename="${pdf.fileName.replace(/[^\w.-]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(pdf.fileName)}`,
          'cache-control': `private, max-age=${pdf.maxAgeSeconds}`,
          'x-content-type-options': 'nosniff',
        },
      };
    },
  }),
];
