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
//  3. no-op job (workers.ping)         the real path of a job that does nothing (bench/jobs.ts):
//                                       operation row inserted (durable) and enqueued by the service
//                                       (pingWorkers), run by the real workers (startWorkers: it
//                                       starts at once, its final write batched and durable) vs a
//                                       bare BullMQ Worker with a no-op processor (same concurrency,
//                                       job options, prefix and Redis): jobs/s of a backlog of N
//                                       (ours until the last final state is durable), and accept ->
//                                       start latency p50/p99, one job at a time on idle workers
//                                       (accepted: the service call returned, i.e. after the insert
//                                       and the enqueue, or queue.add returned; start: the processor
//                                       began, as it reports with a high-resolution clock). For
//                                       reference, the same job claiming first (as every job with
//                                       outside effects does), and the floors of both paths: the bare
//                                       Worker making only the runner's writes on pre-inserted rows.
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
// BENCH_ONLY=content,merge runs only the named sections (http, jobs, content, merge, pdf, git, gitsync, limits, links, site, code, mcp), in the
// order above; content and merge share their spaces when both run.
//
// Knobs (environment): BENCH_CONNECTIONS (10), BENCH_DURATION seconds per measured run (3),
// BENCH_WARMUP seconds (1), BENCH_ROUNDS alternating rounds per HTTP comparison (3),
// BENCH_MEMBERS (1000), BENCH_JOBS openapi jobs (200), BENCH_NOOP_JOBS no-op jobs (2000),
// BENCH_JOB_ROUNDS alternating rounds of the job comparisons (2), BENCH_LATENCY_JOBS accept -> start
// samples per side and round (100),
// BENCH_PG_ADMIN_URL, BENCH_REDIS_URL; PG_POOL_MAX, WORKER_CONCURRENCY and CHROMIUM_PATH are passed
// to the app. The content, merge and pdf sections have knobs of their own (see their files).
import type { Db } from '../src/db/pool.js';
import { sha256Hex } from '../src/util/ids.js';
import { findTokenByHash } from '../src/db/repos/tokens.js';
import { getOrgForUser } from '../src/db/repos/organizations.js';
import { listMembers } from '../src/db/repos/members.js';
import { benchJobs } from './jobs.js';
import { benchContent } from './content.js';
import { benchMerge } from './merge.js';
import { benchPdf } from './pdf.js';
import { benchGit } from './git.js';
import { benchGitSync } from './gitsync.js';
import { benchLimits } from './limits.js';
import { benchSite } from './site.js';
import { benchCode } from './code.js';
import { benchLarge } from './large.js';
import { benchLinks } from './links.js';
import { benchMcp } from './mcp.js';
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
  log,
  median,
  printTable,
  seedOrg,
  startApi,
  startBareServer,
  type BareHandler,
  type BenchEnv,
  type LoadResult,
  type Pair,
  type Row,
} from './lib.js';

const CONNECTIONS = envInt('BENCH_CONNECTIONS', 10);
const DURATION = envInt('BENCH_DURATION', 3);
const WARMUP = envInt('BENCH_WARMUP', 1);
const ROUNDS = envInt('BENCH_ROUNDS', 3);
const MEMBERS = envInt('BENCH_MEMBERS', 1000);
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
      'workers.ping accepted by the service (durable operation row + enqueue with its payload) and run by the real workers: it starts',
      'at once, its claim deferred to its first turn, so a run that ends first sends none and its durable final write (batched by a',
      'Finisher, the slot freed meanwhile) makes the checks. Claiming first: the same operation enqueued without its payload, so the',
      'runner claims it before the processor begins, as for every job with outside effects. Accept -> start: from the accepting call',
      'returning to the processor beginning, one job at a time on idle workers (all samples). SQL floors: the bare Worker makes only',
      "the runner's writes per job on pre-inserted rows (at once: the batched durable finish; claiming first: the claim without WAL",
      'flush wait, then that finish), timed until the last final state is durable; accept -> start floor: accepted as ours, the bare',
      "Worker's processor claims the operation before it reports its start.",
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
    name: 'gitsync',
    run: benchGitSync,
    notes: [
      'Git Sync (bench/gitsync.ts): a push of a one-page change to a synced 100-page repository until the new text reads through',
      'the API, by webhook and by polling, and a change-request merge until its commit is on the remote; beside git push alone.',
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
    name: 'links',
    run: benchLinks,
    notes: [
      'Links (bench/links.ts): a generated 500-page, 7,000-file repository imported through the git job; the first',
      'GET /links?status=broken after the import succeeded, and the links.index build, vs a warm read of the same list.',
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
  {
    name: 'code',
    run: () => benchCode(),
    notes: [
      'Code (bench/code.ts): real fixture pages with code blocks rendered to HTML with server-side highlighting (Shiki) vs the same',
      'pages with the fence languages removed (plain code blocks, as before highlighting): a cold first pass over half the pages, the',
      "first render of the other half's pages (grammars warm), and rendering every page again (tokens remembered), per page.",
    ],
  },
  {
    name: 'mcp',
    run: benchMcp,
    notes: [
      "MCP (bench/mcp.ts): searchDocumentation through a site's MCP endpoint (a stateless server per request) vs the site's own",
      'search request, on a BENCH_MCP_PAGES (10,000) page site, one request at a time; and llms-full.txt first vs last byte.',
    ],
  },
  {
    name: 'large',
    run: benchLarge,
    notes: [
      'Large (bench/large.ts): a BENCH_LARGE_PAGES (50,000) page space built by a git import of a generated repository, served by',
      'an API process and a worker process of their own; each figure beside its baseline (git clone / git push, a warm read, a',
      '100-page space, GET /v1/orgs/{id}, a bare server); peak RSS of both processes from /proc VmHWM.',
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
