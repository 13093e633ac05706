import type { AppContext } from '../context.js';
import { reindexSpace } from '../search/indexer.js';
import { bumpSitesOfSpace } from '../db/repos/sites.js';

/**
 * Called after a space's current revision changed (create, edit, template, duplicate, import...).
 * Keeps derived data (the search index) following the current revision. Engines that commit
 * (git import, website import) get it passed in by their job processors.
 */
export async function afterContentChange(app: AppContext, spaceId: string): Promise<void> {
  try {
    // Published sites read the space's revision per request; the version makes their caches move too.
    await bumpSitesOfSpace(app.db, spaceId);
  } catch (err) {
    app.log.error({ err, spaceId }, 'site version bump failed');
  }
  try {
    await reindexSpace(app, spaceId);
  } catch (err) {
    app.log.error({ err, spaceId }, 'search reindex failed');
  }
}
