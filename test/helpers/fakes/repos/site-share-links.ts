// Fake of src/db/repos/site-share-links.ts.
import type * as real from '../../../../src/db/repos/site-share-links.js';
import { copy, now, tables } from '../store.js';

const ofSite = (siteId: string) =>
  [...tables.shareLinks.values()]
    .filter((l) => l.site_id === siteId)
    .sort((a, b) => a.created_at.getTime() - b.created_at.getTime() || (a.id < b.id ? -1 : 1));

export const insertShareLink: typeof real.insertShareLink = async (_db, l) => {
  tables.shareLinks.set(l.id, {
    id: l.id,
    site_id: l.siteId,
    name: l.name,
    key_hash: l.keyHash,
    key_sealed: l.keySealed,
    active: true,
    created_at: now(),
  });
};

export const listShareLinks: typeof real.listShareLinks = async (_db, siteId) =>
  ofSite(siteId).map((l) => ({ ...copy(l), created_key: l.created_at.toISOString() }));

export const getShareLink: typeof real.getShareLink = async (_db, siteId, id) => {
  const l = tables.shareLinks.get(id);
  return l && l.site_id === siteId ? copy(l) : null;
};

export const findActiveShareLink: typeof real.findActiveShareLink = async (_db, siteId, keyHash) => {
  const l = ofSite(siteId).find((x) => x.key_hash === keyHash && x.active);
  return l ? copy(l) : null;
};

export const updateShareLink: typeof real.updateShareLink = async (_db, id, patch) => {
  const l = tables.shareLinks.get(id);
  if (!l) return;
  if (patch.name !== undefined) l.name = patch.name;
  if (patch.active !== undefined) l.active = patch.active;
};

export const deleteShareLink: typeof real.deleteShareLink = async (_db, siteId, id) => {
  if (tables.shareLinks.get(id)?.site_id === siteId) tables.shareLinks.delete(id);
};
