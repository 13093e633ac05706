// Explicit site grants for users and teams (the site's own tables; teams are shared with issue 10).
import type { Queryable } from '../pool.js';

/** The user's own grant on each site and the grants of the teams they belong to (one row per grant). */
export async function siteGrantsOf(db: Queryable, userId: string, siteIds: string[]): Promise<{ site_id: string; role: string }[]> {
  if (!siteIds.length) return [];
  const { rows } = await db.query(
    `SELECT site_id, role FROM site_user_permissions WHERE user_id = $1 AND site_id = ANY($2)
     UNION ALL
     SELECT stp.site_id, stp.role FROM site_team_permissions stp JOIN team_members tm ON tm.team_id = stp.team_id
      WHERE tm.user_id = $1 AND stp.site_id = ANY($2)`,
    [userId, siteIds],
  );
  return rows;
}

export async function setSiteUserPermission(db: Queryable, siteId: string, userId: string, role: string): Promise<void> {
  await db.query(
    `INSERT INTO site_user_permissions (site_id, user_id, role) VALUES ($1, $2, $3)
     ON CONFLICT (site_id, user_id) DO UPDATE SET role = EXCLUDED.role`,
    [siteId, userId, role],
  );
}

export async function setSiteTeamPermission(db: Queryable, siteId: string, teamId: string, role: string): Promise<void> {
  await db.query(
    `INSERT INTO site_team_permissions (site_id, team_id, role) VALUES ($1, $2, $3)
     ON CONFLICT (site_id, team_id) DO UPDATE SET role = EXCLUDED.role`,
    [siteId, teamId, role],
  );
}

export async function deleteSiteUserPermission(db: Queryable, siteId: string, userId: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM site_user_permissions WHERE site_id = $1 AND user_id = $2', [siteId, userId]);
  return (rowCount ?? 0) > 0;
}

export async function deleteSiteTeamPermission(db: Queryable, siteId: string, teamId: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM site_team_permissions WHERE site_id = $1 AND team_id = $2', [siteId, teamId]);
  return (rowCount ?? 0) > 0;
}

export async function listSiteUserPermissions(db: Queryable, siteId: string) {
  const { rows } = await db.query<{ user_id: string; role: string; display_name: string; email: string; photo_url: string | null }>(
    `SELECT sup.user_id, sup.role, u.display_name, u.email, u.photo_url
       FROM site_user_permissions sup JOIN users u ON u.id = sup.user_id WHERE sup.site_id = $1 ORDER BY u.display_name, u.id`,
    [siteId],
  );
  return rows;
}

/** Which of `userIds` are members of `orgId` (guests included). */
export async function membersOf(db: Queryable, orgId: string, userIds: string[]): Promise<string[]> {
  if (!userIds.length) return [];
  const { rows } = await db.query('SELECT user_id FROM members WHERE organization_id = $1 AND user_id = ANY($2)', [orgId, userIds]);
  return rows.map((r) => r.user_id);
}

export async function listSiteTeamPermissions(db: Queryable, siteId: string) {
  const { rows } = await db.query<{ team_id: string; role: string; title: string; created_at: Date; members: number }>(
    `SELECT stp.team_id, stp.role, t.title, t.created_at, (SELECT count(*) FROM team_members x WHERE x.team_id = t.id) AS members
       FROM site_team_permissions stp JOIN teams t ON t.id = stp.team_id WHERE stp.site_id = $1 ORDER BY t.created_at, t.id`,
    [siteId],
  );
  return rows;
}

/** Which of `teamIds` are teams of `orgId`. */
export async function teamsInOrg(db: Queryable, orgId: string, teamIds: string[]): Promise<string[]> {
  if (!teamIds.length) return [];
  const { rows } = await db.query('SELECT id FROM teams WHERE organization_id = $1 AND id = ANY($2)', [orgId, teamIds]);
  return rows.map((r) => r.id);
}

/** Every user the site's team grants reach: one row per (user, team grant). */
export async function teamGrantsByUser(db: Queryable, siteId: string) {
  const { rows } = await db.query<{ user_id: string; team_id: string; role: string }>(
    `SELECT tm.user_id, stp.team_id, stp.role FROM site_team_permissions stp JOIN team_members tm ON tm.team_id = stp.team_id
      WHERE stp.site_id = $1 ORDER BY stp.team_id`,
    [siteId],
  );
  return rows;
}

/** Users in `teamId`. */
export async function teamMemberIds(db: Queryable, teamId: string): Promise<string[]> {
  const { rows } = await db.query('SELECT user_id FROM team_members WHERE team_id = $1', [teamId]);
  return rows.map((r) => r.user_id);
}
