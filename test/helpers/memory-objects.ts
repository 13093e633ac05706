import type { Queryable } from '../../src/db/pool.js';
import type { Draft } from '../../src/content/draft.js';
import { loadBody, loadSnapshot, type Snapshot, type TreePage } from '../../src/content/snapshot.js';
import { newId } from '../../src/util/ids.js';

/**
 * An in-memory stand-in for the `content_objects` table, for unit tests of the content model
 * (Draft, merge) without PostgreSQL. It answers the two statements the object store sends: a
 * read of some hashes of one space, and an insert of hashed objects that keeps existing ones.
 * Any other statement fails the test loudly, so a new query shows up here rather than passing
 * unnoticed. Each store has its own space id: objects are content-addressed and the object cache
 * is keyed by space and hash, so stores never see each other's objects.
 */
export interface MemoryObjects {
  db: Queryable;
  spaceId: string;
  /** Objects stored so far. */
  readonly size: number;
  /** Statements received so far. */
  readonly queries: number;
  /** Hash and write what the draft changed, then load the new revision as the API would. */
  commit(draft: Draft): Promise<Snapshot>;
  /** A page's text in a snapshot ('' for an empty page). */
  body(snapshot: Snapshot, pageId: string): Promise<string>;
}

export function memoryObjects(): MemoryObjects {
  const spaceId = `mem${newId(17)}`;
  const rows = new Map<string, unknown>();
  let queries = 0;

  const query = async (textOrConfig: string | { text: string; values?: unknown[] }, maybeValues?: unknown[]) => {
    queries++;
    const text = typeof textOrConfig === 'string' ? textOrConfig : textOrConfig.text;
    const values = (typeof textOrConfig === 'string' ? maybeValues : textOrConfig.values) ?? [];
    const sql = text.replace(/\s+/g, ' ').trim();
    if (
      /^SELECT wanted\.hash, o\.data FROM unnest\(\$2::text\[\]\) AS wanted \(hash\) CROSS JOIN LATERAL \(SELECT c\.data FROM content_objects c\b/i.test(
        sql,
      ) &&
      values.length === 2
    ) {
      const [space, hashes] = values as [string, string[]];
      const found = hashes.filter((h) => rows.has(`${space}:${h}`));
      return { rows: found.map((hash) => ({ hash, data: structuredClone(rows.get(`${space}:${hash}`)) })), rowCount: found.length };
    }
    if (/^INSERT INTO content_objects\b/i.test(sql) && values.length === 3) {
      const [space, hashes, datas] = values as [string, string[], string[]];
      let inserted = 0;
      hashes.forEach((h, i) => {
        if (rows.has(`${space}:${h}`)) return;
        rows.set(`${space}:${h}`, JSON.parse(datas[i]));
        inserted++;
      });
      return { rows: [], rowCount: inserted };
    }
    throw new Error(`memoryObjects: unexpected statement: ${sql}`);
  };

  const db = { query } as unknown as Queryable;
  return {
    db,
    spaceId,
    get size() {
      return rows.size;
    },
    get queries() {
      return queries;
    },
    async commit(draft) {
      return loadSnapshot(db, spaceId, await draft.writeObjects(db, spaceId));
    },
    async body(snapshot, pageId) {
      const page = snapshot.byId.get(pageId);
      if (!page) throw new Error(`no page "${pageId}" in the snapshot`);
      return loadBody(db, spaceId, page.node);
    },
  };
}

/**
 * The page tree of a snapshot in one line: ids in order, children in parentheses,
 * e.g. `intro guide(install setup) faq`.
 */
export function outline(snapshot: Snapshot): string {
  const show = (list: TreePage[]): string =>
    list.map((p) => (p.children.length ? `${p.node.id}(${show(p.children)})` : p.node.id)).join(' ');
  return show(snapshot.pages);
}
