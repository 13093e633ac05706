import type { Queryable } from '../db/pool.js';
import type { Principal } from '../auth/principal.js';
import type { Role } from '../core/roles.js';
import { atLeast, maxRole } from '../core/roles.js';
import { listSpaces, type SpaceRow } from '../db/repos/spaces.js';
import { spaceGrantsOfUser } from '../db/repos/grants.js';
import { accessRows, spaceWithAccessRows, type AccessRows } from '../db/repos/access.js';
import { blockedBySso } from './sso.js';
import { forbidden, notFound } from '../core/errors.js';
import type { SpacePermissions } from '../presenters/spaces.js';

/** The collections of an organization as access checks walk them: id -> parent and defaultLevel. */
type CollectionChain = Map<string, { parent: string | null; level: string | null }>;

export interface AccessContext {
  /** The caller's organization role; null for a guest; undefined when not a member. */
  orgRole: Role | null | undefined;
  collections: CollectionChain;
  /**
   * The caller's explicit grants on collections, their own and their teams' (the highest per
   * collection). They reach every space and collection inside.
   */
  grants?: Map<string, Role>;
}

/** The highest of a list of granted roles (null when empty). */
export function highestRole(roles: Iterable<string> | undefined): Role | null {
  let best: Role | null = null;
  for (const r of roles ?? []) best = maxRole(best, r as Role);
  return best;
}

/**
 * The access context of a user in an organization. Given the caller's principal rather than a bare
 * user id, an organization that enforces SSO treats a credential its SSO did not issue as a
 * non-member's (see blockedBySso).
 */
export async function accessContext(db: Queryable, orgId: string, who: string | Principal): Promise<AccessContext> {
  return (await accessWithSpaceGrants(db, orgId, who, [])).ctx;
}

/**
 * accessContext, and the caller's explicit grants on `spaceIds` (as spaceGrants gives them), read
 * in one statement.
 */
export async function accessWithSpaceGrants(
  db: Queryable,
  orgId: string,
  who: string | Principal,
  spaceIds: string[],
): Promise<{ ctx: AccessContext; spaceGrants: Map<string, Role> }> {
  const userId = typeof who === 'string' ? who : who.userId;
  return fromAccessRows(await accessRows(db, orgId, userId, spaceIds), orgId, who);
}

/** What accessWithSpaceGrants gives, from the rows of the access statement. */
function fromAccessRows(rows: AccessRows, orgId: string, who: string | Principal): { ctx: AccessContext; spaceGrants: Map<string, Role> } {
  let orgRole = rows.member && !rows.member.disabled ? (rows.member.role as Role | null) : undefined;
  if (typeof who !== 'string' && blockedBySso(rows.sso, orgId, orgRole, who)) orgRole = undefined;
  const collections: CollectionChain = new Map(rows.collections.map((c) => [c.id, { parent: c.parent, level: c.level }]));
  return {
    ctx: { orgRole, collections, grants: highestPer(rows.collectionGrants) },
    spaceGrants: highestPer(rows.spaceGrants),
  };
}

/** [id, role] pairs -> id -> the highest role. */
function highestPer(pairs: [string, string][]): Map<string, Role> {
  const out = new Map<string, Role>();
  for (const [id, role] of pairs) out.set(id, maxRole(out.get(id) ?? null, role as Role)!);
  return out;
}

/** The highest grant the caller holds on collection `id` or any collection above it. */
export function grantOnChain(ctx: Pick<AccessContext, 'collections' | 'grants'>, id: string | null): Role | null {
  if (!ctx.grants?.size) return null;
  const seen = new Set<string>();
  let best: Role | null = null;
  for (let cur = id; cur && !seen.has(cur); cur = ctx.collections.get(cur)?.parent ?? null) {
    seen.add(cur);
    best = maxRole(best, ctx.grants.get(cur));
  }
  return best;
}

/** The caller's explicit grants (own and teams') on each of `spaceIds`: space id -> highest role. */
export async function spaceGrants(db: Queryable, userId: string, spaceIds: string[]): Promise<Map<string, Role>> {
  const grants = await spaceGrantsOfUser(db, userId, spaceIds);
  return new Map([...grants].map(([id, roles]) => [id, highestRole(roles)!]));
}

/**
 * The default level a piece of content grants an organization member: its own `defaultLevel`,
 * or, when 'inherit', its parent collection's, and so on up the chain. Where the chain reaches
 * the top (no parent, a parent not in `ctx.collections`, or a loop) it yields `top`: by default
 * the member's own organization role; `'inherit'` asks where the collections alone lead (a
 * collection's delete keeps that level on the spaces it detaches).
 */
