// Git Sync settings of a space (PUT/GET/DELETE /v1/spaces/{spaceId}/git/sync): validate, seal the
// credentials and the webhook secret, store the row, start the first run.
import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../context.js';
import type { Principal } from '../../auth/principal.js';
import { withTx } from '../../db/pool.js';
import { invalid, notFound } from '../../core/errors.js';
import { atLeast } from '../../core/roles.js';
import { newId } from '../../util/ids.js';
import { sealText, openText } from '../../util/seal.js';
import { splitCredentials, sealCredentials } from '../../git/credentials.js';
import { checkFetchUrl, FetchFailedError } from '../../net/safe-fetch.js';
import {
  deleteGitSyncOfSpace,
  getGitSyncOfSpace,
  insertSpaceGitSync,
  updateGitSyncSettings,
  type GitSyncDirection,
  type GitSyncRow,
  type GitSyncSettings,
} from '../../db/repos/git-syncs.js';
import { requireSpace } from '../../policies/spaces.js';
import { toGitSync } from '../../presenters/git-sync.js';
import { checkProjectDirectory } from '../git.js';
import { requestRun } from './request-run.js';

export interface GitSyncRequest {
  url: string;
  ref: string;
  projectDirectory?: string;
  direction?: GitSyncDirection;
  auth?: { username?: string; password: string };
  pollIntervalSeconds?: number;
}

const SECRET_PURPOSE = 'git-sync-webhook';

/** The webhook secret of a sync, in clear. */
export function webhookSecret(app: AppContext, row: GitSyncRow): string {
  return openText(row.webhook_secret, app.secret, SECRET_PURPOSE);
}

/** `main` or `refs/heads/main` -> `refs/heads/main`; anything that is not a branch name is a 400. */
export function normalizeRef(ref: string): string {
  const full = ref.startsWith('refs/heads/') ? ref : `refs/heads/${ref}`;
  if (ref.startsWith('refs/') && !ref.startsWith('refs/heads/'))
    throw invalid('Invalid request: body.ref: must be a branch (refs/heads/<branch> or <branch>)');
  if (!/^refs\/heads\/(?!.*\.\.)(?!\/)(?!.*\/\/)[^\s~^:?*[\\\x00-\x1f\x7f]+(?<!\/|\.lock|\.)$/.test(full) || full.length > 255) {
    throw invalid('Invalid request: body.ref: must be a branch (refs/heads/<branch> or <branch>)');
  }
  return full;
}

/** The URL without credentials (checked against the server-side fetch rules) and the sealed credentials. */
export function remoteOf(app: AppContext, body: GitSyncRequest): { url: string; credentials: string | null } {
  let split;
  try {
    split = splitCredentials(body.url);
    if (!/^https?:$/.test(new URL(split.url).protocol)) throw new FetchFailedError('must be an http(s) URL of a git repository');
    checkFetchUrl(split.url, app.config.fetch.allowPrivate);
  } catch (err) {
    throw invalid(`Invalid request: body.url: ${err instanceof FetchFailedError ? err.message : 'not a URL'}`);
  }
  const creds = body.auth
    ? { username: body.auth.username || 'x-access-token', password: body.auth.password }
    : split.credentials?.password || split.credentials?.username
      ? split.credentials
      : undefined;
  return { url: split.url, credentials: creds ? sealCredentials(creds, app.secret) : null };
}

/** A PUT body checked and normalized into stored settings (space and site syncs alike). */
export function settingsOf(app: AppContext, body: GitSyncRequest): GitSyncSettings {
  const remote = remoteOf(app, body);
  return {
    url: remote.url,
    credentials: remote.credentials,
    ref: normalizeRef(body.ref),
    projectDirectory: checkProjectDirectory(body.projectDirectory) ?? '',
    direction: body.direction ?? 'bidirectional',
    pollIntervalSeconds: body.pollIntervalSeconds ?? 60,
  };
}

/** New hook id and sealed webhook secret of a new sync. */
export function newWebhook(app: AppContext): { hookId: string; webhookSecret: string } {
  return {
    hookId: randomBytes(18).toString('base64url'),
    webhookSecret: sealText(randomBytes(32).toString('hex'), app.secret, SECRET_PURPOSE),
  };
}

/** Create or update the space's sync (admins), then start a run at once. */
export async function putSpaceGitSync(app: AppContext, p: Principal, spaceId: string, body: GitSyncRequest) {
  const { space } = await requireSpace(app.db, p, spaceId, 'admin');
  const settings = settingsOf(app, body);
  const row = await withTx(app.db, async (c) => {
    const existing = await getGitSyncOfSpace(c, spaceId, true);
    if (!existing) {
      return insertSpaceGitSync(c, {
        ...settings,
        id: newId(),
        organizationId: space.organization_id,
        spaceId,
        createdBy: p.userId,
        ...newWebhook(app),
      });
    }
    const moved =
      existing.url !== settings.url || existing.ref !== settings.ref || existing.project_directory !== settings.projectDirectory;
    // Credentials are never shown, so a client cannot send them back: kept for the same repository.
    const credentials = settings.credentials ?? (existing.url === settings.url ? existing.credentials : null);
    return updateGitSyncSettings(c, existing.id, { ...settings, credentials }, moved);
  });
  await requestRun(app, row.id);
  return toGitSync(app, row, webhookSecret(app, row));
}

/** The space's sync: any reader of the space; the webhook secret only to its admins. */
export async function getSpaceGitSync(app: AppContext, p: Principal, spaceId: string) {
  const { role } = await requireSpace(app.db, p, spaceId, 'read');
  const row = await getGitSyncOfSpace(app.db, spaceId);
  if (!row) throw notFound('Git Sync is not set up on this space');
  return toGitSync(app, row, atLeast(role, 'admin') ? webhookSecret(app, row) : null);
}

/** Stop syncing (admins): no further runs; a queued run finds no sync and is skipped. 204 also when there was none. */
export async function deleteSpaceGitSync(app: AppContext, p: Principal, spaceId: string): Promise<void> {
  await requireSpace(app.db, p, spaceId, 'admin');
  await deleteGitSyncOfSpace(app.db, spaceId);
}
