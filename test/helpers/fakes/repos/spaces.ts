// Fake of src/db/repos/spaces.ts (reads, insert and the revision pointer).
import type * as real from '../../../../src/db/repos/spaces.js';
import { copy, now, tables } from '../store.js';

export const getSpace: typeof real.getSpace = async (_db, id, opts = {}) => {
  const s = tables.spaces.get(id);
  return s && (!s.deleted_at || opts.includeDeleted) ? copy(s) : null;
};

export const lockSpace: typeof real.lockSpace = (db, id) => getSpace(db, id, { forUpdate: true, counters: false });

export const insertSpace: typeof real.insertSpace = async (_db, s) => {
  if (tables.spaces.has(s.id)) throw Object.assign(new Error('duplicate key'), { code: '23505' });
  const at = now();
  tables.spaces.set(s.id, {
    id: s.id,
    organization_id: s.orgId,
    parent_id: s.parentId,
    title: s.title,
    emoji: s.emoji,
    visibility: s.visibility,
    edit_mode: s.editMode as 'live' | 'locked',
    default_level: s.defaultLevel,
    language: s.language,
    position: s.position,
    revision_id: s.revisionId,
    share_key: s.shareKey,
    git_sync: null,
    created_by: s.createdBy,
    created_at: at,
    updated_at: at,
    deleted_at: null,
    comments: 0,
    change_requests: 0,
    change_requests_open: 0,
    change_requests_draft: 0,
    merge_rules: null,
  });
};

export const setSpaceRevision: typeof real.setSpaceRevision = async (_db, id, revisionId) => {
  const s = tables.spaces.get(id);
  if (s) Object.assign(s, { revision_id: revisionId, updated_at: now() });
};
