// Docs for agents (issue 30): a published site over one BENCH_MCP_PAGES-page (10,000) space.
//
//   MCP searchDocumentation (POST <site>/~gitbook/mcp, a JSON-RPC tools/call through a new stateless
//   server and transport per request, the access check, search over the reader's pages, noIndex
//   filtering) vs the site's own search request (GET <site>/~site/search, the same search and page
//   filter, JSON), one request at a time, the same rotating words on both sides, alternated rounds;
//   p50 and p99 of each. And llms-full.txt of the whole site once: time to the first byte and to the
//   last, and its size (streamed page by page).
import http from 'node:http';
import { createSite, setPublished } from '../src/services/sites/sites.js';
import {
  buildSpace,
  envInt,
  fmt,
  latencyRows,
  log,
  percentile,
  principalOf,
  seedOrg,
  startApi,
  timedOk,
  VOCABULARY,
  type BenchEnv,
  type Cleanup,
  type Pair,
  type Row,
} from './lib.js';

const PAGES = envInt('BENCH_MCP_PAGES', 10_000);
const REQUESTS = envInt('BENCH_MCP_REQUESTS', 50);
const ROUNDS = envInt('BENCH_ROUNDS', 3);
const WARMUP = envInt('BENCH_MCP_WARMUP', 5);

const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };

/** Time to the first and to the last byte of a GET. */
function firstAndLast(url: string): Promise<{ first: number; last: number; bytes: number; status: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    http
      .get(url, (res) => {
        let first = 0;
        let bytes = 0;
        res.on('data', (c: Buffer) => {
          if (!first) first = performance.now() - t0;
          bytes += c.length;
        });
        res.on('end', () => resolve({ first, last: performance.now() - t0, bytes, status: res.statusCode ?? 0 }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

export async function benchMcp(env: BenchEnv, cleanup: Cleanup): Promise<Row[]> {
  const { app } = env;
  const apiBase = await startApi(env, cleanup);
  const seeded = await seedOrg(app, 'Bench MCP org');
  const principal = await principalOf(app, seeded);
  log(`building a ${PAGES}-page space for the MCP site ...`);
  const space = await buildSpace(app, principal, seeded.orgId, 'Bench MCP space', PAGES);
  const { reindexSpace } = await import('../src/search/indexer.js');
  await reindexSpace(app, space.spaceId);
  await app.db.query('VACUUM (ANALYZE)');
  const site = await createSite(app, principal, seeded.orgId, { title: 'Bench MCP site', visibility: 'public', spaces: [space.spaceId] });
  await setPublished(app, principal, seeded.orgId, site.id, true);
  const base = `${apiBase}/site/${site.id}`;

  let id = 0;
  const word = (i: number) => VOCABULARY[(i * 7) % VOCABULARY.length];
  const call = async (side: keyof Pair<unknown>, i: number) => {
    if (side === 'baseline') return timedOk('site search', `${base}/~site/search?q=${encodeURIComponent(word(i))}`);
    const r = await timedOk('MCP searchDocumentation', `${base}/~gitbook/mcp`, {
      method: 'POST',
      headers: MCP_HEADERS,
      body: { jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name: 'searchDocumentation', arguments: { query: word(i) } } },
    });
    const parsed = JSON.parse(r.body.toString('utf8')) as { result?: { structuredContent?: { results?: unknown[] } } };
    if (!parsed.result?.structuredContent?.results?.length)
      throw new Error(`MCP search for "${word(i)}" found nothing: ${r.body.toString('utf8').slice(0, 300)}`);
    return r;
  };
  for (const side of ['baseline', 'ours'] as const) for (let i = 0; i < WARMUP; i++) await call(side, i);
  const samples: Pair<number[]> = { ours: [], baseline: [] };
  for (let r = 0; r < ROUNDS; r++) {
    for (const side of ['baseline', 'ours'] as const) {
      const ms: number[] = [];
      for (let i = 0; i < REQUESTS; i++) ms.push((await call(side, r * REQUESTS + i)).ms);
      samples[side].push(...ms);
      log(
        `MCP search round ${r + 1}/${ROUNDS} ${side.padEnd(8)} p50 ${fmt(percentile(ms, 50), 1)} ms  p99 ${fmt(percentile(ms, 99), 1)} ms`,
      );
    }
  }
  const full = await firstAndLast(`${base}/llms-full.txt`);
  if (full.status !== 200) throw new Error(`llms-full.txt: ${full.status}`);
  log(
    `llms-full.txt of ${PAGES} pages: first byte ${fmt(full.first, 0)} ms, last byte ${fmt(full.last, 0)} ms, ${fmt(full.bytes / 2 ** 20, 1)} MiB`,
  );
  return [
    ...latencyRows(`MCP searchDocumentation vs site search (${PAGES} pages)`, samples),
    {
      benchmark: `llms-full.txt streamed (${PAGES} pages)`,
      metric: 'first byte vs last byte (ms)',
      ours: full.first,
      baseline: full.last,
      digits: 0,
      higherIsBetter: false,
    },
  ];
}
