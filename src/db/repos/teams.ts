import type { Queryable } from '../pool.js';
import { SELECT_MEMBER, type MemberRow } from './members.js';

/** A team with its counters. `spaces`: live spaces the team has a grant on, directly or through a collection. */
export interface TeamRow {
  id: string;
  organization_id: string;
  title: string;
  created_at: Date;
  members: number;
  spaces: number;
  sort_key: string;
}

export interface TeamMembershipRow extends TeamRow {
  role: 'owner' | 'member';
}

export type TeamRole = 'owner' | 'member';

const SELECT_TEAM = `t.id, t.organization_id, t.title, t.created_at, t.created_at::text AS sort_key,
  (SELECT count(*)::int FROM team_members x WHERE x.team_id = t.id) AS members,
  (SELECT count(*)::int FROM spaces s
    WHERE s.organization_id = t.organization_id AND s.deleted_at IS NULL AND (
      EXISTS (SELECT 1 FROM space_team_permissions p WHERE p.space_id = s.id AND p.team_id = t.id)
      OR s.parent_id IN (
        WITH RECURSIVE sub (id) AS (
          SELECT collection_id FROM collection_team_permissions WHERE team_id = t.id
          UNION SELECT c.id FROM collections c JOIN sub ON c.parent_id = sub.id)
        SELECT id FROM sub))) AS spaces`;

const likeContains = (s: string) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** Teams of one organization that `userId` belongs to, keyset on (created_at, id). */
export async function listTeamsOfMember(
  db: Queryable,
  orgId: string,
  userId: string,
  o: { title?: string; limit: number; after?: [string, string] },
) {
  const where = ['t.organization_id = $1', 'tm.user_id = $2'];
  const params: unknown[] = [orgId, userId];
  if (o.title) {
    params.push(likeContains(o.title));
    where.push(`t.title ILIKE $${params.length}`);
  }
  const countParams = [...params];
  const countWhere = [...where];
  if (o.after) {
    params.push(o.after[0], o.after[1]);
    where.push(`(t.created_at, t.id) > ($${params.length - 1}::timestamptz, $${params.length})`);
  }
  params.push(o.limit + 1);
  const { rows } = await db.query<TeamMembershipRow>(
    `SELECT ${SELECT_TEAM}, tm.role
       FROM teams t JOIN team_members tm ON tm.team_id = t.id
      WHERE ${where.join(' AND ')} ORDER BY t.created_at, t.id LIMIT $${params.length}`,
    params,
  );
  const { rows: c } = await db.query(
    `SELECT count(*)::int AS n FROM teams t JOIN team_members tm ON tm.team_id = t.id WHERE ${countWhere.join(' AND ')}`,
    countParams,
  );
  return { rows, count: c[0].n as number };
}

/**
 * Teams of an organization, keyset on (created_at, id). `memberOf`: only teams that user belongs
 * to (`ownerOnly`: as an owner). `title`: case-insensitive contains.
 */
export async function listTeams(
  db: Queryable,
  orgId: string,
  o: { title?: string; memberOf?: string; ownerOnly?: boolean; limit: number; after?: [string, string] },
) {
  const where = ['t.organization_id = $1'];
  const params: unknown[] = [orgId];
  if (o.title) {
    params.push(likeContains(o.title));
    where.push(`t.title ILIKE $${params.length}`);
  }
  if (o.memberOf) {
    params.push(o.memberOf);
    where.push(
      `EXISTS (SELECT 1 FROM team_members y WHERE y.team_id = t.id AND y.user_id = $${params.length}${o.ownerOnly ? ` AND y.role = 'owner'` : ''})`,
    );
  }
  const countParams = [...params];
  const countWhere = [...where];
  if (o.after) {
    params.push(o.after[0], o.after[1]);
    where.push(`(t.created_at, t.id) > ($${params.length - 1}::timestamptz, $${params.length})`);
  }
  params.push(o.limit + 1);
  const { rows } = await db.query<TeamRow>(
    `SELECT ${SELECT_TEAM} FROM teams t WHERE ${where.join(' AND ')} ORDER BY t.created_at, t.id LIMIT $${params.length}`,
    params,
  );
  const { rows: c } = await db.query(`SELECT count(*)::int AS n FROM teams t WHERE ${countWhere.join(' AND ')}`, countParams);
  return { rows, count: c[0].n as number };
}

export async function getTeam(db: Queryable, orgId: string, teamId: string): Promise<TeamRow | null> {
  const { rows } = await db.query<TeamRow>(`SELECT ${SELECT_TEAM} FROM teams t WHERE t.organization_id = $1 AND t.id = $2`, [
    orgId,
    teamId,
  ]);
  return rows[0] ?? null;
}

/** Teams by id (any organization), with counters. */
export async function getTeams(db: Queryable, teamIds: string[]): Promise<TeamRow[]> {
  if (!teamIds.length) return [];
  const { rows } = await db.query<TeamRow>(`SELECT ${SELECT_TEAM} FROM teams t WHERE t.id = ANY($1)`, [teamIds]);
  return rows;
}

