// Git Sync of a whole site from docs.yaml (issue 27's contract): the same body, object and webhook
// as a space's Git Sync (git-sync.ts); pushes arrive at the same hook route.
import { route, ok, noContent } from '../http/route.js';
import { entityId } from '../http/validate.js';
import { putSiteGitSync, getSiteGitSync, deleteSiteGitSync } from '../services/git-sync/site-settings.js';
import { syncBody } from './git-sync.js';

const siteParams = { organizationId: entityId, siteId: entityId };

export const gitSyncSiteRoutes = [
  route({
    method: 'PUT',
    path: '/v1/orgs/:organizationId/sites/:siteId/git/sync',
    summary: "Set up (or change) the Git Sync of a whole site from a repository's docs.yaml and start a sync run",
    params: siteParams,
    body: syncBody,
    handler: async ({ app, principal, params, body }) =>
      ok(
        await putSiteGitSync(app, principal, params.organizationId, params.siteId, {
          ...body,
          projectDirectory: body.projectDirectory ?? undefined,
        }),
      ),
  }),
  route({
    method: 'GET',
    path: '/v1/orgs/:organizationId/sites/:siteId/git/sync',
    summary: 'The Git Sync of a site (the webhook secret only for site admins)',
    params: siteParams,
    handler: async ({ app, principal, params }) => ok(await getSiteGitSync(app, principal, params.organizationId, params.siteId)),
  }),
  route({
    method: 'DELETE',
    path: '/v1/orgs/:organizationId/sites/:siteId/git/sync',
    summary: 'Stop the Git Sync of a site (and the space syncs it made; the spaces stay)',
    params: siteParams,
    handler: async ({ app, principal, params }) => {
      await deleteSiteGitSync(app, principal, params.organizationId, params.siteId);
      return noContent();
    },
  }),
];
