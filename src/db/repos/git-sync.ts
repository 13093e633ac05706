// Git sync of a space: the `git_sync_state` row (what the space last synced with), the summary of
// it kept on the space row (`spaces.git_sync`, shown as Space.gitSync), the per-space lock that runs
// one git operation of a space at a time, and the space's latest git operation.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { PoolClient } from 'pg';
import type { Db, Queryable } from '../pool.js';

/** The connection holding the space's git lock of the run in progress (withGitSyncLock), for the cache lock. */
const lockSession = new AsyncLocalStorage<{ client: PoolClient; open: boolean }>();

export interface GitSyncStateRow {
  space_id: string;
  url: string | null;
  ref: string | null;
  last_commit: string | null;
  last_timestamp: Date | null;
  provider: string | null;
  tree_url: string | null;
  updated_at: Date;
}

export async function getGitSyncState(db: Queryable, spaceId: string): Promise<GitSyncStateRow | null> {
  const { rows } = await db.query<GitSyncStateRow>('SELECT * FROM git_sync_state WHERE space_id = $1', [spaceId]);
  return rows[0] ?? null;
}

/**
 * Record what the space synced with. `commit` null keeps the previous commit; the timestamp only
 * moves forward; provider and tree URL keep their previous values when not given.
 */
export async function recordGitSync(
  db: Queryable,
  s: {
    spaceId: string;
    url: string;
    ref: string;
    commit: string | null;
    timestamp: string | null;
    provider: string | null;
    treeUrl: string | null;
  },
): Promise<void> {
  await db.query(
    `INSERT INTO git_sync_state (space_id, url, ref, last_commit, last_timestamp, provider, tree_url, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, clock_timestamp())
     ON CONFLICT (space_id) DO UPDATE SET url = EXCLUDED.url, ref = EXCLUDED.ref,
       last_commit = coalesce(EXCLUDED.last_commit, git_sync_state.last_commit),
       last_timestamp = GREATEST(git_sync_state.last_timestamp, EXCLUDED.last_timestamp),
       provider = coalesce(EXCLUDED.provider, git_sync_state.provider), tree_url = coalesce(EXCLUDED.tree_url, git_sync_state.tree_url),
       updated_at = clock_timestamp()`,
    [s.spaceId, s.url, s.ref, s.commit, s.timestamp, s.provider, s.treeUrl],
  );
}

/** The summary shown as the space's `gitSync` (null: none). */
export async function setSpaceGitSync(db: Queryable, spaceId: string, summary: Record<string, unknown> | null): Promise<void> {
  await db.query('UPDATE spaces SET git_sync = $2 WHERE id = $1', [spaceId, summary === null ? null : JSON.stringify(summary)]);
}

/** Forget the space's git sync: its state row and its summary. */
export async function deleteGitSync(db: Queryable, spaceId: string): Promise<void> {
  await db.query('DELETE FROM git_sync_state WHERE space_id = $1', [spaceId]);
  await setSpaceGitSync(db, spaceId, null);
}

interface GitOperationRow {
  kind: 'git.import' | 'git.export' | 'git.sync';
  status: string;
  error: string | null;
  /** A Git Sync run's `action` (import, export, conflict), when it finished. */
  action: string | null;
  started_at: Date | null;
  finished_at: Date | null;
  created_at: Date;
}

/**
 * The space's latest git operation: a one-shot import or export, or a Git Sync run that did
 * something (imported, exported, opened a conflict, failed or is running; the runs a poll finds
 * nothing for are not operations on the content).
 */
export async function latestGitOperation(db: Queryable, spaceId: string): Promise<GitOperationRow | null> {
  const { rows } = await db.query<GitOperationRow>(
    `SELECT kind, status, error, result->>'action' AS action, started_at, finished_at, created_at FROM operations
      WHERE target_type = 'space' AND target_id = $1
        AND (kind IN ('git.import', 'git.export')
             OR (kind = 'git.sync' AND (status IN ('running', 'failed') OR result->>'action' IN ('import', 'export', 'conflict'))))
      ORDER BY created_at DESC LIMIT 1`,
    [spaceId],
  );
  return rows[0] ?? null;
}

/**
 * Run `fn` holding the space's git lock (a session advisory lock on a dedicated connection, held
 * for the whole operation); `fn` gets that connection.
 */
export async function withGitSyncLock<T>(db: Db, spaceId: string, fn: (client: Queryable) => Promise<T>): Promise<T> {
  const client = await db.connect();
  // An unlock that fails (the connection died with the database) discards the connection, and the
  // lock with it, rather than masking `fn`'s outcome.
  let discard: Error | undefined;
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [`git-sync:${spaceId}`]);
    const session = { client, open: true };
    try {
      return await lockSession.run(session, () => fn(client));
    } finally {
      session.open = false; // work that outlives the lock (never awaited) takes a connection of its own
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [`git-sync:${spaceId}`]).catch((err: Error) => (discard = err));
    }
  } finally {
    client.release(discard);
  }
}

/** Timestamp of the last git operation applied to the space (null: none recorded). */
export async function lastGitTimestamp(db: Queryable, spaceId: string): Promise<Date | null> {
  const { rows } = await db.query<{ last_timestamp: Date | null }>('SELECT last_timestamp FROM git_sync_state WHERE space_id = $1', [
    spaceId,
  ]);
  return rows[0]?.last_timestamp ?? null;
}

/**
 * The advisory locks of git caches are two-key locks of this class: a key space apart from the
 * one-key locks (the spaces' git locks...), so a hash collision can never tie a cache to a space.
 */
const GIT_CACHE_LOCKS = 0x67697463; // 'gitc'

/**
 * Run `fn` holding the lock of one cached bare repository (`key`, src/git/repo.ts cacheKey): a
 * session advisory lock, so runs of different spaces sharing the cache, on any worker process,
 * use it one at a time. Inside a space's git lock (withGitSyncLock) it is taken on that lock's
 * connection, so a run holds no second connection while it waits (a pool of WORKER_CONCURRENCY
 * + 1 stays enough); elsewhere on a connection of its own. Space lock first, cache lock second,
 * never the other way round: no two runs wait for each other.
 */
export async function withGitCacheLock<T>(db: Db, key: string, fn: () => Promise<T>): Promise<T> {
  const session = lockSession.getStore();
  const held = session?.open ? session.client : null;
  const client = held ?? (await db.connect());
  let discard: Error | undefined;
  try {
    await client.query('SELECT pg_advisory_lock($1, hashtext($2))', [GIT_CACHE_LOCKS, key]);
    try {
      return await fn();
    } finally {
      await client.query('SELECT pg_advisory_unlock($1, hashtext($2))', [GIT_CACHE_LOCKS, key]).catch((err: Error) => (discard = err));
    }
  } finally {
    if (!held) client.release(discard);
  }
}
