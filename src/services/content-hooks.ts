import type { AppContext } from '../context.js';
import { reindexSpace } from '../search/indexer.js';

/**
 * Called after a space's current revision changed (create, edit, template, duplicate, import...).
 * Keeps derived data (the search index) following the current revision. Engines that commit
 * (git import, website import) get it passed in by their job processors.
 */
export async function afterContentChange(app: AppContext, spaceId: string): Promise<void> {
  try {
    await reindexSpace(app, spaceId);
  } catch (err) {
    app.log.error({ err, spaceId }, 'search reindex failed');
  }
}
