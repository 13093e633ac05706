import type { AppContext } from '../context.js';
import type { Queryable } from '../db/pool.js';
import { withTx } from '../db/pool.js';
import type { Section } from '../content/markdown.js';
import type { MarkdownPool } from '../render/pool.js';
import { cachedSnapshot, loadBodies, loadSnapshot, type Snapshot, type TreePage } from '../content/snapshot.js';
import { runsTsvector, splitCjk } from './cjk.js';
import * as repo from '../db/repos/search.js';
import { spaceTextConfig } from './text-config.js';
import { filterConditionalMarkdown } from '../content/conditional-blocks.js';

// Keeps a space's search index following its current revision (called after every change of it,
// and by a search that finds the index stale). Incremental: only pages whose body, title or
// description changed are parsed again; moved pages get their new path; removed ones go. One
// indexing of a space runs at a time (advisory lock held by the transaction), and it reads the
// space's current revision only once it holds the lock, so the last to run indexes the newest.

/** Pages whose bodies are loaded and parsed together. */
const BATCH_PAGES = 200;
/** Pages, and characters of their bodies, handed to the Markdown pool ahead of the batch being written. */
const PARSE_AHEAD_PAGES = 1_000;
const PARSE_AHEAD_CHARS = 8_000_000;
/** Flush inserted sections once they carry this much text. */
const BATCH_CHARS = 4_000_000;
/** A section body longer than this is indexed by its beginning only (tsvector size limits). */
const MAX_INDEXED_CHARS = 500_000;

/** Pages that are searched: documents (groups have no body, links none, computed pages are evaluated on request only) not marked noIndex. */
function isIndexable(tp: TreePage): boolean {
  return tp.node.type === 'document' && !tp.node.noIndex;
}

/** Per process and space: the reindex running, and the one queued behind it (see catchUpSpace). */
interface Flight {
  running: Promise<void>;
  queued?: Promise<void>;
}
const flights = new WeakMap<AppContext, Map<string, Flight>>();

/**
 * Bring a space's index up to its current revision, at most one reindex of it at a time in this
 * process: a call while one runs joins the single one queued behind it (which reads the revision
 * once it starts, so it sees what the caller saw), and calls while that one waits join it too. Every
 * caller in the process (searches, edits, the `search.index` job) goes through here; across
 * processes the advisory lock serializes them (reindexSpace).
 */
export function catchUpSpace(app: AppContext, spaceId: string): Promise<void> {
  let spaces = flights.get(app);
  if (!spaces) flights.set(app, (spaces = new Map()));
  const inProcess = spaces;
  const run = (): Promise<void> => {
    // Once it ends, the queued one (if any) starts and becomes the running one; else the space is free.
    const started = reindexSpace(app, spaceId).finally(() => {
      if (!inProcess.get(spaceId)?.queued) inProcess.delete(spaceId);
    });
    const current = inProcess.get(spaceId);
    if (current) {
      current.running = started;
      current.queued = undefined;
    } else inProcess.set(spaceId, { running: started });
    return started;
  };
  const flight = spaces.get(spaceId);
  if (flight) return (flight.queued ??= flight.running.catch(() => {}).then(run));
  return run();
}

/** Resolves once no reindex of `spaceId` runs or waits in this process (tests, benchmarks). */
export async function catchUpSettled(app: AppContext, spaceId: string): Promise<void> {
  for (let f = flights.get(app)?.get(spaceId); f; f = flights.get(app)?.get(spaceId)) await (f.queued ?? f.running).catch(() => {});
}

export async function reindexSpace(app: AppContext, spaceId: string): Promise<void> {
  await repo.ensureStateRow(app.db, spaceId);
  // The text configurations are looked up once per process, on connections of the pool: before the
  // transaction holds one. Inside it, as many reindexes at once as the pool has connections (the
  // first spaces made after a start) each held one while the look-up waited for another: a
  // deadlock of the pool (seen in test/integration/db/upgrade.test.ts with PG_POOL_MAX=4).
  await spaceTextConfig(app, null);
  await withTx(app.db, async (c) => {
    await repo.lockSpaceIndex(c, spaceId);
    const state = await repo.indexState(c, spaceId);
    // Gone, deleted (searches exclude it; a restore is noticed as stale at the next search), or mid-creation.
    if (!state || state.deleted || !state.rootHash) return;
    const config = await spaceTextConfig(app, state.language);
    const target = { revisionId: state.revisionId, rootHash: state.rootHash, config };
    if (state.indexedRoot === state.rootHash && state.indexedConfig === config) {
      if (state.indexedRevision !== state.revisionId) await repo.setIndexState(c, spaceId, target);
      return;
    }
    const full = state.indexedConfig !== config;
    if (full) await repo.deleteAllPages(c, spaceId);
    const previous = !full && state.indexedRoot ? cachedSnapshot(spaceId, state.indexedRoot) : undefined;
    const snapshot = await loadSnapshot(c, spaceId, state.rootHash);
    const plan = previous ? changedSince(previous, snapshot) : planSync(snapshot, full ? new Map() : await repo.indexedPages(c, spaceId));
    await syncPages(c, app.markdown, spaceId, config, plan);
    await repo.setIndexState(c, spaceId, target);
  });
}

