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
import type { Finisher } from './finisher.js';

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
 * Final states handed to the finisher and not yet durable, per process, above which a run waits
 * for its own before the next job (a bound on what a slow database lets pile up).
 */
const MAX_PENDING_FINISHES = 64;

/**
 * The BullMQ processor shared by every queue: it moves the operation row through
 * queued -> running -> succeeded | failed | skipped around the job's own processor. One run at a
 * time per operation: the run leases the row (renewed while it works, released when it ends), a
 * delivery that finds the lease held by a live run waits, and a job whose operation is already
 * final does nothing (idempotent re-delivery after a stall or a re-enqueue).
 *
 * A success is handed to `finisher` (batched durable commits) and the job slot is freed while it is
 * written: the operation reads `succeeded` only once that commit is durable, and the run keeps its
 * lease until then. Should the write fail for good, or the process die before it lands, the
 * operation stays open; once the lease lapses the reconciler finds its job completed and enqueues
 * it again (as a process dying between the processor's end and its final write always did).
 */
export function createJobHandler(app: AppContext, finisher: Finisher) {
  const logsInfo = app.log.isLevelEnabled('info');
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
    /** The success went to the finisher; the lease ends when it is written. */
    let handedOver = false;
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
      // a second import), so only the write is retried (by the finisher).
      const recorded = finisher.finish({ id: op.id, status: 'succeeded', result: result ?? null, owner }).then(
        (ok) => {
          if (!ok) log().warn('operation finished by another run; this result was not recorded');
          else if (logsInfo) log().info({ ms: Date.now() - started }, 'operation succeeded');
          return ok;
        },
        (err) => {
          log().error({ err: operationError(err) }, "could not record the operation's success; it stays open and will run again");
          return false;
        },
      );
      handedOver = true;
      const ended = recorded.then((ok) => endRun(app, op.id, owner, stopLease, ok));
      if (finisher.pending > MAX_PENDING_FINISHES) await ended;
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
      if (!handedOver) await endRun(app, op.id, owner, stopLease, released);
    }
  };
}

/**
 * The run is over: stop renewing its lease and, unless its final write cleared it (the write
 * failed, the run lost the lease, or an attempt failed), give it up so a retry may claim the
 * operation at once.
 */
async function endRun(app: AppContext, id: string, owner: string, stopLease: () => void, released: boolean) {
  stopLease();
  if (!released) await ops.releaseLease(app.db, id, owner).catch(() => {});
}
