// Removing a benchmark's throw-away resources. Shared by the benchmark process (bench/lib.ts) and
// its janitor (bench/janitor.ts); kept free of application imports so the janitor starts fast.
// Every function is idempotent and reports whether there was anything to remove.
import { rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { Redis } from 'ioredis';

export const PG_ADMIN_URL = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Names of one run's resources: `bench_<hex>` for the database and the Redis prefix. */
export function benchNames(suffix: string) {
  if (!/^[0-9a-f]{6,32}$/.test(suffix)) throw new Error(`bad benchmark suffix "${suffix}"`);
  return {
    dbName: `bench_${suffix}`,
    prefix: `bench_${suffix}`,
    storageDir: path.join(tmpdir(), `dp-bench-${suffix}`),
  };
}

export async function adminQuery<T extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, params: unknown[] = []) {
  const c = new pg.Client({ connectionString: PG_ADMIN_URL });
  await c.connect();
  try {
    return await c.query<T>(sql, params);
  } finally {
    await c.end();
  }
}

export async function dropDatabase(dbName: string): Promise<boolean> {
  const { rowCount } = await adminQuery('SELECT 1 FROM pg_database WHERE datname = $1', [dbName]);
  if (!rowCount) return false;
  await adminQuery(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  return true;
}

export async function deleteRedisPrefix(prefix: string): Promise<boolean> {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  let deleted = 0;
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) deleted += await redis.unlink(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
  return deleted > 0;
}

export async function removeDir(dir: string): Promise<boolean> {
  const existed = await stat(dir).then(
    () => true,
    () => false,
  );
  await rm(dir, { recursive: true, force: true });
  return existed;
}
