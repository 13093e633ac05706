import type { Processor } from './types.js';
import { JobFailure, JobSkipped } from './types.js';
import { importRepository, GitSyncError } from '../src/git/sync.js';
import { inSpaceOrder } from '../src/git/ordering.js';
import { getSpace } from '../src/db/repos/spaces.js';

/** Import a branch into a space (see src/git/sync.ts); ordered per space by timestamp. */
export const processGitImport: Processor<'git.import'> = async (payload, ctx) => {
  if (!(await getSpace(ctx.app.db, payload.spaceId))) throw new JobSkipped('The space was deleted');
  try {
    // `force` on an import applies it even when its timestamp is older than the last applied one.
    return await inSpaceOrder(ctx.app, payload.spaceId, payload.timestamp, () => importRepository(ctx.app, payload, ctx.operation.id, ctx.progress), !!payload.force);
  } catch (err) {
    if (err instanceof GitSyncError) throw new JobFailure(err.message);
    throw err;
  }
};
