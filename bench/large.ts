// Large spaces end to end (issue 26, item 4): a space of BENCH_LARGE_PAGES (50,000) pages built by
// a git import of a generated repository (SUMMARY.md with `## Part` groups, entries nested at most
// two levels, ~2 KB pages), served by an API process and a worker process of their own (as
// production runs them: their peak memory is theirs, read from /proc VmHWM), each figure beside a
// same-run baseline:
//
//   import          the git import job, request -> operation `succeeded`   vs `git clone` of the repository
//   search catch-up the space's search index following the import          vs the import itself
//   export          the git export job to an empty repository               vs `git push` of the same content
//   tree read       GET .../content/pages, first read after a one-page revision vs the warm read (p50 of 5)
//   one-page edit   editMainContent of one page (median of BENCH_LARGE_EDITS, 5) vs the same on a 100-page space
//   10-page merge   POST .../merge of a change request changing 10 pages after main moved (three-way,
//                   median of BENCH_LARGE_MERGES, 3)                        vs the same on the 100-page space
//   search          GET .../search p50 (a word in ~3 % of the pages, and one in every page), interleaved
//                   one at a time with GET /v1/orgs/{id}                    vs that GET's p50
//   reader site     a cached page of a site showing the space, requests/s  vs a bare node:http server
//                   sending the same bytes
//   pdf             bench/pdf.ts (a 50-page change request vs bare puppeteer) run with the large space in
//                   the same database (BENCH_LARGE_PDF=0 skips)
//   memory          peak RSS of the API process and of the worker process over the whole section vs their
//                   RSS once started
//
// Knobs: BENCH_LARGE_PAGES (50,000; a multiple of 50 is exact), BENCH_LARGE_EDITS (5),
// BENCH_LARGE_MERGES (3), BENCH_LARGE_SEARCHES (30), BENCH_LARGE_PDF (1).
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { withTx } from '../src/db/pool.js';
import { editMainContent } from '../src/content/commit.js';
import { freshness } from '../src/db/repos/search.js';
import { pingWorkers, waitForOperation } from '../src/services/workers.js';
import { createSite, setPublished } from '../src/services/sites/sites.js';
import { startGitServer, gitCli } from '../test/helpers/git-server.js';
import { prng } from '../test/helpers/prng.js';
import { benchPdf } from './pdf.js';
import {
  VOCABULARY,
  benchPageMarkdown,
  buildSpace,
  compareHttp,
  envInt,
  fmt,
  serveBytesBare,
  log,
  median,
  nextRevisionTag,
  percentile,
  pollUntil,
  principalOf,
  seedOrg,
  startProcess,
  timedOk,
  type BenchEnv,
  type Cleanup,
  type Row,
} from './lib.js';

const PAGES = envInt('BENCH_LARGE_PAGES', 50_000);
const SMALL_PAGES = 100;
const EDITS = envInt('BENCH_LARGE_EDITS', 5);
const MERGES = envInt('BENCH_LARGE_MERGES', 3);
const SEARCHES = envInt('BENCH_LARGE_SEARCHES', 30);
const CHANGED_PAGES = 10;
/** In the body of every 33rd page (~3 %); COMMON in every page. */
const RARE_WORD = 'zephyrine';
const COMMON_WORD = 'gadget';
/** Entries of a chapter (its README and 49 pages under it) and chapters of a part. */
const PER_CHAPTER = 50;
const CHAPTERS_PER_PART = 20;

/** A page of about 2 KB: front matter, headings, paragraphs of made-up words, a list and a code block. */
function pageBody(n: number, title: string): string {
  const rnd = prng(n + 1);
  const words = (k: number) => Array.from({ length: k }, () => VOCABULARY[Math.floor(rnd() * VOCABULARY.length)]).join(' ');
  const paragraph = () => `${words(24)} ${COMMON_WORD} ${words(20)}.`;
  return [
    `---\ndescription: ${words(6)}\n---\n`,
    `# ${title}\n`,
    `${paragraph()}${n % 33 === 0 ? ` ${RARE_WORD} appears here.` : ''}\n`,
    '## Usage\n',
    `${paragraph()}\n`,
    `- ${words(6)}\n- ${words(6)}\n  - ${words(4)}\n`,
    '```bash\nexample --flag value\n```\n',
    '## Details\n',
    `${paragraph()}\n\n${paragraph()}\n`,
    `${paragraph()}\n`,
  ].join('\n');
}

/**
 * The repository: `## Part p` groups of CHAPTERS_PER_PART chapters; a chapter is an entry whose
 * README has PER_CHAPTER - 1 pages nested under it (two levels). Returns the page count written.
 */
