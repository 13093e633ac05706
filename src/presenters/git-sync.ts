import type { AppContext } from '../context.js';
import type { GitSyncRow } from '../db/repos/git-syncs.js';
import { appUrls } from './urls.js';

/** The webhook URL of a sync (POST target for forges; the hook id is public, the secret is the auth). */
export function gitSyncWebhookUrl(app: AppContext, hookId: string): string {
  return appUrls(app).api(`/git-sync/hooks/${hookId}`);
}

/**
 * The `git-sync` object of the API (issue 27's contract, word for word). `secret`: the webhook
 * secret in clear, given only for callers allowed to see it (space admins); null otherwise.
 * Credentials never appear: the stored URL has none.
 */
export function toGitSync(app: AppContext, row: GitSyncRow, secret: string | null) {
  return {
    object: 'git-sync' as const,
    url: row.url,
    ref: row.ref,
    projectDirectory: row.project_directory || null,
    direction: row.direction,
    pollIntervalSeconds: row.poll_interval_seconds,
    status: row.status,
    lastImportedCommit: row.last_imported_commit,
    lastExportedCommit: row.last_exported_commit,
    lastSyncedAt: row.last_synced_at ? row.last_synced_at.toISOString() : null,
    lastError: row.last_error,
    webhook: { url: gitSyncWebhookUrl(app, row.hook_id), secret },
  };
}
