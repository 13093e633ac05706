import { UnrecoverableError, type Job } from 'bullmq';
import type { AppContext } from '../src/context.js';
import * as ops from '../src/db/repos/operations.js';
import { isJobName, type JobData } from '../jobs/registry.js';
import { PROCESSORS } from '../jobs/index.js';
import { JobSkipped, type JobContext } from '../jobs/types.js';
import { redactUrl } from '../src/log.js';

async function retry<T>(fn: () => Promise<T>, delays = [200, 1000, 5000]): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await fn();
    } catch (err) {
      if (i >= delays.length) throw err;
      await new Promise((r) => setTimeout(r, delays[i]));
    }
  }
}

/** Error text as stored on the operation row: first line, bounded, URLs stripped of credentials. */
export function operationError(err: unknown): string {
  const msg = String((err as Error)?.message ?? err).split('\n')[0].slice(0, 2000);
  return msg.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"']+/gi, (u) => redactUrl(u));
}

/**
 * The BullMQ processor shared by every queue: it moves the operation row through
 * queued -> running -> succeeded | failed | skipped around the job's own processor. A job whose
 * operation is already final does nothing (idempotent re-delivery after a stall or a re-enqueue).
 */
export function createJobHandler(app: AppContext) {
  return async (job: Job<JobData>): Promise<unknown> => {
    const name = job.name;
    if (!isJobName(name)) throw new UnrecoverableError(`No processor for job "${name}"`);
    const op = await ops.markRunning(app.db, job.data.operationId);
    if (!op) return { alreadyFinished: true };
    const log = app.log.child({ operationId: op.id, job: name, attempt: job.attemptsMade + 1 });
    const ctx: JobContext = {
      app,
      operation: op,
      job,
      log,
      progress: async (fraction) => {
        const p = Math.max(0, Math.min(1, fraction));
        await ops.markProgress(app.db, op.id, p);
        await job.updateProgress(Math.round(p * 100)).catch(() => {});
      },
    };
    const started = Date.now();
    try {
      const processor = PROCESSORS[name] as (payload: unknown, ctx: JobContext) => Promise<unknown>;
      const result = await processor(op.payload, ctx);
      // The work is done: a failure to record it must not re-run the processor (a second push,
      // a second import), so only the write is retried.
      await retry(() => ops.finishOperation(app.db, op.id, 'succeeded', { result: result ?? null }));
      log.info({ ms: Date.now() - started }, 'operation succeeded');
      return result;
    } catch (err) {
      if (err instanceof JobSkipped) {
        await ops.finishOperation(app.db, op.id, 'skipped', { error: err.reason });
        log.info({ reason: err.reason }, 'operation skipped');
        return { skipped: err.reason };
      }
      const message = operationError(err);
      const final = err instanceof UnrecoverableError || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      if (final) await ops.finishOperation(app.db, op.id, 'failed', { error: message });
      else await ops.recordAttemptError(app.db, op.id, message);
      log.warn({ err: message, final }, final ? 'operation failed' : 'operation attempt failed; will retry');
      throw err;
    }
  };
}
