import type { AppContext } from '../context.js';
import { JobSkipped } from '../queue/errors.js';
import { lastGitTimestamp, withGitSyncLock } from '../db/repos/git-sync.js';

/**
 * Run one git operation of a space at a time (the space's git lock, held for the whole job), and
 * skip an operation whose `timestamp` is older than the last one applied to the space: it is
 * recorded as `skipped` with the reason. `force` applies it anyway.
 */
export async function inSpaceOrder<T>(
  app: AppContext,
  spaceId: string,
  timestamp: string | undefined,
  fn: () => Promise<T>,
  force = false,
): Promise<T> {
  return withGitSyncLock(app.db, spaceId, async (client) => {
    if (timestamp && !force) {
      const last = await lastGitTimestamp(client, spaceId);
      if (last && new Date(timestamp).getTime() < last.getTime()) {
        throw new JobSkipped(`Older (${new Date(timestamp).toISOString()}) than the last applied git operation (${last.toISOString()})`);
      }
    }
    return fn();
  });
}
