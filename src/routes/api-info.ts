import { route, ok } from '../http/route.js';
import { apiInformation } from '../services/api-info.js';

/** getApiInformation (`GET /v1/`): any authenticated caller. */
export const apiInfoRoutes = [
  route({
    method: 'GET',
    path: '/v1',
    handler: async () => ok(apiInformation()),
  }),
];
