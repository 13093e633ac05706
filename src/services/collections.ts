/**
 * Collections: folders that group spaces (and other collections) in an organization.
 *
 * Access (src/policies/collections.ts). A member's level on a collection is `admin` for
 * organization admins; otherwise the collection's `defaultLevel`, where `inherit` means the parent
 * collection's level, up to the top where it is the member's own organization role
 * (`inheritedLevel`). `null` grants nothing. Guests and non-members have no level on any
 * collection. A collection the caller has no level on is a 404 (its existence is not revealed);
 * one they see but may not change is a 403. Spaces with visibility `in-collection` or defaultLevel
 * `inherit` take their collection's level (see `spaceRole`), so a collection's defaultLevel is what
 * members can do in the spaces inside it.
 *
 * Ordering. Spaces and collections under the same parent share one sibling ordering (`position`);
 * moves use `placeAmongSiblings`.
 *
 * `GET /orgs/{id}/collections?nested=`: `nested=true` (the default, as in the public description)
 * lists every collection the caller can see at any depth, in tree order (each collection followed
 * by its sub-collections, siblings in their sibling order); `nested=false` lists only the top-level
 * collections. A nested collection the caller can see is listed even when its parent is hidden.
 *
 * DELETE cascades. Deleting a collection removes it and every sub-collection, and soft-deletes every
 * space inside them (restorable for 7 days, like DELETE of a space), in one transaction. The caller
 * needs admin on the collection and, unless an organization admin, on every space and
 * sub-collection it contains (403 otherwise), so nobody deletes content they could not delete
 * one by one. Because the collection rows are gone, each space is detached to the top level of the
 * organization: a restore puts it back there, last among the siblings at the time of the delete.
 * So that a restore never widens access, a detached space keeps the level members had in it: its
 * defaultLevel becomes the level it inherited from the collections (`inherit` when that chain ended
 * at the organization role), and visibility `in-collection` becomes `private`. Spaces already in
 * the trash are detached the same way and keep their deletion time. DELETE of a missing collection
 * answers 204, like every delete.
 *
 * Transfer moves the collection with its whole subtree (sub-collections and spaces, deleted ones
 * included) to the top level of the target organization; the caller must administer both.
 * Explicit space grants of users who are not members of the target are dropped.
 */
import type { AppContext } from '../context.js';
import type { Principal } from '../auth/principal.js';
import type { Role } from '../core/roles.js';
import { atLeast } from '../core/roles.js';
import { dropForeignGrants } from '../db/repos/grants.js';
import { withTx } from '../db/pool.js';
import * as repo from '../db/repos/collections.js';
import type { CollectionListRow } from '../db/repos/collections.js';
import * as spacesRepo from '../db/repos/spaces.js';
import { nextPosition } from '../db/repos/siblings.js';
import { isDomainError, invalid, forbidden, notFound } from '../core/errors.js';
import { pageInMemory } from '../core/pagination.js';
import { newId } from '../util/ids.js';
import { requireOrg } from '../policies/organizations.js';
import { accessContext, inheritedLevel, spaceGrants, spacePermissions, spaceRole, visibleSpaces } from '../policies/spaces.js';
import { collectionPermissions, collectionRole, requireCollection, requireParent } from '../policies/collections.js';
import { toCollection } from '../presenters/collections.js';
import { toSpace } from '../presenters/spaces.js';
import { siblingKey } from './space-lists.js';
import { placeAmongSiblings, type Position } from './positions.js';

type DefaultLevel = Role | 'inherit' | null;

export async function getCollection(app: AppContext, p: Principal, collectionId: string) {
  const { collection, role } = await requireCollection(app.db, p, collectionId, 'read');
  return toCollection(app, collection, collectionPermissions(role));
}

export async function createCollection(app: AppContext, p: Principal, orgId: string, input: { title?: string; parent?: string }) {
  await requireOrg(app.db, p, orgId, 'createContent');
  if (input.parent) {
    const ctx = await accessContext(app.db, orgId, p.userId);
    await requireParent(app.db, ctx, orgId, input.parent, 'body.parent');
  }
  const id = newId();
  await withTx(app.db, async (c) => {
    const parentId = input.parent ?? null;
    if (parentId) await repo.lockCollectionRows(c, [parentId]);
    await repo.insertCollection(c, {
      id,
      orgId,
      parentId,
      title: input.title ?? '',
      position: await nextPosition(c, orgId, parentId),
    });
  });
  return getCollection(app, p, id);
}

