// Jobs that run on a timer, through BullMQ job schedulers, without leaving the operation system.
//
// A scheduler-created job has no operation row (BullMQ creates it from a fixed template), so it is
// not the job itself: it is a *tick*, carrying `{ schedule }`. The worker that picks a tick up
// (`withSchedules`, in front of the shared runner) creates the operation row, with an id derived
// from the tick's BullMQ job id (`repeat:<scheduler>:<millis>`), and enqueues the real job under
// that id. From there the scheduled run is an ordinary operation: queued -> running -> succeeded
// in PostgreSQL, retries, the reconciler if Redis loses it, the dashboard and the metrics. A tick
// delivered twice (a stalled worker) maps to the same operation and the same job id: one run.
//
// Every worker process consuming the schedule's queue upserts the job scheduler at start-up
// (idempotent: same id, same interval, so the pending iteration is kept), and checks it again every
// RECONCILE_INTERVAL_MS, so a flushed Redis gets its schedules back without a restart.
import { Queue, UnrecoverableError, type Job } from 'bullmq';
import type { AppContext } from '../src/context.js';
import type { Config, QueueName } from '../src/config.js';
import * as ops from '../src/db/repos/operations.js';
import type { OperationRow } from '../src/db/repos/operations.js';
import { JOBS, type JobData, type JobName, type JobPayloads } from '../src/queue/registry.js';

/** What a tick (a job created by a job scheduler) carries. */
export interface ScheduledJobData {
  schedule: string;
}

interface Schedule<K extends JobName> {
  /** Job scheduler id in BullMQ. */
  id: string;
  job: K;
  every(config: Config): number;
  payload: JobPayloads[K];
}
type AnySchedule = { [K in JobName]: Schedule<K> }[JobName];

const SCHEDULES: readonly AnySchedule[] = [
  { id: 'spaces.purge', job: 'spaces.purge', every: (c) => c.purge.intervalMs, payload: {} },
  { id: 'git.sync.poll', job: 'git.sync.poll', every: (c) => c.gitSync.pollTickMs, payload: {} },
  { id: 'insights.aggregate', job: 'insights.aggregate', every: (c) => c.insights.intervalMs, payload: {} },
];

function isScheduledJob(job: Job<JobData | ScheduledJobData>): job is Job<ScheduledJobData> {
  return typeof (job.data as Partial<ScheduledJobData>)?.schedule === 'string' && !(job.data as Partial<JobData>).operationId;
}

/** Operation id of one iteration of a schedule, from its BullMQ job id (no ':' so it is a valid job id). */
function scheduledOperationId(jobId: string): string {
  return `sched-${jobId.replace(/[^A-Za-z0-9_-]+/g, '-')}`.slice(0, 128);
}

/** Handle a tick: the operation row (created once), then the real job (enqueued once: job id = operation id). */
async function runScheduledJob(app: AppContext, job: Job<ScheduledJobData>): Promise<{ operationId: string }> {
  const schedule = SCHEDULES.find((s) => s.id === job.data.schedule);
  if (!schedule) throw new UnrecoverableError(`Unknown schedule "${job.data.schedule}"`);
  const id = scheduledOperationId(job.id ?? `${schedule.id}:${job.timestamp}`);
  let op: OperationRow | null = await ops.getOperation(app.db, id);
  if (!op) {
    try {
      op = await ops.insertOperation(app.db, {
        id,
        kind: schedule.job,
        queue: JOBS[schedule.job].queue,
        organizationId: null,
        payload: schedule.payload as Record<string, unknown>,
        targetType: 'schedule',
        targetId: schedule.id,
      });
    } catch (err) {
      if ((err as { code?: string }).code !== '23505') throw err;
      op = await ops.getOperation(app.db, id);
    }
  }
  // If this fails, the tick is retried; if the process dies first, the reconciler enqueues it.
  await app.jobs.enqueue(op!);
  return { operationId: id };
}

/** Put in front of the shared job handler: ticks become operations, everything else goes through. */
export function withSchedules(
  app: AppContext,
  handler: (job: Job<JobData>, token?: string) => Promise<unknown>,
): (job: Job<JobData | ScheduledJobData>, token?: string) => Promise<unknown> {
  return (job, token) => (isScheduledJob(job) ? runScheduledJob(app, job) : handler(job as Job<JobData>, token));
}

/**
 * Register the job schedulers whose queue this process consumes, now and every
 * RECONCILE_INTERVAL_MS if missing. Returns a stop function.
 */
export function startSchedules(app: AppContext, queues: readonly QueueName[]): () => Promise<void> {
  const mine = SCHEDULES.filter((s) => queues.includes(JOBS[s.job].queue));
  if (!mine.length) return async () => {};
  const w = app.config.workers;
  const opened = new Map<QueueName, Queue<ScheduledJobData>>();
  const queueOf = (name: QueueName) => {
    let q = opened.get(name);
    if (!q) {
      q = new Queue<ScheduledJobData>(name, { connection: app.jobs.connection, prefix: app.config.queuePrefix });
      opened.set(name, q);
    }
    return q;
  };
  let stopped = false;
  const ensure = async (onlyIfMissing: boolean) => {
    for (const s of mine) {
      if (stopped) return;
      const q = queueOf(JOBS[s.job].queue);
      const every = s.every(app.config);
      if (onlyIfMissing) {
        const existing = await q.getJobScheduler(s.id);
        if (existing && Number(existing.every) === every) continue;
      }
      await q.upsertJobScheduler(
        s.id,
        { every },
        {
          name: `schedule:${s.id}`,
          data: { schedule: s.id },
          opts: {
            attempts: w.attempts,
            backoff: { type: 'exponential', delay: w.backoffMs },
            removeOnComplete: { count: 100 },
            removeOnFail: { count: 100 },
          },
        },
      );
      app.log.debug({ schedule: s.id, every }, 'job scheduler registered');
    }
  };
  let running: Promise<void> = ensure(false).catch((err) => app.log.warn({ err }, 'registering job schedulers failed; will retry'));
  const timer = setInterval(() => {
    running = running.then(() => ensure(true)).catch((err) => app.log.warn({ err }, 'checking job schedulers failed'));
  }, w.reconcileIntervalMs);
  timer.unref();
  return async () => {
    stopped = true;
    clearInterval(timer);
    // A registration in flight finishes quickly, unless Redis is unreachable: do not hang shutdown on it.
    let wait: NodeJS.Timeout | undefined;
    await Promise.race([running, new Promise<void>((r) => (wait = setTimeout(r, 2000)))]);
    clearTimeout(wait);
    await Promise.all([...opened.values()].map((q) => q.close()));
  };
}
