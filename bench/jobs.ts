// The jobs section of `npm run bench` (see bench/run.ts for the list of sections): the real path of
// a job that does nothing (workers.ping) and of openapi.process, against a bare BullMQ Worker on
// the same Redis, with the floors of the real path for reference.
import { Queue, Worker, type Job } from 'bullmq';
import type { Db } from '../src/db/pool.js';
import { createPool } from '../src/db/pool.js';
import { authenticate } from '../src/services/identity.js';
import { createSpec } from '../src/services/openapi.js';
import { startWorkers } from '../workers/start.js';
import { pingWorkers } from '../src/services/workers.js';
import { createOperation } from '../src/services/operations.js';
import { claimOperation } from '../src/db/repos/operations.js';
import { Finisher } from '../workers/finisher.js';
import { createRedis, redisConnection } from '../src/queue/client.js';
import {
  envInt,
  fmt,
  fmtOpt,
  log,
  median,
  percentile,
  pollUntil,
  seedOrg,
  withCpu,
  type BenchEnv,
  type Cleanup,
  type Pair,
  type Row,
} from './lib.js';
import { setTimeout as sleep } from 'node:timers/promises';

const OPENAPI_JOBS = envInt('BENCH_JOBS', 200);
const NOOP_JOBS = envInt('BENCH_NOOP_JOBS', 2000);
const JOB_ROUNDS = envInt('BENCH_JOB_ROUNDS', 2);
const LATENCY_JOBS = envInt('BENCH_LATENCY_JOBS', 100);
const JOB_WARMUP = 20;
/** The queue the no-op jobs of our side run on (one with no job scheduler). */
const PING_QUEUE = 'openapi';

// A small but complete OpenAPI 3.0 document, sent inline (no fetch involved).
const SPEC = `openapi: 3.0.3
info:
  title: Bench pets
  version: 1.0.0
paths:
  /pets:
    get:
      operationId: listPets
      parameters:
        - { name: limit, in: query, schema: { type: integer, maximum: 100 } }
      responses:
        '200':
          description: A page of pets
          content:
            application/json:
              schema: { type: array, items: { $ref: '#/components/schemas/Pet' } }
  /pets/{petId}:
    get:
      operationId: getPet
      parameters:
        - { name: petId, in: path, required: true, schema: { type: string } }
      responses:
        '200':
          description: One pet
          content:
            application/json:
              schema: { $ref: '#/components/schemas/Pet' }
        '404': { description: Not found }
components:
  schemas:
    Pet:
      type: object
      required: [id, name]
      properties:
        id: { type: string }
        name: { type: string }
        tag: { type: string }
`;

interface JobRate {
  perSecond: number;
  /** Main-thread CPU ms per job (the workers run in this thread). */
  cpuMs: number | null;
}

function jobRate(n: number, started: number, mainMs: number | null): JobRate {
  return { perSecond: n / ((performance.now() - started) / 1000), cpuMs: mainMs === null ? null : mainMs / n };
}

/**
 * Ours: create `n` specs through the OpenAPI service (operation row + spec row in a transaction,
 * then JobClient.enqueue), then start the real workers on queue 'openapi' and time until every
 * one of those operation rows is `succeeded`.
 */
