import type { Processor } from './types.js';
import { JobSkipped } from '../src/queue/errors.js';
import { getSpace } from '../src/db/repos/spaces.js';
import { reindexSpace } from '../src/search/indexer.js';

/**
 * Index a space's current revision for search (incremental: pages whose text did not change are
 * kept). Idempotent: a second run, or one after a search already caught up, finds nothing to do;
 * the newest revision wins when imports follow each other (the indexer reads it under its lock).
 */
export const processSearchIndex: Processor<'search.index'> = async ({ spaceId }, ctx) => {
  if (!(await getSpace(ctx.app.db, spaceId))) throw new JobSkipped('The space was deleted');
  await reindexSpace(ctx.app, spaceId);
  return { spaceId };
};
