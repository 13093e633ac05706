// Git sync benchmark: a generated repository of 2,000 markdown pages and 200 images, imported into
// a space and exported to an empty repository through the real API, jobs and workers, each beside
// the git command line doing the same transfer in the same run:
//   import  (request -> git.import job -> fetch, parse, store pages and images, new revision)
//           vs `git clone` of the same repository over the same smart-HTTP remote;
//   export  (request -> git.export job -> generate files, write objects, push)
//           vs `git push` of the same content to an empty repository over the same remote.
// Both sides start cold: every import uses a fresh repoCacheID (a full fetch, like a clone).
import { cp, mkdtemp, mkdir, writeFile, rm } from 'node:fs/promises';
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { startWorkers } from '../workers/start.js';
import { freshness } from '../src/db/repos/search.js';
import { startGitServer, gitCli } from '../test/helpers/git-server.js';
import { GITBOOK_FIXTURES, requireFixtures } from '../test/helpers/fixtures.js';
import { spawnTs } from '../test/helpers/processes.js';
import { pingWorkers, waitForOperation } from '../src/services/workers.js';
import {
  apiCall,
  Cleanup,
  createBenchEnv,
  envInt,
  log,
  median,
  pollUntil,
  printTable,
  seedOrg,
  startApi,
  type BenchEnv,
  type Row,
} from './lib.js';

const PAGES = envInt('BENCH_GIT_PAGES', 2000);
const IMAGES = envInt('BENCH_GIT_IMAGES', 200);
// Five rounds: `git clone` writing 2,200 files swings from 0.15 s to 1.5 s on a shared disk.
const ROUNDS = envInt('BENCH_GIT_ROUNDS', 5);

/** A docs repository: SUMMARY.md with 40 sections of 50 pages, 200 images referenced from pages. */
async function generateRepo(dir: string) {
  await mkdir(path.join(dir, '.gitbook', 'assets'), { recursive: true });
  const summary = ['# Table of contents', '', '* [Introduction](README.md)'];
  await writeFile(path.join(dir, 'README.md'), '# Introduction\n\nGenerated documentation for the git benchmark.\n');
  const perSection = 50;
  let images = 0;
  let plain = 0;
  for (let i = 1; i < PAGES; i++) {
    const section = Math.floor((i - 1) / perSection);
    const folder = `section-${section}`;
    if ((i - 1) % perSection === 0) {
      await mkdir(path.join(dir, folder), { recursive: true });
      summary.push(`* [Section ${section}](${folder}/README.md)`);
      await writeFile(path.join(dir, folder, 'README.md'), `# Section ${section}\n\nPages of section ${section}.\n`);
      continue;
    }
    // Every 9th page embeds an image until IMAGES are placed (1,960 plain pages leave room for 200).
    const image = ++plain % 9 === 0 && images < IMAGES ? `img-${++images}.png` : null;
    const body = [
      `---\ndescription: Page ${i} of the benchmark\n---\n`,
      `# Page ${i}\n`,
      `Installing and configuring component ${i}. ${'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(8)}\n`,
      '## Usage\n',
      '```bash\nnpm install example\n```\n',
      `See [the next page](page-${i + 1}.md).\n`,
      image ? `![Diagram](../.gitbook/assets/${image})\n` : '',
    ].join('\n');
    await writeFile(path.join(dir, folder, `page-${i}.md`), body);
    summary.push(`  * [Page ${i}](${folder}/page-${i}.md)`);
    if (image) await writeFile(path.join(dir, '.gitbook', 'assets', image), randomBytes(16_000));
  }
  if (images < IMAGES) throw new Error(`only ${images} images placed: raise BENCH_GIT_PAGES`);
  await writeFile(path.join(dir, 'SUMMARY.md'), `${summary.join('\n')}\n`);
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await fn();
  return (performance.now() - started) / 1000;
}

