// npm run bench — how far our stack is from the bare minimum doing the same work.
//
// Every figure is measured beside a baseline in the same run, on the same machine, database and
// Redis, and printed with the ratio ours ÷ baseline:
//
//  1. GET /v1/orgs/{id}                 our API server (bearer auth, router, zod, logging, metrics,
//                                       response mapping) vs a bare node:http + pg handler running
//                                       the same two queries: the token lookup (findTokenByHash) and
//                                       the organization + membership SELECT (getOrgForUser).
//  2. GET /v1/orgs/{id}/members?limit=100 on an organization with 1,000 members: our API server vs a
//                                       bare handler running the same queries: token lookup, the
//                                       membership check (getOrgForUser) and listMembers (page + count).
//  3. no-op job (workers.ping)         the real path of a job that does nothing: operation row
//                                       inserted (durable) and enqueued by the service
//                                       (pingWorkers), run by the real workers (startWorkers: claim,
//                                       lease, processor, durable final state) vs a bare BullMQ
//                                       Worker with a no-op processor (same concurrency, job options,
//                                       prefix and Redis): jobs/s of a backlog of N (ours until the
//                                       last final state is durable), and accept ->
//                                       start latency p50/p99, one job at a time on idle workers
//                                       (accepted: the service call returned, i.e. after the insert
//                                       and the enqueue, or queue.add returned; start: the processor
//                                       began, as it reports with a high-resolution clock). For
//                                       reference, the floors of the real path: the bare Worker
//                                       running only the runner's two writes per job (claim, durable
//                                       finish batched by a Finisher) on pre-inserted operation
//                                       rows; accept -> start with the claim before the start.
//  4. openapi.process jobs/s            a backlog of N small inline-text specs drained by the real
//                                       workers (startWorkers, queue 'openapi') until every operation
//                                       row is `succeeded`, vs a backlog of N no-op BullMQ jobs
//                                       drained by a bare Worker with the same concurrency, job
//                                       options, prefix and Redis.
//  5. content (bench/content.ts)       a 10,000-page space: a revision changing one page (vs the same
//                                       on a 100-page space, and vs a naive full copy of the tree),
//                                       the search index update after it, reading the pages tree
//                                       (first read ever, first read after a new revision, warm p50/max;
//                                       vs a bare handler running one recursive SQL query), the same
//                                       reads on a space with 50 more revisions (vs the space without
//                                       them, alternated), search p50/p99 (vs a bare handler running
//                                       the ranked full-text SQL).
//  6. merge (bench/merge.ts)            POST .../merge of a change request touching 10 pages of the
//                                       10,000-page space after main moved on (three-way), vs the same
//                                       on a 100-page space and vs a fast-forward merge.
//  7. pdf (bench/pdf.ts)                PDF export pages/s of a 50-page change request vs bare puppeteer.
//  8. git (bench/git.ts)                import and export jobs of a 2,000-page repository vs git clone/push.
//  9. limits (bench/limits.ts)          /healthz p99 while clients read the most hostile page the
//                                       content limits allow, vs /healthz p99 idle.
//
// BENCH_ONLY=content,merge runs only the named sections (http, jobs, content, merge, pdf, git, limits, site), in the
// order above; content and merge share their spaces when both run.
//
// Knobs (environment): BENCH_CONNECTIONS (10), BENCH_DURATION seconds per measured run (3),
// BENCH_WARMUP seconds (1), BENCH_ROUNDS alternating rounds per HTTP comparison (3),
// BENCH_MEMBERS (1000), BENCH_JOBS openapi jobs (200), BENCH_NOOP_JOBS no-op jobs (2000),
// BENCH_JOB_ROUNDS alternating rounds of the job comparisons (2), BENCH_LATENCY_JOBS accept -> start
// samples per side and round (100),
// BENCH_PG_ADMIN_URL, BENCH_REDIS_URL; PG_POOL_MAX, WORKER_CONCURRENCY and CHROMIUM_PATH are passed
// to the app. The content, merge and pdf sections have knobs of their own (see their files).
import { Queue, Worker, type Job } from 'bullmq';
import type { Db } from '../src/db/pool.js';
import { createPool } from '../src/db/pool.js';
import { sha256Hex } from '../src/util/ids.js';
import { findTokenByHash } from '../src/db/repos/tokens.js';
import { getOrgForUser } from '../src/db/repos/organizations.js';
import { listMembers } from '../src/db/repos/members.js';
import { authenticate } from '../src/services/identity.js';
import { createSpec } from '../src/services/openapi.js';
import { startWorkers } from '../workers/start.js';
import { pingWorkers } from '../src/services/workers.js';
import { createOperation } from '../src/services/operations.js';
import { claimOperation } from '../src/db/repos/operations.js';
import { Finisher } from '../workers/finisher.js';
import { createRedis, redisConnection } from '../src/queue/client.js';
import { benchContent } from './content.js';
import { benchMerge } from './merge.js';
import { benchPdf } from './pdf.js';
import { benchGit } from './git.js';
import { benchLimits } from './limits.js';
import { benchSite } from './site.js';
import { tmpdir } from 'node:os';
import { rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import {
  Cleanup,
  baselinePool,
  bearerToken,
  compareHttp,
  createBenchEnv,
  envInt,
  fmt,
  fmtOpt,
  log,
  median,
  percentile,
  pollUntil,
  printTable,
  seedOrg,
  startApi,
  startBareServer,
  withCpu,
  type BareHandler,
  type BenchEnv,
  type LoadResult,
  type Pair,
  type Row,
} from './lib.js';
import { setTimeout as sleep } from 'node:timers/promises';

const CONNECTIONS = envInt('BENCH_CONNECTIONS', 10);
const DURATION = envInt('BENCH_DURATION', 3);
const WARMUP = envInt('BENCH_WARMUP', 1);
const ROUNDS = envInt('BENCH_ROUNDS', 3);
const MEMBERS = envInt('BENCH_MEMBERS', 1000);
const OPENAPI_JOBS = envInt('BENCH_JOBS', 200);
const NOOP_JOBS = envInt('BENCH_NOOP_JOBS', 2000);
const JOB_ROUNDS = envInt('BENCH_JOB_ROUNDS', 2);
const LATENCY_JOBS = envInt('BENCH_LATENCY_JOBS', 100);
const JOB_WARMUP = 20;
/** The queue the no-op jobs of our side run on (one with no job scheduler). */
const PING_QUEUE = 'openapi';
const PAGE = 100;

// ---------------------------------------------------------------------------------------------
// Baseline handlers: the same SQL as our repos (the repo functions themselves are called), with
// nothing else around it: no router, no validation, no logging, no metrics, rows sent as they are.
// ---------------------------------------------------------------------------------------------

/** Token -> user, exactly as the API authenticates (SHA-256 of the token, findTokenByHash). */
async function bareAuth(db: Db, req: Parameters<BareHandler>[0]) {
  const token = bearerToken(req);
  return token ? findTokenByHash(db, sha256Hex(token)) : null;
}

/** GET /v1/orgs/{id}: token lookup + getOrgForUser. */
function bareGetOrg(db: Db): BareHandler {
  return async (req, url) => {
    const orgId = /^\/v1\/orgs\/([^/]+)$/.exec(url.pathname)?.[1];
    if (!orgId) return { status: 404, body: { error: 'not found' } };
    const who = await bareAuth(db, req);
    if (!who) return { status: 401, body: { error: 'unauthorized' } };
    const org = await getOrgForUser(db, orgId, who.userId);
    if (!org) return { status: 404, body: { error: 'not found' } };
    if (!org.is_member) return { status: 403, body: { error: 'forbidden' } };
    return { status: 200, body: org };
  };
}

/** GET /v1/orgs/{id}/members?limit=N: token lookup + getOrgForUser (membership check) + listMembers. */
function bareListMembers(db: Db): BareHandler {
  return async (req, url) => {
    const orgId = /^\/v1\/orgs\/([^/]+)\/members$/.exec(url.pathname)?.[1];
    if (!orgId) return { status: 404, body: { error: 'not found' } };
    const who = await bareAuth(db, req);
    if (!who) return { status: 401, body: { error: 'unauthorized' } };
    const org = await getOrgForUser(db, orgId, who.userId);
    if (!org) return { status: 404, body: { error: 'not found' } };
    if (!org.is_member || org.member_role === null) return { status: 403, body: { error: 'forbidden' } };
    const limit = Number(url.searchParams.get('limit') ?? 50);
    const { rows, count } = await listMembers(db, orgId, { sort: 'joinedAt', order: 'desc', limit });
    return { status: 200, body: { items: rows.slice(0, limit), count } };
  };
}

// ---------------------------------------------------------------------------------------------
// HTTP comparisons
// ---------------------------------------------------------------------------------------------

/** Fail early (before measuring) if either side does not answer 200 with the expected content. */
async function check(url: string, token: string, expect: (body: any) => boolean, what: string) {
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  const body = await res.json().catch(() => null);
  if (res.status !== 200 || !expect(body)) {
    throw new Error(`${what}: unexpected answer ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
  }
}

/** Table rows of one HTTP comparison: medians over the rounds. */
function httpRows(name: string, r: Pair<LoadResult[]>): Row[] {
  const med = (xs: LoadResult[], f: (x: LoadResult) => number | null) => {
    const vs = xs.map(f);
    return vs.every((v): v is number => v !== null) ? median(vs) : null;
  };
  const rows: Row[] = [
    {
      benchmark: name,
      metric: 'requests/s',
      ours: med(r.ours, (x) => x.rps)!,
      baseline: med(r.baseline, (x) => x.rps)!,
      digits: 0,
      higherIsBetter: true,
    },
    {
      benchmark: name,
      metric: 'p99 latency (ms)',
      ours: med(r.ours, (x) => x.p99)!,
      baseline: med(r.baseline, (x) => x.p99)!,
      digits: 0,
      higherIsBetter: false,
    },
  ];
  const cpuOurs = med(r.ours, (x) => x.cpuUs);
  const cpuBase = med(r.baseline, (x) => x.cpuUs);
  if (cpuOurs !== null && cpuBase !== null) {
    rows.push({ benchmark: name, metric: 'node CPU/request (µs)', ours: cpuOurs, baseline: cpuBase, digits: 0, higherIsBetter: false });
  }
  return rows;
}

async function benchHttp(env: BenchEnv, cleanup: Cleanup): Promise<Row[]> {
  const ourBase = await startApi(env, cleanup);
  const pool = baselinePool(env, cleanup);
  const bareOrgBase = await startBareServer(cleanup, bareGetOrg(pool));
  const bareMembersBase = await startBareServer(cleanup, bareListMembers(pool));
  const opts = { connections: CONNECTIONS, duration: DURATION, warmup: WARMUP, rounds: ROUNDS };

  // Seed first, then ANALYZE: a production database has planner statistics (autovacuum), and
  // without them the plans of freshly filled tables are several times slower, and could change
  // half-way through the run when autovacuum wakes up.
  // 1. A small organization (just its admin): the cost of one authenticated read.
  const small = await seedOrg(env.app, 'Bench small org');
  // 2. A large organization: the admin plus MEMBERS - 1 readers, listed a page of PAGE at a time.
  log(`seeding an organization with ${MEMBERS} members ...`);
  const big = await seedOrg(env.app, 'Bench big org', MEMBERS - 1);
  await env.app.db.query('ANALYZE');

  const orgPath = `/v1/orgs/${small.orgId}`;
  const orgUrls = { ours: ourBase + orgPath, baseline: bareOrgBase + orgPath };
  await check(orgUrls.ours, small.adminToken, (b) => b.id === small.orgId, 'ours GET org');
  await check(orgUrls.baseline, small.adminToken, (b) => b.id === small.orgId, 'baseline GET org');
  const org = await compareHttp('GET /v1/orgs/{id}', orgUrls, { ...opts, headers: { authorization: `Bearer ${small.adminToken}` } });

  const membersPath = `/v1/orgs/${big.orgId}/members?limit=${PAGE}`;
  const memberUrls = { ours: ourBase + membersPath, baseline: bareMembersBase + membersPath };
  const fullPage = (b: any) => b.items?.length === PAGE && b.count === MEMBERS;
  await check(memberUrls.ours, big.adminToken, fullPage, 'ours members');
  await check(memberUrls.baseline, big.adminToken, fullPage, 'baseline members');
  const members = await compareHttp(`GET members?limit=${PAGE}`, memberUrls, {
    ...opts,
    headers: { authorization: `Bearer ${big.adminToken}` },
  });

  return [...httpRows('GET /v1/orgs/{id}', org), ...httpRows(`GET /v1/orgs/{id}/members?limit=${PAGE} (${MEMBERS} members)`, members)];
}

// ---------------------------------------------------------------------------------------------
// Job throughput: drain a pre-enqueued backlog, timed from worker start to the last completion
// ---------------------------------------------------------------------------------------------

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

/** Our side: no-op operations accepted as the API does (pingWorkers: durable row, then the enqueue). */
async function acceptPings(env: BenchEnv, n: number): Promise<string[]> {
  const ids: string[] = [];
  const BATCH = 8;
  for (let i = 0; i < n; i += BATCH) {
    const ops = await Promise.all(Array.from({ length: Math.min(BATCH, n - i) }, () => pingWorkers(env.app, PING_QUEUE)));
    ids.push(...ops.map((o) => o.id));
  }
  return ids;
}

async function allSucceeded(monitor: Db, ids: string[]) {
  const { rows } = await monitor.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM operations WHERE id = ANY($1) AND status = 'succeeded'",
    [ids],
  );
  if (rows[0].n !== ids.length) throw new Error(`no-op operations: ${rows[0].n} of ${ids.length} succeeded`);
}

/**
 * Ours: a backlog of `n` workers.ping operations (accepted before the clock starts), drained by the
 * real workers started on PING_QUEUE; timed from startWorkers to the n-th completion (the runner
 * completes a job after the operation's durable final state), then every row is checked `succeeded`.
 */
async function pingJobsPerSecond(env: BenchEnv, cleanup: Cleanup, monitor: Db, n: number): Promise<JobRate> {
  const ids = await acceptPings(env, n);
  const started = performance.now();
  const pool = startWorkers(env.app, [PING_QUEUE]);
  const stop = cleanup.add('stop the no-op job workers', () => pool.close(3000));
  try {
    // Done when every final state is durable: the runner frees a job's slot before its commit.
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
async function pingLatency(env: BenchEnv, cleanup: Cleanup, monitor: Db, n: number): Promise<number[]> {
  const pool = startWorkers(env.app, [PING_QUEUE]);
  const stop = cleanup.add('stop the no-op job workers', () => pool.close(3000));
  try {
    await sleep(100); // the workers are up and waiting
    const ids: string[] = [];
    const ms = await acceptToStart(pool.workers as Worker[], n, async () => ids.push((await pingWorkers(env.app, PING_QUEUE)).id));
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
 * The floor of the real path, for reference: the bare Worker's processor makes the runner's two
 * writes and nothing else, as the runner makes them: the claim (its commit does not wait for the
 * WAL flush) before the work, the durable final state handed to a Finisher after it (batched, the
 * job's slot freed meanwhile), on operation rows inserted beforehand; timed like the baseline,
 * until the last final state is durable.
 */
async function floorJobsPerSecond(env: BenchEnv, cleanup: Cleanup, queueName: string, n: number, tag: string): Promise<JobRate> {
  const db = env.app.db;
  const lease = env.config.workers.lockDurationMs;
  const finisher = new Finisher(db);
  const bare = bareNoop(env, cleanup, queueName, async (job) => {
    const owner = `floor:${job.id}`;
    const c = await claimOperation(db, job.data.operationId, owner, lease);
    if (c.state !== 'claimed') throw new Error(`floor: operation ${job.data.operationId} is ${c.state}`);
    void finisher.finish({ id: job.data.operationId, status: 'succeeded', result: null, owner }).catch(() => {});
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
 * The floor of accept -> start, for reference: accepted as ours (the durable operation row, then
 * queue.add), and the bare Worker's processor claims the operation (the runner's one write before
 * the work) before it reports its start.
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

async function benchJobs(env: BenchEnv, cleanup: Cleanup): Promise<Row[]> {
  const seeded = await seedOrg(env.app, 'Bench specs org');
  // Completion is watched through a connection of its own, outside the pool the workers use.
  const monitor = createPool(env.databaseUrl, 1);
  cleanup.add('close the monitor pool', () => monitor.end());
  const noopQueue = 'bench-noop';
  const floorQueue = 'bench-floor';

  // Warm-up (JIT, connections, the parser's first use), not measured.
  await noopJobsPerSecond(env, cleanup, noopQueue, JOB_WARMUP, 'warm');
  await floorJobsPerSecond(env, cleanup, floorQueue, JOB_WARMUP, 'warm-floor');
  await pingJobsPerSecond(env, cleanup, monitor, JOB_WARMUP);
  await noopLatency(env, cleanup, noopQueue, JOB_WARMUP, 'warm-lat');
  await pingLatency(env, cleanup, monitor, JOB_WARMUP);
  await floorLatency(env, cleanup, floorQueue, JOB_WARMUP);
  await openapiJobsPerSecond(env, cleanup, monitor, seeded, JOB_WARMUP, 'warm');

  // Alternate the two sides, as for HTTP, and keep the median of each (latency: all samples).
  const noop: Pair<JobRate[]> = { ours: [], baseline: [] };
  const latency: Pair<number[]> = { ours: [], baseline: [] };
  const latencyFloor: number[] = [];
  const openapi: Pair<JobRate[]> = { ours: [], baseline: [] };
  const floor: Pair<JobRate[]> = { ours: [], baseline: [] };
  for (let i = 1; i <= JOB_ROUNDS; i++) {
    const round = `jobs round ${i}/${JOB_ROUNDS}`;
    const b = await noopJobsPerSecond(env, cleanup, noopQueue, NOOP_JOBS, `run${i}`);
    log(`${round} bare BullMQ no-op       ${rateLine(b, NOOP_JOBS)}`);
    const p = await pingJobsPerSecond(env, cleanup, monitor, NOOP_JOBS);
    log(`${round} no-op job, real path   ${rateLine(p, NOOP_JOBS)}`);
    const f = await floorJobsPerSecond(env, cleanup, floorQueue, NOOP_JOBS, `floor${i}`);
    log(`${round} SQL floor              ${rateLine(f, NOOP_JOBS)}`);
    const bl = await noopLatency(env, cleanup, noopQueue, LATENCY_JOBS, `lat${i}`);
    log(`${round} bare BullMQ accept -> start      ${latencyLine(bl)}`);
    const pl = await pingLatency(env, cleanup, monitor, LATENCY_JOBS);
    log(`${round} no-op job accept -> start       ${latencyLine(pl)}`);
    const fl = await floorLatency(env, cleanup, floorQueue, LATENCY_JOBS);
    log(`${round} floor (claim) accept -> start   ${latencyLine(fl)}`);
    latencyFloor.push(...fl);
    const o = await openapiJobsPerSecond(env, cleanup, monitor, seeded, OPENAPI_JOBS, `run${i}`);
    log(`${round} openapi.process        ${rateLine(o, OPENAPI_JOBS)}`);
    noop.baseline.push(b);
    noop.ours.push(p);
    floor.baseline.push(b);
    floor.ours.push(f);
    latency.baseline.push(...bl);
    latency.ours.push(...pl);
    openapi.baseline.push(b);
    openapi.ours.push(o);
  }
  const c = env.config.workers.concurrency;
  const noopName = `no-op job, real path vs bare BullMQ (concurrency ${c})`;
  return [
    ...jobRows(noopName, noop),
    ...jobRows(`  for reference: SQL floor (bare BullMQ + claim + batched durable finish) vs bare BullMQ`, floor),
    ...[50, 99].map((q) => ({
      benchmark: `no-op job accept -> start, idle workers`,
      metric: `p${q} (ms)`,
      ours: percentile(latency.ours, q),
      baseline: percentile(latency.baseline, q),
      digits: 3,
      higherIsBetter: false,
    })),
    ...[50, 99].map((q) => ({
      benchmark: `  for reference: accept -> start floor (bare BullMQ + claim) vs bare BullMQ`,
      metric: `p${q} (ms)`,
      ours: percentile(latencyFloor, q),
      baseline: percentile(latency.baseline, q),
      digits: 3,
      higherIsBetter: false,
    })),
    ...jobRows(`jobs (concurrency ${c}): openapi.process vs no-op`, openapi),
  ];
}

// ---------------------------------------------------------------------------------------------

interface Section {
  name: string;
  run: (env: BenchEnv, cleanup: Cleanup) => Promise<Row[]>;
  /** Lines printed under the table when the section ran. */
  notes: string[];
}

const SECTIONS: Section[] = [
  {
    name: 'http',
    run: benchHttp,
    notes: [
      'HTTP baselines: bare node:http + pg running the same repo SQL (see bench/run.ts).',
      'node CPU = CPU time of the main thread, where the servers and workers run (autocannon runs in a',
      'worker thread), per request or job; it shows our own overhead even when PostgreSQL is the bottleneck.',
    ],
  },
  {
    name: 'jobs',
    run: benchJobs,
    notes: [
      'Job baseline: a bare BullMQ Worker with a no-op processor at the same concurrency on the same Redis. No-op job, real path:',
      'workers.ping accepted by the service (durable operation row + enqueue) and run by the real workers (claim, durable final state).',
      'Accept -> start: from the accepting call returning to the processor beginning, one job at a time on idle workers (all samples).',
      "SQL floor: the bare Worker's processor makes only the runner's two writes per job (claim without WAL flush wait, durable finish",
      'handed to a Finisher: batched, the slot freed meanwhile), timed until the last final state is durable. Accept -> start floor:',
      "accepted as ours (durable row + queue.add), the bare Worker's processor claims the operation before it reports its start.",
    ],
  },
  {
    name: 'content',
    run: benchContent,
    notes: [
      'Content (bench/content.ts): requests one at a time. Tree-read baseline: bare node:http + pg, token lookup',
      'and one recursive SQL query from the revision root to every page node, no cache, rows as stored. Search',
      "baseline: token lookup and a ranked websearch_to_tsquery over the space's sections, LIMIT 50. Naive copy:",
      "INSERT ... SELECT of the previous revision's page rows (node + markdown) with one page changed.",
    ],
  },
  {
    name: 'merge',
    run: benchMerge,
    notes: ['Merge (bench/merge.ts): POST .../merge as a client sees it, including the search index update.'],
  },
  {
    name: 'pdf',
    run: benchPdf,
    notes: ['PDF (bench/pdf.ts): request -> job -> pdf worker -> PDF served vs bare puppeteer setContent + pdf of the same HTML.'],
  },
  {
    name: 'git',
    run: benchGit,
    notes: [
      'Git (bench/git.ts): import/export jobs of a generated 2,000-page, 200-image repository vs git clone / git push of it,',
      'both against the same local git http-backend remote; every import starts from an empty cache (fresh repoCacheID).',
    ],
  },
  {
    name: 'limits',
    run: benchLimits,
    notes: [
      'Limits (bench/limits.ts): GET /healthz one at a time from a worker thread (sub-ms timing), idle and while clients read copies',
      'of the most hostile page the content limits accept (parsed on the Markdown pool, each copy once), alternately; and that read',
      "vs the same page as Markdown. On 2 cores the pool's threads take the CPU the probes share: latency there is CPU, not a blocked loop.",
    ],
  },
  {
    name: 'site',
    run: benchSite,
    notes: [
      'Site (bench/site.ts): a cached reader-site page under load vs a bare node:http server sending the same bytes from memory;',
      'and the first render of pages of a 1,000-page site vs their cached read, one request at a time.',
    ],
  },
];

/** BENCH_ONLY=content,merge: the sections to run (all by default). */
function selectedSections(): Set<string> {
  const raw = process.env.BENCH_ONLY?.trim();
  if (!raw) return new Set(SECTIONS.map((s) => s.name));
  const names = raw
    .split(',')
    .map((x) => x.trim().toLowerCase())
    .filter(Boolean);
  const unknown = names.filter((n) => !SECTIONS.some((s) => s.name === n));
  if (unknown.length || !names.length) {
    throw new Error(
      `BENCH_ONLY: unknown section(s) ${unknown.join(', ') || '(none given)'}; choose among ${SECTIONS.map((s) => s.name).join(', ')}`,
    );
  }
  return new Set(names);
}

async function main() {
  const cleanup = new Cleanup();
  let interrupted = false;
  // Ctrl-C: clean up, then exit. The handler stays installed, so a repeated signal (tsx relays
  // one to this process too) does not kill the process half-way through the cleanup.
  const onSignal = (sig: NodeJS.Signals) => {
    if (interrupted) return log(`${sig}: still cleaning up ...`);
    interrupted = true;
    log(`${sig}: cleaning up ...`);
    void cleanup.run().finally(() => process.exit(130));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  const t0 = performance.now();
  let failed = false;
  try {
    const only = selectedSections();
    const env = await createBenchEnv(cleanup, {
      PG_POOL_MAX: process.env.PG_POOL_MAX,
      WORKER_CONCURRENCY: process.env.WORKER_CONCURRENCY,
      CHROMIUM_PATH: process.env.CHROMIUM_PATH,
      // The git section's remote is on loopback; its cache is a throw-away folder.
      ALLOW_PRIVATE_FETCH: 'true',
      GIT_CACHE_DIR: `${tmpdir()}/bench-git-cache-${randomBytes(4).toString('hex')}`,
    });
    cleanup.add('remove the git cache', () => rm(env.config.git.cacheDir, { recursive: true, force: true }));
    log(`database ${env.dbName}, Redis prefix ${env.prefix}, storage ${env.storageDir}`);
    log(`pg pool ${env.config.pgPoolMax}, ${CONNECTIONS} connections, ${ROUNDS} x ${DURATION} s per side after ${WARMUP} s warm-up`);
    const rows: Row[] = [];
    const notes = ['Ours/Baseline = ours ÷ baseline. Figures are medians of the alternating rounds above unless named otherwise.'];
    for (const section of SECTIONS) {
      if (!only.has(section.name)) continue;
      const started = performance.now();
      log(`--- ${section.name} ---`);
      rows.push(...(await section.run(env, cleanup)));
      notes.push(...section.notes);
      log(`--- ${section.name} done in ${fmt((performance.now() - started) / 1000, 1)} s ---`);
    }
    printTable(rows, `Benchmarks (${new Date().toISOString()}, node ${process.version})`, notes);
  } catch (err) {
    failed = true;
    if (!interrupted) log(`FAILED: ${(err as Error).stack ?? err}`); // else: the cleanup broke it
  } finally {
    if (!interrupted) await cleanup.run();
  }
  if (interrupted) return; // the signal handler exits once its cleanup is done
  log(`done in ${fmt((performance.now() - t0) / 1000, 1)} s`);
  // Anything left holding the event loop (a socket closing late) must not keep the run alive.
  setTimeout(() => process.exit(failed ? 1 : 0), 1000).unref();
  process.exitCode = failed ? 1 : 0;
}

void main();
