// Fake of src/db/repos/organizations.ts (the reads access checks make).
import type * as real from '../../../../src/db/repos/organizations.js';
import { copy, key, tables } from '../store.js';

export const getOrgForUser: typeof real.getOrgForUser = async (_db, orgId, userId) => {
  const org = tables.orgs.get(orgId);
  if (!org) return null;
  const m = tables.members.get(key(orgId, userId));
  return { ...copy(org), member_role: m?.role ?? null, is_member: !!m && !m.disabled, owns_team: false };
};

export const orgEnforcesSso: typeof real.orgEnforcesSso = async (_db, orgId) => tables.orgs.get(orgId)?.sso ?? null;