export async function benchGit(env: BenchEnv, cleanup: Cleanup): Promise<Row[]> {
  const apiBase = await startApi(env, cleanup);
  // The search queue too: an import's search index follows in its own job (search.index).
  const pool = startWorkers(env.app, ['git', 'search']);
  cleanup.add('close the git and search workers', () => pool.close(5_000));
  // As workers/main.ts does at start-up: the Markdown pool's threads are up before the first job.
  await env.app.markdown.start();
  const remote = await startGitServer();
  cleanup.add('stop the git remote', () => remote.close());
  const work = await mkdtemp(path.join(tmpdir(), 'bench-git-'));
  cleanup.add(`remove ${work}`, () => rm(work, { recursive: true, force: true }));
  const { orgId, adminToken } = await seedOrg(env.app, 'Bench git org');

  log(`generating a repository of ${PAGES} pages and ${IMAGES} images ...`);
  const src = path.join(work, 'source');
  await mkdir(src);
  await generateRepo(src);
  const url = await remote.createRepo('bench', { dir: src, message: 'Generated docs' });

  const runOp = async (kind: 'import' | 'export', spaceId: string, body: Record<string, unknown>) => {
    const r = await apiCall(apiBase, adminToken, 'POST', `/v1/spaces/${spaceId}/git/${kind}`, body);
    const location = new URL(r.headers.get('location')!).pathname;
    const op = await pollUntil(
      async () => {
        const o = (await apiCall(apiBase, adminToken, 'GET', location)).json;
        return ['succeeded', 'failed', 'skipped'].includes(o.status) ? o : undefined;
      },
      10, // the job's end seen within 10 ms (a coarser poll would add up to its interval to every figure)
      600_000,
      `git ${kind}`,
    );
    if (op.status !== 'succeeded') throw new Error(`git ${kind} ${op.status}: ${op.error}`);
    return op;
  };
  const newSpace = async () =>
    (await apiCall(apiBase, adminToken, 'POST', `/v1/orgs/${orgId}/spaces`, { title: 'Bench git', empty: true })).json.id as string;

  /** Seconds from the import's success until the space's search index follows its revision. */
  const searchCatchUp = async (spaceId: string) => {
    const started = performance.now();
    await pollUntil(
      async () => {
        const [row] = await freshness(env.app.db, [spaceId]);
        return row && row.indexed_revision === row.revision_id ? true : undefined;
      },
      20,
      600_000,
      'the search index to follow the import',
    );
    return (performance.now() - started) / 1000;
  };

  const times: Times = { importOurs: [], importBase: [], exportOurs: [], exportBase: [], importTransfer: [] };
  const catchUp: number[] = [];
  let lastSpace = '';
  for (let round = 1; round <= ROUNDS; round++) {
    log(`round ${round}/${ROUNDS}: git clone, import, git push, export ...`);
    const cloneDir = path.join(work, `clone-${round}`);
    times.importBase.push(await timed(() => gitCli(['clone', '-q', url, cloneDir], work)));
    times.importTransfer!.push(await timed(() => gitCli(['clone', '-q', '--no-checkout', url, `${cloneDir}-bare`], work)));
    const spaceId = await newSpace();
    times.importOurs.push(
      await timed(() =>
        runOp('import', spaceId, { url, ref: 'refs/heads/main', repoCacheID: `bench-${round}-${randomBytes(4).toString('hex')}` }),
      ),
    );
    lastSpace = spaceId;
    catchUp.push(await searchCatchUp(spaceId));

    const pushTarget = await remote.createRepo(`push-base-${round}`);
    times.exportBase.push(await timed(() => gitCli(['push', '-q', pushTarget, 'HEAD:refs/heads/main'], cloneDir)));
    const exportTarget = await remote.createRepo(`export-${round}`);
    times.exportOurs.push(
      await timed(() =>
        runOp('export', spaceId, {
          url: exportTarget,
          ref: 'refs/heads/main',
          commitMessage: 'Export',
          repoCacheID: `bench-export-${round}`,
        }),
      ),
    );
  }
  const fixtureRows = await benchFixture(remote, work, runOp, newSpace, searchCatchUp);
  const pages = (await apiCall(apiBase, adminToken, 'GET', `/v1/spaces/${lastSpace}/content`)).json;
  const count = (list: any[]): number => list.reduce((n, p) => n + 1 + count(p.pages ?? []), 0);
  log(`imported ${count(pages.pages)} pages and ${pages.files.length} files`);
  // The large repository goes to a worker process of its own, as production runs them: its peak
  // memory is that process's, not this one's (which holds the API, the bench and what ran before).
  await pool.close(5_000);
  const largeRows = await benchLargeRepository(env, cleanup, remote, work, runOp, newSpace);

  const name = `${PAGES} pages + ${IMAGES} images`;
  return [
    ...fixtureRows,
    ...largeRows,
    ...timeRows(name, times),
    {
      benchmark: `Search catch-up after the git import, ${name}`,
      // The first round parses every page; later ones find the same bodies in the Markdown pool's cache.
      metric: 'seconds after the import succeeded until search follows, slowest round (baseline: the import job; target: <= 2x)',
      ours: Math.max(...catchUp),
      baseline: median(times.importOurs),
      digits: 2,
      higherIsBetter: false,
    },
  ];
}

