// Content-addressed file bytes: the `blobs` row of each stored key and the `space_blobs` references
// that keep it alive (the purge deletes bytes no space references any more, src/db/repos/purge.ts).
import type { Queryable } from '../pool.js';

/**
 * Inside a transaction: the per-key advisory lock that storing bytes and the purge of a key both
 * take, so bytes being referenced again are never deleted under the writer.
 */
export async function lockBlobKey(c: Queryable, key: string): Promise<void> {
  await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [key]);
}

/** lockBlobKey for several keys at once, taken in one order (by lock id) so two writers never wait on each other in a cycle. */
export async function lockBlobKeys(c: Queryable, keys: string[]): Promise<void> {
  await c.query(
    'SELECT pg_advisory_xact_lock(h) FROM (SELECT DISTINCT hashtext(k) AS h FROM unnest($1::text[]) AS k ORDER BY 1) AS locks',
    [keys],
  );
}

/** The keys among `keys` that have a `blobs` row. */
export async function recordedBlobs(db: Queryable, keys: string[]): Promise<Set<string>> {
  const { rows } = await db.query<{ key: string }>('SELECT key FROM blobs WHERE key = ANY($1::text[])', [keys]);
  return new Set(rows.map((r) => r.key));
}

/** recordBlob for several blobs in one statement. */
export async function recordBlobs(db: Queryable, blobs: { key: string; size: number; sha256: string }[]): Promise<void> {
  if (!blobs.length) return;
  await db.query(
    `INSERT INTO blobs (key, size, sha256)
     SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[]) ON CONFLICT (key) DO NOTHING`,
    [blobs.map((b) => b.key), blobs.map((b) => b.size), blobs.map((b) => b.sha256)],
  );
}

/** referenceBlob for several keys in one statement. */
export async function referenceBlobs(db: Queryable, spaceId: string, keys: string[]): Promise<void> {
  if (!keys.length) return;
  await db.query('INSERT INTO space_blobs (space_id, blob_key) SELECT $1, k FROM unnest($2::text[]) AS k ON CONFLICT DO NOTHING', [
    spaceId,
    keys,
  ]);
}
