// Fake of src/db/repos/access.ts: membership, the organization's SSO flag and explicit space grants
// (no collections: spaces of these tests sit at the top of their organization).
import type * as real from '../../../../src/db/repos/access.js';
import type { AccessRows } from '../../../../src/db/repos/access.js';
import { copy, key, tables } from '../store.js';

function rowsFor(orgId: string, userId: string, spaceIds: string[]): AccessRows {
  const member = tables.members.get(key(orgId, userId));
  return {
    member: member ? copy(member) : null,
    sso: tables.orgs.get(orgId)?.sso === true,
    collections: [],
    collectionGrants: [],
    spaceGrants: spaceIds.flatMap((id): [string, string][] => {
      const role = tables.spaceGrants.get(key(id, userId));
      return role ? [[id, role]] : [];
    }),
  };
}

export const accessRows: typeof real.accessRows = async (_db, orgId, userId, spaceIds) => rowsFor(orgId, userId, spaceIds);

export const spaceWithAccessRows: typeof real.spaceWithAccessRows = async (_db, spaceId, userId, opts = {}) => {
  const space = tables.spaces.get(spaceId);
  if (!space || (space.deleted_at && !opts.includeDeleted)) return null;
  return { space: copy(space), access: rowsFor(space.organization_id, userId, [spaceId]) };
};