/**
 * The largest real GitBook repository of the fixtures (BENCH_GIT_FIXTURE, a folder of
 * ../shared/fixtures/gitbook, and BENCH_GIT_FIXTURE_DIR its space folder; '' skips): import of the
 * space beside `git clone` of the repository, export to an empty repository beside `git push`, and
 * the peak resident memory of this process (API and in-process workers) during the import, above
 * what it was before.
 */
async function benchFixture(
  remote: Awaited<ReturnType<typeof startGitServer>>,
  work: string,
  runOp: (kind: 'import' | 'export', spaceId: string, body: Record<string, unknown>) => Promise<unknown>,
  newSpace: () => Promise<string>,
  searchCatchUp: (spaceId: string) => Promise<number>,
): Promise<Row[]> {
  const fixture = process.env.BENCH_GIT_FIXTURE ?? 'stacks-network--docs';
  const dir = process.env.BENCH_GIT_FIXTURE_DIR ?? 'docs/learn';
  if (!fixture) return [];
  const root = GITBOOK_FIXTURES;
  requireFixtures(path.join(root, fixture)); // a missing fixture fails the run with one line ('' skips it)
  const src = path.join(work, 'fixture');
  await cp(path.join(root, fixture), src, { recursive: true });
  await rm(path.join(src, 'SOURCE.md'), { force: true });
  const url = await remote.createRepo('bench-fixture', { dir: src, message: 'Fixture' });
  const times: Times = { importOurs: [], importBase: [], exportOurs: [], exportBase: [] };
  let peak = 0;
  const catchUp: number[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    log(`fixture ${fixture}/${dir}, round ${round}/${ROUNDS} ...`);
    const cloneDir = path.join(work, `fixture-clone-${round}`);
    times.importBase.push(await timed(() => gitCli(['clone', '-q', url, cloneDir], work)));
    const spaceId = await newSpace();
    const growth = await peakGrowth(async () =>
      times.importOurs.push(
        await timed(() =>
          runOp('import', spaceId, {
            url,
            ref: 'refs/heads/main',
            repoProjectDirectory: dir || undefined,
            repoCacheID: `fixture-${round}-${randomBytes(4).toString('hex')}`,
          }),
        ),
      ),
    );
    peak = Math.max(peak, growth);
    catchUp.push(await searchCatchUp(spaceId));
    const pushTarget = await remote.createRepo(`fixture-push-${round}`);
    times.exportBase.push(await timed(() => gitCli(['push', '-q', pushTarget, 'HEAD:refs/heads/main'], cloneDir)));
    const exportTarget = await remote.createRepo(`fixture-export-${round}`);
    times.exportOurs.push(
      await timed(() => runOp('export', spaceId, { url: exportTarget, ref: 'refs/heads/main', commitMessage: 'Export' })),
    );
  }
  const name = `${fixture}${dir ? `/${dir}` : ''}`;
  return [
    ...timeRows(name, times),
    {
      benchmark: `Git import, ${name}`,
      metric: 'MB (ours: peak RSS growth during the import, API and workers in one process; baseline: size of the space folder)',
      ours: peak / 1024 / 1024,
      baseline: folderBytes(path.join(src, dir)) / 1024 / 1024,
      digits: 1,
      higherIsBetter: false,
    },
    {
      benchmark: `Search catch-up after the git import, ${name}`,
      // Real pages: most go through the parser (emphasis, hints, tables ...), not the parser-free split.
      metric: 'seconds after the import succeeded until search follows, slowest round (baseline: the import job)',
      ours: Math.max(...catchUp),
      baseline: median(times.importOurs),
      digits: 2,
      higherIsBetter: false,
    },
  ];
}

