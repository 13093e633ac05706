// Fake of src/db/repos/revisions.ts.
import type * as real from '../../../../src/db/repos/revisions.js';
import { copy, key, now, tables } from '../store.js';

export const insertRevision: typeof real.insertRevision = async (_db, r) => {
  const row = {
    id: r.id,
    space_id: r.spaceId,
    root_hash: r.rootHash,
    parents: r.parents,
    type: r.type ?? 'edits',
    git: (r.git as Record<string, unknown> | undefined) ?? null,
    change_request_id: r.changeRequestId ?? null,
    created_by: r.createdBy ?? null,
    created_at: now(),
  };
  tables.revisions.set(key(r.spaceId, r.id), row);
  return copy(row);
};

export const getRevision: typeof real.getRevision = async (_db, spaceId, id) => {
  const r = tables.revisions.get(key(spaceId, id));
  return r ? copy(r) : null;
};