async function openapiJobsPerSecond(
  env: BenchEnv,
  cleanup: Cleanup,
  monitor: Db,
  seeded: { orgId: string; adminToken: string },
  n: number,
  tag: string,
): Promise<JobRate> {
  const principal = (await authenticate(env.app.db, seeded.adminToken))!;
  const opIds: string[] = [];
  const BATCH = 8;
  for (let i = 0; i < n; i += BATCH) {
    const created = await Promise.all(
      Array.from({ length: Math.min(BATCH, n - i) }, (_, j) =>
        createSpec(env.app, principal, seeded.orgId, `${tag}-${i + j}`, { text: SPEC }),
      ),
    );
    for (const c of created) opIds.push(c.location.split('/').pop()!); // .../operations/<id>
  }

  // Every 20 ms: done when all `n` rows are `succeeded`; any failed or skipped one is an error.
  const allSucceeded = () =>
    pollUntil(
      async () => {
        const { rows } = await monitor.query<{ status: string; n: number }>(
          'SELECT status, count(*)::int AS n FROM operations WHERE id = ANY($1) GROUP BY status',
          [opIds],
        );
        const by = Object.fromEntries(rows.map((r) => [r.status, r.n]));
        if (by.failed || by.skipped) {
          const { rows: bad } = await monitor.query(
            'SELECT status, error FROM operations WHERE id = ANY($1) AND error IS NOT NULL LIMIT 1',
            [opIds],
          );
          throw new Error(`openapi jobs: ${by.failed ?? 0} failed, ${by.skipped ?? 0} skipped (${JSON.stringify(bad[0])})`);
        }
        return by.succeeded === n ? true : undefined;
      },
      20,
      120_000,
      `${n} openapi.process operations to succeed`,
    );

  const started = performance.now();
  const workers = startWorkers(env.app, ['openapi']);
  const stopWorkers = cleanup.add('stop the openapi workers', () => workers.close(3000));
  try {
    const { mainMs } = await withCpu(allSucceeded);
    return jobRate(n, started, mainMs);
  } finally {
    await stopWorkers();
  }
}

/** When a no-op processor began: epoch milliseconds with sub-millisecond precision (as workers.ping reports it). */
const preciseNow = () => performance.timeOrigin + performance.now();

/** Resolves with the next `completed` event's job result among `workers`; rejects on a failure. */
function nextCompletion(workers: Worker[]): Promise<any> {
  return new Promise((resolve, reject) => {
    const off = () => {
      for (const w of workers) {
        w.off('completed', done);
        w.off('failed', failed);
      }
    };
    const done = (_job: unknown, result: unknown) => {
      off();
      resolve(result);
    };
    const failed = (_job: unknown, err: Error) => {
      off();
      reject(err);
    };
    for (const w of workers) {
      w.on('completed', done);
      w.on('failed', failed);
    }
  });
}

/** Resolves once `workers` have completed `n` jobs; rejects on the first failure. */
function completions(workers: Worker[], n: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let done = 0;
    for (const w of workers) {
      w.on('completed', () => {
        if (++done === n) resolve();
      });
      w.on('failed', (_job, err) => reject(err));
      w.on('error', reject);
    }
  });
}

/**
 * Accept -> start, one job at a time on idle workers: `accept` returns when the job is accepted;
 * the processor reports when it began (`startedAt`). A short pause between jobs lets the workers go
 * back to their idle wait, so each sample is a wake-up from idle.
 */
async function acceptToStart(workers: Worker[], n: number, accept: () => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const done = nextCompletion(workers);
    await accept();
    const accepted = preciseNow();
    const result = await done;
    if (typeof result?.startedAt !== 'number') throw new Error(`no-op job: no start time in its result ${JSON.stringify(result)}`);
    out.push(result.startedAt - accepted);
    await sleep(3);
  }
  return out;
}

/**
 * How our no-op jobs are accepted: `at once` as the service does (pingWorkers: durable row, then
 * the enqueue with the payload, so the runner starts the processor at once); `claim first` with
 * the same durable row but the job enqueued without its payload, so the runner claims the
 * operation before the processor begins, as it does for every job with outside effects.
 */
type PingMode = 'at once' | 'claim first';

async function acceptPing(env: BenchEnv, mode: PingMode): Promise<string> {
  if (mode === 'at once') return (await pingWorkers(env.app, PING_QUEUE)).id;
  const op = await createOperation(env.app.db, 'workers.ping', { organizationId: null, payload: {}, queue: PING_QUEUE });
  await env.app.jobs.enqueue({ id: op.id, kind: op.kind, queue: op.queue });
  return op.id;
}

