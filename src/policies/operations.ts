// Who may read an operation: whoever can see its target, and no one else. The space (or the space
// of the change request) for imports, exports and PDF renders, the organization for OpenAPI specs.
// Creating an operation grants nothing by itself: someone who lost access to the space loses its
// operations.
import type { Principal } from '../auth/principal.js';
import type { Queryable } from '../db/pool.js';
import type { OperationRow } from '../db/repos/operations.js';
import { getSpace } from '../db/repos/spaces.js';
import { getOrgForUser } from '../db/repos/organizations.js';
import { changeRequestSpaceId } from '../db/repos/change-requests.js';
import { getTranslation } from '../db/repos/translations.js';
import { orgPermissions } from './organizations.js';
import { roleOnSpace } from './spaces.js';

export async function canSeeOperation(db: Queryable, p: Principal, op: OperationRow): Promise<boolean> {
  switch (op.target_type) {
    case 'space':
      return canSeeSpace(db, p, op, op.target_id);
    case 'change-request':
      return canSeeSpace(db, p, op, op.target_id ? await changeRequestSpaceId(db, op.target_id) : null);
    case 'translation': {
      // Runs of a translation: whoever can read its source space (src/policies/translations.ts).
      const tr = op.target_id ? await getTranslation(db, op.target_id) : null;
      return canSeeSpace(db, p, op, tr?.source_space_id ?? null);
    }
    case 'openapi-spec':
      // Specs are organization-level: the organization's members read them (services/openapi.ts).
      return !!op.organization_id && (await orgAccess(db, p, op.organization_id)).member;
    default:
      // No target (or one without a policy of its own): its creator, or a member of its
      // organization with a role; guests see only what targets they can see.
      if (op.created_by && op.created_by === p.userId) return true;
      return !!op.organization_id && (await orgAccess(db, p, op.organization_id)).withRole;
  }
}

/** The space's own rules (deleted spaces included, so their last operations stay readable). */
async function canSeeSpace(db: Queryable, p: Principal, op: OperationRow, spaceId: string | null): Promise<boolean> {
  const space = spaceId ? await getSpace(db, spaceId, { includeDeleted: true, counters: false }) : null;
  if (!space) {
    // The target was purged: only an administrator of the organization that ran it may still look.
    return !!op.organization_id && (await orgAccess(db, p, op.organization_id)).admin;
  }
  return (await roleOnSpace(db, p, space)).role !== null;
}

async function orgAccess(db: Queryable, p: Principal, orgId: string) {
  const org = await getOrgForUser(db, orgId, p.userId);
  const perms = org ? orgPermissions(org) : null;
  return { member: !!perms?.view, withRole: !!perms?.access, admin: !!perms?.admin };
}
