// Asking for a Git Sync run (the `git.sync` job), coalescing: at most one queued run per sync.
import type { AppContext } from '../../context.js';
import { withTx } from '../../db/pool.js';
import * as ops from '../../db/repos/operations.js';
import { getGitSync, setQueuedRun, setWantedHead } from '../../db/repos/git-syncs.js';
import { createOperation, enqueue } from '../operations.js';

/**
 * Ask for a run of the sync. At most one run is queued per sync: when one is, only the wanted head
 * is recorded. `delayMs`: the new run waits that long in the queue (an export's debounce). Returns the id of the run that will take this request (new or already queued); null
 * when the sync is gone.
 */
export async function requestRun(
  app: AppContext,
  syncId: string,
  o: { wantedHead?: string; delayMs?: number } = {},
): Promise<string | null> {
  const op = await withTx(app.db, async (c) => {
    const s = await getGitSync(c, syncId, true);
    if (!s) return null;
    if (s.queued_operation_id) {
      const queued = await ops.getOperation(c, s.queued_operation_id);
      if (queued?.status === 'queued') {
        if (o.wantedHead) await setWantedHead(c, syncId, o.wantedHead);
        return { queued: queued.id };
      }
    }
    const created = await createOperation(c, 'git.sync', {
      organizationId: s.organization_id,
      payload: { syncId },
      targetType: s.kind,
      targetId: (s.space_id ?? s.site_id)!,
    });
    await setQueuedRun(c, syncId, created.id, o.wantedHead ?? null);
    return { created };
  });
  if (!op) return null;
  if ('queued' in op) return op.queued ?? null;
  // A burst of pushes: while a run of this sync is under way, the next one waits GIT_SYNC_DEBOUNCE_MS
  // in the queue, so the pushes meanwhile join it (ten pushes in quick succession: at most three
  // imports). A push to a quiet sync runs at once.
  const busy = await ops.earlierRunning(app.db, 'git.sync', op.created.target_id!, op.created.id);
  const delayMs = Math.max(o.delayMs ?? 0, busy ? app.config.gitSync.debounceMs : 0);
  await enqueue(app, op.created, delayMs ? { delayMs } : {});
  return op.created.id;
}
