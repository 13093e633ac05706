// One run of a translation (the `translation.run` job): read the source space's current revision,
// translate the pages whose text changed since the last run (per-page hashes in
// translation_pages), reusing the segment memory for unchanged paragraphs, and write one new
// revision of the result space (created on the first run, with the source's page ids and files).
// One run at a time per translation: a run waits while an earlier one still runs. A failed run
// leaves the previous result as it was: the status goes back to `completed` (or `pending` before
// any result) and the operation carries the reason.
import { createHash, randomBytes } from 'node:crypto';
import type { AppContext } from '../context.js';
import { withTx, type Queryable } from '../db/pool.js';
import * as repo from '../db/repos/translations.js';
import { earlierRunning } from '../db/repos/operations.js';
import * as spaces from '../db/repos/spaces.js';
import { insertRevision } from '../db/repos/revisions.js';
import { copySpaceBlobs, shareSpaceBlobs } from '../db/repos/space-blobs.js';
import { nextPosition } from '../db/repos/siblings.js';
import { copyObjects } from '../content/objects.js';
import { editMainContent, revisionSnapshot } from '../content/commit.js';
import { loadBodies } from '../content/snapshot.js';
import { JobFailure, JobSkipped } from '../queue/errors.js';
import { newId } from '../util/ids.js';
import type { Logger } from '../log.js';
import {
  applyTranslations,
  createProvider,
  hasProse,
  plainUnit,
  ProviderError,
  segmentMarkdown,
  translateUnits,
  type TranslationLanguage,
  type Unit,
} from '../translate/index.js';
import { mirrorInto, pageSourceHash, type TranslatedPage } from '../translate/apply.js';
import { afterContentChange } from './content-hooks.js';
import { documentText, RUN_JOB } from './translations.js';
import { glossaryFor } from './translation-glossary.js';

export interface RunHooks {
  operationId: string;
  createdBy: string | null;
  log: Logger;
  progress(fraction: number): Promise<void>;
  /** Called inside the committing transaction (the operation lease check of workers/runner.ts). */
  fence(c: Queryable): Promise<void>;
}

