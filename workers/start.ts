import { Worker } from 'bullmq';
import type { AppContext } from '../src/context.js';
import { checkConnectionBudget, type QueueName } from '../src/config.js';
import { redisConnection } from '../src/queue/client.js';
import { checkProcessors } from '../jobs/index.js';
import type { JobData } from '../src/queue/registry.js';
import { createJobHandler } from './runner.js';
import { Finisher } from './finisher.js';
import { startReconciler } from './reconciler.js';
import { startSchedules, withSchedules, type ScheduledJobData } from './scheduler.js';
import { closeBrowser } from '../src/render/browser.js';

export interface WorkerPool {
  workers: Worker<JobData | ScheduledJobData>[];
  /**
   * Stop taking jobs, let active ones finish for up to `timeoutMs`, then force-close: `forced`
   * says jobs were abandoned still running (their locks lapse and BullMQ's stalled check hands
   * them to another worker; the caller should exit rather than wait for them).
   */
  close(timeoutMs?: number): Promise<{ forced: boolean }>;
  /** Resolves once the final states of the runs that ended so far are durable (runner.ts frees a job's slot before). */
  settled(): Promise<void>;
}

/**
 * How often each worker runs BullMQ's stalled-job check, for a takeover within
 * JOB_LOCK_DURATION_MS + JOB_STALLED_INTERVAL_MS of a worker's death. A dead worker's job moves
 * on the second check after its lock expired and after its last lock renewal (one check marks the
 * active jobs, the next moves those still unlocked), and the checks of all workers of a queue share
 * one slot (a Redis key that lives one check interval): when the worker that took the last slot is
 * the one that died, the next check may come nearly two intervals later. With checks every
 * interval i, the worst case was max(3 i, lock + i): 90 s for 30 s + 30 s (94 s measured). Checking
 * every i / 3 bounds it by max(i, lock + i / 3), within JOB_LOCK_DURATION_MS + JOB_STALLED_INTERVAL_MS
 * (plus the wait for the operation's lease, which also expires within the lock duration).
 */
function stalledCheckIntervalMs(stalledIntervalMs: number): number {
  return Math.max(100, Math.floor(stalledIntervalMs / 3));
}

/** One BullMQ Worker per configured queue, plus the reconciler loop. */
export function startWorkers(app: AppContext, queues: readonly QueueName[] = app.config.workers.queues): WorkerPool {
  checkProcessors();
  checkConnectionBudget(app.config, queues);
  const w = app.config.workers;
  // Ticks of job schedulers (workers/scheduler.ts) become operations; every other job is one already.
  const finisher = new Finisher(app.db);
  const handler = withSchedules(app, createJobHandler(app, finisher));
  const workers = queues.map((queue) => {
    const worker = new Worker<JobData | ScheduledJobData>(queue, handler, {
      connection: redisConnection(app.config.redisUrl),
      prefix: app.config.queuePrefix,
      concurrency: w.concurrency,
      lockDuration: w.lockDurationMs,
      stalledInterval: stalledCheckIntervalMs(w.stalledIntervalMs),
      maxStalledCount: 2,
    });
    worker.on('error', (err) => app.log.warn({ err: err.message, queue }, 'worker error'));
    return worker;
  });
  const stopReconciler = startReconciler(app);
  const stopSchedules = startSchedules(app, queues);
  app.log.info({ queues, concurrency: w.concurrency }, 'workers started');
  return {
    workers,
    settled: () => finisher.drain(),
    async close(timeoutMs = app.config.shutdownTimeoutMs) {
      stopReconciler();
      await stopSchedules().catch((err) => app.log.warn({ err }, 'stopping job schedulers failed'));
      let timer: NodeJS.Timeout | undefined;
      // Closed once the running jobs ended and their final states are written (see runner.ts).
      const graceful = Promise.all(workers.map((x) => x.close()))
        .then(() => finisher.drain())
        .then(() => 'closed' as const);
      const limit = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), timeoutMs)));
      const outcome = await Promise.race([graceful, limit]);
      clearTimeout(timer);
      if (outcome === 'timeout') {
        // Not `close(true)`: once close() has begun, BullMQ returns that same pending close.
        // Abandoned jobs keep their locks only while this process lives to renew them.
        app.log.warn({ timeoutMs }, 'jobs still running after the shutdown timeout are abandoned (another worker will take them over)');
        // Chromium is left to an abandoned render: killing it now would fail that render and let
        // the runner record the failure. It exits with this process (src/render/browser.ts).
        return { forced: true };
      }
      await closeBrowser(); // the PDF renderer's Chromium, if this process launched one
      return { forced: false };
    },
  };
}