async function acceptPings(env: BenchEnv, n: number, mode: PingMode): Promise<string[]> {
  const ids: string[] = [];
  const BATCH = 8;
  for (let i = 0; i < n; i += BATCH)
    ids.push(...(await Promise.all(Array.from({ length: Math.min(BATCH, n - i) }, () => acceptPing(env, mode)))));
  return ids;
}

async function allSucceeded(monitor: Db, ids: string[]) {
  const { rows } = await monitor.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM operations WHERE id = ANY($1) AND status = 'succeeded' AND attempts = 1 AND started_at IS NOT NULL",
    [ids],
  );
  if (rows[0].n !== ids.length) throw new Error(`no-op operations: ${rows[0].n} of ${ids.length} succeeded`);
}

/**
 * Ours: a backlog of `n` workers.ping operations (accepted before the clock starts), drained by the
 * real workers started on PING_QUEUE; timed from startWorkers to the n-th completion and every
 * final state durable (the runner frees a job's slot before its commit), then every row is checked.
 */
async function pingJobsPerSecond(env: BenchEnv, cleanup: Cleanup, monitor: Db, n: number, mode: PingMode): Promise<JobRate> {
  const ids = await acceptPings(env, n, mode);
  const started = performance.now();
  const pool = startWorkers(env.app, [PING_QUEUE]);
  const stop = cleanup.add('stop the no-op job workers', () => pool.close(3000));
  try {
    const { mainMs } = await withCpu(async () => {
      await completions(pool.workers as Worker[], n);
      await pool.settled();
    });
    const rate = jobRate(n, started, mainMs);
    await allSucceeded(monitor, ids);
    return rate;
  } finally {
    await stop();
  }
}

/** Ours: accept -> start of `n` workers.ping operations, one at a time, on idle real workers. */
async function pingLatency(env: BenchEnv, cleanup: Cleanup, monitor: Db, n: number, mode: PingMode): Promise<number[]> {
  const pool = startWorkers(env.app, [PING_QUEUE]);
  const stop = cleanup.add('stop the no-op job workers', () => pool.close(3000));
  try {
    await sleep(100); // the workers are up and waiting
    const ids: string[] = [];
    const ms = await acceptToStart(pool.workers as Worker[], n, async () => ids.push(await acceptPing(env, mode)));
    await pool.settled();
    await allSucceeded(monitor, ids);
    return ms;
  } finally {
    await stop();
  }
}

/** A bare BullMQ queue and Worker (same connection options, concurrency, lock and stall settings as startWorkers) with a no-op processor. */
function bareNoop(
  env: BenchEnv,
  cleanup: Cleanup,
  queueName: string,
  processor: (job: Job<{ operationId: string }>) => Promise<unknown> = async () => ({ startedAt: preciseNow() }),
) {
  const { config } = env;
  const w = config.workers;
  const redis = createRedis(config.redisUrl);
  const queue = new Queue(queueName, { connection: redis, prefix: config.queuePrefix });
  let worker: Worker | undefined;
  const close = cleanup.add('close the no-op queue and worker', async () => {
    await worker?.close();
    await queue.close();
    await redis.quit().catch(() => redis.disconnect());
  });
  const opts = {
    attempts: w.attempts,
    backoff: { type: 'exponential', delay: w.backoffMs },
    removeOnComplete: { count: w.keepCompleted },
    removeOnFail: { count: w.keepFailed },
  };
  const start = () =>
    (worker = new Worker(queueName, processor, {
      connection: redisConnection(config.redisUrl),
      prefix: config.queuePrefix,
      concurrency: w.concurrency,
      lockDuration: w.lockDurationMs,
      stalledInterval: w.stalledIntervalMs,
      maxStalledCount: 2,
    }));
  return { queue, opts, start, close };
}

