import type { AppContext } from '../context.js';

/**
 * Called after a space's current revision changed (create, edit, template, duplicate, import...).
 * Keeps derived data (the search index) following the current revision.
 */
export async function afterContentChange(app: AppContext, spaceId: string): Promise<void> {
  const { reindexSpace } = await import('../search/indexer.js');
  try {
    await reindexSpace(app, spaceId);
  } catch (err) {
    app.log.error({ err, spaceId }, 'search reindex failed');
  }
}