/** What a reindex does: pages to parse (and insert), pages that only moved, ids whose rows go. */
interface SyncPlan {
  toParse: TreePage[];
  toMove: { id: string; path: string; ancestors: string[] }[];
  remove: string[];
}

const sameText = (a: TreePage, b: { body_hash: string; title: string; description: string }) =>
  b.body_hash === (a.node.body ?? '') && b.title === a.node.title && b.description === (a.node.description ?? '');

/** The plan against the rows the index holds (`indexed`), walking every page of the snapshot. */
function planSync(snapshot: Snapshot, indexed: Map<string, repo.IndexedPage>): SyncPlan {
  const wanted = snapshot.ordered.filter(isIndexable);
  const toParse: TreePage[] = [];
  const toMove: SyncPlan['toMove'] = [];
  for (const tp of wanted) {
    const had = indexed.get(tp.node.id);
    if (!had || !sameText(tp, had)) toParse.push(tp);
    else if (had.path !== tp.path || !sameList(had.ancestors, tp.ancestors))
      toMove.push({ id: tp.node.id, path: tp.path, ancestors: tp.ancestors });
  }
  const keep = new Set(wanted.map((tp) => tp.node.id));
  const stale = [...indexed.keys()].filter((id) => !keep.has(id));
  return { toParse, toMove, remove: [...stale, ...toParse.map((tp) => tp.node.id).filter((id) => indexed.has(id))] };
}

/**
 * The plan from the snapshot the index was built from, when this process still has it: the index
 * of a root is exactly the indexable pages of that root's tree (written in the transaction that
 * records the root). Snapshots share every unchanged subtree (src/content/snapshot.ts: the same
 * TreePage object, same hash, place, path and ancestors), so the walk skips a subtree the moment
 * both trees hold the same object: a revision that changed a few pages costs those pages and
 * their ancestors' sibling lists, not the whole tree.
 */
function changedSince(previous: Snapshot, snapshot: Snapshot): SyncPlan {
  const plan: SyncPlan = { toParse: [], toMove: [], remove: [] };
  const removeSubtree = (tp: TreePage) => {
    if (isIndexable(tp)) plan.remove.push(tp.node.id);
    tp.children.forEach(removeSubtree);
  };
  const walk = (before: readonly TreePage[], after: readonly TreePage[]) => {
    const old = new Map(before.map((tp) => [tp.node.id, tp]));
    for (const tp of after) {
      const o = old.get(tp.node.id);
      old.delete(tp.node.id);
      if (o === tp) continue;
      if (!isIndexable(tp)) {
        if (o && isIndexable(o)) plan.remove.push(o.node.id);
      } else if (!o || !isIndexable(o)) {
        // New here (or moved here from elsewhere: its old rows, if any, go first).
        plan.remove.push(tp.node.id);
        plan.toParse.push(tp);
      } else if (!sameText(tp, { body_hash: o.node.body ?? '', title: o.node.title, description: o.node.description ?? '' })) {
        plan.remove.push(tp.node.id);
        plan.toParse.push(tp);
      } else if (o.path !== tp.path || !sameList(o.ancestors, tp.ancestors)) {
        plan.toMove.push({ id: tp.node.id, path: tp.path, ancestors: tp.ancestors });
      }
      walk(o?.children ?? [], tp.children);
    }
    // Gone from this place: removed, or moved elsewhere (then parsed again there, see above).
    for (const o of old.values()) removeSubtree(o);
  };
  walk(previous.pages, snapshot.pages);
  // A page moved elsewhere is removed at its old place and again before it is parsed at its new one.
  plan.remove = [...new Set(plan.remove)];
  return plan;
}

