import pg from 'pg';

export type Db = pg.Pool;
/** Anything that can run a query: the pool or a client inside a transaction. */
export type Queryable = pg.Pool | pg.PoolClient;

// Return BIGINT/COUNT(*) as numbers: counts here stay far below 2^53.
pg.types.setTypeParser(20, (v) => Number(v));

/**
 * A WHERE condition that makes the statement's own (implicit) transaction commit without waiting
 * for its WAL flush: `set_config(..., is_local => true)` is `SET LOCAL synchronous_commit = off`
 * inside the statement, evaluated for the rows it writes, and reset when that transaction ends (the
 * session keeps its durable default). Only for writes a crash may lose (a job run's intermediate
 * state, repos/operations.ts) or that a later durable commit in the same WAL covers (content objects
 * stored ahead of their revision, repos/content-objects.ts). The setting lasts until the transaction
 * ends: only in a statement of its own on the pool, never inside a transaction that commits
 * anything else.
 */
export const NO_FLUSH_WAIT = `set_config('synchronous_commit', 'off', true) IS NOT NULL`;

export function createPool(databaseUrl: string, max: number): Db {
  const pool = new pg.Pool({ connectionString: databaseUrl, max, idleTimeoutMillis: 30_000 });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  return pool;
}

/**
 * SQLSTATEs that mean "try again": serialization failure and deadlock. PostgreSQL aborts one of the
 * transactions involved; running it again from the start is the documented remedy.
 */
function isTransientConflict(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return code === '40001' || code === '40P01';
}

const TX_ATTEMPTS = 4;

/**
 * Run `fn` in a transaction; commits on success, rolls back on any error. A serialization failure
 * or deadlock runs `fn` again (up to four attempts, with a short random pause), so `fn` must keep
 * its effects inside the transaction (enqueue and other outside effects go after it returns).
 */
export async function withTx<T>(db: Db, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await runTx(db, fn);
    } catch (err) {
      if (!isTransientConflict(err) || attempt >= TX_ATTEMPTS) throw err;
      await new Promise((r) => setTimeout(r, 5 + Math.random() * 20 * attempt));
    }
  }
}

async function runTx<T>(db: Db, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await db.connect();
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}