/** A backlog of one job per operation id added at once, then the Worker started: timed until it has completed them all. */
async function drainBacklog(
  bare: ReturnType<typeof bareNoop>,
  operationIds: string[],
  tag: string,
  settled: () => Promise<void> = async () => {},
): Promise<JobRate> {
  await bare.queue.addBulk(
    operationIds.map((operationId, i) => ({ name: 'noop', data: { operationId }, opts: { jobId: `${tag}-${i}`, ...bare.opts } })),
  );
  const started = performance.now();
  const worker = bare.start();
  const { mainMs } = await withCpu(async () => {
    await completions([worker], operationIds.length);
    await settled();
  });
  return jobRate(operationIds.length, started, mainMs);
}

/**
 * Baseline: `n` no-op jobs added with the same options JobClient.enqueue uses, then a bare BullMQ
 * Worker whose processor returns at once; timed until it has completed all `n`.
 */
async function noopJobsPerSecond(env: BenchEnv, cleanup: Cleanup, queueName: string, n: number, tag: string): Promise<JobRate> {
  const bare = bareNoop(env, cleanup, queueName);
  try {
    return await drainBacklog(
      bare,
      Array.from({ length: n }, (_, i) => `${tag}-${i}`),
      tag,
    );
  } finally {
    await bare.close();
  }
}

/**
 * The floors of the real path, for reference: the bare Worker's processor makes the runner's
 * writes and nothing else, as the runner makes them, on operation rows inserted beforehand; timed
 * like the baseline, until the last final state is durable. `at once`: the one durable final state
 * per job, handed to a Finisher (batched, the job's slot freed meanwhile), which makes the claim's
 * checks itself; `claim first`: the claim (its commit does not wait for the WAL flush) before the
 * work, then that final state.
 */
async function floorJobsPerSecond(
  env: BenchEnv,
  cleanup: Cleanup,
  queueName: string,
  n: number,
  tag: string,
  mode: PingMode,
): Promise<JobRate> {
  const db = env.app.db;
  const lease = env.config.workers.lockDurationMs;
  const finisher = new Finisher(db);
  const bare = bareNoop(env, cleanup, queueName, async (job) => {
    const owner = `floor:${job.id}`;
    const since = new Date();
    if (mode === 'claim first') {
      const c = await claimOperation(db, job.data.operationId, owner, lease);
      if (c.state !== 'claimed') throw new Error(`floor: operation ${job.data.operationId} is ${c.state}`);
    }
    const unclaimedSince = mode === 'at once' ? since : undefined;
    void finisher.finish({ id: job.data.operationId, status: 'succeeded', result: null, owner, unclaimedSince }).catch(() => {});
    return null;
  });
  try {
    return await drainBacklog(bare, await insertPings(db, n), tag, () => finisher.drain());
  } finally {
    await bare.close();
  }
}

/** `n` workers.ping operation rows, accepted as the service does but not enqueued. */
async function insertPings(db: Db, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i += 8) {
    const ops = await Promise.all(
      Array.from({ length: Math.min(8, n - i) }, () => createOperation(db, 'workers.ping', { organizationId: null, payload: {} })),
    );
    ids.push(...ops.map((o) => o.id));
  }
  return ids;
}

/** Baseline: accept (queue.add returned) -> start of `n` no-op jobs, one at a time, on an idle bare Worker. */
async function noopLatency(env: BenchEnv, cleanup: Cleanup, queueName: string, n: number, tag: string): Promise<number[]> {
  const bare = bareNoop(env, cleanup, queueName);
  try {
    const worker = bare.start();
    await sleep(100);
    let i = 0;
    return await acceptToStart([worker], n, () =>
      bare.queue.add('noop', { operationId: `${tag}-${i}` }, { jobId: `${tag}-${i++}`, ...bare.opts }),
    );
  } finally {
    await bare.close();
  }
}

/**
 * The floor of accept -> start of a job that claims first, for reference: accepted as ours (the
 * durable operation row, then queue.add), and the bare Worker's processor claims the operation
 * (the runner's one write before the work) before it reports its start.
 */
