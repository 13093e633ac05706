// Git Sync on a timer and after content changes: the `git.sync.poll` job (every
// GIT_SYNC_POLL_TICK_MS, workers/scheduler.ts) starts a run of each sync whose poll time (or
// back-off) passed or whose export is due; a change of a space's main content makes an export due
// after GIT_SYNC_DEBOUNCE_MS (a burst of edits joins one export).
import type { AppContext } from '../../context.js';
import { markSiteExportsDue, pruneFinishedPollTicks, takeDueGitSyncs } from '../../db/repos/git-syncs.js';
import { requestRun } from './runs.js';

/** Most syncs one tick starts; the rest wait for the next tick (oldest due first). */
const PER_TICK = 200;

/** How long finished ticks stay readable (GET /v1/operations/{id}, the dashboard). */
const TICKS_KEPT_SECONDS = 3600;

export async function pollGitSyncs(app: AppContext): Promise<{ due: number; pruned: number }> {
  // A site whose structure may have changed (its version moved) gets a run that writes docs.yaml
  // back when the structure gives another file (site-runs.ts), after the debounce.
  await markSiteExportsDue(app.db, app.config.gitSync.debounceMs);
  const due = await takeDueGitSyncs(app.db, PER_TICK);
  for (const s of due) await requestRun(app, s.id);
  // The ticks themselves are operations (workers/scheduler.ts): the last hour of them is kept.
  const pruned = await pruneFinishedPollTicks(app.db, TICKS_KEPT_SECONDS, 1000);
  return { due: due.length, pruned };
}