type Times = {
  importOurs: number[];
  importBase: number[];
  exportOurs: number[];
  exportBase: number[];
  /** `git clone --no-checkout`: the transfer and index without writing the files (a reference). */
  importTransfer?: number[];
};

/** The import and export rows of one repository: medians beside `git clone` and `git push`. */
function timeRows(name: string, times: Times): Row[] {
  return [
    {
      benchmark: `Git import, ${name}`,
      metric: 'seconds (ours: import job; baseline: git clone)',
      ours: median(times.importOurs),
      baseline: median(times.importBase),
      digits: 2,
      higherIsBetter: false,
    },
    ...(times.importTransfer
      ? [
          {
            benchmark: `Git import, ${name}`,
            metric: 'seconds (ours: import job; baseline, for reference: git clone --no-checkout, no files written)',
            ours: median(times.importOurs),
            baseline: median(times.importTransfer),
            digits: 2,
            higherIsBetter: false,
          },
        ]
      : []),
    {
      benchmark: `Git export, ${name}`,
      metric: 'seconds (ours: export job; baseline: git push)',
      ours: median(times.exportOurs),
      baseline: median(times.exportBase),
      digits: 2,
      higherIsBetter: false,
    },
  ];
}

/** Peak RSS growth of this process (API and in-process workers) while `fn` runs. */
async function peakGrowth(fn: () => Promise<unknown>): Promise<number> {
  const before = process.memoryUsage().rss;
  let high = before;
  const sampler = setInterval(() => (high = Math.max(high, process.memoryUsage().rss)), 20);
  try {
    await fn();
  } finally {
    clearInterval(sampler);
  }
  return Math.max(0, high - before);
}

/**
 * Memory with large files: a repository of BENCH_GIT_LARGE_FILES files (default 1,000) holding
 * BENCH_GIT_LARGE_MB MB of assets (default 200; 0 skips), each asset referenced from a page. Prints
 * the peak RSS growth of the import and of the export beside the repository's size: an import or
 * export that held every blob at once would grow by at least that much.
 */
async function benchLargeRepository(
  env: BenchEnv,
  cleanup: Cleanup,
  remote: Awaited<ReturnType<typeof startGitServer>>,
  work: string,
  runOp: (kind: 'import' | 'export', spaceId: string, body: Record<string, unknown>) => Promise<unknown>,
  newSpace: () => Promise<string>,
): Promise<Row[]> {
  if (process.env.BENCH_GIT_LARGE_MB === '0') return [];
  const megabytes = envInt('BENCH_GIT_LARGE_MB', 200);
  const fileCount = envInt('BENCH_GIT_LARGE_FILES', 1000);
  const assets = Math.max(1, Math.floor(fileCount / 5));
  const pages = fileCount - assets - 1;
  const src = path.join(work, 'large');
  await mkdir(path.join(src, '.gitbook', 'assets'), { recursive: true });
  const summary = ['# Table of contents', ''];
  const assetBytes = Math.floor((megabytes * 1024 * 1024) / assets);
  for (let i = 0; i < pages; i++) {
    const asset = i < assets ? `.gitbook/assets/blob-${i}.bin` : null;
    if (asset) await writeFile(path.join(src, asset), randomBytes(assetBytes));
    await writeFile(
      path.join(src, `page-${i}.md`),
      `# Page ${i}\n\n${'Text of the page. '.repeat(20)}\n${asset ? `\n{% file src="${asset}" %}\n` : ''}`,
    );
    summary.push(`* [Page ${i}](page-${i}.md)`);
  }
  await writeFile(path.join(src, 'SUMMARY.md'), `${summary.join('\n')}\n`);
  log(`large repository: ${fileCount} files, ${megabytes} MB of assets ...`);
  const url = await remote.createRepo('bench-large', { dir: src, message: 'Large files' });
  const worker = await startGitWorker(env, cleanup);
  const spaceId = await newSpace();
  const imported = await worker.peak(() =>
    runOp('import', spaceId, { url, ref: 'refs/heads/main', repoCacheID: `large-${randomBytes(4).toString('hex')}` }),
  );
  const target = await remote.createRepo('bench-large-export');
  const exported = await worker.peak(() => runOp('export', spaceId, { url: target, ref: 'refs/heads/main', commitMessage: 'Export' }));
  const size = (folderBytes(src) / 1024 / 1024).toFixed(0);
  const name = `${fileCount} files, ${megabytes} MB`;
  const row = (what: string, m: { idle: number; peak: number }): Row => ({
    benchmark: `Git ${what}, ${name}`,
    metric: `MB (ours: the git worker process's peak RSS during the ${what} of the ${size} MB repository; baseline: its RSS just before)`,
    ours: m.peak,
    baseline: m.idle,
    digits: 0,
    higherIsBetter: false,
  });
  return [row('import', imported), row('export', exported)];
}

