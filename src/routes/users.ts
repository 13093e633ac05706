// Users: getUserById, updateUserById (one's own profile only).
import { z } from 'zod';
import { route, ok } from '../http/route.js';
import { entityId } from '../http/validate.js';
import { clientAddress } from '../http/client-address.js';
import * as service from '../services/users.js';

export const userRoutes = [
  route({
    method: 'GET',
    path: '/v1/users/:userId',
    params: { userId: entityId },
    handler: async ({ app, principal, params }) => ok(await service.getUserById(app, principal, params.userId)),
  }),
  route({
    method: 'PATCH',
    path: '/v1/users/:userId',
    summary: "Update one's own profile",
    params: { userId: entityId },
    body: z
      .object({
        displayName: z.string().trim().min(1).max(64),
        photoURL: z.url({ protocol: /^https?$/ }).max(2048),
      })
      .partial()
      .strict()
      .refine((b) => Object.keys(b).length > 0, { message: 'give displayName or photoURL' }),
    handler: async ({ app, principal, params, body, req }) =>
      ok(await service.updateUserById(app, principal, params.userId, body, clientAddress(req, app.config))),
  }),
];