export function inheritedLevel(ctx: AccessContext, level: string | null, parentId: string | null): Role | null;
export function inheritedLevel<T>(
  ctx: Pick<AccessContext, 'collections'>,
  level: string | null,
  parentId: string | null,
  top: T,
): Role | null | T;
export function inheritedLevel(
  ctx: Pick<AccessContext, 'collections'> & { orgRole?: Role | null },
  level: string | null,
  parentId: string | null,
  top: unknown = ctx.orgRole ?? null,
): unknown {
  const seen = new Set<string>();
  let current = level;
  let parent = parentId;
  while (current === 'inherit') {
    if (!parent || seen.has(parent)) return top;
    seen.add(parent);
    const c = ctx.collections.get(parent);
    if (!c) return top;
    current = c.level;
    parent = c.parent;
  }
  return current as Role | null;
}

/**
 * The caller's effective role on a space: organization admins administer everything; otherwise the
 * highest of their explicit grants (their own and their teams', on the space or on a collection
 * above it) and the inherited default level (guests get only explicit grants).
 * Spaces with visibility `in-collection` take their collection's level. Anyone signed in may read
 * public and unlisted spaces. null: no access at all.
 */
export function spaceRole(ctx: AccessContext, space: SpaceRow, explicit: Role | undefined): Role | null {
  if (ctx.orgRole === 'admin') return 'admin';
  let base: Role | null = null;
  if (ctx.orgRole) {
    const own = space.visibility === 'in-collection' ? 'inherit' : space.default_level;
    base = inheritedLevel(ctx, own, space.parent_id);
  }
  // Explicit grants count only for members (a removed or disabled member keeps nothing).
  const granted = ctx.orgRole === undefined ? null : maxRole(explicit, grantOnChain(ctx, space.parent_id));
  let role = maxRole(granted, base);
  if (!role && (space.visibility === 'public' || space.visibility === 'unlisted')) role = 'read';
  return role;
}

export function spacePermissions(role: Role | null): SpacePermissions {
  return {
    view: atLeast(role, 'read'),
    access: atLeast(role, 'read'),
    admin: atLeast(role, 'admin'),
    viewInviteLinks: atLeast(role, 'admin'),
    edit: atLeast(role, 'edit'),
    triggerGitSync: atLeast(role, 'edit'),
    comment: atLeast(role, 'comment'),
    merge: atLeast(role, 'review'),
    review: atLeast(role, 'review'),
    installIntegration: atLeast(role, 'admin'),
  };
}

/** `userId`'s role on a loaded space (see spaceRole), with the context it was computed in. */
export async function roleOnSpace(
  db: Queryable,
  who: string | Principal,
  space: SpaceRow,
): Promise<{ role: Role | null; ctx: AccessContext }> {
  const { ctx, spaceGrants: grants } = await accessWithSpaceGrants(db, space.organization_id, who, [space.id]);
  return { role: spaceRole(ctx, space, grants.get(space.id)), ctx };
}

interface SpaceAccess {
  space: SpaceRow;
  role: Role;
  ctx: AccessContext;
}

/**
 * Load a space and require `needed` on it. A space the caller cannot see at all is a 404 (its
 * existence is not revealed); one they see but may not change is a 403.
 */
export async function requireSpace(
  db: Queryable,
  p: Principal,
  spaceId: string,
  needed: Role = 'read',
  opts: { includeDeleted?: boolean; counters?: boolean } = {},
): Promise<SpaceAccess> {
  // Counters only for callers that present the space (see getSpace). The space and what the
  // access check needs come in one statement.
  const found = await spaceWithAccessRows(db, spaceId, p.userId, { includeDeleted: opts.includeDeleted, counters: opts.counters ?? false });
  if (!found) throw notFound(`Space "${spaceId}" not found`);
  const { space } = found;
  const { ctx, spaceGrants: grants } = fromAccessRows(found.access, space.organization_id, p);
  const role = spaceRole(ctx, space, grants.get(space.id));
  if (!role) throw notFound(`Space "${spaceId}" not found`);
  if (!atLeast(role, needed)) throw forbidden(`Your role on this space (${role}) does not allow this action`);
  return { space, role, ctx };
}

/**
 * Spaces (under `parentId` when given) that `userId` can see, each with that user's role, in the
 * stable sibling order (position, created, id).
 */
export async function visibleSpaces(app: { db: Queryable }, orgId: string, userId: string, parentId?: string | null) {
  const ctx = await accessContext(app.db, orgId, userId);
  const { rows } = await listSpaces(app.db, { orgId, parentId }, 100_000);
  const explicit = await spaceGrants(
    app.db,
    userId,
    rows.map((r) => r.id),
  );
  return rows
    .map((space) => ({ space, role: spaceRole(ctx, space, explicit.get(space.id)) }))
    .filter((x): x is { space: SpaceRow & { created_key: string }; role: Role } => x.role !== null);
}

/** One entry of visibleSpaces. */
export type VisibleSpace = Awaited<ReturnType<typeof visibleSpaces>>[number];
