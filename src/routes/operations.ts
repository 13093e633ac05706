import { route, ok } from '../http/route.js';
import { entityId } from '../http/validate.js';
import * as service from '../services/operations.js';

export const operationRoutes = [
  route({
    method: 'GET',
    path: '/v1/operations/:operationId',
    params: { operationId: entityId },
    handler: async ({ app, principal, params }) => ok(await service.getOperation(app, principal, params.operationId)),
  }),
];
