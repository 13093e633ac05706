import { z } from 'zod';
import { route, ok, noContent } from '../http/route.js';
import { entityId } from '../http/validate.js';
import * as service from '../services/git.js';

const spaceParams = { spaceId: entityId };
// Only `url` may carry credentials (they are sealed); the informational URLs are stored and shown.
const publicUrl = z
  .url()
  .max(2048)
  .refine((u) => !/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(u), { message: 'must not contain credentials' });
const gitBody = {
  url: z.url({ protocol: /^https?$/, message: 'must be an http(s) URL of a git repository' }).max(2048),
  ref: z
    .string()
    .max(255)
    .regex(/^refs\/heads\/(?!.*\.\.)(?!\/)[^\s~^:?*[\\]+(?<!\/|\.lock)$/, { message: 'must be refs/heads/<branch>' }),
  repoCacheID: z
    .string()
    .max(200)
    .regex(/^[\w.-]+$/, { message: 'letters, digits, dots, dashes and underscores only' })
    .optional(),
  repoTreeURL: publicUrl.optional(),
  repoCommitURL: publicUrl.optional(),
  repoProjectDirectory: z.string().max(500).optional(),
  timestamp: z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time' }).optional(),
  force: z.boolean().optional(),
  gitInfo: z
    .object({ provider: z.string().max(50).optional(), url: publicUrl.optional() })
    .strict()
    .optional(),
};

export const gitRoutes = [
  route({
    method: 'POST',
    path: '/v1/spaces/:spaceId/git/import',
    params: spaceParams,
    body: z.object({ ...gitBody, standalone: z.boolean().optional() }).strict(),
    handler: async ({ app, principal, params, body }) =>
      noContent({ location: await service.startGitOperation(app, principal, params.spaceId, 'git.import', body) }),
  }),
  route({
    method: 'POST',
    path: '/v1/spaces/:spaceId/git/export',
    params: spaceParams,
    body: z.object({ ...gitBody, commitMessage: z.string().min(1).max(10_000) }).strict(),
    handler: async ({ app, principal, params, body }) =>
      noContent({ location: await service.startGitOperation(app, principal, params.spaceId, 'git.export', body) }),
  }),
  route({
    method: 'GET',
    path: '/v1/spaces/:spaceId/git/info',
    params: spaceParams,
    handler: async ({ app, principal, params }) => ok(await service.getGitInfo(app, principal, params.spaceId)),
  }),
  route({
    method: 'DELETE',
    path: '/v1/spaces/:spaceId/git/legacy-installation',
    params: spaceParams,
    handler: async ({ app, principal, params }) => {
      await service.deleteLegacyInstallation(app, principal, params.spaceId);
      return noContent();
    },
  }),
];
