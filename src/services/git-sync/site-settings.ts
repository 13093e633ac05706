// Git Sync settings of a whole site (PUT/GET/DELETE /v1/orgs/{organizationId}/sites/{siteId}/git/sync):
// the same body, object and webhook as a space's (settings.ts), kept by site admins. The site's
// spaces are synced by space syncs of their own, made by the site runs (site-runs.ts).
import type { AppContext } from '../../context.js';
import type { Principal } from '../../auth/principal.js';
import { withTx } from '../../db/pool.js';
import { notFound } from '../../core/errors.js';
import { atLeast } from '../../core/roles.js';
import { newId } from '../../util/ids.js';
import {
  deleteGitSyncOfSite,
  getGitSyncOfSite,
  insertSiteGitSync,
  updateGitSyncSettings,
  updateLinkedSpaceSyncs,
} from '../../db/repos/git-syncs.js';
import { requireSite } from '../../policies/sites.js';
import { toGitSync } from '../../presenters/git-sync.js';
import { newWebhook, settingsOf, webhookSecret, type GitSyncRequest } from './settings.js';
import { requestRun } from './request-run.js';

/** Create or update the site's sync (site admins), then start a run at once. */
export async function putSiteGitSync(app: AppContext, p: Principal, orgId: string, siteId: string, body: GitSyncRequest) {
  await requireSite(app.db, p, orgId, siteId, 'admin');
  const settings = settingsOf(app, body);
  const row = await withTx(app.db, async (c) => {
    const existing = await getGitSyncOfSite(c, siteId, true);
    if (!existing) {
      return insertSiteGitSync(c, { ...settings, id: newId(), organizationId: orgId, siteId, createdBy: p.userId, ...newWebhook(app) });
    }
    const moved =
      existing.url !== settings.url || existing.ref !== settings.ref || existing.project_directory !== settings.projectDirectory;
    // Credentials are never shown, so a client cannot send them back: kept for the same repository.
    const credentials = settings.credentials ?? (existing.url === settings.url ? existing.credentials : null);
    const row = await updateGitSyncSettings(c, existing.id, { ...settings, credentials }, moved);
    // The space syncs it made follow (another repository, branch or folder: at the next run, which applies its docs.yaml).
    if (!moved) await updateLinkedSpaceSyncs(c, existing.id, { credentials, direction: settings.direction });
    return row;
  });
  await requestRun(app, row.id);
  return toGitSync(app, row, webhookSecret(app, row));
}

/** The site's sync: anyone who sees the site; the webhook secret only to its admins. */
export async function getSiteGitSync(app: AppContext, p: Principal, orgId: string, siteId: string) {
  const { role } = await requireSite(app.db, p, orgId, siteId, 'read');
  const row = await getGitSyncOfSite(app.db, siteId);
  if (!row) throw notFound('Git Sync is not set up on this site');
  return toGitSync(app, row, atLeast(role, 'admin') ? webhookSecret(app, row) : null);
}

/**
 * Stop syncing the site (site admins): no further runs of it, nor of the space syncs it made for its
 * directories (they go with it: migration 0023); the spaces, their content and the site's structure
 * stay, and so do space syncs set up on their own. 204 also when there was none.
 */
export async function deleteSiteGitSync(app: AppContext, p: Principal, orgId: string, siteId: string): Promise<void> {
  await requireSite(app.db, p, orgId, siteId, 'admin');
  await deleteGitSyncOfSite(app.db, siteId);
}
