// Git Sync runs: the `git.sync` job. Requests coalesce (at most one queued run per sync: a push
// while one is queued only records the wanted head, and the run reads the branch head when it
// starts, so it takes every push made before). A run holds the space's git lock, reads the remote
// head (ls-remote) and compares both sides with what they agreed on at the last sync:
// - neither moved: nothing (no revision, no commit);
// - the repository moved: import its head (the one-shot import engine: ordering, warnings, page ids);
// - the space moved: export it (one commit per change-request merge, src/services/git-sync/exports.ts);
// - both moved: the repository's side goes into a change request (conflicts.ts), nothing is forced.
// An import is once per operation (its revision id derives from the operation: completedImport),
// so a run retried after a crash applies nothing twice; an export that pushed before the crash is
// recognised (the remote head is the commit the space last synced with).
import type { AppContext } from '../../context.js';
import { DomainError } from '../../core/errors.js';
import { JobSkipped, LeaseLost } from '../../queue/errors.js';
import type { GitJobPayload } from '../../queue/registry.js';
import { getSpace } from '../../db/repos/spaces.js';
import { getChangeRequest } from '../../db/repos/change-requests.js';
import { getRevision } from '../../db/repos/revisions.js';
import { revisionSnapshot } from '../../content/commit.js';
import { getGitSyncState, withGitSyncLock } from '../../db/repos/git-sync.js';
import {
  clearQueuedRun,
  getGitSync,
  recordSyncChecked,
  recordSyncFailure,
  recordSyncSuccess,
  setGitSyncStatus,
  type GitSyncRow,
} from '../../db/repos/git-syncs.js';
import { importRepository, completedImport } from '../../git/import-repository.js';
import { exportRepository } from '../../git/export-repository.js';
import { folderChanged, remoteFor } from '../../git/sync.js';
import { remoteBranchHead } from '../../git/remote-head.js';
import { GitSyncError } from '../../git/repo.js';
import { afterImport } from '../content-hooks.js';
import type { OperationRun } from '../operation-run.js';
import { exportSteps, mergeStep, type ExportStep } from './exports.js';
import { branchOf, openConflict } from './conflicts.js';
import { runSiteSync, type SiteRunResult } from './site-runs.js';
import { refreshVariantsOfSource } from './site-variants.js';

// Asking for a run lives apart (request-run.ts) so that the site runs can ask for their spaces' runs.
export { requestRun } from './request-run.js';

/** The space changed while an import was fetching: the run decides again (now both moved). */
class SpaceMoved extends Error {
  constructor() {
    super('The space kept changing while the repository was being imported; the next run tries again');
  }
}

interface RunResult {
  action: 'none' | 'import' | 'export' | 'conflict';
  head: string | null;
  commit?: string;
  commits?: string[];
  revision?: string;
  changeRequest?: string;
  unchanged?: boolean;
  warnings?: string[];
}

/** The body of a `git.sync` job. */
export async function runGitSync(app: AppContext, payload: { syncId: string }, run: OperationRun): Promise<RunResult | SiteRunResult> {
  const first = await getGitSync(app.db, payload.syncId);
  if (!first) throw new JobSkipped('Git Sync was removed');
  // From now on a push queues a run of its own (this one may already have read the head).
  await clearQueuedRun(app.db, first.id, run.operation.id);
  // A whole site from docs.yaml (site-runs.ts); its spaces have space syncs of their own.
  if (first.kind === 'site') return runSiteSync(app, first, run);
  if (!first.space_id) throw new JobSkipped('Only space syncs run here');
  const spaceId = first.space_id;
  if (!(await getSpace(app.db, spaceId))) throw new JobSkipped('The space was deleted');
  return withGitSyncLock(app.db, spaceId, async () => {
    for (let attempt = 0; ; attempt++) {
      const s = await getGitSync(app.db, payload.syncId);
      if (!s) throw new JobSkipped('Git Sync was removed');
      try {
        return await syncOnce(app, s, run);
      } catch (err) {
        if (err instanceof SpaceMoved && attempt < 3) continue;
        if (err instanceof JobSkipped || err instanceof LeaseLost) throw err;
        const message = err instanceof DomainError ? err.message : `The sync failed: ${(err as Error).message ?? String(err)}`;
        await recordSyncFailure(app.db, s, message, app.config.gitSync.maxBackoffSeconds).catch(() => {});
        throw err;
      }
    }
  });
}

function payloadOf(s: GitSyncRow): GitJobPayload {
  return {
    spaceId: s.space_id!,
    url: s.url,
    ...(s.credentials ? { credentials: s.credentials } : {}),
    ref: s.ref,
    ...(s.project_directory ? { repoProjectDirectory: s.project_directory } : {}),
  };
}

/** Id the conflict's standalone import derives its revision from (one per operation, apart from a plain import's). */
const conflictImportId = (operationId: string) => `${operationId}/conflict`;

