import type { Processor } from './types.js';
import { JobFailure, JobSkipped } from '../src/queue/errors.js';
import { exportRepository } from '../src/git/export-repository.js';
import { GitSyncError } from '../src/git/repo.js';
import { inSpaceOrder } from '../src/git/ordering.js';
import { getSpace } from '../src/db/repos/spaces.js';

/** Commit the space's current content on the branch and push it; ordered per space by timestamp. */
export const processGitExport: Processor<'git.export'> = async (payload, ctx) => {
  if (!(await getSpace(ctx.app.db, payload.spaceId))) throw new JobSkipped('The space was deleted');
  try {
    return await inSpaceOrder(ctx.app, payload.spaceId, payload.timestamp, () => exportRepository(ctx.app, payload, ctx.progress));
  } catch (err) {
    if (err instanceof GitSyncError) throw new JobFailure(err.message);
    throw err;
  }
};
