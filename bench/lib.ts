// Shared set-up for the benchmarks in bench/run.ts: a throw-away environment (database, Redis
// prefix, storage folder) that is always removed, the real application, seed data, bare baseline
// servers, an autocannon runner and the result table.
//
// Everything here targets loopback services only (PostgreSQL and Redis on 127.0.0.1 by default).
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import { loadConfig, type Config } from '../src/config.js';
import { createAppContext, closeAppContext, type AppContext } from '../src/context.js';
import { createPool, type Db } from '../src/db/pool.js';
import { createApiServer } from '../src/server.js';
import { createOrganization, createToken, createUser, addMember, authenticate } from '../src/services/identity.js';
import { createSpace } from '../src/services/spaces.js';
import { editMainContent } from '../src/content/commit.js';
import type { Principal } from '../src/auth/principal.js';
import { withTx } from '../src/db/pool.js';
import { PG_ADMIN_URL, REDIS_URL, adminQuery, benchNames, deleteRedisPrefix, dropDatabase, removeDir } from './teardown.js';
import { prng } from '../test/helpers/prng.js';
import { spawnTs } from '../test/helpers/processes.js';

/** A positive integer from the environment (BENCH_* knobs), or `def`. */
export function envInt(name: string, def: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return def;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return n;
}

export function log(msg: string) {
  process.stderr.write(`[bench] ${msg}\n`);
}

// ---------------------------------------------------------------------------------------------
// Cleanup: every resource registers its undo as soon as it exists, so a failure half-way through
// (or Ctrl-C) still drops the database, deletes the Redis keys and removes the folder. Should this
// process die without running it (SIGKILL), the janitor process does the same (bench/janitor.ts).
// ---------------------------------------------------------------------------------------------

export class Cleanup {
  private readonly steps: { what: string; fn: () => Promise<unknown> }[] = [];

  /**
   * Register an undo step. Returns a function that runs it now, once, and forgets it: for
   * resources released before the end of the run (workers between two measurements).
   */
  add(what: string, fn: () => Promise<unknown>): () => Promise<void> {
    const step = { what, fn };
    this.steps.push(step);
    return async () => {
      const i = this.steps.indexOf(step);
      if (i < 0) return; // already run
      this.steps.splice(i, 1);
      await step.fn();
    };
  }

