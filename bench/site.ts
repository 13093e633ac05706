// The reader site (issue 12): a published site over one BENCH_SITE_PAGES-page (1,000) space.
//
//   1. A cached page under load: GET /site/{id}/{page} (access check, site and tree rows, the
//      revision snapshot, render key, LRU hit) vs a bare node:http server sending the same bytes
//      from memory, alternated rounds with autocannon (requests/s, p99, node CPU/request).
//   2. First render vs cached read: BENCH_SITE_RENDERS (20) different pages, each requested once
//      for the first time (body rendered on the Markdown pool, layout, cache fill) and then again
//      (cached), one request at a time; p50 and max of each.
//   3. First page after a process start: src/api.ts started as a process of its own
//      (BENCH_SITE_STARTS times, 2), then the first page it renders vs the next (another page,
//      also rendered for the first time): the Markdown threads are started and warmed before the
//      API listens (src/render/pool.ts), so the first reader does not wait for them.
import { createSite, setPublished } from '../src/services/sites/sites.js';
import {
  buildSpace,
  compareHttp,
  envInt,
  fmt,
  serveBytesBare,
  log,
  median,
  percentile,
  principalOf,
  seedOrg,
  startApi,
  startProcess,
  timedOk,
  type BenchEnv,
  type Cleanup,
  type LoadResult,
  type Pair,
  type Row,
} from './lib.js';

const SITE_PAGES = envInt('BENCH_SITE_PAGES', 1000);
const RENDERS = envInt('BENCH_SITE_RENDERS', 20);
const CONNECTIONS = envInt('BENCH_CONNECTIONS', 10);
const DURATION = envInt('BENCH_DURATION', 3);
const WARMUP = envInt('BENCH_WARMUP', 1);
const ROUNDS = envInt('BENCH_ROUNDS', 3);
const STARTS = envInt('BENCH_SITE_STARTS', 2);

function rows(name: string, r: Pair<LoadResult[]>): Row[] {
  const med = (xs: LoadResult[], f: (x: LoadResult) => number) => median(xs.map(f));
  return [
    {
      benchmark: name,
      metric: 'requests/s',
      ours: med(r.ours, (x) => x.rps),
      baseline: med(r.baseline, (x) => x.rps),
      digits: 0,
      higherIsBetter: true,
    },
    {
      benchmark: name,
      metric: 'p99 latency (ms)',
      ours: med(r.ours, (x) => x.p99),
      baseline: med(r.baseline, (x) => x.p99),
      digits: 0,
      higherIsBetter: false,
    },
  ];
}

export async function benchSite(env: BenchEnv, cleanup: Cleanup): Promise<Row[]> {
  const { app } = env;
  const apiBase = await startApi(env, cleanup);
  const seeded = await seedOrg(app, 'Bench site org');
  const principal = await principalOf(app, seeded);
  log(`building a ${SITE_PAGES}-page space for the site ...`);
  const space = await buildSpace(app, principal, seeded.orgId, 'Bench site space', SITE_PAGES);
  const site = await createSite(app, principal, seeded.orgId, { title: 'Bench site', visibility: 'public', spaces: [space.spaceId] });
  await setPublished(app, principal, seeded.orgId, site.id, true);
  const base = `${apiBase}/site/${site.id}`;

  // Page URLs from the site's own index (llms.txt lists every page with a .md link).
  const index = (await timedOk('llms.txt', `${base}/llms.txt`)).body.toString('utf8');
  const urls = [...index.matchAll(/\]\((http[^)]+)\.md\)/g)].map((m) => new URL(m[1]).pathname);
  if (urls.length < RENDERS + 1) throw new Error(`the site lists ${urls.length} pages, fewer than ${RENDERS + 1}`);

  // 2. First render vs cached read, spread over the tree; the Markdown threads up and warm first,
  //    as src/api.ts has them before it listens (section 3 measures a fresh process).
  await app.markdown.start();
  const first: number[] = [];
  const cached: number[] = [];
  for (let i = 0; i < RENDERS; i++) {
    const url = apiBase + urls[Math.floor(((i + 1) * urls.length) / (RENDERS + 1))];
    first.push((await timedOk('first render', url)).ms);
    cached.push((await timedOk('cached read', url)).ms);
  }
  log(`site page: first render p50 ${fmt(percentile(first, 50), 1)} ms, cached read p50 ${fmt(percentile(cached, 50), 1)} ms`);

  // 3. The first page rendered after a process start vs the next one (two pages not read yet).
  const afterStart: number[] = [];
  const next: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    const api = await startProcess(env, cleanup, 'src/api.ts');
    const [a, b] = [urls[2 * i + 1], urls[urls.length - 2 - 2 * i]];
    afterStart.push((await timedOk('first page after start', api.base + a)).ms);
    next.push((await timedOk('next page', api.base + b)).ms);
    await api.stop();
    log(`after a process start: first page ${fmt(afterStart[i], 1)} ms, the next page ${fmt(next[i], 1)} ms`);
  }

  // 1. A cached page under load vs the same bytes from memory.
  const pageUrl = apiBase + urls[Math.floor(urls.length / 2)];
  const bytes = (await timedOk('page', pageUrl)).body;
  const bareBase = await serveBytesBare(bytes, cleanup, 'the bare page server');
  const load = await compareHttp(
    'GET cached site page',
    { ours: pageUrl, baseline: `${bareBase}/` },
    { connections: CONNECTIONS, duration: DURATION, warmup: WARMUP, rounds: ROUNDS },
  );

  return [
    ...rows(`GET /site/{id}/{page} cached (${SITE_PAGES}-page site) vs the same bytes from memory`, load),
    {
      benchmark: `site page of a ${SITE_PAGES}-page site: first render (ours) vs cached read (baseline)`,
      metric: `p50 latency of ${RENDERS} pages (ms)`,
      ours: percentile(first, 50),
      baseline: percentile(cached, 50),
      digits: 1,
      higherIsBetter: false,
    },
    {
      benchmark: `site page of a ${SITE_PAGES}-page site, new API process: first page rendered (ours) vs the next page (baseline)`,
      metric: `max latency of ${STARTS} starts (ms)`,
      ours: Math.max(...afterStart),
      baseline: Math.max(...next),
      digits: 1,
      higherIsBetter: false,
    },
    {
      benchmark: `site page of a ${SITE_PAGES}-page site: first render (ours) vs cached read (baseline)`,
      metric: `max latency of ${RENDERS} pages (ms)`,
      ours: Math.max(...first),
      baseline: Math.max(...cached),
      digits: 1,
      higherIsBetter: false,
    },
  ];
}
