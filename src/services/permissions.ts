// Grants of users and teams on spaces and collections (the description's permission operations).
// Writes need `admin` on the space or collection; lists need `read`. A grant's role `null` means
// "no explicit access": the grant is removed.
import type { AppContext } from '../context.js';
import type { Principal } from '../auth/principal.js';
import { withTx } from '../db/pool.js';
import * as grants from '../db/repos/grants.js';
import type { GrantTarget } from '../db/repos/grants.js';
import { getTeam, getTeams, resolveMemberRefs, teamsInOrganization } from '../db/repos/teams.js';
import { getMember } from '../db/repos/members.js';
import { requireSpace } from '../policies/spaces.js';
import { requireCollection } from '../policies/collections.js';
import { effectiveMembers, type GrantSubject } from '../policies/permissions.js';
import { teamPermissions } from '../policies/teams.js';
import { invalid, notFound } from '../core/errors.js';
import { decodeCursor, DEFAULT_LIMIT, buildPage, pageInMemory } from '../core/pagination.js';
import type { Role } from '../core/roles.js';
import { toTeam } from '../presenters/teams.js';
import { toUser } from '../presenters/users.js';

/** How many users and teams one invitation may name. */
export const MAX_INVITEES = 1000;

interface Loaded {
  orgId: string;
  subject: GrantSubject;
  orgRole: Role | null | undefined;
}

async function load(app: AppContext, p: Principal, target: GrantTarget, id: string, needed: Role): Promise<Loaded> {
  if (target === 'space') {
    const { space, ctx } = await requireSpace(app.db, p, id, needed);
    return { orgId: space.organization_id, subject: { kind: 'space', space }, orgRole: ctx.orgRole };
  }
  const { collection, ctx } = await requireCollection(app.db, p, id, needed);
  return { orgId: collection.organization_id, subject: { kind: 'collection', collection }, orgRole: ctx.orgRole };
}

export async function invite(
  app: AppContext,
  p: Principal,
  target: GrantTarget,
  id: string,
  body: { role: Role | null; teams?: string[]; users?: string[] },
) {
  const { orgId } = await load(app, p, target, id, 'admin');
  const teams = [...new Set(body.teams ?? [])];
  const refs = [...new Set(body.users ?? [])];
  if (!teams.length && !refs.length) throw invalid('Invalid request: body: give at least one of "teams" or "users"');
  if (teams.length + refs.length > MAX_INVITEES) throw invalid(`Invalid request: body: at most ${MAX_INVITEES} users and teams`);
  const known = await teamsInOrganization(app.db, orgId, teams);
  const unknownTeams = teams.filter((t) => !known.has(t));
  if (unknownTeams.length) throw invalid(`Invalid request: body.teams: unknown teams: ${unknownTeams.slice(0, 5).join(', ')}`);
  const users = await resolveMemberRefs(app.db, orgId, refs);
  const unknownUsers = refs.filter((r) => !users.has(r));
  if (unknownUsers.length) {
    throw invalid(`Invalid request: body.users: not members of this organization: ${unknownUsers.slice(0, 5).join(', ')}`);
  }
  await withTx(app.db, async (c) => {
    for (const teamId of teams) {
      if (body.role) await grants.setTeamGrant(c, target, id, teamId, body.role);
      else await grants.deleteTeamGrant(c, target, id, teamId);
    }
    for (const userId of new Set(users.values())) {
      if (body.role) await grants.setUserGrant(c, target, id, userId, body.role);
      else await grants.deleteUserGrant(c, target, id, userId);
    }
  });
}

export async function listTeamGrants(app: AppContext, p: Principal, target: GrantTarget, id: string, q: { page?: string; limit?: number }) {
  const { orgId, orgRole } = await load(app, p, target, id, 'read');
  const limit = q.limit ?? DEFAULT_LIMIT;
  const after = decodeCursor(q.page, 1)?.[0] as string | undefined;
  const { rows, count } = await grants.listTeamGrants(app.db, target, id, { limit, after });
  const teams = new Map(
    (
      await getTeams(
        app.db,
        rows.map((r) => r.team_id),
      )
    ).map((t) => [t.id, t]),
  );
  return buildPage(
    rows,
    limit,
    count,
    (r) => [r.team_id],
    (r) => ({
      permission: r.role,
      // Team-level permissions need the caller's team role; the organization role is enough to say what they may do here.
      team: toTeam(app, orgId, teams.get(r.team_id)!, teamPermissions(orgRole ?? null, null)),
    }),
  );
}

export async function listUserGrants(app: AppContext, p: Principal, target: GrantTarget, id: string, q: { page?: string; limit?: number }) {
  await load(app, p, target, id, 'read');
  const limit = q.limit ?? DEFAULT_LIMIT;
  const after = decodeCursor(q.page, 1)?.[0] as string | undefined;
  const { rows, count } = await grants.listUserGrants(app.db, target, id, { limit, after });
  return buildPage(
    rows,
    limit,
    count,
    (r) => [r.user_id],
    (r) => ({ permission: r.role, user: toUser(app, { id: r.user_id, ...r }) }),
  );
}

export async function updateTeamGrant(app: AppContext, p: Principal, target: GrantTarget, id: string, teamId: string, role: Role | null) {
  const { orgId } = await load(app, p, target, id, 'admin');
  if (!(await getTeam(app.db, orgId, teamId))) throw notFound(`Team "${teamId}" not found`);
  if (role) await grants.setTeamGrant(app.db, target, id, teamId, role);
  else await grants.deleteTeamGrant(app.db, target, id, teamId);
}

export async function updateUserGrant(app: AppContext, p: Principal, target: GrantTarget, id: string, userId: string, role: Role | null) {
  const { orgId } = await load(app, p, target, id, 'admin');
  if (!(await getMember(app.db, orgId, userId))) throw notFound(`User "${userId}" is not a member of this organization`);
  if (role) await grants.setUserGrant(app.db, target, id, userId, role);
  else await grants.deleteUserGrant(app.db, target, id, userId);
}

/** true when a grant was removed (205), false when there was none (204). */
export async function removeTeamGrant(app: AppContext, p: Principal, target: GrantTarget, id: string, teamId: string) {
  await load(app, p, target, id, 'admin');
  return grants.deleteTeamGrant(app.db, target, id, teamId);
}

export async function removeUserGrant(app: AppContext, p: Principal, target: GrantTarget, id: string, userId: string) {
  await load(app, p, target, id, 'admin');
  return grants.deleteUserGrant(app.db, target, id, userId);
}

/** Every member who can reach the space or collection, with their effective role (own, teams', inherited). */
export async function aggregate(
  app: AppContext,
  p: Principal,
  target: GrantTarget,
  id: string,
  q: { page?: string; limit?: number; role?: Role },
) {
  const { subject } = await load(app, p, target, id, 'read');
  const list = (await effectiveMembers(app.db, subject)).filter((x) => !q.role || x.role === q.role);
  return pageInMemory(
    list,
    q,
    (x) => [x.member.user_id],
    (x) => ({ permission: x.role, user: toUser(app, { id: x.member.user_id, ...x.member }) }),
  );
}
