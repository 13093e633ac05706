// PDF export throughput: content pages rendered per second for a change request of BENCH_PDF_PAGES
// (50) pages, each with headings, paragraphs, a code block, a table and an image.
//
//   ours      the whole product path, timed from the request to the PDF being served: GET
//             .../change-requests/{id}/pdf on our API server, the operation row and BullMQ job, a
//             real `pdf` worker (startWorkers) loading the revision and bodies from PostgreSQL,
//             Markdown -> HTML, images from the BlobStore, the offline Chromium page, storing the
//             PDF, then polling the signed link until it answers 200 and downloading it. Each round
//             first changes one page, so the revision and its PDF are new (the other 49 pages' HTML
//             fragments come from the Markdown pool's cache, as when a user exports again after an
//             edit); a third side of each round changes every page first, so no fragment is cached.
//   baseline  bare puppeteer-core on the same Chromium binary and flags, in the same process:
//             page.setContent + page.pdf (same print options) of the very HTML our pipeline builds
//             for that change request (built once beforehand, not timed), nothing else: no database, queue,
//             storage, request interception or HTTP.
//
// Rounds alternate (baseline, ours, every page changed, ...) after one warm-up of each, so that drifts of a noisy
// machine hit both sides alike; figures are medians. Knobs: BENCH_PDF_PAGES (50),
// BENCH_PDF_ROUNDS (5); bench/lib.ts's BENCH_PG_ADMIN_URL, BENCH_REDIS_URL.
//
// `benchPdf(env, cleanup)` returns the table rows (bench/run.ts); `tsx bench/pdf.ts` runs it alone.
import { fileURLToPath } from 'node:url';
import { png } from '../test/helpers/png.js';
import type { Browser } from 'puppeteer-core';
import { startWorkers } from '../workers/start.js';
import { CHROMIUM_ARGS } from '../src/render/browser.js';
import { buildExport, parseScope } from '../src/render/document.js';
import { pdfOptions } from '../src/render/pdf.js';
import { getChangeRequest } from '../src/db/repos/change-requests.js';
import {
  Cleanup,
  createBenchEnv,
  envInt,
  fmt,
  log,
  median,
  pollUntil,
  printTable,
  seedOrg,
  startApi,
  type BenchEnv,
  type Row,
} from './lib.js';

const PAGES = envInt('BENCH_PDF_PAGES', 50);
const ROUNDS = envInt('BENCH_PDF_ROUNDS', 5);
const RENDER_TIMEOUT_MS = 300_000;

/** One page of typical documentation: about a printed page of A4. */
function pageMarkdown(i: number, round: number): string {
  const para = `Section ${i} explains how the widget service behaves under load, which settings matter and how to verify them. `.repeat(3);
  return [
    `## Overview of part ${i}${round ? ` (revision ${round})` : ''}`,
    para,
    '```ts',
    `export async function handler${i}(req: Request): Promise<Response> {`,
    `  const limit = Number(new URL(req.url).searchParams.get('limit') ?? ${i});`,
    '  return Response.json({ items: await list(limit) });',
    '}',
    '```',
    `## Settings of part ${i}`,
    '| Setting | Default | Meaning |',
    '| --- | --- | --- |',
    ...Array.from({ length: 6 }, (_, k) => `| \`option_${i}_${k}\` | ${k * 10} | What option ${k} changes, in a sentence. |`),
    '',
    '![Architecture](diagram.png)', // a docs-as-code path: resolved to the file by its name
    '',
    para,
  ].join('\n\n');
}