interface CollectionPatch {
  title?: string;
  description?: string | null;
  defaultLevel?: DefaultLevel;
}

export async function updateCollection(app: AppContext, p: Principal, collectionId: string, patch: CollectionPatch) {
  await requireCollection(app.db, p, collectionId, 'admin');
  await repo.updateCollection(app.db, collectionId, patch);
  return getCollection(app, p, collectionId);
}

/** Spaces directly inside the collection that the caller can see, in sibling order. */
export async function listCollectionSpaces(app: AppContext, p: Principal, collectionId: string, q: { page?: string; limit?: number }) {
  const { collection } = await requireCollection(app.db, p, collectionId, 'read');
  const visible = await visibleSpaces(app, collection.organization_id, p.userId, collection.id);
  return pageInMemory(visible, q, siblingKey, (v) => toSpace(app, v.space, spacePermissions(v.role)));
}

// Tree-order sort key for the organization list: the chain of sibling keys from the top, each
// segment fixed-width hex (position as an order-preserving float encoding, creation time) plus the
// id and a terminator below every id character. A parent's key is a prefix of its children's, so
// plain string comparison gives depth-first order, and the key is a stable keyset cursor.
function sortableFloat(x: number): string {
  const b = Buffer.alloc(8);
  b.writeDoubleBE(x);
  if (b[0] & 0x80) for (let i = 0; i < 8; i++) b[i] = ~b[i] & 0xff;
  else b[0] |= 0x80;
  return b.toString('hex');
}

function treeKeys(rows: CollectionListRow[]): Map<string, string> {
  const byId = new Map(rows.map((r) => [r.id, r]));
  const keys = new Map<string, string>();
  const keyOf = (r: CollectionListRow, seen: Set<string>): string => {
    const known = keys.get(r.id);
    if (known !== undefined) return known;
    const own = `${sortableFloat(r.position)}${Number(r.created_us).toString(16).padStart(16, '0')}${r.id}!`;
    const parent = r.parent_id ? byId.get(r.parent_id) : undefined;
    seen.add(r.id);
    const key = parent && !seen.has(parent.id) ? keyOf(parent, seen) + own : own;
    keys.set(r.id, key);
    return key;
  };
  for (const r of rows) keyOf(r, new Set());
  return keys;
}

export async function listOrgCollections(
  app: AppContext,
  p: Principal,
  orgId: string,
  q: { page?: string; limit?: number; nested: boolean },
) {
  await requireOrg(app.db, p, orgId, 'view');
  const [ctx, rows] = await Promise.all([accessContext(app.db, orgId, p.userId), repo.listOrgCollections(app.db, orgId)]);
  const keys = treeKeys(rows);
  const visible = rows
    .filter((r) => q.nested || r.parent_id === null)
    .map((collection) => ({ collection, role: collectionRole(ctx, collection) }))
    .filter((x): x is { collection: CollectionListRow; role: Role } => x.role !== null);
  return pageInMemory(
    visible,
    q,
    (x) => [keys.get(x.collection.id)!],
    (x) => toCollection(app, x.collection, collectionPermissions(x.role)),
  );
}

export async function moveCollection(
  app: AppContext,
  p: Principal,
  collectionId: string,
  body: { parent?: string | null; position?: Position },
) {
  const { collection, ctx } = await requireCollection(app.db, p, collectionId, 'admin');
  const orgId = collection.organization_id;
  const target = body.parent === undefined ? collection.parent_id : body.parent;
  if (target === collectionId) throw invalid('Invalid request: body.parent: a collection cannot be moved into itself');
  if (target && target !== collection.parent_id) await requireParent(app.db, ctx, orgId, target, 'body.parent');
  await withTx(app.db, async (c) => {
    await repo.lockCollectionTree(c, [orgId]);
    if (target) {
      const subtree = await repo.collectionSubtree(c, collectionId);
      if (subtree.includes(target)) {
        throw invalid('Invalid request: body.parent: a collection cannot be moved into itself or one of its descendants');
      }
      const parent = await repo.getCollection(c, target);
      if (!parent || parent.organization_id !== orgId)
        throw invalid(`Invalid request: body.parent: collection "${target}" does not exist in this organization`);
    }
    const position = await placeAmongSiblings(c, orgId, target, { type: 'collection', id: collectionId }, body.position);
    await repo.setCollectionPlace(c, collectionId, target, position);
  });
  return getCollection(app, p, collectionId);
}

