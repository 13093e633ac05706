import type { AppContext } from '../src/context.js';
import * as ops from '../src/db/repos/operations.js';
import { withTryLock } from '../src/db/repos/locks.js';
import { isJobName } from '../src/queue/registry.js';

const RECONCILE_LOCK = 727_003;

/**
 * Make Redis agree with PostgreSQL: every accepted, unfinished operation must have its job.
 * Only operations no live run holds are looked at (no lease, or an expired one: see
 * workers/runner.ts), so an operation still running on a live worker is never started a second
 * time, even when Redis lost its job. A missing job (Redis flushed, a crash between commit and
 * enqueue, or a dead worker's job lost with Redis) is added again under the operation id, so doing
 * this twice is harmless; a job that ended while its operation did not (a run that lost its lease)
 * or that Redis only partly kept is replaced; a job BullMQ gave up on (for example stalled too
 * often) fails its operation with the reason. One process at a time runs it (advisory lock).
 */
export async function reconcileOnce(app: AppContext): Promise<{ requeued: number; failed: number } | null> {
  return withTryLock(app.db, RECONCILE_LOCK, async () => {
    let requeued = 0;
    let failed = 0;
    const open = await ops.listOpenOperations(app.db, app.config.workers.reconcileMinAgeMs);
    for (const op of open) {
      try {
        if (!isJobName(op.kind)) {
          await ops.finishOperation(app.db, op.id, 'failed', { error: `Unknown job kind "${op.kind}"` });
          failed++;
          continue;
        }
        const job = await app.jobs.queue(op.queue as never).getJob(op.id);
        const state = job ? await job.getState() : 'missing';
        if (state === 'failed') {
          await ops.finishOperation(app.db, op.id, 'failed', { error: job?.failedReason || 'The job failed' });
          failed++;
        } else if (state === 'missing' || state === 'completed' || state === 'unknown') {
          if (job) await job.remove();
          await app.jobs.enqueue(op);
          await ops.touchOperation(app.db, op.id);
          requeued++;
        }
        // active: BullMQ's stalled check hands a dead worker's job to another; waiting, delayed: it will run.
      } catch (err) {
        app.log.warn({ err: (err as Error).message, operationId: op.id }, 'reconciler could not repair an operation');
      }
    }
    if (requeued || failed) app.log.info({ requeued, failed }, 'reconciler repaired operations');
    return { requeued, failed };
  });
}

export function startReconciler(app: AppContext): () => void {
  let running = false;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      await reconcileOnce(app);
    } catch (err) {
      app.log.warn({ err }, 'reconciler pass failed');
    } finally {
      running = false;
    }
  };
  void tick();
  const timer = setInterval(tick, app.config.workers.reconcileIntervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
