// SQL of the purge of deleted spaces (src/services/purge.ts). Two steps, each safe to interrupt and
// to run in several workers at once:
//  1. purgeNextSpace: in one transaction, lock one expired space (FOR UPDATE SKIP LOCKED: a space
//     is purged by exactly one worker), queue its blob keys in blob_garbage, delete its rows.
//  2. claimGarbageKey + blobReferences + forgetBlob: per key, under the same advisory lock
//     storeFileBytes (src/content/files.ts) holds while it (re)writes bytes and references them,
//     delete the bytes only when no space references them any more.
import type pg from 'pg';
import type { Queryable } from '../pool.js';
import { lockBlobKey } from './blobs.js';

/**
 * Purge one space deleted before `before`, inside the caller's transaction; returns its id, or
 * null when no unlocked candidate is left. Its blob keys go to blob_garbage in the same
 * transaction, so bytes are deleted (later, by key) only after these rows are gone, and a crash in
 * between loses nothing. Rows of other tables referencing the space go with it through their
 * ON DELETE CASCADE (space_blobs, space_members, search, git state, PDF renders whose trigger
 * queues their bytes too, ...).
 */
export async function purgeNextSpace(
  c: pg.PoolClient,
  before: Date,
): Promise<{ id: string; organizationId: string; blobKeys: number } | null> {
  const { rows } = await c.query<{ id: string; organization_id: string }>(
    `SELECT id, organization_id FROM spaces
      WHERE deleted_at IS NOT NULL AND deleted_at < $1
      ORDER BY deleted_at, id
      LIMIT 1
      FOR UPDATE SKIP LOCKED`,
    [before],
  );
  const space = rows[0];
  if (!space) return null;
  // Sorted: concurrent purges inserting the same keys take their index locks in the same order.
  const queued = await c.query(
    `INSERT INTO blob_garbage (blob_key)
     SELECT blob_key FROM space_blobs WHERE space_id = $1 ORDER BY blob_key
     ON CONFLICT DO NOTHING`,
    [space.id],
  );
  // Reactions reference comments and replies by id without a foreign key: delete them first.
  await c.query(
    `DELETE FROM comment_reactions WHERE target_id IN (
       SELECT id FROM comments WHERE space_id = $1
       UNION ALL SELECT r.id FROM comment_replies r JOIN comments cm ON cm.id = r.comment_id WHERE cm.space_id = $1)`,
    [space.id],
  );
  // The two large tables explicitly (one statement each rather than row-by-row cascades), then the row.
  await c.query('DELETE FROM content_objects WHERE space_id = $1', [space.id]);
  await c.query('DELETE FROM revisions WHERE space_id = $1', [space.id]);
  await c.query('DELETE FROM spaces WHERE id = $1', [space.id]);
  return { id: space.id, organizationId: space.organization_id, blobKeys: queued.rowCount ?? 0 };
}

/** Keys of blob_garbage after `after` (keyset order by key), for one pass over the queue. */
export async function listGarbageAfter(db: Queryable, after: string | null, limit: number): Promise<string[]> {
  const { rows } = await db.query<{ blob_key: string }>(
    'SELECT blob_key FROM blob_garbage WHERE $1::text IS NULL OR blob_key > $1 ORDER BY blob_key LIMIT $2',
    [after, limit],
  );
  return rows.map((r) => r.blob_key);
}

/**
 * Inside a transaction: take the per-key lock storeFileBytes takes (lockBlobKey), then lock
 * the garbage row, waiting for another worker handling it. False when the row is gone (another
 * worker finished this key meanwhile): nothing to do.
 */
export async function claimGarbageKey(c: pg.PoolClient, key: string): Promise<boolean> {
  await lockBlobKey(c, key);
  const { rows } = await c.query('SELECT 1 FROM blob_garbage WHERE blob_key = $1 FOR UPDATE', [key]);
  return rows.length > 0;
}

/** Who still references a content-addressed blob: live spaces and soft-deleted (not yet purged) ones. */
export async function blobReferences(db: Queryable, key: string): Promise<{ live: number; deleted: number }> {
  const { rows } = await db.query<{ live: number; deleted: number }>(
    `SELECT count(*) FILTER (WHERE s.deleted_at IS NULL) AS live, count(*) FILTER (WHERE s.deleted_at IS NOT NULL) AS deleted
       FROM space_blobs sb JOIN spaces s ON s.id = sb.space_id
      WHERE sb.blob_key = $1`,
    [key],
  );
  return rows[0];
}

/** The bytes of `key` are gone (or never were): drop its blobs row, if any, and its garbage row. */
export async function forgetBlob(c: Queryable, key: string): Promise<void> {
  await c.query('DELETE FROM blobs WHERE key = $1', [key]);
  await c.query('DELETE FROM blob_garbage WHERE blob_key = $1', [key]);
}

/** The key is not garbage (live spaces reference it): drop it from the queue, keep the bytes. */
export async function dropGarbageKey(c: Queryable, key: string): Promise<void> {
  await c.query('DELETE FROM blob_garbage WHERE blob_key = $1', [key]);
}