async function call(base: string, token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json: any = await res.json().catch(() => null);
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json).slice(0, 300)}`);
  return { json, headers: res.headers };
}

export async function benchPdf(env: BenchEnv, cleanup: Cleanup): Promise<Row[]> {
  const apiBase = await startApi(env, cleanup);
  const pool = startWorkers(env.app, ['pdf']);
  cleanup.add('close the pdf workers', () => pool.close(5_000));
  const { orgId, adminToken } = await seedOrg(env.app, 'Bench PDF org');

  log(`seeding a change request of ${PAGES} pages ...`);
  const spaceId = (await call(apiBase, adminToken, 'POST', `/v1/orgs/${orgId}/spaces`, { title: 'Bench handbook', empty: true })).json.id;
  const cr = (await call(apiBase, adminToken, 'POST', `/v1/spaces/${spaceId}/change-requests`, { subject: 'PDF benchmark' })).json;
  // A batch takes at most 50 changes: the file first, then the pages 40 at a time.
  const contentPath = `/v1/spaces/${spaceId}/change-requests/${cr.id}/content?compat=false`;
  const file = { name: 'diagram.png', contentType: 'image/png', base64: png(320, 120, [40, 110, 200]).toString('base64') };
  await call(apiBase, adminToken, 'POST', contentPath, { changes: [{ operation: 'insert_files', files: [file] }] });
  const pageIds: string[] = [];
  for (let from = 0; from < PAGES; from += 40) {
    const changes = Array.from({ length: Math.min(40, PAGES - from) }, (_, k) => ({
      operation: 'insert_page',
      title: `Chapter ${from + k + 1}`,
      document: { markdown: pageMarkdown(from + k + 1, 0) },
    }));
    const r = await call(apiBase, adminToken, 'POST', contentPath, { changes });
    pageIds.push(...r.json.changes.map((c: any) => c.page.id));
  }
  const firstPage = pageIds[0];

  // Baseline: bare puppeteer, same binary and flags, the HTML our pipeline builds (untimed).
  const { default: puppeteer } = await import('puppeteer-core');
  const bare: Browser = await puppeteer.launch({ executablePath: env.config.chromiumPath, headless: true, args: CHROMIUM_ARGS });
  cleanup.add('close the baseline browser', () => bare.close());
  const row = (await getChangeRequest(env.app.db, spaceId, cr.id))!;
  const built = await buildExport(env.app, {
    spaceId,
    revisionId: row.revision,
    organizationId: orgId,
    scope: parseScope('all'),
    title: 'Bench handbook',
    subtitle: [`Change request #${row.number}: ${row.subject}`, `Revision ${row.revision}`],
  });
  if (!built.html.includes('src="data:image/png;base64,')) throw new Error('the export embeds no image: the benchmark content is wrong');
  const baseline = async (): Promise<number> => {
    const started = performance.now();
    const page = await bare.newPage();
    try {
      await page.setContent(built.html, { waitUntil: 'load', timeout: RENDER_TIMEOUT_MS });
      const pdf = await page.pdf(pdfOptions(RENDER_TIMEOUT_MS));
      if (pdf.length < 1000) throw new Error('baseline: empty PDF');
    } finally {
      await page.close();
    }
    return (performance.now() - started) / 1000;
  };

  // Ours: a new revision (one page edited, or every page: untimed), then request -> job -> served
  // PDF (timed).
  let round = 0;
  const ours = async (every = false): Promise<number> => {
    round++;
    const edited = every ? pageIds : [firstPage];
    for (let from = 0; from < edited.length; from += 40) {
      await call(apiBase, adminToken, 'POST', `/v1/spaces/${spaceId}/change-requests/${cr.id}/content?compat=false`, {
        changes: edited.slice(from, from + 40).map((page) => ({
          operation: 'update_page',
          page,
          document: { markdown: pageMarkdown(pageIds.indexOf(page) + 1, round) },
        })),
      });
    }
    const started = performance.now();
    const { json } = await call(apiBase, adminToken, 'GET', `/v1/spaces/${spaceId}/change-requests/${cr.id}/pdf`);
    const link = new URL(json.url);
    const local = apiBase + link.pathname + link.search; // PUBLIC_URL of the bench env has no port
    const bytes = await pollUntil(
      async () => {
        const res = await fetch(local);
        if (res.status === 202) {
          await res.arrayBuffer();
          return undefined;
        }
        if (res.status !== 200) throw new Error(`PDF link answered ${res.status}: ${await res.text()}`);
        return Buffer.from(await res.arrayBuffer());
      },
      20,
      RENDER_TIMEOUT_MS,
      'the PDF',
    );
    const seconds = (performance.now() - started) / 1000;
    if (bytes.subarray(0, 5).toString('latin1') !== '%PDF-') throw new Error('ours: not a PDF');
    return seconds;
  };

  log('warming up (Chromium launches) ...');
  await baseline();
  await ours();
  const times = { ours: [] as number[], baseline: [] as number[], cold: [] as number[] };
  for (let i = 0; i < ROUNDS; i++) {
    for (const side of ['baseline', 'ours', 'cold'] as const) {
      const s = await (side === 'baseline' ? baseline() : ours(side === 'cold'));
      times[side].push(s);
      log(`pdf round ${i + 1}/${ROUNDS} ${side.padEnd(8)} ${fmt(s, 2)} s  ${fmt(PAGES / s, 1)} pages/s`);
    }
  }
  const name = `PDF export of a ${PAGES}-page change request, one page changed since the last export`;
  return [
    {
      benchmark: name,
      metric: 'pages/s',
      ours: PAGES / median(times.ours),
      baseline: PAGES / median(times.baseline),
      digits: 1,
      higherIsBetter: true,
    },
    {
      benchmark: name,
      metric: 'seconds per export',
      ours: median(times.ours),
      baseline: median(times.baseline),
      digits: 2,
      higherIsBetter: false,
    },
    {
      benchmark: `  the same with every page changed (no page's HTML cached)`,
      metric: 'pages/s',
      ours: PAGES / median(times.cold),
      baseline: PAGES / median(times.baseline),
      digits: 1,
      higherIsBetter: true,
    },
  ];
}

async function main() {
  const cleanup = new Cleanup();
  let interrupted = false;
  const onSignal = (sig: NodeJS.Signals) => {
    if (interrupted) return log(`${sig}: still cleaning up ...`);
    interrupted = true;
    log(`${sig}: cleaning up ...`);
    void cleanup.run().finally(() => process.exit(130));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let failed = false;
  try {
    const env = await createBenchEnv(cleanup, {
      WORKER_CONCURRENCY: process.env.WORKER_CONCURRENCY,
      CHROMIUM_PATH: process.env.CHROMIUM_PATH,
    });
    log(`database ${env.dbName}, Redis prefix ${env.prefix}, storage ${env.storageDir}, Chromium ${env.config.chromiumPath}`);
    const rows = await benchPdf(env, cleanup);
    printTable(rows, `PDF benchmark (${new Date().toISOString()}, node ${process.version})`, [
      'Ours: request -> operation + BullMQ job -> pdf worker (PostgreSQL, Markdown -> HTML, BlobStore images,',
      'offline Chromium page) -> PDF stored -> signed link polled until served. Baseline: bare puppeteer',
      'page.setContent + page.pdf of the same HTML on the same Chromium. Medians of alternating rounds.',
    ]);
  } catch (err) {
    failed = true;
    if (!interrupted) log(`FAILED: ${(err as Error).stack ?? err}`);
  } finally {
    if (!interrupted) await cleanup.run();
  }
  if (interrupted) return;
  setTimeout(() => process.exit(failed ? 1 : 0), 1000).unref();
  process.exitCode = failed ? 1 : 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) void main();
