import type { Db } from '../pool.js';

/**
 * Run `fn` while holding the session-level advisory lock `key`, or return null at once when another
 * session holds it (one process at a time runs `fn`; the others skip their turn). The lock lives on
 * one pooled connection, released with it.
 */
export async function withTryLock<T>(db: Db, key: number, fn: () => Promise<T>): Promise<T | null> {
  const client = await db.connect();
  // A lock that cannot be given back (its connection died with the database) goes with its
  // connection: discarded rather than pooled, so it can never be left held; `fn`'s outcome stands.
  let discard: Error | undefined;
  try {
    const { rows } = await client.query('SELECT pg_try_advisory_lock($1) AS ok', [key]);
    if (!rows[0].ok) return null;
    try {
      return await fn();
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [key]).catch((err: Error) => (discard = err));
    }
  } finally {
    client.release(discard);
  }
}