async function generateRepo(dir: string, pages: number): Promise<number> {
  const summary = ['# Table of contents', ''];
  let written = 0;
  for (let part = 0; written < pages; part++) {
    summary.push('', `## Part ${part + 1}`, '');
    for (let c = 0; c < CHAPTERS_PER_PART && written < pages; c++) {
      const folder = `part-${part + 1}/chapter-${c + 1}`;
      await mkdir(path.join(dir, folder), { recursive: true });
      const files: [string, string][] = [];
      const title = `Chapter ${part + 1}.${c + 1}`;
      files.push([`${folder}/README.md`, pageBody(written++, title)]);
      summary.push(`* [${title}](${folder}/README.md)`);
      for (let i = 1; i < PER_CHAPTER && written < pages; i++) {
        const t = `Page ${part + 1}.${c + 1}.${i}`;
        files.push([`${folder}/page-${i}.md`, pageBody(written++, t)]);
        summary.push(`  * [${t}](${folder}/page-${i}.md)`);
      }
      await Promise.all(files.map(([p, body]) => writeFile(path.join(dir, p), body)));
    }
  }
  await writeFile(path.join(dir, 'SUMMARY.md'), `${summary.join('\n')}\n`);
  return written;
}

const seconds = async (fn: () => Promise<unknown>) => {
  const t0 = performance.now();
  await fn();
  return (performance.now() - t0) / 1000;
};

/** The document pages of a pages tree (GET .../content/pages), in tree order. */
function documentPages(pages: any[], out: { id: string; path: string }[] = []): { id: string; path: string }[] {
  for (const p of pages) {
    if (p.type === 'document') out.push({ id: p.id, path: p.path });
    documentPages(p.pages ?? [], out);
  }
  return out;
}

