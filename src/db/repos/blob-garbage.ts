// Keys (or prefixes ending in '/') whose rows are gone and whose bytes are still to be deleted.
import type { Queryable } from '../pool.js';

export async function forgetGarbage(db: Queryable, keys: string[]) {
  if (keys.length) await db.query('DELETE FROM blob_garbage WHERE blob_key = ANY($1)', [keys]);
}
