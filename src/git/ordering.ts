import type { AppContext } from '../context.js';
import { JobSkipped } from '../queue/errors.js';

/**
 * Run one git operation of a space at a time (a session advisory lock held for the whole job, on a
 * dedicated connection), and skip an operation whose `timestamp` is older than the last one
 * applied to the space: it is recorded as `skipped` with the reason. `force` applies it anyway.
 */
export async function inSpaceOrder<T>(app: AppContext, spaceId: string, timestamp: string | undefined, fn: () => Promise<T>, force = false): Promise<T> {
  const client = await app.db.connect();
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [`git-sync:${spaceId}`]);
    try {
      if (timestamp && !force) {
        const { rows } = await client.query('SELECT last_timestamp FROM git_sync_state WHERE space_id = $1', [spaceId]);
        const last: Date | null = rows[0]?.last_timestamp ?? null;
        if (last && new Date(timestamp).getTime() < last.getTime()) {
          throw new JobSkipped(`Older (${new Date(timestamp).toISOString()}) than the last applied git operation (${last.toISOString()})`);
        }
      }
      return await fn();
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [`git-sync:${spaceId}`]);
    }
  } finally {
    client.release();
  }
}
