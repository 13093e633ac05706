import { Worker } from 'bullmq';
import type { AppContext } from '../src/context.js';
import type { QueueName } from '../src/config.js';
import { redisConnection } from '../jobs/client.js';
import { checkProcessors } from '../jobs/index.js';
import type { JobData } from '../jobs/registry.js';
import { createJobHandler } from './runner.js';
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
}

/** One BullMQ Worker per configured queue, plus the reconciler loop. */
export function startWorkers(app: AppContext, queues: readonly QueueName[] = app.config.workers.queues): WorkerPool {
  checkProcessors();
  const w = app.config.workers;
  // Ticks of job schedulers (workers/scheduler.ts) become operations; every other job is one already.
  const handler = withSchedules(app, createJobHandler(app));
  const workers = queues.map((queue) => {
    const worker = new Worker<JobData | ScheduledJobData>(queue, handler, {
      connection: redisConnection(app.config.redisUrl),
      prefix: app.config.queuePrefix,
      concurrency: w.concurrency,
      lockDuration: w.lockDurationMs,
      stalledInterval: w.stalledIntervalMs,
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
    async close(timeoutMs = app.config.shutdownTimeoutMs) {
      stopReconciler();
      await stopSchedules().catch((err) => app.log.warn({ err }, 'stopping job schedulers failed'));
      let timer: NodeJS.Timeout | undefined;
      const graceful = Promise.all(workers.map((x) => x.close())).then(() => 'closed' as const);
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