async function floorLatency(env: BenchEnv, cleanup: Cleanup, queueName: string, n: number): Promise<number[]> {
  const db = env.app.db;
  const lease = env.config.workers.lockDurationMs;
  const bare = bareNoop(env, cleanup, queueName, async (job) => {
    const c = await claimOperation(db, job.data.operationId, `floor:${job.id}`, lease);
    if (c.state !== 'claimed') throw new Error(`floor: operation ${job.data.operationId} is ${c.state}`);
    return { startedAt: preciseNow() };
  });
  try {
    const worker = bare.start();
    await sleep(100);
    return await acceptToStart([worker], n, async () => {
      const op = await createOperation(db, 'workers.ping', { organizationId: null, payload: {} });
      await bare.queue.add('noop', { operationId: op.id }, { jobId: op.id, ...bare.opts });
    });
  } finally {
    await bare.close();
  }
}

const rateOf = (xs: JobRate[]) => median(xs.map((x) => x.perSecond));
const cpuOf = (xs: JobRate[]) => (xs.every((x) => x.cpuMs !== null) ? median(xs.map((x) => x.cpuMs!)) : null);

function jobRows(name: string, runs: Pair<JobRate[]>): Row[] {
  const rows: Row[] = [
    { benchmark: name, metric: 'jobs/s', ours: rateOf(runs.ours), baseline: rateOf(runs.baseline), digits: 0, higherIsBetter: true },
  ];
  const cpuOurs = cpuOf(runs.ours);
  const cpuBase = cpuOf(runs.baseline);
  if (cpuOurs !== null && cpuBase !== null) {
    rows.push({ benchmark: name, metric: 'node CPU/job (ms)', ours: cpuOurs, baseline: cpuBase, digits: 2, higherIsBetter: false });
  }
  return rows;
}

const rateLine = (r: JobRate, n: number) => `${fmt(r.perSecond, 0).padStart(6)} jobs/s  ${fmtOpt(r.cpuMs, 2)} ms CPU/job (${n} jobs)`;
const latencyLine = (ms: number[]) => `p50 ${fmt(percentile(ms, 50), 3)} ms  p99 ${fmt(percentile(ms, 99), 3)} ms (${ms.length} jobs)`;

