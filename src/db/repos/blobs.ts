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

export async function blobRecorded(db: Queryable, key: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM blobs WHERE key = $1', [key]);
  return rows.length > 0;
}

export async function recordBlob(db: Queryable, b: { key: string; size: number; sha256: string }): Promise<void> {
  await db.query('INSERT INTO blobs (key, size, sha256) VALUES ($1, $2, $3) ON CONFLICT (key) DO NOTHING', [b.key, b.size, b.sha256]);
}

/** The space references the key (its content has, or is about to have, a file with these bytes). */
export async function referenceBlob(db: Queryable, spaceId: string, key: string): Promise<void> {
  await db.query('INSERT INTO space_blobs (space_id, blob_key) VALUES ($1, $2) ON CONFLICT DO NOTHING', [spaceId, key]);
}
