// Does hostile content hold the API's event loop? /healthz p99 while clients read the most hostile
// page the content limits allow (src/content/limits.ts), beside /healthz p99 idle, in the same run.
//
// The hostile page: the costliest page to parse we found that every write limit accepts, written
// through the API (POST .../content of a change request, so the limits are shown to accept it):
// paragraphs of 2,400 links each (just under the markers-per-paragraph limit), as many as the node
// limit allows (about 690 KB). Turning it into a JSON document takes seconds of a thread of the
// Markdown pool (src/render/pool.ts); nested lists and quotes, and lazy lines, are kept near two
// seconds by the parse-work limit. Each read is of another copy of the page (its first word
// differs): the pool caches results by body, and a cached answer would measure nothing.
//
// Per round (BENCH_LIMITS_ROUNDS, 3), alternately (BENCH_LIMITS_COPIES copies are written, 28 by default):
//   baseline  BENCH_LIMITS_CONNECTIONS (2) probes send GET /healthz one at a time for BENCH_DURATION
//             seconds, idle (bench/healthz-probe.mjs: a worker thread, sub-millisecond timing, so a
//             stall of the server's event loop shows in full);
//   ours      the same while BENCH_LIMITS_READERS (2) clients read hostile copies with
//             ?format=document one after another (they start before and stop after the window;
//             the next idle round starts once their last read has answered).
// Rows: /healthz p99 and max latency over every sample of the rounds (hostile vs idle); and a
// hostile read's median time, vs reading the same page as Markdown (no parsing): what parsing costs
// the reader, not the others. First, the limit check's own cost (benchScanFamilies): the scan over
// adversarial families at doubling sizes beside plain text of the same size.
import { Worker } from 'node:worker_threads';
import {
  benchPageMarkdown,
  envInt,
  fmt,
  log,
  median,
  percentile,
  principalOf,
  seedOrg,
  startApi,
  timedOk,
  timedRequest,
  type BenchEnv,
  type Cleanup,
  type Row,
} from './lib.js';
import { LIMITS, scanMarkdown } from '../src/content/limits.js';
import type { ScanStats } from '../src/content/limits/markdown-scan.js';
import { PLAIN_FAMILY, SCAN_FAMILIES, SCAN_SIZES } from '../test/unit/content/scan-families.js';

const ROUNDS = envInt('BENCH_LIMITS_ROUNDS', 3);
const READERS = envInt('BENCH_LIMITS_READERS', 2);
const CONNECTIONS = envInt('BENCH_LIMITS_CONNECTIONS', 2);
const DURATION = envInt('BENCH_DURATION', 3);
const WARMUP = envInt('BENCH_WARMUP', 1);
/** Copies of the hostile page (each read once; more reads than copies would hit the pool's cache). */
const COPIES = envInt('BENCH_LIMITS_COPIES', ROUNDS * READERS * 4 + READERS * 2);

const PARAGRAPH = `${'[a](https://example.com) '.repeat(2400).trimEnd()}\n\n`;

/** Copy `n` of the hostile page: as many link paragraphs as the limits accept. */
export function hostilePage(n: number, paragraphs: number): string {
  return `Copy ${n}.\n\n${PARAGRAPH.repeat(paragraphs)}`;
}

const maxOf = (xs: number[]) => xs.reduce((a, b) => Math.max(a, b), 0);

/** Latency samples (ms) of GET `url` by `connections` sequential probes for `seconds`, from a worker thread. */
function probe(url: string, connections: number, seconds: number): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const w = new Worker(new URL('./healthz-probe.mjs', import.meta.url), { workerData: { url, connections, durationMs: seconds * 1000 } });
    w.once('message', resolve);
    w.once('error', reject);
    w.once('exit', (code) => code !== 0 && reject(new Error(`the /healthz probe exited with ${code}`)));
  });
}

/** The most paragraphs the write limits accept (binary search over the scan the API runs). */
function maxParagraphs(): number {
  let lo = 0;
  let hi = Math.ceil(LIMITS.pageChars / PARAGRAPH.length);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (scanMarkdown(hostilePage(999_999, mid))) hi = mid - 1;
    else lo = mid;
  }
  return lo;
}

