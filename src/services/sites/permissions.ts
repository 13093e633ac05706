/**
 * Site permission grants for users and teams, like those on spaces: a grant raises the member's
 * (or every team member's) role on the site; the effective role is the highest of the site's
 * default level, the own grant and the teams' grants (src/policies/sites.ts). Granting `null`
 * (guest) removes the grant. Users must be members of the organization and teams its teams (400
 * naming them otherwise). Site admins only.
 */
import type { AppContext } from '../../context.js';
import type { Principal } from '../../auth/principal.js';
import { withTx } from '../../db/pool.js';
import * as repo from '../../db/repos/site-permissions.js';
import { bumpSiteVersion } from '../../db/repos/sites.js';
import { requireSite } from '../../policies/sites.js';
import { invalid, notFound } from '../../core/errors.js';
import { pageInMemory } from '../../core/pagination.js';
import { toUser } from '../../presenters/users.js';
import { listMembers, type MemberSort } from '../../db/repos/members.js';
import { maxRole, type Role } from '../../core/roles.js';
import { toSiteTeam } from '../../presenters/sites.js';

export async function inviteToSite(
  app: AppContext,
  p: Principal,
  orgId: string,
  siteId: string,
  body: { role: string | null; users?: string[]; teams?: string[] },
) {
  await requireSite(app.db, p, orgId, siteId, 'admin');
  const users = [...new Set(body.users ?? [])];
  const teams = [...new Set(body.teams ?? [])];
  const knownUsers = new Set(await repo.membersOf(app.db, orgId, users));
  const knownTeams = new Set(await repo.teamsInOrg(app.db, orgId, teams));
  const missingUsers = users.filter((u) => !knownUsers.has(u));
  if (missingUsers.length) throw invalid(`Invalid request: body.users: not members of this organization: ${missingUsers.join(', ')}`);
  const missingTeams = teams.filter((x) => !knownTeams.has(x));
  if (missingTeams.length) throw invalid(`Invalid request: body.teams: not teams of this organization: ${missingTeams.join(', ')}`);
  await withTx(app.db, async (c) => {
    for (const u of users) {
      if (body.role === null) await repo.deleteSiteUserPermission(c, siteId, u);
      else await repo.setSiteUserPermission(c, siteId, u, body.role);
    }
    for (const team of teams) {
      if (body.role === null) await repo.deleteSiteTeamPermission(c, siteId, team);
      else await repo.setSiteTeamPermission(c, siteId, team, body.role);
    }
    await bumpSiteVersion(c, siteId);
  });
}

export async function listUserPermissions(
  app: AppContext,
  p: Principal,
  orgId: string,
  siteId: string,
  q: { page?: string; limit?: number },
) {
  await requireSite(app.db, p, orgId, siteId, 'admin');
  const rows = (await repo.listSiteUserPermissions(app.db, siteId)).map((r, i) => ({ r, i }));
  return pageInMemory(
    rows,
    q,
    (x) => [x.i],
    ({ r }) => ({
      permission: r.role,
      user: toUser(app, { id: r.user_id, display_name: r.display_name, email: r.email, photo_url: r.photo_url }),
    }),
  );
}

export async function listTeamPermissions(
  app: AppContext,
  p: Principal,
  orgId: string,
  siteId: string,
  q: { page?: string; limit?: number },
) {
  const { role } = await requireSite(app.db, p, orgId, siteId, 'admin');
  const rows = (await repo.listSiteTeamPermissions(app.db, siteId)).map((r, i) => ({ r, i }));
  return pageInMemory(
    rows,
    q,
    (x) => [x.i],
    ({ r }) => ({ permission: r.role, team: toSiteTeam(app, orgId, r, role === 'admin') }),
  );
}

export async function updateGrant(
  app: AppContext,
  p: Principal,
  orgId: string,
  siteId: string,
  kind: 'user' | 'team',
  id: string,
  role: string,
) {
  await requireSite(app.db, p, orgId, siteId, 'admin');
  const exists =
    kind === 'user'
      ? (await repo.listSiteUserPermissions(app.db, siteId)).some((r) => r.user_id === id)
      : (await repo.listSiteTeamPermissions(app.db, siteId)).some((r) => r.team_id === id);
  if (!exists) throw notFound(`No ${kind} permission for "${id}" on this site`);
  if (kind === 'user') await repo.setSiteUserPermission(app.db, siteId, id, role);
  else await repo.setSiteTeamPermission(app.db, siteId, id, role);
  await bumpSiteVersion(app.db, siteId);
}

