// Keys (or prefixes ending in '/') whose rows are gone and whose bytes are still to be deleted.
import type { Queryable } from '../pool.js';

export async function forgetGarbage(db: Queryable, keys: string[]) {
  if (keys.length) await db.query('DELETE FROM blob_garbage WHERE blob_key = ANY($1)', [keys]);
}

export async function listGarbage(db: Queryable, limit: number): Promise<string[]> {
  const { rows } = await db.query('SELECT blob_key FROM blob_garbage ORDER BY queued_at LIMIT $1', [limit]);
  return rows.map((r) => r.blob_key);
}
