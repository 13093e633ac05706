// Fake of src/db/repos/members.ts (the membership read of site access checks).
import type * as real from '../../../../src/db/repos/members.js';
import { copy, key, tables } from '../store.js';

export const getMembership: typeof real.getMembership = async (_db, orgId, userId) => {
  const m = tables.members.get(key(orgId, userId));
  return m ? copy(m) : null;
};
