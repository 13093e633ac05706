import type { AppContext } from '../context.js';
import type { Principal } from '../auth/principal.js';
import { withTx } from '../db/pool.js';
import * as members from '../db/repos/members.js';
import type { MemberSort } from '../db/repos/members.js';
import { lockOrganization } from '../db/repos/organizations.js';
import { deleteSpaceGrantsInOrganization } from '../db/repos/spaces.js';
import { deleteCollectionGrantsInOrganization } from '../db/repos/grants.js';
import { deleteTeamMembershipsInOrganization, listTeamsOfMember } from '../db/repos/teams.js';
import { buildPage, decodeCursor, DEFAULT_LIMIT, pageInMemory } from '../core/pagination.js';
import { conflict, forbidden, notFound } from '../core/errors.js';
import type { Role } from '../core/roles.js';
import { signJwt } from '../auth/jwt.js';
import { requireOrg } from '../policies/organizations.js';
import { spacePermissions, visibleSpaces } from '../policies/spaces.js';
import { toMember } from '../presenters/users.js';
import { toSpace } from '../presenters/spaces.js';
import { toTeam } from '../presenters/teams.js';

interface MemberListQuery {
  page?: string;
  limit?: number;
  order: 'asc' | 'desc';
  sort: MemberSort;
  role?: string;
  search?: string;
}

export async function listMembers(app: AppContext, p: Principal, orgId: string, q: MemberListQuery) {
  await requireOrg(app.db, p, orgId, 'listMembers');
  const limit = q.limit ?? DEFAULT_LIMIT;
  const after = decodeCursor(q.page, 2) as [string, string] | undefined;
  const { rows, count } = await members.listMembers(app.db, orgId, { ...q, limit, after });
  return buildPage(
    rows,
    limit,
    count,
    (r) => [r.sort_key, r.user_id],
    (r) => toMember(app, r),
  );
}

export async function getMember(app: AppContext, p: Principal, orgId: string, userId: string) {
  await requireOrg(app.db, p, orgId, p.userId === userId ? 'view' : 'listMembers');
  const m = await members.getMember(app.db, orgId, userId);
  if (!m) throw notFound(`User "${userId}" is not a member of organization "${orgId}"`);
  return toMember(app, m);
}

/** Changing a role keeps at least one enabled admin in the organization (409 otherwise). */
export async function updateMemberRole(app: AppContext, p: Principal, orgId: string, userId: string, role: Role | null) {
  await requireOrg(app.db, p, orgId, 'admin');
  await withTx(app.db, async (c) => {
    // One lock per organization first: concurrent role changes queue instead of deadlocking.
    await lockOrganization(c, orgId);
    const m = await members.getMember(c, orgId, userId);
    if (!m) throw notFound(`User "${userId}" is not a member of organization "${orgId}"`);
    if (m.role === 'admin' && role !== 'admin' && (await members.countOtherAdmins(c, orgId, userId)) === 0) {
      throw conflict('An organization must keep at least one admin: promote another member first');
    }
    await members.updateMemberRole(c, orgId, userId, role);
  });
  return getMember(app, p, orgId, userId);
}

/** Admins remove anyone; a member may remove themself. 204 whether or not the user was a member. */
export async function removeMember(app: AppContext, p: Principal, orgId: string, userId: string) {
  await requireOrg(app.db, p, orgId, p.userId === userId ? 'view' : 'admin');
  await withTx(app.db, async (c) => {
    await lockOrganization(c, orgId);
    const m = await members.getMember(c, orgId, userId);
    if (!m) return;
    if (m.role === 'admin' && (await members.countOtherAdmins(c, orgId, userId)) === 0) {
      throw conflict('The last admin cannot leave the organization: promote another member first');
    }
    await members.deleteMember(c, orgId, userId);
    // Explicit space grants belong to the membership: they go with it.
    await deleteSpaceGrantsInOrganization(c, orgId, userId);
    await deleteTeamMembershipsInOrganization(c, orgId, userId);
    await deleteCollectionGrantsInOrganization(c, orgId, userId);
  });
}

export async function ping(app: AppContext, p: Principal, orgId: string) {
  const { role } = await requireOrg(app.db, p, orgId, 'view');
  await members.touchLastSeen(app.db, orgId, p.userId);
  const token = signJwt({ sub: p.userId, org: orgId, role }, app.secret, 3600);
  // The seeds name the field serviceVisitorClaims; the public client reads gitbookVisitorClaims.
  return { serviceVisitorClaims: token, gitbookVisitorClaims: token };
}

export async function setSsoMember(app: AppContext, p: Principal, orgId: string, userId: string) {
  await requireOrg(app.db, p, orgId, 'admin');
  if (!(await members.setMemberSso(app.db, orgId, userId))) {
    throw notFound(`User "${userId}" is not a member of organization "${orgId}"`);
  }
  return getMember(app, p, orgId, userId);
}

/** The caller's organization permissions, once they may look at `userId`'s memberships. */
async function requireSelfOrAdmin(app: AppContext, p: Principal, orgId: string, userId: string) {
  const { permissions } = await requireOrg(app.db, p, orgId, 'view');
  if (p.userId !== userId && !permissions.admin) throw forbidden('Only admins can see the memberships of another member');
  if (!(await members.getMember(app.db, orgId, userId))) {
    throw notFound(`User "${userId}" is not a member of organization "${orgId}"`);
  }
  return permissions;
}

export async function listMemberTeams(
  app: AppContext,
  p: Principal,
  orgId: string,
  userId: string,
  q: { page?: string; limit?: number; title?: string },
) {
  const isAdmin = (await requireSelfOrAdmin(app, p, orgId, userId)).admin;
  const limit = q.limit ?? DEFAULT_LIMIT;
  const after = decodeCursor(q.page, 2) as [string, string] | undefined;
  const { rows, count } = await listTeamsOfMember(app.db, orgId, userId, { title: q.title, limit, after });
  return buildPage(
    rows,
    limit,
    count,
    (r) => [r.sort_key, r.id],
    (r) => ({
      // A team's owners administer it, besides the organization's admins.
      team: toTeam(app, orgId, r, { admin: isAdmin || (p.userId === userId && r.role === 'owner'), view: true }),
      member: { role: r.role },
    }),
  );
}

/** Every space of the organization the member can access, with their real permission on it. */
export async function listMemberSpaces(
  app: AppContext,
  p: Principal,
  orgId: string,
  userId: string,
  q: { page?: string; limit?: number; order: 'asc' | 'desc' },
) {
  await requireSelfOrAdmin(app, p, orgId, userId);
  return pageInMemory(
    await visibleSpaces(app, orgId, userId),
    q,
    (v) => [v.space.created_key, v.space.id],
    (v) => ({ permission: v.role, space: toSpace(app, v.space, spacePermissions(v.role)) }),
    q.order === 'desc',
  );
}
