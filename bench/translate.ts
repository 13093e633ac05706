// npx tsx bench/translate.ts — translations, each figure beside a baseline from the same run:
//
//  1. Words/s through the pipeline: every page body of a BENCH_TRANSLATE_PAGES (1000)-page space
//     segmented, sent to the pseudo provider, placeholders checked, markdown rebuilt and spliced
//     back (translateUnits + applyTranslations, no memory), vs the pseudo provider call alone on
//     the same segments: the ratio is what the markdown handling costs around a (free) provider.
//  2. A re-run of the unchanged space (runTranslation after a first full run: per-page hashes
//     match, nothing is sent, no revision is written), median of BENCH_TRANSLATE_ROUNDS (5), vs
//     reading that space's pages tree through the API (GET /v1/spaces/{id}/content/pages), median
//     of as many reads.
import { Cleanup, benchPageMarkdown, buildSpace, createBenchEnv, envInt, log, median, principalOf, printTable, seedOrg, startApi, timeMs, timedOk, type Row } from './lib.js'; // prettier-ignore
import { pseudoProvider } from '../src/translate/pseudo.js';
import { segmentMarkdown, applyTranslations } from '../src/translate/segment.js';
import { countWords, translateUnits } from '../src/translate/pipeline.js';
import { segmentWords } from '../src/translate/segment.js';
import { createTranslation } from '../src/services/translations.js';
import { runTranslation } from '../src/services/translation-run.js';

async function main() {
  const pages = envInt('BENCH_TRANSLATE_PAGES', 1000);
  const rounds = envInt('BENCH_TRANSLATE_ROUNDS', 5);
  const rows: Row[] = [];

  // 1. Pipeline vs provider alone (CPU only).
  const bodies = Array.from({ length: pages }, (_, n) => benchPageMarkdown(n));
  const provider = pseudoProvider();
  const pipelineMs: number[] = [];
  const providerMs: number[] = [];
  let words = 0;
  for (let r = 0; r < rounds; r++) {
    let segments: string[] = [];
    pipelineMs.push(
      await timeMs(async () => {
        const perPage = bodies.map((md) => ({ md, units: segmentMarkdown(md) }));
        const all = perPage.flatMap((p) => p.units);
        const out = await translateUnits(all, {
          provider,
          source: 'en',
          target: 'fr',
          instructionsHash: '',
          memory: async () => new Map(),
        });
        let k = 0;
        for (const p of perPage) {
          applyTranslations(p.md, p.units, out.rebuilt.slice(k, k + p.units.length));
          k += p.units.length;
        }
        segments = all.map((u) => u.text);
        words = out.words;
      }),
    );
    providerMs.push(await timeMs(() => provider.translate({ source: 'en', target: 'fr', segments })));
    if (!words) words = segments.reduce((n, s) => n + countWords(segmentWords(s), 'en'), 0);
  }
  rows.push({
    benchmark: `pipeline, ${pages} pages (${words} words)`,
    metric: 'words/s',
    ours: words / (median(pipelineMs) / 1000),
    baseline: words / (median(providerMs) / 1000),
    digits: 0,
    higherIsBetter: true,
  });

  // 2. Re-run of an unchanged space vs reading its pages tree.
  const cleanup = new Cleanup();
  try {
    const env = await createBenchEnv(cleanup, { WORKER_QUEUES: 'translation' });
    const seeded = await seedOrg(env.app, 'Translate bench');
    const principal = await principalOf(env.app, seeded);
    log(`building a ${pages}-page space`);
    const space = await buildSpace(env.app, principal, seeded.orgId, 'Bench', pages);
    const created = await createTranslation(env.app, principal, seeded.orgId, {
      language: 'fr',
      source: { space: space.spaceId, language: 'en' },
    });
    const hooks = {
      operationId: 'bench',
      createdBy: principal.userId,
      log: env.app.log,
      progress: async () => {},
      fence: async () => {},
    };
    log('first (full) run');
    const firstMs = await timeMs(() => runTranslation(env.app, created.translation.id, hooks));
    log(`first run: ${Math.round(firstMs)} ms`);
    const base = await startApi(env, cleanup);
    const headers = { authorization: `Bearer ${seeded.adminToken}` };
    const rerun: number[] = [];
    const tree: number[] = [];
    for (let r = 0; r < rounds; r++) {
      rerun.push(
        await timeMs(async () => {
          const res = await runTranslation(env.app, created.translation.id, hooks);
          if (res.pages !== 0) throw new Error(`an unchanged re-run translated ${res.pages} pages`);
        }),
      );
      tree.push((await timedOk('pages tree', `${base}/v1/spaces/${space.spaceId}/content/pages`, { headers })).ms);
    }
    rows.push({
      benchmark: `re-run of an unchanged ${pages}-page space vs GET pages tree`,
      metric: 'ms (median)',
      ours: median(rerun),
      baseline: median(tree),
      digits: 1,
      higherIsBetter: false,
    });
  } finally {
    await cleanup.run();
  }
  printTable(rows, 'Translations', [
    'pipeline: segment + pseudo provider + placeholder check + rebuild, vs the pseudo provider call alone',
    're-run: per-page hashes match, nothing sent, no revision written; baseline: one pages-tree read through the API',
  ]);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
