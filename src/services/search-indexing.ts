// The work of the `search.index` job (scheduled after an import, see content-hooks.ts).
import type { AppContext } from '../context.js';
import { JobSkipped } from '../queue/errors.js';
import { getSpace } from '../db/repos/spaces.js';
import { catchUpSpace } from '../search/indexer.js';
import { scheduleLinkIndex } from './link-indexing.js';

/**
 * Index a space's current revision for search (incremental: pages whose text did not change are
 * kept). Idempotent: a second run, or one after a search already caught up, finds nothing to do;
 * the newest revision wins when imports follow each other (the indexer reads it under its lock).
 * A deleted space skips it (JobSkipped). The space's link index is scheduled after it.
 */
export async function indexSpaceForSearch(app: AppContext, spaceId: string): Promise<{ spaceId: string }> {
  if (!(await getSpace(app.db, spaceId))) throw new JobSkipped('The space was deleted');
  try {
    await catchUpSpace(app, spaceId);
  } finally {
    // After an import the link index comes next (content-hooks.ts afterImport): one space's pages
    // parsed by one index at a time. It never throws; a duplicate request is dropped.
    await scheduleLinkIndex(app, spaceId);
  }
  return { spaceId };
}