  /** Undo in reverse order of creation; never throws (failures are reported). Safe to call twice. */
  async run(): Promise<void> {
    while (this.steps.length) {
      const step = this.steps.pop()!;
      try {
        await step.fn();
      } catch (err) {
        log(`cleanup: could not ${step.what}: ${(err as Error).message}`);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The throw-away environment and the real application
// ---------------------------------------------------------------------------------------------

export interface BenchEnv {
  dbName: string;
  databaseUrl: string;
  prefix: string;
  storageDir: string;
  config: Config;
  app: AppContext;
}

/**
 * CREATE DATABASE bench_<random>, a unique BullMQ/Redis prefix and a temporary storage folder,
 * then the real AppContext on top of them (migrations applied by createAppContext).
 * `appEnv` may override application settings (PG_POOL_MAX, WORKER_CONCURRENCY, ...).
 */
export async function createBenchEnv(cleanup: Cleanup, appEnv: Record<string, string | undefined> = {}): Promise<BenchEnv> {
  const suffix = randomBytes(5).toString('hex');
  const { dbName, prefix, storageDir } = benchNames(suffix);
  startJanitor(suffix);

  await adminQuery(`CREATE DATABASE ${dbName}`);
  cleanup.add(`drop database ${dbName}`, () => dropDatabase(dbName));
  const dbUrl = new URL(PG_ADMIN_URL);
  dbUrl.pathname = `/${dbName}`;
  cleanup.add(`delete Redis keys ${prefix}:*`, () => deleteRedisPrefix(prefix));
  await mkdir(storageDir);
  cleanup.add(`remove ${storageDir}`, () => removeDir(storageDir));

  const config = loadConfig({
    DATABASE_URL: dbUrl.toString(),
    REDIS_URL,
    QUEUE_PREFIX: prefix,
    HOST: '127.0.0.1',
    PUBLIC_URL: 'http://127.0.0.1',
    LOCAL_STORAGE_DIR: storageDir,
    LOG_LEVEL: 'silent',
    BOOTSTRAP: 'false',
    SHUTDOWN_TIMEOUT_MS: '3000',
    RATE_LIMIT_PER_MINUTE: '0', // load tests would trip it
    ...appEnv,
  });
  const app = await createAppContext(config, 'bench');
  cleanup.add('close the application context', () => closeAppContext(app));
  return { dbName, databaseUrl: dbUrl.toString(), prefix, storageDir, config, app };
}

/**
 * bench/janitor.ts in a process of its own (own process group: Ctrl-C does not reach it). It
 * removes this run's resources once this process is gone, should it die before cleaning up.
 */
function startJanitor(suffix: string) {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'janitor.ts'), suffix], {
    cwd: path.dirname(here),
    detached: true,
    stdio: ['pipe', 'ignore', 'inherit'],
  });
  child.on('error', (err) => log(`could not start the janitor: ${err.message}`));
  child.unref();
  (child.stdin as Socket | null)?.unref();
}

/** Listen on a free loopback port; returns the base URL. The server is closed by `cleanup`. */
/** A bare node:http server answering every request with `bytes` as HTML from memory: the baseline of a cached page. Its base URL. */
export function serveBytesBare(bytes: Buffer | Uint8Array, cleanup: Cleanup, what: string): Promise<string> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': bytes.length });
    res.end(bytes);
  });
  return listenLoopback(server, cleanup, what);
}

export async function listenLoopback(server: http.Server, cleanup: Cleanup, what: string, close?: () => Promise<void>): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  cleanup.add(
    `close ${what}`,
    close ??
      (() =>
        new Promise<void>((r) => {
          server.closeAllConnections();
          server.close(() => r());
        })),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Our real API server (createApiServer: router, zod validation, auth, logging, metrics). */
export async function startApi(env: BenchEnv, cleanup: Cleanup): Promise<string> {
  const api = createApiServer(env.app);
  return listenLoopback(api.server, cleanup, 'the API server', () => api.close());
}

/** A process of this repository (src/api.ts, workers/main.ts) on the bench's database, Redis and storage. */
export interface BenchProcess {
  /** The API's base URL (src/api.ts only). */
  base: string;
  pid: number;
  /** Resident memory now and its high-water mark since the last reset (MB; Linux /proc). */
  memory(): { rss: number; peak: number };
  /** Reset the high-water mark to the current RSS (Linux clear_refs 5). */
  resetPeak(): void;
  /** Stop it now (SIGTERM, then its exit); else `cleanup` does. */
  stop(): Promise<void>;
}

/** /proc/<pid>/status VmRSS and VmHWM in MB. */
export function procMemory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) / 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

/**
 * Start `entry` (src/api.ts or workers/main.ts) as a process of its own, as production runs it.
 * The API answers on a free loopback port (its PUBLIC_URL); resolves once /healthz answers (API)
 * or at once (a worker: wait for it with a workers.ping). Stopped by `cleanup`.
 */
