import { hostname } from 'node:os';
import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import type { AppContext } from '../src/context.js';
import * as ops from '../src/db/repos/operations.js';
import type { Claim, ClaimedOperation, FinalState } from '../src/db/repos/operations.js';
import { isJobName, startsAtOnce, type AtOnceJobName, type JobData, type JobName } from '../src/queue/registry.js';
import { PROCESSORS } from '../jobs/index.js';
import { JobSkipped, LeaseLost } from '../src/queue/errors.js';
import type { JobContext, RunContext } from '../jobs/types.js';
import { redactUrl, type Logger } from '../src/log.js';
import { newId } from '../src/util/ids.js';
import type { Finisher } from './finisher.js';
import { auditJobEnd } from '../src/services/audit.js';

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

/** What a run needs to record its outcome: the job, its operation id, the run's lease owner and logger. */
interface Run {
  app: AppContext;
  finisher: Finisher;
  job: Job<JobData>;
  id: string;
  owner: string;
  log: () => Logger;
  logsInfo: boolean;
}

function runLogger(app: AppContext, job: Job<JobData>, id: string): () => Logger {
  // Made on first use: most runs log one line at most.
  let log: Logger | undefined;
  return () => (log ??= app.log.child({ operationId: id, job: job.name, attempt: job.attemptsMade + 1 }));
}

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
 *
 * A job that starts at once (registry `startsAtOnce`, its payload in the job) does not wait for
 * its claim: see runAtOnce.
 */
export function createJobHandler(app: AppContext, finisher: Finisher) {
  const logsInfo = app.log.isLevelEnabled('info');
  return async (job: Job<JobData>, token?: string): Promise<unknown> => {
    const name = job.name;
    if (!isJobName(name)) throw new UnrecoverableError(`No processor for job "${name}"`);
    const id = job.data.operationId;
    const run: Run = { app, finisher, job, id, owner: nextOwner(), log: runLogger(app, job, id), logsInfo };
    if (startsAtOnce(name) && job.data.payload) return runAtOnce(run, name, job.data.payload);
    return runClaimed(run, name, token);
  };
}

/**
 * A run that holds its operation before its processor begins (every job but those that start at
 * once, and those too when their job carries no payload: enqueued by an older version, say).
 */
async function runClaimed(run: Run, name: JobName, token: string | undefined): Promise<unknown> {
  const { app, job, owner, log } = run;
  const op = await claim(app, job, owner, token);
  if (!op) return { alreadyFinished: true };
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
    handedOver = true;
    return await handOver(run, result, started, { id: op.id, status: 'succeeded', result: result ?? null, owner }, stopLease);
  } catch (err) {
    if (handedOver) throw err;
    if (err instanceof LeaseLost) {
      log().warn('operation taken over by another run; this run stopped before committing');
      return { takenOver: true };
    }
    const failure = await recordFailure(run, err);
    released = failure.released;
    if ('skipped' in failure) return failure.skipped;
    throw err;
  } finally {
    if (!handedOver) await endRun(app, op.id, owner, stopLease, released);
  }
}

/**
 * A run of a job that starts at once: its processor begins as soon as BullMQ hands the job over,
 * with the payload the job carries, and the claim goes out once the processor has had its first
 * turn (the operation reads `running` from then on, under the run's lease). A run that ends before
 * its claim went out sends none: its final write makes the claim's checks itself (the operation
 * still open, no other run holding a live lease) in the same statement. A run that turns out not to
 * hold the operation (another live run does, or it is final) drops its outcome, and the job
 * completes: the operation is the other run's, or done.
 */