export interface RunResult {
  translation: string;
  space: string;
  revision: string;
  pages: number;
  words: number;
  segments: number;
  warnings: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface PagePlan {
  id: string;
  hash: string;
  title?: Unit;
  description?: Unit;
  body: string;
  units: Unit[];
}

/** Result space of a first run: the source's content under a new id, in the source's place, in the target language. */
export async function createResultSpace(
  c: Queryable,
  source: spaces.SpaceRow,
  language: string,
  createdBy: string | null,
): Promise<string> {
  const id = newId();
  await spaces.insertSpace(c, {
    id,
    orgId: source.organization_id,
    parentId: source.parent_id,
    title: `${source.title} (${language})`.slice(0, 50),
    emoji: source.emoji,
    visibility: source.visibility === 'in-collection' ? 'in-collection' : 'private',
    editMode: 'live',
    defaultLevel: source.default_level,
    language,
    position: await nextPosition(c, source.organization_id, source.parent_id),
    revisionId: '',
    shareKey: randomBytes(12).toString('base64url'),
    createdBy: createdBy ?? source.created_by ?? '',
  });
  await copyObjects(c, source.id, id);
  await copySpaceBlobs(c, source.id, id);
  const rev = await insertRevision(c, {
    id: newId(),
    spaceId: id,
    rootHash: (await revisionSnapshot(c, source.id, source.revision_id)).revision.root_hash,
    parents: [],
    createdBy,
  });
  await spaces.setSpaceRevision(c, id, rev.id);
  return id;
}

export async function runTranslation(app: AppContext, translationId: string, hooks: RunHooks): Promise<RunResult> {
  // One run at a time: wait for an earlier run of this translation (its lease stays fresh while it works).
  while (await earlierRunning(app.db, RUN_JOB, translationId, hooks.operationId)) await sleep(200);
  const t = await repo.getTranslation(app.db, translationId);
  if (!t) throw new JobSkipped('The translation was deleted');
  const started = Date.now();
  await repo.setStatus(app.db, t.id, 'running');
  try {
    return await run(app, t, hooks, started);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    await repo.revertStatus(app.db, t.id, message.slice(0, 2000)).catch(() => {});
    if (err instanceof ProviderError) throw new JobFailure(`Translation provider failed: ${message}`);
    throw err;
  }
}

async function run(app: AppContext, t: repo.TranslationRow, hooks: RunHooks, started: number): Promise<RunResult> {
  const source = await spaces.getSpace(app.db, t.source_space_id, { counters: false });
  if (!source) throw new JobFailure(`The source space "${t.source_space_id}" was deleted`);
  const cfg = app.config.translation;
  const provider = createProvider({ ...cfg, allowPrivate: cfg.allowPrivate || app.config.fetch.allowPrivate });
  const from = t.source_language as TranslationLanguage;
  const to = t.language as TranslationLanguage;
  if (!provider.supports(from, to)) throw new JobFailure(`The ${provider.id} provider does not translate ${from} to ${to}`);

  const { snapshot } = await revisionSnapshot(app.db, source.id, source.revision_id);
  const existing = t.result_space_id ? await spaces.getSpace(app.db, t.result_space_id, { counters: false }) : null;
  const glossary = await glossaryFor(app.db, t.organization_id, from, to);
  // Everything a page's translation depends on besides its own text.
  const settings = glossary.hash ? `${t.instructions_hash}:${glossary.hash}` : t.instructions_hash;
  const context = `${settings}\0${provider.id}\0${from}\0${to}`;
  const mirrored = createHash('sha256').update(`${snapshot.rootHash}\0${context}`).digest('base64url');
  if (existing && t.last_source === mirrored && existing.revision_id === t.result_revision_id) {
    // Same source content, same settings, result untouched since the last run: nothing to do.
    await withTx(app.db, async (c) => {
      if (!(await repo.getTranslation(c, t.id, true))) throw new JobSkipped('The translation was deleted');
      await hooks.fence(c);
      const durationS = Math.round((Date.now() - started) / 1000);
      await repo.completeRun(c, t.id, { revisionId: existing.revision_id, durationS, pages: 0, words: 0, source: mirrored });
    });
    await hooks.progress(1);
    return { translation: t.id, space: existing.id, revision: existing.revision_id, pages: 0, words: 0, segments: 0, warnings: 0 };
  }
  const known = existing ? await repo.pageHashes(app.db, t.id) : new Map<string, string>();

  // Pages whose text changed (or that the result does not have yet).
  const changed = snapshot.ordered.filter((p) => known.get(p.node.id) !== pageSourceHash(p.node, context)).map((p) => p.node);
  const bodies = new Map<string, string>();
  for (let i = 0; i < changed.length; i += 200) {
    for (const [id, md] of await loadBodies(app.db, source.id, changed.slice(i, i + 200))) bodies.set(id, md);
  }
  const plans: PagePlan[] = changed.map((node) => {
    const body = bodies.get(node.id) ?? '';
    const title = hasProse(node.title) ? plainUnit(node.title) : undefined;
    const description = node.description && hasProse(node.description) ? plainUnit(node.description) : undefined;
    return { id: node.id, hash: pageSourceHash(node, context), title, description, body, units: segmentMarkdown(body) };
  });
  const all: Unit[] = plans.flatMap((p) => [...(p.title ? [p.title] : []), ...(p.description ? [p.description] : []), ...p.units]);
  await hooks.progress(0.05);
  const translated = await translateUnits(all, {
    provider,
    source: from,
    target: to,
    instructions: documentText(t.instructions as { nodes?: unknown[] }) || undefined,
    instructionsHash: settings,
    glossary: glossary.pairs,
    memory: (keys) => repo.memoryGet(app.db, t.id, keys),
    onProgress: (done, total) => hooks.progress(0.05 + (0.85 * done) / Math.max(1, total)),
  });

  // Back into pages, in the order the units were flattened.
  const pages = new Map<string, TranslatedPage>();
  let k = 0;
  // Pages with a segment kept in the source language get no hash: the next run tries them again
  // (their other segments come from the memory).
  const incomplete = new Set<string>();
  const pick = (id: string, fallback: string) => {
    const r = translated.rebuilt[k++];
    if (r === null) incomplete.add(id);
    return r ?? fallback;
  };
  for (const p of plans) {
    const node = snapshot.byId.get(p.id)!.node;
    const title = p.title ? pick(p.id, node.title) : node.title;
    const description = p.description ? pick(p.id, node.description!) : node.description;
    const rebuilt = translated.rebuilt.slice(k, k + p.units.length);
    k += p.units.length;
    if (rebuilt.includes(null)) incomplete.add(p.id);
    pages.set(p.id, { title, description, markdown: applyTranslations(p.body, p.units, rebuilt) });
  }
  const removed = [...known.keys()].filter((id) => !snapshot.byId.has(id));

  const { resultId, revisionId, wrote } = await withTx(app.db, async (c) => {
    // Deleted while this run worked: nothing to record (and no result space to create).
    if (!(await repo.getTranslation(c, t.id, true))) throw new JobSkipped('The translation was deleted');
    let resultId = existing?.id;
    if (!resultId) {
      resultId = await createResultSpace(c, source, t.language, hooks.createdBy);
      await repo.setResultSpace(c, t.id, resultId);
      await repo.clearPageHashes(c, t.id); // hashes of a result space that is gone
    } else {
      await shareSpaceBlobs(c, source.id, resultId);
    }
    const id = resultId;
    const write = await editMainContent(
      c,
      id,
      async (draft, space) => {
        const { snapshot: base } = await revisionSnapshot(c, id, space.revision_id);
        mirrorInto(draft, base, snapshot, pages);
      },
      { createdBy: hooks.createdBy },
      { allowLocked: true },
    );
    await hooks.fence(c);
    await repo.upsertPageHashes(
      c,
      t.id,
      plans.map((p) => ({ id: p.id, hash: incomplete.has(p.id) ? '' : p.hash, words: 0 })),
    );
    await repo.deletePageHashes(c, t.id, removed);
    await repo.memoryPut(c, t.id, translated.learned);
    await repo.completeRun(c, t.id, {
      revisionId: write.revision.id,
      durationS: Math.round((Date.now() - started) / 1000),
      pages: plans.length,
      words: translated.words,
      source: incomplete.size ? '' : mirrored,
    });
    return { resultId: id, revisionId: write.revision.id, wrote: write.changed || !existing };
  });
  if (wrote) await afterContentChange(app, resultId);
  await hooks.progress(1);
  if (translated.warnings) hooks.log.warn({ warnings: translated.warnings }, 'segments kept in the source language');
  return {
    translation: t.id,
    space: resultId,
    revision: revisionId,
    pages: plans.length,
    words: translated.words,
    segments: translated.sent.length,
    warnings: translated.warnings,
  };
}
