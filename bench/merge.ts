// Merge latency: POST /v1/spaces/{id}/change-requests/{cr}/merge of a change request that changed
// 10 pages (one batch of 10 update_page through POST .../content), after main moved on with a
// change to another page, so the merge is a real three-way merge (base = the change request's
// initial revision, ours = main, theirs = the change request): mergeInto walks both trees, takes
// the 10 pages, commits a merge revision and moves main, then the search index follows
// (afterContentChange runs before the response). Timed as a client sees it, one request at a time.
//
// Per round (BENCH_MERGE_ROUNDS, 9), each with a fresh change request of its own, the three in an
// order that rotates from round to round (each comes first, second and third equally often: the
// garbage one merge leaves is not always collected during the same other one):
//   ours        three-way merge on the BENCH_SPACE_PAGES (10,000) page space;
//   baseline a  the same three-way merge on the BENCH_SMALL_SPACE_PAGES (100) page space: the
//               ratio is what the size of the space costs a merge that touches 10 pages;
//   baseline b  a fast-forward merge on the 10,000-page space (main did not move: the change
//               request's root becomes main as it is, no tree walk): the ratio is the cost of the
//               three-way merge itself.
// Figures: median and max over the rounds. The spaces are those of bench/content.ts (shared when
// both run: see spaceFixture in lib.ts). The search index update runs inside the merge request; to
// show the merge without it, each three-way round also times the index update after main's
// one-page edit (afterContentChange, untimed in the merge figure) and a line prints the merge
// medians minus those (an estimate: the merge's update re-parses 10 pages, not 1).
import { withTx } from '../src/db/pool.js';
import { editMainContent } from '../src/content/commit.js';
import { afterContentChange } from '../src/services/content-hooks.js';
import { SMALL_SPACE_PAGES, SPACE_PAGES } from './content.js';
import {
  benchPageMarkdown,
  envInt,
  fmt,
  log,
  median,
  nextRevisionTag,
  spaceFixture,
  startApi,
  timedOk,
  type BenchEnv,
  type BenchSpace,
  type Cleanup,
  type Row,
} from './lib.js';

const ROUNDS = envInt('BENCH_MERGE_ROUNDS', 9);
const WARMUP = envInt('BENCH_MERGE_WARMUP', 3);
const CHANGED_PAGES = 10;

