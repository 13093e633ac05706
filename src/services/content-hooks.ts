import type { AppContext } from '../context.js';
import { catchUpSpace } from '../search/indexer.js';
import { bumpSitesOfSpace } from '../db/repos/sites.js';
import { scheduleSpaceIndex } from './operations.js';
import { scheduleGitSyncExport } from './git-sync/export-due.js';
import { scheduleChangeRequestLinkIndex, scheduleLinkIndex } from './link-indexing.js';
import { scheduleRevalidationOfSpace } from './sites/revalidation.js';

/**
 * Called after a space's current revision changed (create, edit, template, duplicate, import...).
 * Keeps derived data following the current revision: the search index here, the link index in a
 * `links.index` job (src/services/link-indexing.ts). Engines that commit
 * (git import, website import) get it passed in by the services that run them (git-runs.ts, website-import-run.ts).
 */
export async function afterContentChange(app: AppContext, spaceId: string): Promise<void> {
  await bumpSites(app, spaceId);
  try {
    await catchUpSpace(app, spaceId);
  } catch (err) {
    app.log.error({ err, spaceId }, 'search reindex failed');
  }
  await scheduleLinkIndex(app, spaceId);
  // Git Sync exports the change after a short debounce (not after an import: afterImport).
  await scheduleGitSyncExport(app, spaceId);
}

/**
 * Called after an import (git, website) made a new revision current: sites follow at once, the
 * search index in a `search.index` job of its own, so the import is done (and its content readable)
 * as soon as it commits, without waiting for thousands of pages to be indexed. Until that job ran,
 * a search of the space brings the index up to date itself (src/search/search.ts), waiting for
 * it at most SEARCH_CATCH_UP_MS (then it answers from the previous revision's index). The link
 * index follows the search index (the `search.index` job schedules it when done): both parse every
 * page on the same Markdown threads, and running them side by side made the search of a 2,000-page
 * import take 17 times the import to catch up.
 */
export async function afterImport(app: AppContext, spaceId: string): Promise<void> {
  await bumpSites(app, spaceId);
  try {
    // The job schedules the link index when it is done (src/services/search-indexing.ts).
    await scheduleSpaceIndex(app, 'search.index', spaceId);
    return;
  } catch (err) {
    // The next search of the space catches up by itself.
    app.log.error({ err, spaceId }, 'could not schedule the search index update');
  }
  await scheduleLinkIndex(app, spaceId);
}

async function bumpSites(app: AppContext, spaceId: string): Promise<void> {
  try {
    // Published sites read the space's revision per request; the version makes their caches move too.
    await bumpSitesOfSpace(app.db, spaceId);
  } catch (err) {
    app.log.error({ err, spaceId }, 'site version bump failed');
  }
  // GitBook's renderer (or a CDN) in front of those sites hears of it (never throws).
  await scheduleRevalidationOfSpace(app, spaceId);
}

/**
 * Called after a change request's content changed (an edit, an update from main, a template, a
 * website import into it): its link index is built by a `links.index` job, so that the first link
 * read of the change request parses nothing. Search covers main content only.
 */
export async function afterChangeRequestChange(app: AppContext, spaceId: string, changeRequestId: string): Promise<void> {
  await scheduleChangeRequestLinkIndex(app, spaceId, changeRequestId);
}
