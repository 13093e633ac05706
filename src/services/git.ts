import type { AppContext } from '../context.js';
import type { Principal } from '../auth/principal.js';
import { withTx } from '../db/pool.js';
import { invalid, notFound } from '../core/errors.js';
import { splitCredentials, sealCredentials } from '../git/credentials.js';
import { checkFetchUrl, FetchFailedError } from '../net/safe-fetch.js';
import type { GitJobPayload } from '../queue/registry.js';
import { deleteGitSync, getGitSyncState, latestGitOperation } from '../db/repos/git-sync.js';
import { gitSyncSummary } from '../git/sync-state.js';
import { createOperation, enqueue } from './operations.js';
import { operationLocation } from '../presenters/operations.js';
import { requireSpace } from '../policies/spaces.js';

/** A request body of git import/export: the job payload as the client states it (URL may carry credentials). */
export type GitRequest = Omit<GitJobPayload, 'spaceId' | 'credentials'> & { commitMessage?: string };

/** A project directory inside the repository: relative, no `..`, no backslash. */
export function checkProjectDirectory(dir: string | undefined): string | undefined {
  if (dir === undefined) return undefined;
  const clean = dir.replace(/^\.?\/+/, '').replace(/\/+$/, '');
  if (/\\|\0/.test(clean) || clean.split('/').some((s) => s === '..') || dir.startsWith('/')) {
    throw invalid('Invalid request: body.repoProjectDirectory: must be a relative path inside the repository');
  }
  return clean === '.' ? '' : clean;
}

function payloadFor(app: AppContext, spaceId: string, body: GitRequest): GitJobPayload {
  let split;
  try {
    split = splitCredentials(body.url);
    checkFetchUrl(split.url, app.config.fetch.allowPrivate);
  } catch (err) {
    throw invalid(`Invalid request: body.url: ${err instanceof FetchFailedError ? err.message : 'not a URL'}`);
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
export async function startGitOperation(
  app: AppContext,
  p: Principal,
  spaceId: string,
  kind: 'git.import' | 'git.export',
  body: GitRequest,
) {
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
      : createOperation(c, 'git.import', {
          organizationId: space.organization_id,
          payload,
          targetType: 'space',
          targetId: spaceId,
          createdBy: p.userId,
        }),
  );
  await enqueue(app, op);
  return operationLocation(app, op.id);
}

/** The space's git sync as the API shows it (GET git/info): its summary and latest operation; null when never synced. */
async function gitSyncInfo(app: AppContext, spaceId: string) {
  const summary = gitSyncSummary(spaceId, await getGitSyncState(app.db, spaceId));
  if (!summary) return null;
  const op = await latestGitOperation(app.db, spaceId);
  const state = !op
    ? undefined
    : op.status === 'succeeded' || op.status === 'skipped'
      ? 'success'
      : op.status === 'failed'
        ? 'failure'
        : 'running';
  const { updatedAt, ...rest } = summary;
  return {
    ...rest,
    ...(op
      ? {
          operation: {
            state,
            direction: op.kind === 'git.export' || op.action === 'export' ? 'export' : 'import',
            startedAt: (op.started_at ?? op.created_at).toISOString(),
            ...(op.finished_at ? { endedAt: op.finished_at.toISOString() } : {}),
            ...(op.error ? { error: op.error } : {}),
          },
        }
      : {}),
    updatedAt,
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
  await withTx(app.db, (c) => deleteGitSync(c, spaceId));
}