export async function startProcess(
  env: BenchEnv,
  cleanup: Cleanup,
  entry: string,
  extra: Record<string, string> = {},
): Promise<BenchProcess> {
  const port = await new Promise<number>((resolve) => {
    const s = http.createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
  const base = `http://127.0.0.1:${port}`;
  const child = spawnTs(entry, [], {
    DATABASE_URL: env.databaseUrl,
    REDIS_URL: env.config.redisUrl,
    QUEUE_PREFIX: env.prefix,
    LOCAL_STORAGE_DIR: env.storageDir,
    GIT_CACHE_DIR: env.config.git.cacheDir,
    ALLOW_PRIVATE_FETCH: 'true',
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: base,
    LOG_LEVEL: 'warn',
    LOG_FORMAT: 'json',
    BOOTSTRAP: 'false',
    RATE_LIMIT_PER_MINUTE: '0',
    ...extra,
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
  child.stdout!.resume();
  const stop = cleanup.add(`stop ${entry} (pid ${child.pid})`, async () => {
    if (child.exitCode !== null) return;
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  });
  if (entry === 'src/api.ts') {
    await pollUntil(
      async () => {
        if (child.exitCode !== null) throw new Error(`${entry} exited (${child.exitCode}): ${stderr}`);
        return (await fetch(`${base}/healthz`).catch(() => null))?.ok || undefined;
      },
      50,
      120_000,
      `${entry} listening`,
    );
  }
  const pid = child.pid!;
  return { base, pid, memory: () => procMemory(pid), resetPeak: () => writeFileSync(`/proc/${pid}/clear_refs`, '5'), stop };
}

// ---------------------------------------------------------------------------------------------
// Baseline: a bare node:http server with its own pg pool (same size as the application's)
// ---------------------------------------------------------------------------------------------

export type BareHandler = (req: http.IncomingMessage, url: URL) => Promise<{ status: number; body: unknown }>;

/**
 * The baseline: node:http + pg and nothing else (no router, no validation, no logging, no
 * metrics, no response mapping). Runs in the same process as the API server; only one of the
 * two is under load at any time.
 */
export async function startBareServer(cleanup: Cleanup, handler: BareHandler): Promise<string> {
  const server = http.createServer((req, res) => {
    handler(req, new URL(req.url ?? '/', 'http://local')).then(
      ({ status, body }) => {
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify(body));
      },
      (err) => {
        res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify({ error: String((err as Error).message) }));
      },
    );
  });
  return listenLoopback(server, cleanup, 'a baseline server');
}

/** A separate pg pool for the baseline, the same size as the application's (PG_POOL_MAX). */
export function baselinePool(env: BenchEnv, cleanup: Cleanup): Db {
  const pool = createPool(env.databaseUrl, env.config.pgPoolMax);
  cleanup.add('close the baseline pg pool', () => pool.end());
  return pool;
}

/** The bearer token of an Authorization header, as src/server.ts reads it. */
export function bearerToken(req: http.IncomingMessage): string | null {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  return m ? m[1] : null;
}

// ---------------------------------------------------------------------------------------------
// Seed data, through the same identity service the tests use
// ---------------------------------------------------------------------------------------------

export interface Seeded {
  orgId: string;
  adminId: string;
  adminToken: string;
}

/** An organization with an admin and `extraMembers` more members (role `read`). */
export async function seedOrg(app: AppContext, title: string, extraMembers = 0): Promise<Seeded> {
  const tag = randomBytes(4).toString('hex');
  const admin = await createUser(app.db, { email: `admin-${tag}@bench.example`, displayName: 'Ada Admin' });
  const org = await createOrganization(app.db, { title, adminUserId: admin.id });
  const adminToken = await createToken(app.db, admin.id);
  // A few concurrent inserts at a time: fast, and well under the pool size.
  const BATCH = 8;
  for (let i = 0; i < extraMembers; i += BATCH) {
    await Promise.all(
      Array.from({ length: Math.min(BATCH, extraMembers - i) }, async (_, j) => {
        const n = i + j;
        const user = await createUser(app.db, { email: `member-${tag}-${n}@bench.example`, displayName: `Member ${n}` });
        await addMember(app.db, org.id, user.id, 'read');
      }),
    );
  }
  return { orgId: org.id, adminId: admin.id, adminToken };
}

// ---------------------------------------------------------------------------------------------
// Content fixtures (bench/content.ts, bench/merge.ts): spaces of realistic pages, built through the
// real write path (Draft + editMainContent), deterministic so every run has the same content
// ---------------------------------------------------------------------------------------------

/**
 * 300 made-up three-syllable words ("velquator"): no English word, so a query for one finds the
 * pages it was put in and nothing else. A page carries about 8 of them (title and body), so each
 * word is in about 8 / 300 of the pages: ~270 pages of a 10,000-page space.
 */
export const VOCABULARY: string[] = (() => {
  const syllables = ['ka', 'zu', 'mir', 'vel', 'tor', 'qua', 'nix', 'bel', 'dro', 'fen', 'lo', 'sar', 'gri', 'pol', 'than', 'wex'];
  const rnd = prng(42);
  const words = new Set<string>();
  while (words.size < 300) words.add(Array.from({ length: 3 }, () => syllables[Math.floor(rnd() * syllables.length)]).join(''));
  return [...words];
})();

/** A word every page contains (a broad query: it matches the whole space). */
export const COMMON_WORD = 'widget';

function vocabularyPicker(seed: number): () => string {
  const rnd = prng(seed);
  return () => VOCABULARY[Math.floor(rnd() * VOCABULARY.length)];
}

/** Title of page `n` of a benchmark space: unique, with one vocabulary word. */
export function benchPageTitle(n: number): string {
  return `Topic ${n + 1}: ${vocabularyPicker(1_000_003 * (n + 1))()}`;
}

/**
 * Body of page `n` (about 1 KB): an introduction and three `##` sections (four search sections),
 * a list and seven vocabulary words. `revision` > 0 changes its first line only.
 */
export function benchPageMarkdown(n: number, revision = 0): string {
  const w = vocabularyPicker(n + 1);
  return [
    `Page ${n + 1} describes how the ${COMMON_WORD} service is set up and operated${revision ? ` (revision ${revision})` : ''}. It mentions ${w()} and ${w()}.`,
    '## Overview',
    `The ${COMMON_WORD} service accepts requests, validates them and stores the result. Operators who run ${w()} should read the section on limits before changing any default, because each setting affects latency and memory use on every node of the cluster.`,
    '## Configuration',
    [
      '- `max_connections`: how many clients may connect at once (default 100).',
      '- `idle_timeout`: seconds before an idle client is disconnected (default 30).',
      `- \`${w()}_mode\`: enables the ${w()} integration.`,
    ].join('\n'),
    '## Troubleshooting',
    `When requests fail, look for errors mentioning ${w()} in the logs first: most problems come from an expired certificate or a full disk. Restarting the ${COMMON_WORD} service clears its temporary state but keeps the stored data.`,
  ].join('\n\n');
}

let revisionTag = 0;

/** A number not used before in this run: `benchPageMarkdown(n, nextRevisionTag())` always changes page n. */
export function nextRevisionTag(): number {
  return ++revisionTag;
}

export interface BenchSpace {
  spaceId: string;
  /** Every page id in tree order (each top-level page followed by its children). */
  pageIds: string[];
  /** The top-level pages. */
  topIds: string[];
}

/**
 * A space of `pages` pages, about sqrt(pages) top-level pages each with its share of children
 * (10,000 pages: 100 top-level pages of 99 children), written as ONE revision: one Draft, one
 * insertPage per page, committed by editMainContent in one transaction. The space is created
 * through the spaces service (empty); the search index is left to the caller (reindexSpace).
 */
export async function buildSpace(app: AppContext, principal: Principal, orgId: string, title: string, pages: number): Promise<BenchSpace> {
  const space = await createSpace(app, principal, orgId, { title, empty: true });
  const top = Math.max(1, Math.min(pages, Math.round(Math.sqrt(pages))));
  const rest = pages - top;
  const pageIds: string[] = [];
  const topIds: string[] = [];
  await withTx(app.db, (c) =>
    editMainContent(
      c,
      space.id,
      (d) => {
        let n = 0;
        for (let t = 0; t < top; t++) {
          const parent = d.insertPage(null, { title: benchPageTitle(n), markdown: benchPageMarkdown(n) });
          n++;
          pageIds.push(parent);
          topIds.push(parent);
          const children = Math.floor(rest / top) + (t < rest % top ? 1 : 0);
          for (let k = 0; k < children; k++) {
            pageIds.push(d.insertPage(parent, { title: benchPageTitle(n), markdown: benchPageMarkdown(n) }));
            n++;
          }
        }
      },
      { createdBy: principal.userId },
    ),
  );
  return { spaceId: space.id, pageIds, topIds };
}

export interface SpaceFixture {
  seeded: Seeded;
  principal: Principal;
  /** The space of BENCH_SPACE_PAGES pages, and a small one of BENCH_SMALL_SPACE_PAGES built alike. */
  large: BenchSpace;
  small: BenchSpace;
  /** Milliseconds to build (one Draft, one commit) and to index from scratch (reindexSpace). */
  timings: { buildLarge: number; buildSmall: number; indexLarge: number; indexSmall: number };
}

const fixtures = new WeakMap<BenchEnv, Map<string, Promise<SpaceFixture>>>();

/**
 * The large and small spaces of the content and merge benchmarks, built and indexed once per run
 * and shared (indexing 10,000 pages from scratch takes several seconds). `beforeIndex` runs
 * between building and indexing, on the first call only: the one moment nothing of the large
 * space is in the process's caches (bench/content.ts measures the first tree read there).
 */
export function spaceFixture(
  env: BenchEnv,
  pages: { large: number; small: number },
  beforeIndex?: (f: Omit<SpaceFixture, 'timings'>) => Promise<void>,
): Promise<SpaceFixture> {
  const key = `${pages.large}/${pages.small}`;
  let byEnv = fixtures.get(env);
  if (!byEnv) fixtures.set(env, (byEnv = new Map()));
  let f = byEnv.get(key);
  if (!f) {
    f = (async () => {
      const { app } = env;
      const seeded = await seedOrg(app, 'Bench content org');
      const principal = await principalOf(app, seeded);
      const timed = async <T>(fn: () => Promise<T>): Promise<[T, number]> => {
        const t0 = performance.now();
        const v = await fn();
        return [v, performance.now() - t0];
      };
      log(`building a ${pages.large}-page space and a ${pages.small}-page space (one Draft and one commit each) ...`);
      const [large, buildLarge] = await timed(() => buildSpace(app, principal, seeded.orgId, `Bench ${pages.large} pages`, pages.large));
      const [small, buildSmall] = await timed(() => buildSpace(app, principal, seeded.orgId, `Bench ${pages.small} pages`, pages.small));
      await beforeIndex?.({ seeded, principal, large, small });
      log(`indexing both spaces for search from scratch ...`);
      const { reindexSpace } = await import('../src/search/indexer.js');
      const [, indexLarge] = await timed(() => reindexSpace(app, large.spaceId));
      const [, indexSmall] = await timed(() => reindexSpace(app, small.spaceId));
      // Planner statistics, as a production database has them (see benchHttp in run.ts), and the
      // vacuum autovacuum would otherwise start in the middle of the measurements (after the bulk
      // inserts of the build and the index) and take one of the two cores.
      await app.db.query('VACUUM (ANALYZE)');
      log(
        `built ${pages.large} pages in ${fmt(buildLarge, 0)} ms (${pages.small}: ${fmt(buildSmall, 0)} ms); ` +
          `indexed from scratch in ${fmt(indexLarge, 0)} ms (${pages.small}: ${fmt(indexSmall, 0)} ms); ${heapMb()}`,
      );
      return { seeded, principal, large, small, timings: { buildLarge, buildSmall, indexLarge, indexSmall } };
    })();
    byEnv.set(key, f);
  }
  return f;
}

/** The process's JavaScript heap in use (the content caches live there). */
export function heapMb(): string {
  return `JS heap ${fmt(process.memoryUsage().heapUsed / 2 ** 20, 0)} MB`;
}

/** The principal of a seeded organization's admin (for calling services directly). */
export async function principalOf(app: AppContext, seeded: Seeded): Promise<Principal> {
  const p = await authenticate(app.db, seeded.adminToken);
  if (!p) throw new Error('the seeded admin token does not authenticate');
  return p;
}

// ---------------------------------------------------------------------------------------------
// CPU accounting (Linux /proc; null elsewhere). Under load on a small machine the database is
// often the bottleneck for both sides, which hides the cost of our own code in requests/s: the
// main thread's CPU time per request shows that cost directly.
// ---------------------------------------------------------------------------------------------

const TICK_MS = 10; // /proc reports clock ticks of USER_HZ = 100 on Linux

function procTicks(statFile: string): number {
  const stat = readFileSync(statFile, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(f[11]) + Number(f[12]); // utime + stime
}

/** CPU ms used so far by this process's main thread (where the servers and the workers run). */
export function mainThreadCpuMs(): number | null {
  try {
    return procTicks(`/proc/self/task/${process.pid}/stat`) * TICK_MS;
  } catch {
    return null;
  }
}

/** CPU ms used so far by every PostgreSQL process on this host (other databases included). */
export function postgresCpuMs(): number | null {
  try {
    let ticks = 0;
    for (const pid of readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      try {
        if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres') ticks += procTicks(`/proc/${pid}/stat`);
      } catch {
        /* the process ended meanwhile */
      }
    }
    return ticks * TICK_MS;
  } catch {
    return null;
  }
}

/** Measure `fn`'s CPU cost: main thread and PostgreSQL, in ms (null when not measurable). */
export async function withCpu<T>(fn: () => Promise<T>): Promise<{ value: T; mainMs: number | null; pgMs: number | null }> {
  // Scanning /proc for postgres costs main-thread CPU too: keep it outside the main-thread window.
  const pg0 = postgresCpuMs();
  const main0 = mainThreadCpuMs();
  const value = await fn();
  const main1 = mainThreadCpuMs();
  const pg1 = postgresCpuMs();
  return {
    value,
    mainMs: main0 === null || main1 === null ? null : main1 - main0,
    pgMs: pg0 === null || pg1 === null ? null : pg1 - pg0,
  };
}

// ---------------------------------------------------------------------------------------------
// HTTP load with autocannon
// ---------------------------------------------------------------------------------------------

export interface LoadOptions {
  connections: number;
  /** Seconds of each measured run. */
  duration: number;
  headers?: Record<string, string>;
}

export interface LoadResult {
  rps: number;
  /** Latency percentiles in ms (autocannon records whole milliseconds). */
  p50: number;
  p99: number;
  requests: number;
  /** Non-2xx responses plus connection errors and timeouts: must be 0 for a valid result. */
  failures: number;
  bytesPerRequest: number;
  /** Main-thread CPU µs per request: the server under test (the load generator is in a worker thread). */
  cpuUs: number | null;
  /** PostgreSQL CPU µs per request, all postgres processes of the host. */
  pgUs: number | null;
}

/**
 * One autocannon run. The load generator runs in a worker thread (`workers: 1`) so that it does
 * not share the event loop with the servers under test, which live in this main thread.
 */
export async function load(url: string, o: LoadOptions): Promise<LoadResult> {
  const {
    value: r,
    mainMs,
    pgMs,
  } = await withCpu(() =>
    autocannon({
      url,
      connections: o.connections,
      duration: o.duration,
      headers: o.headers,
      workers: 1,
    }),
  );
  const requests = r.requests.total;
  const perRequest = (ms: number | null) => (ms === null || !requests ? null : (ms * 1000) / requests);
  return {
    rps: requests / r.duration,
    p50: r.latency.p50,
    p99: r.latency.p99,
    requests,
    failures: r.non2xx + r.errors + r.timeouts,
    bytesPerRequest: requests ? r.throughput.total / requests : 0,
    cpuUs: perRequest(mainMs),
    pgUs: perRequest(pgMs),
  };
}

export interface Pair<T> {
  ours: T;
  baseline: T;
}

/**
 * Warm both servers up, then measure them alternately (baseline, ours, baseline, ours, ...) so
 * that slow drifts of a noisy machine hit both sides alike. Returns every round of each side.
 */
export async function compareHttp(
  label: string,
  urls: Pair<string>,
  o: LoadOptions & { rounds: number; warmup: number },
): Promise<Pair<LoadResult[]>> {
  for (const side of ['baseline', 'ours'] as const) {
    await load(urls[side], { ...o, duration: o.warmup });
  }
  const out: Pair<LoadResult[]> = { ours: [], baseline: [] };
  for (let i = 0; i < o.rounds; i++) {
    for (const side of ['baseline', 'ours'] as const) {
      const r = await load(urls[side], o);
      if (r.failures) throw new Error(`${label} (${side}): ${r.failures} failed requests out of ${r.requests}`);
      out[side].push(r);
      log(
        `${label} round ${i + 1}/${o.rounds} ${side.padEnd(8)} ${fmt(r.rps, 0).padStart(6)} req/s  ` +
          `p50 ${fmt(r.p50, 0)} ms  p99 ${fmt(r.p99, 0)} ms  ${fmt(r.bytesPerRequest, 0)} B/response  ` +
          `CPU/request: node main thread ${fmtOpt(r.cpuUs, 0)} µs, postgres ${fmtOpt(r.pgUs, 0)} µs`,
      );
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Sequential request latency (one request at a time, sub-millisecond resolution): for responses
// too large or operations too slow for a meaningful autocannon run, and for unloaded percentiles
// ---------------------------------------------------------------------------------------------

const keepAlive = new http.Agent({ keepAlive: true });

export interface Timed {
  ms: number;
  status: number;
  body: Buffer;
}

/** One HTTP request over a kept-alive connection, timed from sending to the last byte received. */
export function timedRequest(url: string, o: { method?: string; headers?: Record<string, string>; body?: unknown } = {}): Promise<Timed> {
  const payload = o.body === undefined ? undefined : Buffer.from(JSON.stringify(o.body));
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = http.request(
      url,
      {
        method: o.method ?? 'GET',
        agent: keepAlive,
        headers: { ...o.headers, ...(payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ ms: performance.now() - started, status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** A timed request that must answer 2xx; `what` names it in the error. */
export async function timedOk(what: string, url: string, o: Parameters<typeof timedRequest>[1] = {}): Promise<Timed> {
  const r = await timedRequest(url, o);
  if (r.status < 200 || r.status >= 300) throw new Error(`${what}: ${r.status} ${r.body.toString('utf8').slice(0, 300)}`);
  return r;
}

/** Nearest-rank percentile (q in 0..100). */
export function percentile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((q / 100) * s.length) - 1))];
}

/**
 * Sequential latency of two servers: `warmup` requests to each, then `rounds` alternating rounds
 * (baseline, ours, ...) of `requests` requests each, one at a time. `url(i)` gives the i-th
 * request's URL of each side (the same i on both sides, e.g. rotating search words). Every answer
 * must be 200. Returns every sample of each side in ms (percentiles are taken over all of them).
 */
export async function compareLatency(
  label: string,
  url: Pair<(i: number) => string>,
  o: { rounds: number; requests: number; warmup: number; headers?: Record<string, string> },
): Promise<Pair<number[]>> {
  const one = async (side: keyof Pair<unknown>, i: number) => timedOk(`${label} (${side})`, url[side](i), { headers: o.headers });
  for (const side of ['baseline', 'ours'] as const) for (let i = 0; i < o.warmup; i++) await one(side, i);
  const out: Pair<number[]> = { ours: [], baseline: [] };
  for (let r = 0; r < o.rounds; r++) {
    for (const side of ['baseline', 'ours'] as const) {
      const ms: number[] = [];
      let bytes = 0;
      for (let i = 0; i < o.requests; i++) {
        const t = await one(side, r * o.requests + i);
        ms.push(t.ms);
        bytes += t.body.length;
      }
      out[side].push(...ms);
      log(
        `${label} round ${r + 1}/${o.rounds} ${side.padEnd(8)} p50 ${fmt(percentile(ms, 50), 1)} ms  p99 ${fmt(percentile(ms, 99), 1)} ms  ` +
          `${fmt(bytes / o.requests, 0)} B/response (${o.requests} requests)`,
      );
    }
  }
  return out;
}

/**
 * p50 and p99 rows of a latency comparison (all samples of all rounds). Under 100 samples the
 * nearest-rank p99 is the slowest sample, and is named so ("max of 24").
 */
export function latencyRows(benchmark: string, r: Pair<number[]>, digits = 1, what = 'latency'): Row[] {
  const n = Math.min(r.ours.length, r.baseline.length);
  return [50, 99].map((q) => ({
    benchmark,
    metric: q === 99 && n < 100 ? `max ${what} of ${n} (ms)` : `p${q} ${what} (ms)`,
    ours: percentile(r.ours, q),
    baseline: percentile(r.baseline, q),
    digits,
    higherIsBetter: false,
  }));
}

/** Time an async function in ms. */
export async function timeMs(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Poll until `fn` returns a value other than undefined, or throw after `timeoutMs`. */
export async function pollUntil<T>(fn: () => Promise<T | undefined>, intervalMs: number, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

// ---------------------------------------------------------------------------------------------
// The result table
// ---------------------------------------------------------------------------------------------

export interface Row {
  benchmark: string;
  metric: string;
  ours: number;
  baseline: number;
  /** Digits after the decimal point for `ours` and `baseline`. */
  digits: number;
  /** Whether a larger value is better (throughput) or worse (latency): shown beside the ratio. */
  higherIsBetter: boolean;
}

export function fmt(n: number, digits: number): string {
  return n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** About three significant digits, so that tiny ratios (0.0042) do not print as 0.00. */
function sig(n: number): string {
  if (!Number.isFinite(n)) return 'n/a';
  if (n === 0) return '0';
  const digits = n >= 100 ? 0 : n >= 10 ? 1 : n >= 0.1 ? 2 : Math.min(6, 1 - Math.floor(Math.log10(n)));
  return fmt(n, digits);
}

export function fmtOpt(n: number | null, digits: number): string {
  return n === null ? 'n/a' : fmt(n, digits);
}

/** A plain-text table: each figure beside its baseline and the ratio ours ÷ baseline. */
export function printTable(rows: Row[], title: string, notes: string[] = []) {
  const header = ['Benchmark', 'Metric', 'Ours', 'Baseline', 'Ours/Baseline'];
  const body = rows.map((r) => {
    const ratio = r.baseline > 0 ? r.ours / r.baseline : NaN;
    // Throughput reads as a share of the baseline, costs (latency, CPU) as a multiple of it.
    const verdict = r.higherIsBetter ? `(${sig(ratio * 100)}% of baseline)` : `(${sig(ratio)}x baseline)`;
    return [r.benchmark, r.metric, fmt(r.ours, r.digits), fmt(r.baseline, r.digits), `${sig(ratio)}  ${verdict}`];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const numeric = [false, false, true, true, false];
  const line = (cells: string[]) =>
    '| ' + cells.map((c, i) => (numeric[i] ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join(' | ') + ' |';
  const sep = '|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|';
  const out = [title, '', line(header), sep, ...body.map(line), ''];
  for (const n of notes) out.push(n);
  process.stdout.write(out.join('\n') + '\n');
}

/** A JSON call to the API with a bearer token; a status of 300 or more fails the bench with the body's start. */
export async function apiCall(base: string, token: string, method: string, p: string, body?: unknown) {
  const res = await fetch(`${base}${p}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${text.slice(0, 300)}`);
  return { json: text ? JSON.parse(text) : null, headers: res.headers };
}