export async function benchMerge(env: BenchEnv, cleanup: Cleanup): Promise<Row[]> {
  const { app } = env;
  const apiBase = await startApi(env, cleanup);
  if (SMALL_SPACE_PAGES <= CHANGED_PAGES)
    throw new Error(`BENCH_SMALL_SPACE_PAGES must be more than ${CHANGED_PAGES} for the merge benchmark`);
  const { seeded, principal, large, small } = await spaceFixture(env, { large: SPACE_PAGES, small: SMALL_SPACE_PAGES });
  const headers = { authorization: `Bearer ${seeded.adminToken}` };
  const api = async (method: string, path: string, body?: unknown) =>
    JSON.parse((await timedOk(`${method} ${path}`, apiBase + path, { method, headers, body })).body.toString('utf8') || 'null');

  let rounds = 0;
  /** Index updates after main's one-page edit, per space (ms). */
  const reindex = new Map<BenchSpace, number[]>();
  /** One change request of `s`, merged; returns the merge request's latency in ms. */
  const mergeRound = async (s: BenchSpace, threeWay: boolean): Promise<number> => {
    const round = rounds++;
    const n = s.pageIds.length;
    // 10 pages spread over the tree, and another one for main: different every round.
    const picked = Array.from({ length: CHANGED_PAGES }, (_, j) => (round * 37 + j * Math.floor(n / CHANGED_PAGES) + 5) % n);
    let mainPage = (Math.max(...picked) + 1) % n;
    while (picked.includes(mainPage)) mainPage = (mainPage + 1) % n;
    const tags = picked.map(() => nextRevisionTag());

    const cr = await api('POST', `/v1/spaces/${s.spaceId}/change-requests`, { subject: `Bench merge ${round}` });
    await api('POST', `/v1/spaces/${s.spaceId}/change-requests/${cr.id}/content?compat=false`, {
      changes: picked.map((k, j) => ({
        operation: 'update_page',
        page: s.pageIds[k],
        document: { markdown: benchPageMarkdown(k, tags[j]) },
      })),
    });
    const mainTag = nextRevisionTag();
    if (threeWay) {
      await withTx(app.db, (c) =>
        editMainContent(c, s.spaceId, (d) => d.updatePage(s.pageIds[mainPage], { markdown: benchPageMarkdown(mainPage, mainTag) }), {
          createdBy: principal.userId,
        }),
      );
      const t0 = performance.now();
      await afterContentChange(app, s.spaceId);
      reindex.set(s, [...(reindex.get(s) ?? []), performance.now() - t0]);
    }

    const t = await timedOk('merge', `${apiBase}/v1/spaces/${s.spaceId}/change-requests/${cr.id}/merge`, { method: 'POST', headers });
    const result = JSON.parse(t.body.toString('utf8'));
    if (result.result !== 'merge') throw new Error(`merge: unexpected answer ${t.body.toString('utf8').slice(0, 300)}`);

    if (round < 3) {
      // The first rounds check that main has both sides' changes (a benchmark of a broken merge is worthless).
      const expect = [[picked[0], tags[0]], ...(threeWay ? [[mainPage, mainTag]] : [])];
      for (const [k, tag] of expect) {
        const page = await api('GET', `/v1/spaces/${s.spaceId}/content/page/${s.pageIds[k]}`);
        if (!String(page.markdown).includes(`(revision ${tag})`))
          throw new Error(`after the merge, page ${k} lacks its change (revision ${tag})`);
      }
    }
    return t.ms;
  };

  log(`merges of change requests touching ${CHANGED_PAGES} pages: ${ROUNDS} rounds after ${WARMUP} of warm-up ...`);
  // The first merges on a space just built cost more on the large one (~25 ms against ~17 once
  // warm: its caches and the collector's heap settle), which the max rows still show.
  for (let w = 0; w < WARMUP; w++) {
    await mergeRound(small, true);
    await mergeRound(large, true);
  }
  const times = { large: [] as number[], small: [] as number[], fastForward: [] as number[] };
  const kinds = [
    async () => times.small.push(await mergeRound(small, true)),
    async () => times.fastForward.push(await mergeRound(large, false)),
    async () => times.large.push(await mergeRound(large, true)),
  ];
  for (let r = 0; r < ROUNDS; r++) {
    for (let k = 0; k < kinds.length; k++) await kinds[(k + r) % kinds.length]();
    log(
      `merge round ${r + 1}/${ROUNDS}: three-way ${SPACE_PAGES} pages ${fmt(times.large[r], 1)} ms, ${SMALL_SPACE_PAGES} pages ` +
        `${fmt(times.small[r], 1)} ms; fast-forward ${SPACE_PAGES} pages ${fmt(times.fastForward[r], 1)} ms`,
    );
  }

  const [rl, rs] = [median(reindex.get(large)!.slice(WARMUP)), median(reindex.get(small)!.slice(WARMUP))];
  log(
    `merge without the search index update (estimate): ${SPACE_PAGES} pages ${fmt(median(times.large) - rl, 1)} ms, ` +
      `${SMALL_SPACE_PAGES} pages ${fmt(median(times.small) - rs, 1)} ms (index update after a one-page edit: ${fmt(rl, 1)} ms vs ${fmt(rs, 1)} ms)`,
  );

  const name = `POST .../merge: CR changing ${CHANGED_PAGES} of ${SPACE_PAGES} pages, three-way`;
  return [
    {
      benchmark: name,
      metric: `median ms (baseline: same, ${SMALL_SPACE_PAGES}-page space)`,
      ours: median(times.large),
      baseline: median(times.small),
      digits: 1,
      higherIsBetter: false,
    },
    {
      benchmark: name,
      metric: `max ms (baseline: same, ${SMALL_SPACE_PAGES}-page space)`,
      ours: Math.max(...times.large),
      baseline: Math.max(...times.small),
      digits: 1,
      higherIsBetter: false,
    },
    {
      benchmark: name,
      metric: 'median ms (baseline: fast-forward merge)',
      ours: median(times.large),
      baseline: median(times.fastForward),
      digits: 1,
      higherIsBetter: false,
    },
    {
      benchmark: name,
      metric: 'max ms (baseline: fast-forward merge)',
      ours: Math.max(...times.large),
      baseline: Math.max(...times.fastForward),
      digits: 1,
      higherIsBetter: false,
    },
  ];
}