async function syncOnce(app: AppContext, s: GitSyncRow, run: OperationRun): Promise<RunResult> {
  const spaceId = s.space_id!;
  const payload = payloadOf(s);
  const noHook = async () => {};
  // A run of this operation that died after its import committed: finish it, import nothing again.
  const imported = await completedImport(
    app,
    { ...payload, standalone: true },
    { operationId: run.operation.id, afterContentChange: noHook },
  );
  if (imported) {
    await afterImport(app, spaceId);
    await recordSyncSuccess(app.db, s, { commit: imported.commit, revisionId: imported.revision, imported: imported.commit });
    return { action: 'import', head: imported.commit, commit: imported.commit, revision: imported.revision };
  }
  const conflictDone = await completedImport(
    app,
    { ...payload, standalone: true },
    { operationId: conflictImportId(run.operation.id), afterContentChange: noHook },
  );
  if (conflictDone) {
    // Based on the revision of the last sync, or (a first sync) the space's content the import was made on.
    const base = s.synced_revision_id ?? (await getRevision(app.db, spaceId, conflictDone.revision))?.parents[0] ?? conflictDone.revision;
    const cr = await openConflict(app, s, {
      operationId: run.operation.id,
      head: conflictDone.commit,
      revisionId: conflictDone.revision,
      base,
    });
    return { action: 'conflict', head: conflictDone.commit, revision: conflictDone.revision, changeRequest: cr.changeRequest };
  }

  const space = await getSpace(app.db, spaceId);
  if (!space) throw new JobSkipped('The space was deleted');
  const head = await remoteBranchHead(remoteFor(app, payload), s.ref);
  await run.progress(0.1);
  // The commit the space last synced with, as the engines recorded it (an export that pushed and
  // died before the sync row was updated is known by it): that head is not a change of the remote.
  const state = await getGitSyncState(app.db, spaceId);
  const ours = !!head && head !== s.synced_commit && state?.last_commit === head && state.url === s.url && state.ref === s.ref;
  const headMoved = !!head && head !== s.synced_commit && !ours;
  // A monorepo's branch that moved only in other spaces' folders did not move for this space.
  const remoteMoved =
    headMoved && s.synced_commit && s.project_directory ? await folderChanged(app, payload, s.synced_commit, head!) : headMoved;
  const spaceMoved = space.revision_id !== s.synced_revision_id;
  const firstSync = !s.synced_commit && !s.synced_revision_id;

  if (!head) {
    if (s.synced_commit) throw new GitSyncError(`The branch "${branchOf(s.ref)}" no longer exists on the remote`, 'upstream');
    if (s.direction === 'import') throw new GitSyncError(`The remote has no branch "${branchOf(s.ref)}"`, 'not-found');
    return exportSpace(app, s, run, { title: space.title, revisionId: space.revision_id, force: false, head });
  }
  // The repository's side was offered in a change request: once merged, its result is exported on
  // top of that head (a fast-forward); until then the conflict stands.
  const sameConflict =
    s.status === 'conflict' &&
    !!s.conflict_commit &&
    (s.conflict_commit === head || (!!s.project_directory && !(await folderChanged(app, payload, s.conflict_commit, head))));
  if (sameConflict && s.conflict_change_request_id && s.direction !== 'import') {
    const cr = await getChangeRequest(app.db, spaceId, s.conflict_change_request_id);
    if (cr?.status === 'merged') {
      const rev = cr.revision_merged ? await getRevision(app.db, spaceId, cr.revision_merged) : null;
      const merge = rev ? await mergeStep(app, spaceId, rev) : null;
      return exportSpace(app, s, run, {
        title: space.title,
        revisionId: space.revision_id,
        force: true,
        head,
        steps: [{ ...(merge ?? { message: cr.subject }), revisionId: space.revision_id }],
      });
    }
    if (cr?.status === 'open' || cr?.status === 'draft') {
      await recordSyncChecked(app.db, s);
      return { action: 'none', head };
    }
    // Archived (or deleted): the repository's side was turned down; the next run offers it again.
  }
  if (firstSync) {
    if (s.direction === 'export') return exportSpace(app, s, run, { title: space.title, revisionId: space.revision_id, force: true, head });
    // A space with content of its own is not overwritten: the repository's side becomes a change request.
    if (await hasOwnContent(app, s, space.revision_id)) return conflictImport(app, s, run, head, space.revision_id);
    return importHead(app, s, run, space.revision_id, head);
  }
  const importing = remoteMoved && s.direction !== 'export';
  const exporting = (spaceMoved || ours) && s.direction !== 'import';
  if (importing && exporting) {
    // A run that died while exporting may have pushed before it could record it: then the head is
    // that export's commit, which the export engine recognises (same tree on top of the synced
    // commit) instead of pushing again. Anything else is refused by the remote: a real conflict.
    if (s.status === 'exporting') {
      try {
        return await exportSpace(app, s, run, { title: space.title, revisionId: space.revision_id, force: false, head });
      } catch (err) {
        if (!(err instanceof GitSyncError)) throw err;
      }
    }
    return conflictImport(app, s, run, head, s.synced_revision_id!);
  }
  if (importing) return importHead(app, s, run, space.revision_id, head);
  // Built on the head when the branch moved elsewhere since the commit the space last synced with
  // (only other folders of a monorepo, else this would be a conflict), or when exporting one-way.
  if (exporting)
    return exportSpace(app, s, run, {
      title: space.title,
      revisionId: space.revision_id,
      force: s.direction === 'export' || state?.last_commit !== head,
      head,
    });
  // Nothing for this space; a head that moved elsewhere is where the next comparison starts.
  await recordSyncChecked(app.db, s, headMoved && !remoteMoved ? head : null);
  return { action: 'none', head };
}