const SCAN_RUNS = envInt('BENCH_LIMITS_SCAN_RUNS', 7);

/**
 * Steps the scan counts and its fastest milliseconds over SCAN_RUNS runs, for one body (a scan takes
 * milliseconds: the fastest run is the one the shared machine did not interrupt).
 */
function measureScan(md: string): { steps: number; ms: number } {
  const stats: ScanStats = { closeWork: 0, lazyWork: 0, markerWork: 0 };
  scanMarkdown(md, Infinity, LIMITS.depth, stats);
  const ms: number[] = [];
  for (let r = 0; r < SCAN_RUNS; r++) {
    const t = performance.now();
    scanMarkdown(md, Infinity);
    ms.push(performance.now() - t);
  }
  return { steps: stats.steps!, ms: Math.min(...ms) };
}

/**
 * The limit check's own cost: the Markdown scan over each adversarial family
 * (test/unit/content/scan-families.ts) at doubling sizes, steps counted and milliseconds timed,
 * beside plain text of the same size. Rows: each family's milliseconds at the largest size vs
 * plain text's, and the largest growth of counted work over the sizes (linear: the size ratio).
 */
export function benchScanFamilies(): Row[] {
  const largest = SCAN_SIZES[SCAN_SIZES.length - 1];
  const plain = SCAN_SIZES.map((n) => measureScan(SCAN_FAMILIES[PLAIN_FAMILY](n)));
  const rows: Row[] = [];
  let worstGrowth = 0;
  let worstFamily = '';
  for (const [name, family] of Object.entries(SCAN_FAMILIES)) {
    const m = SCAN_SIZES.map((n) => measureScan(family(n)));
    log(
      `scan ${name}: ` +
        SCAN_SIZES.map(
          (n, k) => `${fmt(n / 1000, 1)}K ${fmt(m[k].steps, 0)} steps ${fmt(m[k].ms, 2)} ms (plain ${fmt(plain[k].ms, 2)} ms)`,
        ).join('; '),
    );
    const growth = m[m.length - 1].steps / m[0].steps;
    if (growth > worstGrowth) [worstGrowth, worstFamily] = [growth, name];
    if (name === PLAIN_FAMILY) continue;
    rows.push({
      benchmark: `limit scan of ${name}, ${fmt(largest / 1000, 0)} KB`,
      metric: `fastest ms of ${SCAN_RUNS} (baseline: plain text of the same size)`,
      ours: m[m.length - 1].ms,
      baseline: plain[plain.length - 1].ms,
      digits: 2,
      higherIsBetter: false,
    });
  }
  rows.push({
    benchmark: `limit scan, counted work from ${fmt(SCAN_SIZES[0] / 1000, 1)} KB to ${fmt(largest / 1000, 0)} KB (worst: ${worstFamily})`,
    metric: 'growth of steps (baseline: growth of the size)',
    ours: worstGrowth,
    baseline: largest / SCAN_SIZES[0],
    digits: 2,
    higherIsBetter: false,
  });
  return rows;
}