async function syncPages(c: Queryable, markdown: MarkdownPool, spaceId: string, config: string, plan: SyncPlan) {
  const { toParse, toMove, remove } = plan;
  await repo.deletePages(c, spaceId, remove);
  await repo.movePages(c, spaceId, toMove);

  // Batches are pipelined: while PostgreSQL writes one batch, the following ones (up to
  // PARSE_AHEAD_PAGES pages, PARSE_AHEAD_CHARS characters) are parsed on the Markdown pool. Many
  // bodies given to the pool at once keep all its threads busy; one batch of 200 at a time left them
  // idle at every batch's end (2,000 git-imported pages: 3.6 s one batch after the other, 1.8 s all
  // at once). Bodies are read before the current batch's inserts are sent, one statement after the
  // other: the transaction's connection runs one query at a time (pg's client would queue them the
  // same way, a use it deprecates).
  const read = (batch: TreePage[]) =>
    loadBodies(
      c,
      spaceId,
      batch.map((tp) => tp.node),
    );
  // Parsed on the Markdown pool (off the event loop); a body beyond the content limits is indexed
  // as its plain text.
  // `{% if %}` content is not indexed at all (null: every block hidden): a search, its snippets and
  // the agents' search never show a reader what their claims hide (src/content/conditional-blocks.ts).
  const parse = (batch: TreePage[], bodies: Map<string, string>) =>
    markdown.sections(batch.map((tp) => filterConditionalMarkdown(bodies.get(tp.node.id) ?? '', null)));
  const ahead: { batch: TreePage[]; chars: number; parsing: Promise<Section[][]> }[] = [];
  let next = 0;
  let pagesAhead = 0;
  let charsAhead = 0;
  const fill = async () => {
    while (next < toParse.length && (!ahead.length || (pagesAhead < PARSE_AHEAD_PAGES && charsAhead < PARSE_AHEAD_CHARS))) {
      const batch = toParse.slice(next, next + BATCH_PAGES);
      next += batch.length;
      const bodies = await read(batch);
      let chars = 0;
      for (const body of bodies.values()) chars += body.length;
      const parsing = parse(batch, bodies);
      parsing.catch(() => {}); // awaited below, unless the transaction failed first
      ahead.push({ batch, chars, parsing });
      pagesAhead += batch.length;
      charsAhead += chars;
    }
  };
  await fill();
  while (ahead.length) {
    const { batch, chars, parsing } = ahead.shift()!;
    const sections = await parsing;
    pagesAhead -= batch.length;
    charsAhead -= chars;
    await fill();
    await insertBatch(c, spaceId, config, batch, sections);
  }
}

async function insertBatch(c: Queryable, spaceId: string, config: string, batch: TreePage[], sections: Section[][]) {
  await repo.insertPages(
    c,
    spaceId,
    batch.map((tp) => ({
      page_id: tp.node.id,
      body_hash: tp.node.body ?? '',
      title: tp.node.title,
      description: tp.node.description ?? '',
      path: tp.path,
      ancestors: tp.ancestors,
    })),
  );
  let rows: repo.SectionRow[] = [];
  let chars = 0;
  for (const [k, tp] of batch.entries()) {
    for (const row of sectionRows(tp, sections[k])) {
      rows.push(row);
      chars += row.body.length;
    }
    if (chars >= BATCH_CHARS) {
      await repo.insertSections(c, spaceId, config, rows);
      rows = [];
      chars = 0;
    }
  }
  await repo.insertSections(c, spaceId, config, rows);
}

/** The index rows of one page: one per section, or a single empty one so the page is found by its title. */
function sectionRows(tp: TreePage, parsed: readonly Section[]): repo.SectionRow[] {
  const sections = parsed.length ? parsed : [{ id: '', title: '', depth: 0, body: '' }];
  const title = splitCjk(tp.node.title);
  const description = splitCjk(tp.node.description ?? '');
  return sections.map((s, ord) => {
    const sectionTitle = splitCjk(s.title);
    const indexed = s.body.length > MAX_INDEXED_CHARS ? s.body.slice(0, MAX_INDEXED_CHARS) : s.body;
    const body = splitCjk(indexed);
    return {
      pageId: tp.node.id,
      path: tp.path,
      ord,
      sectionId: s.id,
      title: s.title,
      body: s.body,
      pageTitle: title.latin,
      description: description.latin,
      sectionTitle: sectionTitle.latin,
      bodyText: body.latin === s.body ? null : body.latin,
      cjk: runsTsvector([
        { runs: title.runs, weight: 'A' },
        { runs: sectionTitle.runs, weight: 'B' },
        { runs: description.runs, weight: 'C' },
        { runs: body.runs, weight: 'D' },
      ]),
    };
  });
}

function sameList(a: unknown, b: string[]): boolean {
  return Array.isArray(a) && a.length === b.length && a.every((x, i) => x === b[i]);
}
