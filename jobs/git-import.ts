import type { Processor } from './types.js';
import { JobFailure, JobSkipped } from '../src/queue/errors.js';
import { importRepository, completedImport } from '../src/git/import-repository.js';
import { GitSyncError } from '../src/git/repo.js';
import { inSpaceOrder } from '../src/git/ordering.js';
import { getSpace } from '../src/db/repos/spaces.js';
import { afterImport } from '../src/services/content-hooks.js';

/**
 * Import a branch into a space (see src/git/sync.ts); ordered per space by timestamp. Once per
 * operation: a second run of an operation whose revision exists returns that revision and changes
 * nothing (checked before the ordering, which a later operation may have moved on since).
 */
export const processGitImport: Processor<'git.import'> = async (payload, ctx) => {
  const run = {
    operationId: ctx.operation.id,
    progress: ctx.progress,
    fence: ctx.fence,
    afterContentChange: (spaceId: string) => afterImport(ctx.app, spaceId),
  };
  const done = await completedImport(ctx.app, payload, run);
  if (done) {
    ctx.log.info({ revision: done.revision }, 'import already applied by an earlier run of this operation');
    return done;
  }
  if (!(await getSpace(ctx.app.db, payload.spaceId))) throw new JobSkipped('The space was deleted');
  try {
    // `force` on an import applies it even when its timestamp is older than the last applied one.
    return await inSpaceOrder(ctx.app, payload.spaceId, payload.timestamp, () => importRepository(ctx.app, payload, run), !!payload.force);
  } catch (err) {
    if (err instanceof GitSyncError) throw new JobFailure(err.message);
    throw err;
  }
};
