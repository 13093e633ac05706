import type { AppContext } from '../context.js';
import type { Principal } from '../auth/principal.js';
import { withTx, type Queryable } from '../db/pool.js';
import { badRequest, notFound } from '../core/errors.js';
import { splitCredentials, sealCredentials } from '../git/credentials.js';
import { checkFetchUrl, FetchFailedError } from '../net/safe-fetch.js';
import type { GitJobPayload } from '../queue/registry.js';
import { createOperation, enqueue } from './operations.js';
import { operationLocation } from '../presenters/operations.js';
import { requireSpace } from '../core/access/spaces.js';

/** A request body of git import/export: the job payload as the client states it (URL may carry credentials). */
export type GitRequest = Omit<GitJobPayload, 'spaceId' | 'credentials'> & { commitMessage?: string };

/** A project directory inside the repository: relative, no `..`, no backslash. */
export function checkProjectDirectory(dir: string | undefined): string | undefined {
  if (dir === undefined) return undefined;
  const clean = dir.replace(/^\.?\/+/, '').replace(/\/+$/, '');
  if (/\\|\0/.test(clean) || clean.split('/').some((s) => s === '..') || dir.startsWith('/')) {
    throw badRequest('Invalid request: body.repoProjectDirectory: must be a relative path inside the repository');
  }
  return clean === '.' ? '' : clean;
}

function payloadFor(app: AppContext, spaceId: string, body: GitRequest): GitJobPayload {
  let split;
  try {
    split = splitCredentials(body.url);
    checkFetchUrl(split.url, app.config.fetch.allowPrivate);
  } catch (err) {
    throw badRequest(`Invalid request: body.url: ${err instanceof FetchFailedError ? err.message : 'not a URL'}`);
  }
  return {
    spaceId,
    url: split.url,
    ...(split.credentials ? { credentials: sealCredentials(split.credentials, app.secret) } : {}),
    ref: body.ref,
    repoCacheID: body.repoCacheID,
    repoTreeURL: body.repoTreeURL,
    repoCommitURL: body.repoCommitURL,
    repoProjectDirectory: checkProjectDirectory(body.repoProjectDirectory),
    timestamp: body.timestamp,
    force: body.force,
    standalone: body.standalone,
    gitInfo: body.gitInfo,
  };
}

/**
 * Start an import or export: validate, record the operation (credentials sealed in its payload,
 * never in Redis or in clear), enqueue, and answer at once with the operation's location.
 */
export async function startGitOperation(app: AppContext, p: Principal, spaceId: string, kind: 'git.import' | 'git.export', body: GitRequest) {
  const { space } = await requireSpace(app.db, p, spaceId, 'edit');
  const payload = payloadFor(app, spaceId, body);
  const op = await withTx(app.db, (c) =>
    kind === 'git.export'
      ? createOperation(c, 'git.export', {
          organizationId: space.organization_id,
          payload: { ...payload, commitMessage: body.commitMessage ?? '' },
          targetType: 'space',
          targetId: spaceId,
          createdBy: p.userId,
        })
      : createOperation(c, 'git.import', { organizationId: space.organization_id, payload, targetType: 'space', targetId: spaceId, createdBy: p.userId }),
  );
  await enqueue(app, op);
  return operationLocation(app, op.id);
}

function repoName(url: string): string {
  try {
    const parts = new URL(url).pathname.replace(/\.git$/, '').split('/').filter(Boolean);
    return parts.slice(-2).join('/');
  } catch {
    return url;
  }
}

function providerOf(url: string, given?: string): string {
  if (given === 'github' || given === 'gitlab' || given === 'github-legacy') return given;
  return /gitlab/i.test(url) ? 'gitlab' : 'github';
}

/** The space's git sync as the API shows it (Space.gitSync and GET git/info); null when never synced. */
export async function gitSyncInfo(app: AppContext, spaceId: string, db: Queryable = app.db) {
  const { rows } = await db.query('SELECT * FROM git_sync_state WHERE space_id = $1', [spaceId]);
  const s = rows[0];
  if (!s?.url) return null;
  const { rows: ops } = await db.query(
    `SELECT kind, status, error, started_at, finished_at, created_at FROM operations
      WHERE target_type = 'space' AND target_id = $1 AND kind IN ('git.import', 'git.export')
      ORDER BY created_at DESC LIMIT 1`,
    [spaceId],
  );
  const op = ops[0];
  const state = !op ? undefined : op.status === 'succeeded' || op.status === 'skipped' ? 'success' : op.status === 'failed' ? 'failure' : 'running';
  return {
    repoName: repoName(s.url),
    installationId: `space-${spaceId}`,
    installationProvider: providerOf(s.url, s.provider ?? undefined),
    installationStatus: 'active',
    integration: providerOf(s.url, s.provider ?? undefined),
    url: s.tree_url ?? s.url,
    ...(op
      ? {
          operation: {
            state,
            direction: op.kind === 'git.export' ? 'export' : 'import',
            startedAt: (op.started_at ?? op.created_at).toISOString(),
            ...(op.finished_at ? { endedAt: op.finished_at.toISOString() } : {}),
            ...(op.error ? { error: op.error } : {}),
          },
        }
      : {}),
    updatedAt: s.updated_at.toISOString(),
  };
}

export async function getGitInfo(app: AppContext, p: Principal, spaceId: string) {
  await requireSpace(app.db, p, spaceId, 'read');
  const info = await gitSyncInfo(app, spaceId);
  if (!info) throw notFound('No git repository is set up on this space');
  return info;
}

/** Remove the space's git sync set-up (admins). 204 also when there was none. */
export async function deleteLegacyInstallation(app: AppContext, p: Principal, spaceId: string) {
  await requireSpace(app.db, p, spaceId, 'admin');
  await withTx(app.db, async (c) => {
    await c.query('DELETE FROM git_sync_state WHERE space_id = $1', [spaceId]);
    await c.query('UPDATE spaces SET git_sync = NULL WHERE id = $1', [spaceId]);
  });
}