export async function transferCollection(app: AppContext, p: Principal, collectionId: string, targetOrgId: string) {
  const { collection } = await requireCollection(app.db, p, collectionId, 'read');
  const sourceOrgId = collection.organization_id;
  const source = await requireOrg(app.db, p, sourceOrgId, 'view');
  if (!source.permissions.admin) throw forbidden('Only an admin of the source organization can transfer a collection');
  const target = await requireOrg(app.db, p, targetOrgId, 'view');
  if (!target.permissions.admin) throw forbidden(`Only an admin of organization "${targetOrgId}" can transfer a collection into it`);
  if (targetOrgId === sourceOrgId) return getCollection(app, p, collectionId);
  await withTx(app.db, async (c) => {
    await repo.lockCollectionTree(c, [sourceOrgId, targetOrgId]);
    const subtree = await repo.collectionSubtree(c, collectionId);
    await repo.lockCollectionRows(c, subtree);
    const current = await repo.getCollection(c, collectionId);
    if (!current || current.organization_id !== sourceOrgId) throw notFound(`Collection "${collectionId}" not found`);
    const spaces = await spacesRepo.spacesInCollections(c, subtree);
    await repo.setCollectionsOrganization(c, subtree, targetOrgId);
    await repo.setCollectionPlace(c, collectionId, null, await nextPosition(c, targetOrgId, null));
    await spacesRepo.setSpacesOrganizationKeepingParent(
      c,
      spaces.map((s) => s.id),
      targetOrgId,
    );
    await dropForeignGrants(c, 'collection', subtree, targetOrgId);
    await dropForeignGrants(
      c,
      'space',
      spaces.map((s) => s.id),
      targetOrgId,
    );
  });
  return getCollection(app, p, collectionId);
}

/** Cascading delete; see the comment at the top of this file. */
export async function deleteCollection(app: AppContext, p: Principal, collectionId: string) {
  if (!(await repo.getCollection(app.db, collectionId))) return;
  const access = await requireCollection(app.db, p, collectionId, 'admin').catch(async (err: unknown) => {
    // Deleted by a concurrent call since the read above: 204 as for any absent collection.
    if (isDomainError(err, 'not-found') && !(await repo.getCollection(app.db, collectionId))) return null;
    throw err;
  });
  if (!access) return;
  const { collection, ctx } = access;
  const orgId = collection.organization_id;
  await withTx(app.db, async (c) => {
    await repo.lockCollectionTree(c, [orgId]);
    const subtree = await repo.collectionSubtree(c, collectionId);
    if (!subtree.length) return; // deleted meanwhile
    await repo.lockCollectionRows(c, subtree);
    const tree = await repo.listOrgCollections(c, orgId);
    const chain = new Map(tree.map((r) => [r.id, { parent: r.parent_id, level: r.default_level }]));
    const live = { ...ctx, collections: chain };
    const spaces = await spacesRepo.spacesInCollections(c, subtree);
    if (ctx.orgRole !== 'admin') {
      const explicit = await spaceGrants(
        c,
        p.userId,
        spaces.map((s) => s.id),
      );
      const blocked =
        spaces.filter((s) => !s.deleted_at && !atLeast(spaceRole(live, s, explicit.get(s.id)), 'admin')).length +
        tree.filter((r) => subtree.includes(r.id) && !atLeast(collectionRole(live, r), 'admin')).length;
      if (blocked) {
        throw forbidden(
          `Deleting collection "${collectionId}" would delete ${blocked} space(s) or collection(s) inside it that you do not administer`,
        );
      }
    }
    let position = await nextPosition(c, orgId, null);
    for (const s of spaces) {
      const own = s.visibility === 'in-collection' ? 'inherit' : s.default_level;
      await spacesRepo.detachAndSoftDeleteSpace(c, s.id, {
        // The level the collections alone gave it ('inherit' when the chain ends at the organization role).
        defaultLevel: inheritedLevel(live, own, s.parent_id, 'inherit'),
        visibility: s.visibility === 'in-collection' ? 'private' : s.visibility,
        position: position++,
        deletedBy: p.userId,
      });
    }
    await repo.deleteCollectionRow(c, collectionId);
  });
}
