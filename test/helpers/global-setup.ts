import pg from 'pg';
import { Redis } from 'ioredis';
import { TEST_PG_ADMIN_URL, TEST_REDIS_URL } from './env.js';

/** Fail fast with a clear message when PostgreSQL or Redis is not running (.ci/run starts them). */
export default async function setup() {
  const client = new pg.Client({ connectionString: TEST_PG_ADMIN_URL });
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (err) {
    throw new Error(`PostgreSQL is not reachable at ${TEST_PG_ADMIN_URL}: ${(err as Error).message}`, { cause: err });
  } finally {
    await client.end().catch(() => {});
  }
  const redis = new Redis(TEST_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    throw new Error(`Redis is not reachable at ${TEST_REDIS_URL}: ${(err as Error).message}`, { cause: err });
  } finally {
    redis.disconnect();
  }
}