export async function benchJobs(env: BenchEnv, cleanup: Cleanup): Promise<Row[]> {
  const seeded = await seedOrg(env.app, 'Bench specs org');
  // Completion is watched through a connection of its own, outside the pool the workers use.
  const monitor = createPool(env.databaseUrl, 1);
  cleanup.add('close the monitor pool', () => monitor.end());
  const noopQueue = 'bench-noop';
  const floorQueue = 'bench-floor';

  // Warm-up (JIT, connections, the parser's first use), not measured.
  await noopJobsPerSecond(env, cleanup, noopQueue, JOB_WARMUP, 'warm');
  for (const mode of MODES) {
    await floorJobsPerSecond(env, cleanup, floorQueue, JOB_WARMUP, `warm-floor-${mode.replace(' ', '-')}`, mode);
    await pingJobsPerSecond(env, cleanup, monitor, JOB_WARMUP, mode);
    await pingLatency(env, cleanup, monitor, JOB_WARMUP, mode);
  }
  await noopLatency(env, cleanup, noopQueue, JOB_WARMUP, 'warm-lat');
  await floorLatency(env, cleanup, floorQueue, JOB_WARMUP);
  await openapiJobsPerSecond(env, cleanup, monitor, seeded, JOB_WARMUP, 'warm');

  // Alternate the sides, as for HTTP, and keep the median of each (latency: all samples).
  const rate = {
    bare: [] as JobRate[],
    openapi: [] as JobRate[],
    ...perMode(() => [] as JobRate[]),
    floor: perMode(() => [] as JobRate[]),
  };
  const latency = { bare: [] as number[], claimFloor: [] as number[], ...perMode(() => [] as number[]) };
  for (let i = 1; i <= JOB_ROUNDS; i++) {
    const round = `jobs round ${i}/${JOB_ROUNDS}`;
    const b = await noopJobsPerSecond(env, cleanup, noopQueue, NOOP_JOBS, `run${i}`);
    log(`${round} bare BullMQ no-op                   ${rateLine(b, NOOP_JOBS)}`);
    rate.bare.push(b);
    for (const mode of MODES) {
      const p = await pingJobsPerSecond(env, cleanup, monitor, NOOP_JOBS, mode);
      log(`${round} no-op job, real path (${mode})${' '.repeat(11 - mode.length)} ${rateLine(p, NOOP_JOBS)}`);
      const f = await floorJobsPerSecond(env, cleanup, floorQueue, NOOP_JOBS, `floor${i}-${mode.replace(' ', '-')}`, mode);
      log(`${round} SQL floor (${mode})${' '.repeat(22 - mode.length)} ${rateLine(f, NOOP_JOBS)}`);
      rate[mode].push(p);
      rate.floor[mode].push(f);
    }
    const bl = await noopLatency(env, cleanup, noopQueue, LATENCY_JOBS, `lat${i}`);
    log(`${round} bare BullMQ accept -> start                  ${latencyLine(bl)}`);
    latency.bare.push(...bl);
    for (const mode of MODES) {
      const pl = await pingLatency(env, cleanup, monitor, LATENCY_JOBS, mode);
      log(`${round} no-op job accept -> start (${mode})${' '.repeat(11 - mode.length)} ${latencyLine(pl)}`);
      latency[mode].push(...pl);
    }
    const fl = await floorLatency(env, cleanup, floorQueue, LATENCY_JOBS);
    log(`${round} floor (claim first) accept -> start          ${latencyLine(fl)}`);
    latency.claimFloor.push(...fl);
    const o = await openapiJobsPerSecond(env, cleanup, monitor, seeded, OPENAPI_JOBS, `run${i}`);
    log(`${round} openapi.process                     ${rateLine(o, OPENAPI_JOBS)}`);
    rate.openapi.push(o);
  }
  const c = env.config.workers.concurrency;
  const vsBare = (ours: JobRate[]): Pair<JobRate[]> => ({ ours, baseline: rate.bare });
  const latencyRows = (benchmark: string, ours: number[]): Row[] =>
    [50, 99].map((q) => ({
      benchmark,
      metric: `p${q} (ms)`,
      ours: percentile(ours, q),
      baseline: percentile(latency.bare, q),
      digits: 3,
      higherIsBetter: false,
    }));
  return [
    ...jobRows(`no-op job (workers.ping: starts at once), real path vs bare BullMQ (concurrency ${c})`, vsBare(rate['at once'])),
    ...jobRows(`  for reference: its SQL floor (bare BullMQ + batched durable finish) vs bare BullMQ`, vsBare(rate.floor['at once'])),
    ...jobRows(`  for reference: the same job claiming first (as jobs with outside effects), real path`, vsBare(rate['claim first'])),
    ...jobRows(`  for reference: its SQL floor (bare BullMQ + claim + batched durable finish)`, vsBare(rate.floor['claim first'])),
    ...latencyRows(`no-op job (starts at once) accept -> start, idle workers`, latency['at once']),
    ...latencyRows(`  for reference: the same job claiming first, real path`, latency['claim first']),
    ...latencyRows(`  for reference: its floor (bare BullMQ + claim) vs bare BullMQ`, latency.claimFloor),
    ...jobRows(`jobs (concurrency ${c}): openapi.process vs no-op`, vsBare(rate.openapi)),
  ];
}

const MODES: readonly PingMode[] = ['at once', 'claim first'];

function perMode<T>(make: () => T): Record<PingMode, T> {
  return { 'at once': make(), 'claim first': make() };
}