export async function benchLarge(env: BenchEnv, cleanup: Cleanup): Promise<Row[]> {
  const { app } = env;
  const rows: Row[] = [];
  const api = await startProcess(env, cleanup, 'src/api.ts');
  const worker = await startProcess(env, cleanup, 'workers/main.ts');
  const up = await waitForOperation(app, (await pingWorkers(app, 'git')).id, 120_000);
  if (up?.status !== 'succeeded') throw new Error('the worker process did not start');
  const idle = { api: api.memory().rss, worker: worker.memory().rss };
  api.resetPeak();
  worker.resetPeak();

  const seeded = await seedOrg(app, 'Bench large org');
  const principal = await principalOf(app, seeded);
  const headers = { authorization: `Bearer ${seeded.adminToken}` };
  const call = async (method: string, p: string, body?: unknown) => {
    const t = await timedOk(`${method} ${p}`, api.base + p, { method, headers, body });
    return { ms: t.ms, json: JSON.parse(t.body.toString('utf8') || 'null') };
  };
  const runOp = async (kind: 'import' | 'export', spaceId: string, body: Record<string, unknown>) => {
    const r = await fetch(`${api.base}/v1/spaces/${spaceId}/git/${kind}`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (r.status >= 300) throw new Error(`git ${kind}: ${r.status} ${await r.text()}`);
    const location = new URL(r.headers.get('location')!).pathname;
    const op = await pollUntil(
      async () => {
        const o = (await call('GET', location)).json;
        return ['succeeded', 'failed', 'skipped'].includes(o.status) ? o : undefined;
      },
      50,
      3_600_000,
      `git ${kind}`,
    );
    if (op.status !== 'succeeded') throw new Error(`git ${kind} ${op.status}: ${op.error}`);
    return op;
  };

  // The repository.
  const remote = await startGitServer();
  cleanup.add('stop the git remote', () => remote.close());
  const work = await mkdtemp(path.join(tmpdir(), 'bench-large-'));
  cleanup.add(`remove ${work}`, () => rm(work, { recursive: true, force: true }));
  log(`generating a repository of ${PAGES} pages ...`);
  const src = path.join(work, 'source');
  await mkdir(src);
  const written = await generateRepo(src, PAGES);
  const url = await remote.createRepo('large', { dir: src, message: 'Generated docs' });

  // Import vs git clone; then the search index catching up.
  log('git clone, then the import ...');
  const cloneDir = path.join(work, 'clone');
  const clone = await seconds(() => gitCli(['clone', '-q', url, cloneDir], work));
  const spaceId = (await call('POST', `/v1/orgs/${seeded.orgId}/spaces`, { title: 'Bench large', empty: true })).json.id as string;
  const imported = await seconds(() =>
    runOp('import', spaceId, { url, ref: 'refs/heads/main', repoCacheID: `large-${randomBytes(4).toString('hex')}` }),
  );
  const catchUp = await seconds(() =>
    pollUntil(
      async () => {
        const [row] = await freshness(app.db, [spaceId]);
        return row && row.indexed_revision === row.revision_id ? true : undefined;
      },
      50,
      3_600_000,
      'the search index to follow the import',
    ),
  );
  log(`import ${fmt(imported, 1)} s (git clone ${fmt(clone, 1)} s), search caught up ${fmt(catchUp, 1)} s after it`);
  const tree = (await call('GET', `/v1/spaces/${spaceId}/content/pages`)).json;
  const docs = documentPages(tree.pages);
  const ids = docs.map((p) => p.id);
  if (ids.length < written * 0.99) throw new Error(`the import holds ${ids.length} pages of ${written}`);
  const name = `${ids.length}-page space`;
  rows.push(
    {
      benchmark: `Git import, ${name} (generated, ~2 KB pages)`,
      metric: 'seconds (ours: import job; baseline: git clone)',
      ours: imported,
      baseline: clone,
      digits: 1,
      higherIsBetter: false,
    },
    {
      benchmark: `Search catch-up after that import`,
      metric: 'seconds after the import succeeded (baseline: the import job)',
      ours: catchUp,
      baseline: imported,
      digits: 1,
      higherIsBetter: false,
    },
  );

  // Export vs git push.
  log('git push, then the export ...');
  const pushed = await seconds(async () => gitCli(['push', '-q', await remote.createRepo('large-push'), 'HEAD:refs/heads/main'], cloneDir));
  const target = await remote.createRepo('large-export');
  const exported = await seconds(() => runOp('export', spaceId, { url: target, ref: 'refs/heads/main', commitMessage: 'Export' }));
  log(`export ${fmt(exported, 1)} s (git push ${fmt(pushed, 1)} s)`);
  rows.push({
    benchmark: `Git export, ${name}`,
    metric: 'seconds (ours: export job; baseline: git push)',
    ours: exported,
    baseline: pushed,
    digits: 1,
    higherIsBetter: false,
  });

  // One-page edits (in this process, as bench/content.ts does) vs the same on a 100-page space;
  // after each large one, the API's first tree read of the new revision, then warm reads.
  const small = await buildSpace(app, principal, seeded.orgId, 'Bench large: small', SMALL_PAGES);
  const edit = async (space: string, page: string, n: number) =>
    seconds(() =>
      withTx(app.db, (c) =>
        editMainContent(c, space, (d) => d.updatePage(page, { markdown: benchPageMarkdown(n, nextRevisionTag()) }), {
          createdBy: principal.userId,
        }),
      ),
    );
  const edits = { large: [] as number[], small: [] as number[] };
  const reads = { first: [] as number[], warm: [] as number[] };
  for (let i = 0; i < EDITS; i++) {
    edits.small.push(await edit(small.spaceId, small.pageIds[(i * 7) % small.pageIds.length], i));
    const k = (i * 7919) % ids.length;
    edits.large.push(await edit(spaceId, ids[k], k));
    reads.first.push((await call('GET', `/v1/spaces/${spaceId}/content/pages`)).ms);
    for (let w = 0; w < 5; w++) reads.warm.push((await call('GET', `/v1/spaces/${spaceId}/content/pages`)).ms);
  }
  log(`one-page edit ${fmt(median(edits.large) * 1000, 1)} ms vs ${fmt(median(edits.small) * 1000, 1)} ms (${SMALL_PAGES} pages)`);
  rows.push(
    {
      benchmark: `One-page edit (editMainContent), ${name}`,
      metric: `median ms (baseline: same, ${SMALL_PAGES}-page space)`,
      ours: median(edits.large) * 1000,
      baseline: median(edits.small) * 1000,
      digits: 1,
      higherIsBetter: false,
    },
    {
      benchmark: `GET .../content/pages, ${name}`,
      metric: 'median ms (ours: first read after a one-page revision; baseline: warm read)',
      ours: median(reads.first),
      baseline: median(reads.warm),
      digits: 1,
      higherIsBetter: false,
    },
  );

  // 10-page merges, three-way (main moved), large and small alternately.
  let round = 0;
  const merge = async (space: string, pages: string[]): Promise<number> => {
    round++;
    const n = pages.length;
    const picked = Array.from({ length: CHANGED_PAGES }, (_, j) => (round * 37 + j * Math.floor(n / CHANGED_PAGES) + 5) % n);
    let mainPage = (Math.max(...picked) + 1) % n;
    while (picked.includes(mainPage)) mainPage = (mainPage + 1) % n;
    const cr = (await call('POST', `/v1/spaces/${space}/change-requests`, { subject: `Bench merge ${round}` })).json;
    await call('POST', `/v1/spaces/${space}/change-requests/${cr.id}/content?compat=false`, {
      changes: picked.map((k) => ({
        operation: 'update_page',
        page: pages[k],
        document: { markdown: benchPageMarkdown(k, nextRevisionTag()) },
      })),
    });
    await edit(space, pages[mainPage], mainPage);
    const r = await call('POST', `/v1/spaces/${space}/change-requests/${cr.id}/merge`);
    if (r.json?.result !== 'merge') throw new Error(`merge: unexpected answer ${JSON.stringify(r.json).slice(0, 300)}`);
    return r.ms;
  };
  await merge(small.spaceId, small.pageIds); // warm-up of each
  await merge(spaceId, ids);
  const merges = { large: [] as number[], small: [] as number[] };
  for (let i = 0; i < MERGES; i++) {
    merges.small.push(await merge(small.spaceId, small.pageIds));
    merges.large.push(await merge(spaceId, ids));
  }
  log(`10-page merge ${fmt(median(merges.large), 1)} ms vs ${fmt(median(merges.small), 1)} ms (${SMALL_PAGES} pages)`);
  rows.push({
    benchmark: `POST .../merge: CR changing ${CHANGED_PAGES} pages, three-way, ${name}`,
    metric: `median ms (baseline: same, ${SMALL_PAGES}-page space)`,
    ours: median(merges.large),
    baseline: median(merges.small),
    digits: 1,
    higherIsBetter: false,
  });

  // Search vs GET /v1/orgs/{id}, interleaved one request at a time.
  const searchOf = (word: string) => `/v1/spaces/${spaceId}/search?query=${word}`;
  for (const [word, what] of [
    [RARE_WORD, 'a word in ~3 % of the pages'],
    [COMMON_WORD, 'a word in every page'],
  ] as const) {
    const found = (await call('GET', searchOf(word))).json;
    if (!found.items?.length) throw new Error(`search for ${word} found nothing`);
    const times = { ours: [] as number[], baseline: [] as number[] };
    for (let i = 0; i < SEARCHES + 3; i++) {
      const s = (await call('GET', searchOf(word))).ms;
      const o = (await call('GET', `/v1/orgs/${seeded.orgId}`)).ms;
      if (i < 3) continue; // warm-up
      times.ours.push(s);
      times.baseline.push(o);
    }
    rows.push({
      benchmark: `GET .../search, ${what}, ${name}`,
      metric: 'p50 ms (baseline: GET /v1/orgs/{id} p50, interleaved)',
      ours: percentile(times.ours, 50),
      baseline: percentile(times.baseline, 50),
      digits: 1,
      higherIsBetter: false,
    });
  }

  // The reader site: a cached page under load vs the same bytes from memory.
  const site = await createSite(app, principal, seeded.orgId, { title: 'Bench large site', visibility: 'public', spaces: [spaceId] });
  await setPublished(app, principal, seeded.orgId, site.id, true);
  const pageUrl = `${api.base}/site/${site.id}/${docs[Math.floor(docs.length / 2)].path}`;
  const bytes = (await timedOk('site page', pageUrl)).body;
  const bareBase = await serveBytesBare(bytes, cleanup, 'the bare page server');
  const load = await compareHttp(
    'GET cached site page (large space)',
    { ours: pageUrl, baseline: `${bareBase}/` },
    {
      connections: 10,
      duration: 3,
      warmup: 1,
      rounds: 2,
    },
  );
  rows.push({
    benchmark: `GET /site/{id}/{page} cached, site of the ${name} vs the same bytes from memory`,
    metric: 'requests/s',
    ours: median(load.ours.map((x) => x.rps)),
    baseline: median(load.baseline.map((x) => x.rps)),
    digits: 0,
    higherIsBetter: true,
  });

  // Memory, read before the PDF part (which runs its workers in this process).
  const mem = { api: api.memory(), worker: worker.memory() };
  for (const [who, m] of [
    ['API', mem.api],
    ['worker', mem.worker],
  ] as const) {
    rows.push({
      benchmark: `Peak RSS of the ${who} process over the section, ${name}`,
      metric: 'MB (ours: peak; baseline: RSS once started)',
      ours: m.peak,
      baseline: who === 'API' ? idle.api : idle.worker,
      digits: 0,
      higherIsBetter: false,
    });
  }
  log(
    `peak RSS: API ${fmt(mem.api.peak, 0)} MB (idle ${fmt(idle.api, 0)}), worker ${fmt(mem.worker.peak, 0)} MB (idle ${fmt(idle.worker, 0)})`,
  );
  await api.stop();
  await worker.stop();

  if (process.env.BENCH_LARGE_PDF !== '0') {
    log('the PDF of a 50-page change request, beside the large space ...');
    rows.push(...(await benchPdf(env, cleanup)).map((r) => ({ ...r, benchmark: `${r.benchmark} (with the ${name} in the database)` })));
  }
  return rows;
}
