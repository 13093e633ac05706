// Teams of an organization and their members.
import type { AppContext } from '../context.js';
import type { Principal } from '../auth/principal.js';
import { withTx } from '../db/pool.js';
import * as repo from '../db/repos/teams.js';
import type { TeamRole, TeamRow } from '../db/repos/teams.js';
import { buildPage, decodeCursor, DEFAULT_LIMIT } from '../core/pagination.js';
import { invalid, notFound } from '../core/errors.js';
import { requireOrg } from '../policies/organizations.js';
import { requireTeam, teamPermissions } from '../policies/teams.js';
import type { Role } from '../core/roles.js';
import { getMember } from '../db/repos/members.js';
import { toTeam, toTeamMember } from '../presenters/teams.js';
import { newId } from '../util/ids.js';

/** How many users one request may name (create's `members`, bulk `add`/`remove`/`memberships`). */
export const MAX_MEMBERS_PER_REQUEST = 1000;

async function present(app: AppContext, p: Principal, orgId: string, orgRole: Role | null, team: TeamRow) {
  return toTeam(app, orgId, team, teamPermissions(orgRole, await repo.teamMemberRole(app.db, team.id, p.userId)));
}

export async function listTeams(
  app: AppContext,
  p: Principal,
  orgId: string,
  q: { page?: string; limit?: number; owner?: string; title?: string },
) {
  const { role } = await requireOrg(app.db, p, orgId, 'view');
  const limit = q.limit ?? DEFAULT_LIMIT;
  const after = decodeCursor(q.page, 2) as [string, string] | undefined;
  const filter: { memberOf?: string; ownerOnly?: boolean } = {};
  if (q.owner) {
    // Only the teams that member can manage: all of them for an admin, the ones they own otherwise.
    const owner = await getMember(app.db, orgId, q.owner);
    if (!owner) return { items: [], count: 0 };
    if (!(owner.role === 'admin' && !owner.disabled)) Object.assign(filter, { memberOf: q.owner, ownerOnly: true });
  }
  // Guests see only the teams they belong to.
  if (role === null) {
    if (filter.memberOf && filter.memberOf !== p.userId) return { items: [], count: 0 };
    filter.memberOf = p.userId;
  }
  const { rows, count } = await repo.listTeams(app.db, orgId, { title: q.title, ...filter, limit, after });
  const page = buildPage(
    rows,
    limit,
    count,
    (r) => [r.sort_key, r.id],
    (r) => r,
  );
  const items = await Promise.all(page.items.map((t) => present(app, p, orgId, role, t)));
  return { ...page, items };
}

/** Resolve user ids or e-mails to members of the organization: 400 naming `field` and the unknown ones. */
async function resolveMembers(app: AppContext, orgId: string, refs: string[], field: string): Promise<Map<string, string>> {
  const unique = [...new Set(refs)];
  const found = await repo.resolveMemberRefs(app.db, orgId, unique);
  const missing = unique.filter((r) => !found.has(r));
  if (missing.length) {
    const shown = missing.slice(0, 5).map((r) => `"${r}"`);
    throw invalid(`Invalid request: ${field}: not members of this organization: ${shown.join(', ')}${missing.length > 5 ? ', ...' : ''}`);
  }
  return found;
}

export async function createTeam(app: AppContext, p: Principal, orgId: string, body: { title: string; members?: string[] }) {
  const { role } = await requireOrg(app.db, p, orgId, 'admin');
  const members = await resolveMembers(app, orgId, body.members ?? [], 'body.members');
  const id = newId();
  await withTx(app.db, async (c) => {
    await repo.insertTeam(c, { id, orgId, title: body.title });
    for (const userId of new Set(members.values())) await repo.addTeamMember(c, id, userId, 'member');
  });
  const team = await repo.getTeam(app.db, orgId, id);
  if (!team) throw notFound(`Team "${id}" not found`);
  return present(app, p, orgId, role, team);
}

export async function getTeam(app: AppContext, p: Principal, orgId: string, teamId: string) {
  const { team, permissions } = await requireTeam(app.db, p, orgId, teamId, 'view');
  return toTeam(app, orgId, team, permissions);
}