/** Import the branch head into the space's main content, unless the space moves meanwhile (then the run decides again). */
async function importHead(app: AppContext, s: GitSyncRow, run: OperationRun, expectedRevision: string, head: string): Promise<RunResult> {
  const spaceId = s.space_id!;
  await setGitSyncStatus(app.db, s, 'importing');
  const result = await importRepository(app, payloadOf(s), {
    operationId: run.operation.id,
    progress: (f) => run.progress(0.1 + f * 0.9),
    fence: async (c) => {
      await run.fence(c);
      // Inside the import's transaction, after the space row lock: a change since the run decided
      // would be overwritten by the import.
      const now = await getSpace(c, spaceId);
      if (now && now.revision_id !== expectedRevision) throw new SpaceMoved();
    },
    afterContentChange: (id) => afterImport(app, id),
  });
  // Language variants translating this space on a site synced from docs.yaml follow it (the import
  // is committed; the sync's record comes last, as the run's outcome).
  if (!result.unchanged) await refreshVariantsOfSource(app, spaceId);
  await recordSyncSuccess(app.db, s, {
    commit: result.commit,
    revisionId: result.revision,
    imported: result.unchanged ? null : result.commit,
  });
  return {
    action: 'import',
    head,
    commit: result.commit,
    revision: result.revision,
    ...(result.unchanged ? { unchanged: true } : {}),
    ...(result.warnings ? { warnings: result.warnings } : {}),
  };
}

/**
 * Whether the space has content that did not come from this branch (a first sync must not overwrite
 * it): not empty, and its current revision is not an import of the sync's repository and branch.
 */
async function hasOwnContent(app: AppContext, s: GitSyncRow, revisionId: string): Promise<boolean> {
  const { revision, snapshot } = await revisionSnapshot(app.db, s.space_id!, revisionId);
  if (!snapshot.ordered.length && !snapshot.files.length) return false;
  const git = revision.git as { url?: string; ref?: string } | null;
  return !(git && git.url === s.url && git.ref === s.ref);
}

/**
 * Both moved: the repository's head as a standalone revision in a new change request based on
 * `base` (the revision of the last sync, or the space's own content at a first sync).
 */
async function conflictImport(app: AppContext, s: GitSyncRow, run: OperationRun, head: string, base: string): Promise<RunResult> {
  await setGitSyncStatus(app.db, s, 'importing');
  const result = await importRepository(
    app,
    { ...payloadOf(s), standalone: true },
    {
      operationId: conflictImportId(run.operation.id),
      progress: (f) => run.progress(0.1 + f * 0.8),
      fence: run.fence,
      afterContentChange: async () => {},
    },
  );
  const cr = await openConflict(app, s, { operationId: run.operation.id, head: result.commit, revisionId: result.revision, base });
  return { action: 'conflict', head, commit: result.commit, revision: result.revision, changeRequest: cr.changeRequest };
}

/** Export the space: one commit per step (see exports.ts), the first on the remote head when `force`. */
async function exportSpace(
  app: AppContext,
  s: GitSyncRow,
  run: OperationRun,
  o: { title: string; revisionId: string; force: boolean; head: string | null; steps?: ExportStep[] },
): Promise<RunResult> {
  await setGitSyncStatus(app.db, s, 'exporting');
  const steps = o.steps ?? (await exportSteps(app, s.space_id!, o.title, s.synced_revision_id, o.revisionId));
  const commits: string[] = [];
  let last: { commit: string; unchanged: boolean } | null = null;
  for (const [i, step] of steps.entries()) {
    last = await exportRepository(
      app,
      {
        ...payloadOf(s),
        commitMessage: step.message,
        ...(step.author ? { commitAuthor: step.author } : {}),
        revisionId: step.revisionId,
        force: o.force && i === 0,
      },
      (f) => run.progress(0.1 + ((i + f) / steps.length) * 0.9),
    );
    if (!last.unchanged) commits.push(last.commit);
  }
  await recordSyncSuccess(app.db, s, {
    commit: last?.commit ?? o.head,
    revisionId: o.revisionId,
    exported: commits.length ? commits[commits.length - 1] : null,
  });
  return { action: 'export', head: o.head, commit: last?.commit, commits, ...(commits.length ? {} : { unchanged: true }) };
}