export async function benchLimits(env: BenchEnv, cleanup: Cleanup): Promise<Row[]> {
  const scanRows = benchScanFamilies();
  const base = await startApi(env, cleanup);
  const seeded = await seedOrg(env.app, 'Bench limits org');
  await principalOf(env.app, seeded); // the token works
  const headers = { authorization: `Bearer ${seeded.adminToken}` };
  const api = async (method: string, path: string, body?: unknown) =>
    JSON.parse((await timedOk(`${method} ${path}`, base + path, { method, headers, body })).body.toString('utf8') || 'null');

  const paragraphs = maxParagraphs();
  const copies = COPIES;
  const size = hostilePage(0, paragraphs).length;
  log(`hostile page: ${paragraphs} paragraphs of 2,400 links, ${fmt(size / 1024, 0)} KB; writing ${copies} copies through the API ...`);
  const space = await api('POST', `/v1/orgs/${seeded.orgId}/spaces`, { title: 'Bench hostile', empty: true });
  const cr = await api('POST', `/v1/spaces/${space.id}/change-requests`, { subject: 'Hostile pages' });
  const pageIds: string[] = [];
  for (let n = 0; n < copies; n++) {
    const r = await api('POST', `/v1/spaces/${space.id}/change-requests/${cr.id}/content?compat=false`, {
      changes: [{ operation: 'insert_page', title: `Hostile ${n}`, document: { markdown: hostilePage(n, paragraphs) } }],
    });
    pageIds.push(r.changes[0].page.id);
  }
  const plainPage = await api('POST', `/v1/spaces/${space.id}/change-requests/${cr.id}/content?compat=false`, {
    changes: [{ operation: 'insert_page', title: 'Ordinary', document: { markdown: benchPageMarkdown(1) } }],
  });
  const pagePath = (id: string, format: string) =>
    `${base}/v1/spaces/${space.id}/change-requests/${cr.id}/content/page/${id}?format=${format}`;
  await timedOk('ordinary page', pagePath(plainPage.changes[0].page.id, 'document'), { headers });

  let next = 0;
  const readMs: number[] = [];
  const markdownMs: number[] = [];
  let plainText = 0;
  /** Hostile reads, one after another, until `stop` says so. */
  const reader = async (stop: { now: boolean }) => {
    while (!stop.now) {
      if (next === pageIds.length) log(`all ${pageIds.length} copies read once: later reads hit the cache (raise BENCH_LIMITS_COPIES)`);
      const id = pageIds[next++ % pageIds.length];
      const t = await timedRequest(pagePath(id, 'document'), { headers });
      if (t.status !== 200) throw new Error(`hostile read: ${t.status} ${t.body.toString('utf8').slice(0, 300)}`);
      readMs.push(t.ms);
      // Past MARKDOWN_TIMEOUT_MS the pool gives the page as plain text (one code block).
      if (t.body.includes('"syntax":"markdown"')) plainText++;
      markdownMs.push((await timedOk('hostile page as Markdown', pagePath(id, 'markdown'), { headers })).ms);
    }
  };
  const healthz = `${base}/healthz`;
  await probe(healthz, CONNECTIONS, WARMUP);

  const idle: number[] = [];
  const hostile: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const i = await probe(healthz, CONNECTIONS, DURATION);
    idle.push(...i);
    const stop = { now: false };
    const readers = Array.from({ length: READERS }, () => reader(stop));
    // Give the readers' first requests time to reach the pool before measuring.
    await new Promise((res) => setTimeout(res, 200));
    const h = await probe(healthz, CONNECTIONS, DURATION);
    stop.now = true;
    await Promise.all(readers);
    hostile.push(...h);
    log(
      `limits round ${r + 1}/${ROUNDS}: /healthz p99 idle ${fmt(percentile(i, 99), 2)} ms (max ${fmt(maxOf(i), 1)}), ` +
        `under hostile reads ${fmt(percentile(h, 99), 2)} ms (max ${fmt(maxOf(h), 1)}); ${i.length} / ${h.length} probes; ` +
        `${readMs.length} hostile reads so far (median ${fmt(median(readMs), 0)} ms, ${plainText} as plain text)`,
    );
  }
  if (!readMs.length) throw new Error('no hostile read finished');

  const name = `/healthz while ${READERS} clients read the most hostile page the limits allow (${fmt(size / 1024, 0)} KB)`;
  return [
    ...scanRows,
    {
      benchmark: name,
      metric: `p99 latency (ms) of ${hostile.length} / ${idle.length} probes (baseline: idle)`,
      ours: percentile(hostile, 99),
      baseline: percentile(idle, 99),
      digits: 2,
      higherIsBetter: false,
    },
    {
      benchmark: name,
      metric: 'max latency (ms) (baseline: idle)',
      ours: maxOf(hostile),
      baseline: maxOf(idle),
      digits: 1,
      higherIsBetter: false,
    },
    {
      benchmark: `GET that page ?format=document (${readMs.length} reads, ${plainText} as plain text)`,
      metric: 'median ms (baseline: ?format=markdown)',
      ours: median(readMs),
      baseline: median(markdownMs),
      digits: 0,
      higherIsBetter: false,
    },
  ];
}
