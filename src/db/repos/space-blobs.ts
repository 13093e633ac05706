// space_blobs: which stored blobs (file bytes) a space references, so that the purge job knows
// when a blob is no longer used by any space.
import type { Queryable } from '../pool.js';

/** Make `toSpaceId` reference every blob `fromSpaceId` references (a copied space shares the bytes). */
export async function copySpaceBlobs(db: Queryable, fromSpaceId: string, toSpaceId: string): Promise<void> {
  await db.query('INSERT INTO space_blobs (space_id, blob_key) SELECT $2, blob_key FROM space_blobs WHERE space_id = $1', [
    fromSpaceId,
    toSpaceId,
  ]);
}

/** Make `toSpaceId` also reference every blob `fromSpaceId` references, keeping those it has (a translation's result). */
export async function shareSpaceBlobs(db: Queryable, fromSpaceId: string, toSpaceId: string): Promise<void> {
  await db.query(
    'INSERT INTO space_blobs (space_id, blob_key) SELECT $2, blob_key FROM space_blobs WHERE space_id = $1 ON CONFLICT DO NOTHING',
    [fromSpaceId, toSpaceId],
  );
}