async function runAtOnce(run: Run, name: AtOnceJobName, payload: Record<string, unknown>): Promise<unknown> {
  const { app, job, id, owner, log } = run;
  const since = new Date();
  let ended = false;
  let stopLease = () => {};
  let claimed: Promise<Claim> | undefined;
  const sendClaim = (): Promise<Claim> => {
    if (claimed) return claimed;
    claimed = ops.claimOperation(app.db, id, owner, app.config.workers.lockDurationMs).then((c) => {
      if (c.state === 'claimed' && !ended) {
        stopLease = keepLease(app, id, owner, () => log().warn('another run took this operation over; its outcome will be dropped'));
      }
      return c;
    });
    // Looked at when the processor ends (a failed claim fails the run then), not before: marked
    // handled meanwhile, so it cannot end the process as an unhandled rejection.
    claimed.catch(() => {});
    return claimed;
  };
  const timer = setImmediate(sendClaim);
  const ctx: RunContext = {
    app,
    job,
    get log() {
      return log();
    },
  };
  const started = Date.now();
  let result: unknown;
  try {
    const processor = PROCESSORS[name] as (payload: unknown, ctx: RunContext) => Promise<unknown>;
    result = await processor(payload, ctx);
  } catch (err) {
    ended = true;
    clearImmediate(timer);
    const c = await sendClaim();
    if (c.state !== 'claimed') return notHeld(run, c);
    let released = false;
    try {
      const failure = await recordFailure(run, err);
      released = failure.released;
      if ('skipped' in failure) return failure.skipped;
    } finally {
      await endRun(app, id, owner, stopLease, released);
    }
    throw err;
  }
  ended = true;
  const state = { id, status: 'succeeded' as const, result: result ?? null, owner };
  if (!claimed) {
    clearImmediate(timer);
    return handOver(run, result, started, { ...state, unclaimedSince: since }, () => {});
  }
  const held = claimed.then((c) => (c.state === 'claimed' ? state : (notHeld(run, c), null)));
  return handOver(run, result, started, held, () => stopLease());
}

function notHeld(run: Run, c: Claim): { notHeld: Claim['state'] } {
  run.log().info({ claim: c.state }, 'the operation is not held by this run; its outcome is dropped');
  return { notHeld: c.state };
}

/**
 * Hand a success to the finisher and free the job's slot while it is written (unless too many are
 * pending); the run's lease ends once it is.
 */
async function handOver(
  run: Run,
  result: unknown,
  started: number,
  state: FinalState | Promise<FinalState | null>,
  stopLease: () => void,
): Promise<unknown> {
  const { app, finisher, id, owner, log } = run;
  const recorded = finisher.finish(state).then(
    (ok) => {
      if (!ok) log().warn('the operation is final or held by another run; this result was not recorded');
      else if (run.logsInfo) log().info({ ms: Date.now() - started }, 'operation succeeded');
      // The audit log records the end of the jobs that change things (src/services/audit.ts).
      if (ok) void auditJobEnd(app, run.job.name, id, 'succeeded');
      return ok;
    },
    (err) => {
      log().error({ err: operationError(err) }, "could not record the operation's success; it stays open and will run again");
      return false;
    },
  );
  const ended = recorded.then((ok) => endRun(app, id, owner, stopLease, ok));
  if (finisher.pending > MAX_PENDING_FINISHES) await ended;
  return result;
}

/**
 * Record a processor's failure on the operation the run holds: `skipped` (JobSkipped), `failed`
 * (unrecoverable, or the last attempt), or the attempt's error while BullMQ retries.
 */
async function recordFailure(run: Run, err: unknown): Promise<{ released: boolean } | { released: boolean; skipped: unknown }> {
  const { app, job, id, owner, log } = run;
  if (err instanceof JobSkipped) {
    const released = await ops.finishOperation(app.db, id, 'skipped', { error: err.reason }, owner);
    log().info({ reason: err.reason }, 'operation skipped');
    return { released, skipped: { skipped: err.reason } };
  }
  const message = operationError(err);
  const final = err instanceof UnrecoverableError || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
  let released = false;
  if (final) {
    released = await ops.finishOperation(app.db, id, 'failed', { error: message }, owner);
    void auditJobEnd(app, job.name, id, 'failed');
  } else await ops.recordAttemptError(app.db, id, message, owner);
  log().warn({ err: message, final }, final ? 'operation failed' : 'operation attempt failed; will retry');
  return { released };
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
