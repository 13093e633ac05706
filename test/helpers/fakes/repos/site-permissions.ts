// Fake of src/db/repos/site-permissions.ts (users' own grants; no teams).
import type * as real from '../../../../src/db/repos/site-permissions.js';
import { key, tables } from '../store.js';

export const siteGrantsOf: typeof real.siteGrantsOf = async (_db, userId, siteIds) =>
  siteIds.flatMap((site_id) => {
    const role = tables.siteUserGrants.get(key(site_id, userId));
    return role ? [{ site_id, role }] : [];
  });

export const setSiteUserPermission: typeof real.setSiteUserPermission = async (_db, siteId, userId, role) => {
  tables.siteUserGrants.set(key(siteId, userId), role);
};
