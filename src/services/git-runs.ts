// The work of the `git.import` and `git.export` jobs: the space's git operations, one at a time and
// in timestamp order (src/git/ordering.ts), around the engines that import and export a repository.
// A GitSyncError is the run's final outcome; an operation older than the last applied one, or one
// whose space was deleted, is skipped (JobSkipped).
import type { AppContext } from '../context.js';
import type { GitJobPayload } from '../queue/registry.js';
import { JobSkipped } from '../queue/errors.js';
import { getSpace } from '../db/repos/spaces.js';
import { importRepository, completedImport } from '../git/import-repository.js';
import { exportRepository } from '../git/export-repository.js';
import { inSpaceOrder } from '../git/ordering.js';
import { afterImport } from './content-hooks.js';
import type { OperationRun } from './operation-run.js';

/**
 * Import a branch into a space (see src/git/sync.ts); ordered per space by timestamp. Once per
 * operation: a second run of an operation whose revision exists returns that revision and changes
 * nothing (checked before the ordering, which a later operation may have moved on since).
 */
export async function runGitImport(app: AppContext, payload: GitJobPayload, run: OperationRun) {
  const importRun = {
    operationId: run.operation.id,
    progress: run.progress,
    fence: run.fence,
    afterContentChange: (spaceId: string) => afterImport(app, spaceId),
  };
  const done = await completedImport(app, payload, importRun);
  if (done) {
    run.log.info({ revision: done.revision }, 'import already applied by an earlier run of this operation');
    return done;
  }
  if (!(await getSpace(app.db, payload.spaceId))) throw new JobSkipped('The space was deleted');
  // `force` on an import applies it even when its timestamp is older than the last applied one.
  return inSpaceOrder(app, payload.spaceId, payload.timestamp, () => importRepository(app, payload, importRun), !!payload.force);
}

/** Commit the space's current content on the branch and push it; ordered per space by timestamp. */
export async function runGitExport(
  app: AppContext,
  payload: GitJobPayload & { commitMessage: string },
  run: Pick<OperationRun, 'progress'>,
) {
  if (!(await getSpace(app.db, payload.spaceId))) throw new JobSkipped('The space was deleted');
  return inSpaceOrder(app, payload.spaceId, payload.timestamp, () => exportRepository(app, payload, run.progress));
}