/** 204 whether or not there was a grant. */
export async function removeGrant(app: AppContext, p: Principal, orgId: string, siteId: string, kind: 'user' | 'team', id: string) {
  await requireSite(app.db, p, orgId, siteId, 'admin');
  const removed =
    kind === 'user' ? await repo.deleteSiteUserPermission(app.db, siteId, id) : await repo.deleteSiteTeamPermission(app.db, siteId, id);
  if (removed) await bumpSiteVersion(app.db, siteId);
}

type Origin =
  { type: 'organization'; organization: string } | { type: 'site'; site: string; reason: 'member' | 'team' | 'default'; team?: string };

/**
 * Everyone with access to the site and where their level comes from: organization admins (origin
 * organization), else the highest of their own grant (reason member), a team grant (reason team)
 * and the default level (reason default), in that order on ties. Filters: `role` (an effective
 * role, or `guest` for guests of the organization), `search` (name or e-mail), `team`.
 */
export async function listAggregate(
  app: AppContext,
  p: Principal,
  orgId: string,
  siteId: string,
  q: { page?: string; limit?: number; role?: string; search?: string; team?: string; sort?: MemberSort; order?: 'asc' | 'desc' },
) {
  const { site } = await requireSite(app.db, p, orgId, siteId, 'admin');
  const [{ rows: members }, users, teamGrants, inTeam] = await Promise.all([
    listMembers(app.db, orgId, { sort: 'name', order: 'asc', search: q.search, limit: 100_000 }),
    repo.listSiteUserPermissions(app.db, siteId),
    repo.teamGrantsByUser(app.db, siteId),
    q.team ? repo.teamMemberIds(app.db, q.team) : Promise.resolve(null),
  ]);
  const own = new Map(users.map((u) => [u.user_id, u.role]));
  const items: { m: (typeof members)[number]; role: Role; origin: Origin }[] = [];
  for (const m of members) {
    if (m.disabled || (inTeam && !inTeam.includes(m.user_id))) continue;
    const candidates: [string | null | undefined, Origin][] =
      m.role === 'admin'
        ? [['admin', { type: 'organization', organization: orgId }]]
        : [
            [own.get(m.user_id), { type: 'site', site: siteId, reason: 'member' }],
            ...teamGrants
              .filter((x) => x.user_id === m.user_id)
              .map((g): [string, Origin] => [g.role, { type: 'site', site: siteId, reason: 'team', team: g.team_id }]),
            [
              m.role ? (site.default_level === 'inherit' ? m.role : site.default_level) : null,
              { type: 'site', site: siteId, reason: 'default' },
            ],
          ];
    let best: { role: Role; origin: Origin } | null = null;
    for (const [r, origin] of candidates)
      if (r && (!best || maxRole(best.role, r as Role) !== best.role)) best = { role: r as Role, origin };
    if (!best) continue;
    if (q.role === 'guest' ? m.role !== null : q.role && q.role !== best.role) continue;
    items.push({ m, ...best });
  }
  const sort = q.sort ?? 'joinedAt';
  const key = (x: (typeof items)[number]): (string | number)[] => [
    sort === 'name' ? x.m.display_name.toLowerCase() : sort === 'lastSeenAt' ? (x.m.last_seen_at?.getTime() ?? 0) : x.m.joined_at.getTime(),
    x.m.user_id,
  ];
  return pageInMemory(
    items,
    q,
    key,
    (x) => ({
      permission: x.role,
      user: toUser(app, { id: x.m.user_id, display_name: x.m.display_name, email: x.m.email, photo_url: x.m.photo_url }),
      origin: x.origin,
      disabled: x.m.disabled,
      ...(x.m.last_seen_at ? { lastSeenAt: x.m.last_seen_at.toISOString() } : {}),
    }),
    (q.order ?? 'desc') === 'desc',
  );
}
