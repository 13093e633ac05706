// The in-memory indexes of this process (memory-index.ts): which spaces have one, loading them in
// the background, and the memory they may take.
//
// Nothing here is the truth: a copy is used only while it is the index PostgreSQL holds for the
// space (same root and configuration, the space's current revision), and any process can load it
// from the index rows. A search never waits for a load: the first search of a space (after a start,
// or after its index moved on) is answered by PostgreSQL and asks for a load, which runs after it,
// one at a time per process. Copies are dropped least recently used first once they would exceed
// the budget; a space whose copy alone exceeds it stays with PostgreSQL.
import type { AppContext } from '../context.js';
import { withTx } from '../db/pool.js';
import * as repo from '../db/repos/search.js';
import { MemoryIndex, MemoryIndexBuilder } from './memory-index.js';

/** Bytes the in-memory indexes of a process may hold in all (estimated from their arrays and strings): SEARCH_MEMORY_MB. */
const budgetBytes = (app: AppContext) => app.config.searchMemoryMb * 1024 * 1024;

interface Slot {
  index?: MemoryIndex;
  /** The key being loaded (a newer index of the space). */
  loading?: string;
  /** The key of a copy that did not fit the budget (not loaded again for it). */
  tooLarge?: string;
}

interface Registry {
  slots: Map<string, Slot>;
  queue: { spaceId: string; key: string }[];
  running: boolean;
  /** Loads finished (or failed), for tests and benchmarks waiting for one. */
  settled: Set<() => void>;
}

const registries = new WeakMap<AppContext, Registry>();

function registry(app: AppContext): Registry {
  let r = registries.get(app);
  if (!r) registries.set(app, (r = { slots: new Map(), queue: [], running: false, settled: new Set() }));
  return r;
}

export const indexKey = (rootHash: string, config: string) => `${rootHash}\n${config}`;

/**
 * The in-memory index of `spaceId` when this process holds the one for `key`; otherwise undefined,
 * and a load is queued (unless one for that key is under way or it does not fit).
 */
export function memoryIndex(app: AppContext, spaceId: string, key: string): MemoryIndex | undefined {
  if (budgetBytes(app) <= 0) return undefined; // SEARCH_MEMORY_MB=0: every search in PostgreSQL
  const r = registry(app);
  const slot = r.slots.get(spaceId) ?? {};
  if (slot.index?.key === key) {
    // Most recently used last.
    r.slots.delete(spaceId);
    r.slots.set(spaceId, slot);
    return slot.index;
  }
  if (slot.loading !== key && slot.tooLarge !== key) {
    slot.loading = key;
    r.slots.set(spaceId, slot);
    r.queue.push({ spaceId, key });
    if (!r.running) void drain(app, r);
  }
  return undefined;
}

/** Bytes held by this process's in-memory indexes, and how many spaces they cover. */
export function memoryUse(app: AppContext): { bytes: number; spaces: number } {
  let bytes = 0;
  let spaces = 0;
  for (const s of registry(app).slots.values()) {
    if (s.index) {
      bytes += s.index.bytes;
      spaces++;
    }
  }
  return { bytes, spaces };
}

/** Resolves once no load is queued or running (tests, benchmarks). */
export function loadsSettled(app: AppContext): Promise<void> {
  const r = registry(app);
  if (!r.running && !r.queue.length) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      if (r.running || r.queue.length) return;
      r.settled.delete(done);
      resolve();
    };
    r.settled.add(done);
  });
}

async function drain(app: AppContext, r: Registry) {
  r.running = true;
  try {
    for (let next = r.queue.shift(); next; next = r.queue.shift()) {
      const slot = r.slots.get(next.spaceId);
      if (!slot || slot.loading !== next.key) continue; // superseded by a newer key
      try {
        const index = await load(app, next.spaceId);
        if (slot.loading === next.key) slot.loading = undefined;
        if (!index) continue;
        if (index.bytes > budgetBytes(app)) {
          slot.tooLarge = index.key;
          app.log.warn(
            { spaceId: next.spaceId, bytes: index.bytes },
            'search index too large to keep in memory; searching it in PostgreSQL',
          );
          continue;
        }
        slot.index = index;
        r.slots.delete(next.spaceId);
        r.slots.set(next.spaceId, slot);
        evict(r, budgetBytes(app));
      } catch (err) {
        if (slot.loading === next.key) slot.loading = undefined;
        app.log.warn({ err, spaceId: next.spaceId }, 'could not load the search index in memory; searching it in PostgreSQL');
      }
    }
  } finally {
    r.running = false;
    for (const done of [...r.settled]) done();
  }
}

function evict(r: Registry, budget: number) {
  let total = 0;
  for (const s of r.slots.values()) total += s.index?.bytes ?? 0;
  for (const [id, s] of r.slots) {
    if (total <= budget) break;
    if (!s.index) continue;
    total -= s.index.bytes;
    s.index = undefined;
    if (!s.loading) r.slots.delete(id);
  }
}

/** Sections read per statement while loading. */
const LOAD_BATCH = 5_000;

/** Reads the space's current index in one snapshot and builds its copy (null: never indexed). */
async function load(app: AppContext, spaceId: string): Promise<MemoryIndex | null> {
  return withTx(app.db, async (c) => {
    await c.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
    const head = await repo.indexHead(c, spaceId);
    if (!head) return null;
    const pages = await repo.indexedPagesInOrder(c, spaceId);
    const builder = new MemoryIndexBuilder(
      indexKey(head.rootHash, head.config),
      pages.map((p) => ({ id: p.page_id, title: p.title, description: p.description, path: p.path, ancestors: p.ancestors })),
    );
    let after = { pageId: '', ord: -1 };
    for (;;) {
      const rows = await repo.sectionVectors(c, spaceId, after, LOAD_BATCH);
      for (const row of rows) builder.addSection(row.page_id, row.ord, row.tsv);
      if (rows.length < LOAD_BATCH) break;
      after = { pageId: rows[rows.length - 1].page_id, ord: rows[rows.length - 1].ord };
    }
    return builder.build();
  });
}
