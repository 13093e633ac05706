// Git Sync (issue 27's contract): a space kept in sync with a repository branch, and the webhook
// forges deliver pushes to.
import { z } from 'zod';
import { readRawBody } from '../http/body.js';
import { route, ok, noContent } from '../http/route.js';
import { entityId } from '../http/validate.js';
import { putSpaceGitSync, getSpaceGitSync, deleteSpaceGitSync } from '../services/git-sync/settings.js';
import { receiveHook } from '../services/git-sync/webhooks.js';

const spaceParams = { spaceId: entityId };

/** Largest webhook body taken (GitHub caps its payloads at 25 MB, but a push's is far smaller; refs and ids are all we read). */
const MAX_HOOK_BYTES = 1024 * 1024;

/** The PUT body of a Git Sync (space and site alike: git-sync-sites.ts). */
export const syncBody = z
  .object({
    url: z.string().min(1).max(2048),
    ref: z.string().min(1).max(255),
    projectDirectory: z.string().max(500).nullish(),
    direction: z.enum(['bidirectional', 'import', 'export']).optional(),
    auth: z
      .object({ username: z.string().max(255).optional(), password: z.string().min(1).max(4096) })
      .strict()
      .optional(),
    pollIntervalSeconds: z
      .number()
      .int()
      .min(0)
      .max(86_400)
      .refine((n) => n === 0 || n >= 5, { message: 'must be 0 (webhooks only) or at least 5' })
      .optional(),
  })
  .strict();

export const gitSyncRoutes = [
  route({
    method: 'PUT',
    path: '/v1/spaces/:spaceId/git/sync',
    summary: 'Set up (or change) the Git Sync of a space and start a sync run',
    params: spaceParams,
    body: syncBody,
    handler: async ({ app, principal, params, body }) =>
      ok(await putSpaceGitSync(app, principal, params.spaceId, { ...body, projectDirectory: body.projectDirectory ?? undefined })),
  }),
  route({
    method: 'GET',
    path: '/v1/spaces/:spaceId/git/sync',
    summary: 'The Git Sync of a space (the webhook secret only for space admins)',
    params: spaceParams,
    handler: async ({ app, principal, params }) => ok(await getSpaceGitSync(app, principal, params.spaceId)),
  }),
  route({
    method: 'DELETE',
    path: '/v1/spaces/:spaceId/git/sync',
    summary: 'Stop the Git Sync of a space',
    params: spaceParams,
    handler: async ({ app, principal, params }) => {
      await deleteSpaceGitSync(app, principal, params.spaceId);
      return noContent();
    },
  }),
  route({
    method: 'POST',
    path: '/v1/git-sync/hooks/:hookId',
    summary:
      'Receive a push event (GitHub, GitLab, Gitea/Forgejo or Bearer): the signature over the raw body with the webhook secret is the auth',
    auth: false,
    rawBody: true,
    params: {
      hookId: z
        .string()
        .min(1)
        .max(64)
        .regex(/^[\w-]+$/),
    },
    handler: async ({ app, req, params }) => {
      const raw = await readRawBody(req, MAX_HOOK_BYTES, 'Webhook body');
      const reply = await receiveHook(app, params.hookId, req.headers, raw);
      return { status: reply.status, body: reply.body, ...(reply.location ? { headers: { location: reply.location } } : {}) };
    },
  }),
];
