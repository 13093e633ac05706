// Fake of src/db/repos/git-sync.ts (the state row, the space's summary, the latest git operation).
import type * as real from '../../../../src/db/repos/git-sync.js';
import { copy, now, tables } from '../store.js';

export const getGitSyncState: typeof real.getGitSyncState = async (_db, spaceId) => {
  const s = tables.gitSync.get(spaceId);
  return s ? copy(s) : null;
};

export const recordGitSync: typeof real.recordGitSync = async (_db, s) => {
  const prev = tables.gitSync.get(s.spaceId);
  const ts = s.timestamp ? new Date(s.timestamp) : null;
  tables.gitSync.set(s.spaceId, {
    space_id: s.spaceId,
    url: s.url,
    ref: s.ref,
    last_commit: s.commit ?? prev?.last_commit ?? null,
    last_timestamp: prev?.last_timestamp && (!ts || prev.last_timestamp > ts) ? prev.last_timestamp : ts,
    provider: s.provider ?? prev?.provider ?? null,
    tree_url: s.treeUrl ?? prev?.tree_url ?? null,
    updated_at: now(),
  });
};

export const setSpaceGitSync: typeof real.setSpaceGitSync = async (_db, spaceId, summary) => {
  const space = tables.spaces.get(spaceId);
  if (space) space.git_sync = summary === null ? null : copy(summary);
};

export const deleteGitSync: typeof real.deleteGitSync = async (db, spaceId) => {
  tables.gitSync.delete(spaceId);
  await setSpaceGitSync(db, spaceId, null);
};

export const latestGitOperation: typeof real.latestGitOperation = async (_db, spaceId) => {
  const op = [...tables.operations.values()]
    .filter((o) => o.target_type === 'space' && o.target_id === spaceId && (o.kind === 'git.import' || o.kind === 'git.export'))
    .sort((a, b) => b.created_at.getTime() - a.created_at.getTime())[0];
  if (!op) return null;
  const { kind, status, error, started_at, finished_at, created_at } = copy(op);
  return { kind: kind as 'git.import' | 'git.export', status, error, action: null, started_at, finished_at, created_at };
};

export const lastGitTimestamp: typeof real.lastGitTimestamp = async (_db, spaceId) => tables.gitSync.get(spaceId)?.last_timestamp ?? null;
