import { hostname } from 'node:os';
import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import type { AppContext } from '../src/context.js';
import * as ops from '../src/db/repos/operations.js';
import type { ClaimedOperation } from '../src/db/repos/operations.js';
import { isJobName, type JobData } from '../src/queue/registry.js';
import { PROCESSORS } from '../jobs/index.js';
import { JobSkipped, LeaseLost } from '../src/queue/errors.js';
import { type JobContext } from '../jobs/types.js';
import { redactUrl, type Logger } from '../src/log.js';
import { newId } from '../src/util/ids.js';

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
  const msg = String((err as Error)?.message ?? err)
    .split('\n')[0]
    .slice(0, 2000);
  return msg.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"']+/gi, (u) => redactUrl(u));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A run's lease owner: `<host>:<pid>:<random per process>.<counter>`, unique across runs and
 * processes without drawing random bytes for each job.
 */
const PROCESS = `${hostname()}:${process.pid}:${newId(8)}`;
let runs = 0;
const nextOwner = () => `${PROCESS}.${(++runs).toString(36)}`;

/**
 * Take the operation for this run, or find it final (null). When another run holds a fresh lease
 * on it (a live worker still runs it: this delivery is a stalled job's re-delivery, or a job
 * enqueued again), this delivery does not run it a second time: it goes back to BullMQ's delayed
 * set until that lease would expire, without using an attempt, and looks again then. If the other
 * run finished, it completes at once; if it died, its lease has expired and this delivery takes over.
 */
async function claim(app: AppContext, job: Job<JobData>, owner: string, token: string | undefined): Promise<ClaimedOperation | null> {
  const leaseMs = app.config.workers.lockDurationMs;
  for (;;) {
    const c = await ops.claimOperation(app.db, job.data.operationId, owner, leaseMs);
    if (c.state === 'claimed') return c.operation;
    if (c.state !== 'leased') return null;
    if (c.remainingMs <= 0) continue;
    const delay = Math.min(leaseMs, Math.ceil(c.remainingMs) + 50);
    app.log.info(
      { operationId: job.data.operationId, holder: c.owner, retryInMs: delay },
      'operation is held by another live run; this delivery waits',
    );
    if (token) {
      await job.moveToDelayed(Date.now() + delay, token);
      throw new DelayedError();
    }
    await sleep(delay);
  }
}

/**
 * Renew the run's lease every third of its duration until stopped. Reports a lost lease once
 * (another run took the operation over after this one stalled past its lease).
 */
function keepLease(app: AppContext, id: string, owner: string, onLost: () => void): () => void {
  const leaseMs = app.config.workers.lockDurationMs;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const tick = async () => {
    try {
      if (!(await ops.renewLease(app.db, id, owner, leaseMs)) && !stopped) onLost();
    } catch (err) {
      app.log.warn({ err: (err as Error).message, operationId: id }, 'could not renew the operation lease; retrying');
    }
    if (!stopped) timer = setTimeout(tick, Math.max(50, Math.floor(leaseMs / 3)));
  };
  timer = setTimeout(tick, Math.max(50, Math.floor(leaseMs / 3)));
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

/**
 * The BullMQ processor shared by every queue: it moves the operation row through
 * queued -> running -> succeeded | failed | skipped around the job's own processor. One run at a
 * time per operation: the run leases the row (renewed while it works, released when it ends), a
 * delivery that finds the lease held by a live run waits, and a job whose operation is already
 * final does nothing (idempotent re-delivery after a stall or a re-enqueue).
 */
export function createJobHandler(app: AppContext) {
  return async (job: Job<JobData>, token?: string): Promise<unknown> => {
    const name = job.name;
    if (!isJobName(name)) throw new UnrecoverableError(`No processor for job "${name}"`);
    const owner = nextOwner();
    const op = await claim(app, job, owner, token);
    if (!op) return { alreadyFinished: true };
    // The run's logger is made on first use: most runs log one line at most.
    let runLog: Logger | undefined;
    const log = () => (runLog ??= app.log.child({ operationId: op.id, job: name, attempt: job.attemptsMade + 1 }));
    let lost = false;
    /** The final write cleared the lease: nothing to give up at the end. */
    let released = false;
    const stopLease = keepLease(app, op.id, owner, () => {
      lost = true;
      log().warn('another run took this operation over; this run will not commit its result');
    });
    const ctx: JobContext = {
      app,
      operation: op,
      job,
      get log() {
        return log();
      },
      progress: async (fraction) => {
        const p = Math.max(0, Math.min(1, fraction));
        await ops.markProgress(app.db, op.id, p, owner);
        await job.updateProgress(Math.round(p * 100)).catch(() => {});
      },
      fence: async (c) => {
        if (lost || !(await ops.lockLease(c, op.id, owner))) throw new LeaseLost(op.id);
      },
    };
    const started = Date.now();
    try {
      const processor = PROCESSORS[name] as (payload: unknown, ctx: JobContext) => Promise<unknown>;
      const result = await processor(op.payload, ctx);
      // The work is done: a failure to record it must not re-run the processor (a second push,
      // a second import), so only the write is retried.
      released = await retry(() => ops.finishOperation(app.db, op.id, 'succeeded', { result: result ?? null }, owner));
      if (released) log().info({ ms: Date.now() - started }, 'operation succeeded');
      else log().warn('operation finished by another run; this result was not recorded');
      return result;
    } catch (err) {
      if (err instanceof LeaseLost) {
        log().warn('operation taken over by another run; this run stopped before committing');
        return { takenOver: true };
      }
      if (err instanceof JobSkipped) {
        released = await ops.finishOperation(app.db, op.id, 'skipped', { error: err.reason }, owner);
        log().info({ reason: err.reason }, 'operation skipped');
        return { skipped: err.reason };
      }
      const message = operationError(err);
      const final = err instanceof UnrecoverableError || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      if (final) released = await ops.finishOperation(app.db, op.id, 'failed', { error: message }, owner);
      else await ops.recordAttemptError(app.db, op.id, message, owner);
      log().warn({ err: message, final }, final ? 'operation failed' : 'operation attempt failed; will retry');
      throw err;
    } finally {
      stopLease();
      // A recorded final state cleared the lease with it. Otherwise (that write failed, the run
      // lost the lease, or an attempt failed) give it up, so a retry may claim the operation at once.
      if (!released) await ops.releaseLease(app.db, op.id, owner).catch(() => {});
    }
  };
}