/**
 * A worker process for the git queue (workers/main.ts, as production starts it) on the bench's
 * database, Redis prefix and storage; `peak(fn)` runs `fn` and gives the process's RSS before it
 * and its peak RSS during it (Linux: /proc/<pid>/status VmRSS and VmHWM, the peak reset first).
 */
async function startGitWorker(env: BenchEnv, cleanup: Cleanup) {
  const child = spawnTs('workers/main.ts', [], {
    DATABASE_URL: env.databaseUrl,
    REDIS_URL: env.config.redisUrl,
    QUEUE_PREFIX: env.prefix,
    LOCAL_STORAGE_DIR: env.storageDir,
    GIT_CACHE_DIR: env.config.git.cacheDir,
    ALLOW_PRIVATE_FETCH: 'true',
    WORKER_QUEUES: 'git',
    LOG_LEVEL: 'warn',
    BOOTSTRAP: 'false',
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
  child.stdout!.resume();
  cleanup.add('stop the git worker process', async () => {
    if (child.exitCode !== null) return;
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  });
  // Up when it has run a job: a workers.ping on its queue.
  const ping = await pingWorkers(env.app, 'git');
  const done = await waitForOperation(env.app, ping.id, 120_000);
  if (done?.status !== 'succeeded') throw new Error(`the git worker process did not start: ${stderr}`);
  const kb = (field: string) => {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
    if (!m) throw new Error(`no ${field} in /proc/${child.pid}/status`);
    return Number(m[1]) / 1024;
  };
  return {
    async peak(fn: () => Promise<unknown>): Promise<{ idle: number; peak: number }> {
      writeFileSync(`/proc/${child.pid}/clear_refs`, '5'); // resets VmHWM to the current RSS
      const idle = kb('VmRSS');
      await fn();
      return { idle, peak: kb('VmHWM') };
    },
  };
}

function folderBytes(dir: string): number {
  let total = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    total += e.isDirectory() ? folderBytes(p) : e.isFile() ? statSync(p).size : 0;
  }
  return total;
}

async function main() {
  const cleanup = new Cleanup();
  process.on('SIGINT', () => void cleanup.run().finally(() => process.exit(130)));
  let failed = false;
  try {
    const env = await createBenchEnv(cleanup, {
      ALLOW_PRIVATE_FETCH: 'true',
      GIT_CACHE_DIR: path.join(tmpdir(), `bench-git-cache-${randomBytes(4).toString('hex')}`),
    });
    cleanup.add('remove the git cache', () => rm(env.config.git.cacheDir, { recursive: true, force: true }));
    printTable(await benchGit(env, cleanup), `Git sync benchmark (${new Date().toISOString()}, node ${process.version})`, [
      'Medians of BENCH_GIT_ROUNDS rounds; both sides talk to the same local git http-backend remote.',
    ]);
  } catch (err) {
    failed = true;
    log(`FAILED: ${(err as Error).stack ?? err}`);
  } finally {
    await cleanup.run();
  }
  process.exitCode = failed ? 1 : 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) void main();
