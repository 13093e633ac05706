// A change of a space's main content makes its Git Sync export due after GIT_SYNC_DEBOUNCE_MS (a
// burst of edits joins one export): a run is queued with that delay at once (edits meanwhile join
// it), and the poll tick (polling.ts) starts one should that enqueue have been lost. Kept apart from
// the runs so that content-hooks (which the runs use) does not import them.
import type { AppContext } from '../../context.js';
import { markExportDue } from '../../db/repos/git-syncs.js';
import { requestRun } from './request-run.js';

/**
 * After the space's main content changed (not after an import: see content-hooks afterImport): its
 * sync, if it exports, runs after the debounce. A failure is logged: the next poll finds the change.
 */
export async function scheduleGitSyncExport(app: AppContext, spaceId: string): Promise<void> {
  try {
    const syncId = await markExportDue(app.db, spaceId, app.config.gitSync.debounceMs);
    if (syncId) await requestRun(app, syncId, { delayMs: app.config.gitSync.debounceMs });
  } catch (err) {
    app.log.error({ err, spaceId }, 'could not schedule the Git Sync export');
  }
}