/** Of `teamIds`, those that belong to `orgId`. */
export async function teamsInOrganization(db: Queryable, orgId: string, teamIds: string[]): Promise<Set<string>> {
  if (!teamIds.length) return new Set();
  const { rows } = await db.query('SELECT id FROM teams WHERE organization_id = $1 AND id = ANY($2)', [orgId, teamIds]);
  return new Set(rows.map((r) => r.id as string));
}

export async function insertTeam(db: Queryable, t: { id: string; orgId: string; title: string }) {
  await db.query('INSERT INTO teams (id, organization_id, title) VALUES ($1, $2, $3)', [t.id, t.orgId, t.title]);
}

export async function updateTeamTitle(db: Queryable, teamId: string, title: string) {
  await db.query('UPDATE teams SET title = $2 WHERE id = $1', [teamId, title]);
}

/** Deletes a team; its memberships and grants go with it (ON DELETE CASCADE), providers' default team becomes null. */
export async function deleteTeam(db: Queryable, orgId: string, teamId: string) {
  const { rowCount } = await db.query('DELETE FROM teams WHERE organization_id = $1 AND id = $2', [orgId, teamId]);
  return (rowCount ?? 0) > 0;
}

/** Lock a team row so concurrent membership changes of one team serialize. */
export async function lockTeam(db: Queryable, teamId: string) {
  await db.query('SELECT id FROM teams WHERE id = $1 FOR UPDATE', [teamId]);
}

export async function addTeamMember(db: Queryable, teamId: string, userId: string, role: TeamRole) {
  await db.query(
    `INSERT INTO team_members (team_id, user_id, role) VALUES ($1, $2, $3)
     ON CONFLICT (team_id, user_id) DO UPDATE SET role = EXCLUDED.role`,
    [teamId, userId, role],
  );
}

/** Add as `member` unless already in the team (an existing role is kept). */
export async function ensureTeamMember(db: Queryable, teamId: string, userId: string) {
  await db.query(`INSERT INTO team_members (team_id, user_id, role) VALUES ($1, $2, 'member') ON CONFLICT DO NOTHING`, [teamId, userId]);
}

export async function removeTeamMember(db: Queryable, teamId: string, userId: string) {
  const { rowCount } = await db.query('DELETE FROM team_members WHERE team_id = $1 AND user_id = $2', [teamId, userId]);
  return (rowCount ?? 0) > 0;
}

export async function teamMemberRole(db: Queryable, teamId: string, userId: string): Promise<TeamRole | null> {
  const { rows } = await db.query('SELECT role FROM team_members WHERE team_id = $1 AND user_id = $2', [teamId, userId]);
  return (rows[0]?.role as TeamRole | undefined) ?? null;
}

/** Team memberships belong to the organization membership: they go when the member leaves. */
export async function deleteTeamMembershipsInOrganization(db: Queryable, orgId: string, userId: string) {
  await db.query('DELETE FROM team_members tm USING teams t WHERE t.id = tm.team_id AND t.organization_id = $1 AND tm.user_id = $2', [
    orgId,
    userId,
  ]);
}

/** Members of a team with their organization membership, keyset on (added_at, user_id). */
export async function listTeamMembers(db: Queryable, teamId: string, o: { limit: number; after?: [string, string] }) {
  const params: unknown[] = [teamId];
  let cursor = '';
  if (o.after) {
    params.push(o.after[0], o.after[1]);
    cursor = `AND (tm.added_at, tm.user_id) > ($2::timestamptz, $3)`;
  }
  params.push(o.limit + 1);
  const { rows } = await db.query<MemberRow & { team_role: TeamRole; team_key: string }>(
    `SELECT ${SELECT_MEMBER}, tm.role AS team_role, tm.added_at::text AS team_key
       FROM team_members tm JOIN teams t ON t.id = tm.team_id
       JOIN members m ON m.organization_id = t.organization_id AND m.user_id = tm.user_id
       JOIN users u ON u.id = m.user_id
      WHERE tm.team_id = $1 ${cursor} ORDER BY tm.added_at, tm.user_id LIMIT $${params.length}`,
    params,
  );
  const { rows: c } = await db.query(
    `SELECT count(*)::int AS n FROM team_members tm JOIN teams t ON t.id = tm.team_id
       JOIN members m ON m.organization_id = t.organization_id AND m.user_id = tm.user_id WHERE tm.team_id = $1`,
    [teamId],
  );
  return { rows, count: c[0].n as number };
}

/**
 * Resolve user ids or e-mail addresses to the ids of members of `orgId`. Returns ref -> user id for
 * the refs that name a member; the others are absent.
 */
export async function resolveMemberRefs(db: Queryable, orgId: string, refs: string[]): Promise<Map<string, string>> {
  if (!refs.length) return new Map();
  const { rows } = await db.query(
    `SELECT r.ref, m.user_id FROM unnest($2::text[]) AS r (ref)
       JOIN users u ON u.id = r.ref OR lower(u.email) = lower(r.ref)
       JOIN members m ON m.user_id = u.id AND m.organization_id = $1`,
    [orgId, refs],
  );
  return new Map(rows.map((r) => [r.ref as string, r.user_id as string]));
}
