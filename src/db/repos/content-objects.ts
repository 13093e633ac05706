// The content-addressed objects of spaces (src/content/objects.ts hashes and caches them).
import { NO_FLUSH_WAIT, type Queryable } from '../pool.js';

/**
 * The objects of `hashes` (distinct) found in a space: one primary-key probe per hash. (With
 * `hash = ANY($2)`, a space the planner's statistics do not know yet, such as one created or
 * imported since the last ANALYZE, is estimated at one row, and the plan then scans every object
 * of the space per read: 10 to 30 ms for a 10,000-page space instead of a fraction of a ms. The
 * LIMIT keeps the per-hash lookup from being flattened into that plan; the key makes it a no-op.)
 */
export async function selectObjects<T>(db: Queryable, spaceId: string, hashes: string[]): Promise<{ hash: string; data: T }[]> {
  const { rows } = await db.query<{ hash: string; data: T }>(
    `SELECT wanted.hash, o.data
       FROM unnest($2::text[]) AS wanted (hash)
      CROSS JOIN LATERAL (SELECT c.data FROM content_objects c WHERE c.space_id = $1 AND c.hash = wanted.hash LIMIT 1) AS o`,
    [spaceId, hashes],
  );
  return rows;
}

/**
 * Insert objects given as canonical JSON; existing ones are kept as they are (same hash, same
 * content). `flushWait: false` (only on the pool or a client of its own, outside any transaction):
 * their commits do not wait for the WAL flush (NO_FLUSH_WAIT), for objects stored ahead of the
 * durable commit that references them: that commit's flush comes later in the same WAL, so it makes
 * them durable too.
 */
export async function insertObjects(
  db: Queryable,
  spaceId: string,
  hashes: string[],
  datas: string[],
  opts: { flushWait?: boolean } = {},
): Promise<void> {
  const noFlushWait = opts.flushWait === false ? `WHERE ${NO_FLUSH_WAIT}` : '';
  for (let i = 0; i < hashes.length; i += 5000) {
    await db.query(
      `INSERT INTO content_objects (space_id, hash, data)
       SELECT $1, h, d::jsonb FROM unnest($2::text[], $3::text[]) AS t(h, d) ${noFlushWait}
       ON CONFLICT (space_id, hash) DO NOTHING`,
      [spaceId, hashes.slice(i, i + 5000), datas.slice(i, i + 5000)],
    );
  }
}

/** Copy every object of one space to another (duplicate). */
export async function copyObjects(db: Queryable, fromSpace: string, toSpace: string): Promise<void> {
  await db.query(
    `INSERT INTO content_objects (space_id, hash, data) SELECT $2, hash, data FROM content_objects WHERE space_id = $1
     ON CONFLICT DO NOTHING`,
    [fromSpace, toSpace],
  );
}