export async function updateTeam(app: AppContext, p: Principal, orgId: string, teamId: string, body: { title: string }) {
  const { orgRole } = await requireTeam(app.db, p, orgId, teamId, 'admin');
  await repo.updateTeamTitle(app.db, teamId, body.title);
  const team = await repo.getTeam(app.db, orgId, teamId);
  if (!team) throw notFound(`Team "${teamId}" not found`);
  return present(app, p, orgId, orgRole, team);
}

/** 204 whether or not it existed: a team that is absent (or hidden) is simply gone. */
export async function deleteTeam(app: AppContext, p: Principal, orgId: string, teamId: string) {
  const { role } = await requireOrg(app.db, p, orgId, 'view');
  const team = await repo.getTeam(app.db, orgId, teamId);
  if (!team) return;
  if (!teamPermissions(role, await repo.teamMemberRole(app.db, teamId, p.userId)).view) return;
  await requireTeam(app.db, p, orgId, teamId, 'admin');
  await repo.deleteTeam(app.db, orgId, teamId);
}

export async function listTeamMembers(app: AppContext, p: Principal, orgId: string, teamId: string, q: { page?: string; limit?: number }) {
  await requireTeam(app.db, p, orgId, teamId, 'view');
  const limit = q.limit ?? DEFAULT_LIMIT;
  const after = decodeCursor(q.page, 2) as [string, string] | undefined;
  const { rows, count } = await repo.listTeamMembers(app.db, teamId, { limit, after });
  return buildPage(
    rows,
    limit,
    count,
    (r) => [r.team_key, r.user_id],
    (r) => toTeamMember(app, r, true),
  );
}

export interface BulkMembers {
  add?: string[];
  remove?: string[];
  memberships?: Record<string, { role: TeamRole }>;
}

/**
 * Add, remove and set roles in one transaction (all or nothing). A user named in both `add` and
 * `remove` ends removed. `memberships` sets the role of users added now or already in the team.
 */
export async function updateTeamMembers(app: AppContext, p: Principal, orgId: string, teamId: string, body: BulkMembers) {
  await requireTeam(app.db, p, orgId, teamId, 'admin');
  const add = body.add ?? [];
  const remove = body.remove ?? [];
  const memberships = Object.entries(body.memberships ?? {});
  if (add.length + remove.length + memberships.length > MAX_MEMBERS_PER_REQUEST) {
    throw invalid(`Invalid request: body: at most ${MAX_MEMBERS_PER_REQUEST} users per request`);
  }
  const added = await resolveMembers(app, orgId, add, 'body.add');
  const roles = await resolveMembers(
    app,
    orgId,
    memberships.map(([ref]) => ref),
    'body.memberships',
  );
  // Removing someone who is not a member of the organization (or not in the team) is a no-op.
  const removed = new Set((await repo.resolveMemberRefs(app.db, orgId, [...new Set(remove)])).values());
  await withTx(app.db, async (c) => {
    await repo.lockTeam(c, teamId);
    for (const userId of new Set(added.values())) {
      if (!removed.has(userId)) await repo.ensureTeamMember(c, teamId, userId);
    }
    for (const [ref, { role }] of memberships) {
      const userId = roles.get(ref)!;
      if (removed.has(userId)) continue;
      const current = await repo.teamMemberRole(c, teamId, userId);
      if (!current && !new Set(added.values()).has(userId)) {
        throw invalid(`Invalid request: body.memberships.${ref}: not a member of this team (add them too)`);
      }
      await repo.addTeamMember(c, teamId, userId, role);
    }
    for (const userId of removed) await repo.removeTeamMember(c, teamId, userId);
  });
}

export async function addTeamMember(app: AppContext, p: Principal, orgId: string, teamId: string, userId: string, role: TeamRole) {
  await requireTeam(app.db, p, orgId, teamId, 'admin');
  if (!(await getMember(app.db, orgId, userId))) throw notFound(`User "${userId}" is not a member of organization "${orgId}"`);
  await repo.addTeamMember(app.db, teamId, userId, role);
}

/** 204 whether or not the user was in the team. */
export async function removeTeamMember(app: AppContext, p: Principal, orgId: string, teamId: string, userId: string) {
  await requireTeam(app.db, p, orgId, teamId, 'admin');
  await repo.removeTeamMember(app.db, teamId, userId);
}
