// The stored link index (tables in migrations/0018_link_index.sql): the links of each page body as
// written, by (space, body hash), and the revision roots whose every body has its row.
import type { Queryable } from '../pool.js';

/** A body's links as stored: [url, relation] pairs in document order. */
export type StoredLinks = [string, 'link' | 'image'][];

/** The stored links of `hashes` (distinct) in a space; hashes without a row are absent. One primary-key probe per hash. */
export async function selectLinkExtracts(db: Queryable, spaceId: string, hashes: string[]): Promise<Map<string, StoredLinks>> {
  const out = new Map<string, StoredLinks>();
  for (let i = 0; i < hashes.length; i += 5000) {
    // The lateral probe keeps the per-hash key lookup whatever the statistics (see selectObjects).
    const { rows } = await db.query<{ hash: string; links: StoredLinks }>(
      `SELECT wanted.hash, l.links
         FROM unnest($2::text[]) AS wanted (hash)
        CROSS JOIN LATERAL (SELECT e.links FROM link_extracts e WHERE e.space_id = $1 AND e.body_hash = wanted.hash LIMIT 1) AS l`,
      [spaceId, hashes.slice(i, i + 5000)],
    );
    for (const r of rows) out.set(r.hash, r.links);
  }
  return out;
}

/** Store the links of bodies; a body already stored is kept (same hash, same links). */
export async function insertLinkExtracts(db: Queryable, spaceId: string, entries: [string, StoredLinks][]): Promise<void> {
  for (let i = 0; i < entries.length; i += 2000) {
    const slice = entries.slice(i, i + 2000);
    await db.query(
      `INSERT INTO link_extracts (space_id, body_hash, links)
       SELECT $1, h, l::jsonb FROM unnest($2::text[], $3::text[]) AS t(h, l)
       ON CONFLICT (space_id, body_hash) DO NOTHING`,
      [spaceId, slice.map(([h]) => h), slice.map(([, l]) => JSON.stringify(l))],
    );
  }
}

/** Whether every body of this revision root has its links stored. */
export async function isRootIndexed(db: Queryable, spaceId: string, rootHash: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM link_indexed_roots WHERE space_id = $1 AND root_hash = $2', [spaceId, rootHash]);
  return rows.length > 0;
}

/** Record that every body of this revision root has its links stored. */
export async function markRootIndexed(db: Queryable, spaceId: string, rootHash: string, counts: { bodies: number; links: number }) {
  await db.query(
    `INSERT INTO link_indexed_roots (space_id, root_hash, bodies, links) VALUES ($1, $2, $3, $4)
     ON CONFLICT (space_id, root_hash) DO NOTHING`,
    [spaceId, rootHash, counts.bodies, counts.links],
  );
}

export interface IndexedRoot {
  root_hash: string;
  bodies: number;
  links: number;
  indexed_at: Date;
}

/** The indexed roots of a space (operators, tests). */
export async function listIndexedRoots(db: Queryable, spaceId: string): Promise<IndexedRoot[]> {
  const { rows } = await db.query<IndexedRoot>(
    'SELECT root_hash, bodies, links, indexed_at FROM link_indexed_roots WHERE space_id = $1 ORDER BY indexed_at',
    [spaceId],
  );
  return rows;
}
