// Who may do what on collections. A member's level on a collection is `admin` for organization
// admins; otherwise the collection's `defaultLevel`, where `inherit` means the parent collection's
// level, up to the top where it is the member's own organization role (see inheritedLevel).
// `null` grants nothing; guests and non-members have no level on any collection. A collection the
// caller has no level on is a 404 (its existence is not revealed); one they see but may not change
// is a 403.
import type { Principal } from '../auth/principal.js';
import type { Queryable } from '../db/pool.js';
import { getCollection, type CollectionRow } from '../db/repos/collections.js';
import type { CollectionPermissions } from '../presenters/collections.js';
import { atLeast, maxRole, type Role } from '../core/roles.js';
import { invalid, forbidden, notFound } from '../core/errors.js';
import { accessContext, grantOnChain, inheritedLevel, type AccessContext } from './spaces.js';

/**
 * The caller's level on a collection: the higher of its inherited default level (members with a
 * role only) and the caller's explicit grants, own or through a team, on it or a collection above
 * it (guests too). null: none (the collection is hidden from them).
 */
export function collectionRole(ctx: AccessContext, c: Pick<CollectionRow, 'default_level' | 'parent_id'> & { id?: string }): Role | null {
  if (ctx.orgRole === 'admin') return 'admin';
  if (ctx.orgRole === undefined) return null;
  const base = ctx.orgRole ? inheritedLevel(ctx, c.default_level, c.parent_id) : null;
  // Without an id (a collection being described, not stored) only the grants above it count.
  return maxRole(base, grantOnChain(ctx, c.id ?? c.parent_id));
}

export function collectionPermissions(role: Role | null): CollectionPermissions {
  return {
    view: atLeast(role, 'read'),
    admin: atLeast(role, 'admin'),
    viewInviteLinks: atLeast(role, 'admin'),
    create: atLeast(role, 'create'),
  };
}

interface CollectionAccess {
  collection: CollectionRow;
  role: Role;
  ctx: AccessContext;
}

/** Load a collection and require `needed` on it: 404 when missing or hidden, 403 when too weak. */
export async function requireCollection(
  db: Queryable,
  p: Principal,
  collectionId: string,
  needed: Role = 'read',
): Promise<CollectionAccess> {
  const collection = await getCollection(db, collectionId);
  if (!collection) throw notFound(`Collection "${collectionId}" not found`);
  const ctx = await accessContext(db, collection.organization_id, p);
  const role = collectionRole(ctx, collection);
  if (!role) throw notFound(`Collection "${collectionId}" not found`);
  if (!atLeast(role, needed)) throw forbidden(`Your role on this collection (${role}) does not allow this action`);
  return { collection, role, ctx };
}

/**
 * A collection named as a parent for new or moved content (`field` of the request body): it must
 * exist in `orgId` and be visible to the caller (400 naming the field otherwise), and the caller
 * needs `create` on it (403).
 */
export async function requireParent(
  db: Queryable,
  ctx: AccessContext,
  orgId: string,
  parentId: string,
  field: string,
): Promise<CollectionRow> {
  const parent = await getCollection(db, parentId);
  const role = parent && parent.organization_id === orgId ? collectionRole(ctx, parent) : null;
  if (!parent || !role) throw invalid(`Invalid request: ${field}: collection "${parentId}" does not exist in this organization`);
  if (!atLeast(role, 'create')) throw forbidden(`Your role on collection "${parentId}" (${role}) does not allow adding content to it`);
  return parent;
}
