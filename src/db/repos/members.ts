import type { Queryable } from '../pool.js';

export interface MemberRow {
  organization_id: string;
  user_id: string;
  role: string | null;
  disabled: boolean;
  sso: boolean;
  joined_at: Date;
  last_seen_at: Date | null;
  display_name: string;
  email: string;
  photo_url: string | null;
  teams: number;
  spaces: number;
}

// `spaces` counts the live spaces the member was explicitly invited to, themself or through one of
// their teams (access through default levels and collections is listed by
// GET .../members/{userId}/spaces, which computes every space's role).
export const SELECT_MEMBER = `m.*, u.display_name, u.email, u.photo_url,
  (SELECT count(*) FROM team_members tm JOIN teams t ON t.id = tm.team_id
    WHERE t.organization_id = m.organization_id AND tm.user_id = m.user_id) AS teams,
  (SELECT count(*) FROM (
      SELECT sm.space_id FROM space_members sm WHERE sm.user_id = m.user_id
      UNION
      SELECT p.space_id FROM space_team_permissions p JOIN team_members tm ON tm.team_id = p.team_id WHERE tm.user_id = m.user_id
    ) g JOIN spaces s ON s.id = g.space_id
    WHERE s.organization_id = m.organization_id AND s.deleted_at IS NULL) AS spaces`;

export async function insertMember(db: Queryable, orgId: string, userId: string, role: string | null) {
  await db.query(
    `INSERT INTO members (organization_id, user_id, role) VALUES ($1, $2, $3)
     ON CONFLICT (organization_id, user_id) DO UPDATE SET role = EXCLUDED.role, disabled = false`,
    [orgId, userId, role],
  );
}

export async function getMember(db: Queryable, orgId: string, userId: string): Promise<MemberRow | null> {
  const { rows } = await db.query<MemberRow>(
    `SELECT ${SELECT_MEMBER} FROM members m JOIN users u ON u.id = m.user_id
      WHERE m.organization_id = $1 AND m.user_id = $2`,
    [orgId, userId],
  );
  return rows[0] ?? null;
}

/**
 * The caller's membership as access checks need it (role, disabled), without the counts
 * SELECT_MEMBER adds; null when not a member. Named: every space and site request runs it.
 */
export async function getMembership(
  db: Queryable,
  orgId: string,
  userId: string,
): Promise<{ role: string | null; disabled: boolean } | null> {
  const { rows } = await db.query<{ role: string | null; disabled: boolean }>({
    name: 'membership_of_user',
    text: 'SELECT role, disabled FROM members WHERE organization_id = $1 AND user_id = $2',
    values: [orgId, userId],
  });
  return rows[0] ?? null;
}

export type MemberSort = 'joinedAt' | 'lastSeenAt' | 'name';

const SORT_COLUMN: Record<MemberSort, { expr: string; cast: string }> = {
  joinedAt: { expr: 'm.joined_at', cast: 'timestamptz' },
  lastSeenAt: { expr: 'm.last_seen_at', cast: 'timestamptz' },
  name: { expr: 'lower(u.display_name)', cast: 'text' },
};

export interface MemberListOptions {
  sort: MemberSort;
  order: 'asc' | 'desc';
  role?: string; // a role, or 'guest'
  search?: string;
  limit: number;
  after?: [string, string];
}

/** Keyset-paginated member list; the sort key is read back as text so no precision is lost. */
export async function listMembers(db: Queryable, orgId: string, o: MemberListOptions) {
  const { expr, cast } = SORT_COLUMN[o.sort];
  const where: string[] = ['m.organization_id = $1'];
  const params: unknown[] = [orgId];
  if (o.sort === 'lastSeenAt') where.push('m.last_seen_at IS NOT NULL');
  if (o.role === 'guest') where.push('m.role IS NULL');
  else if (o.role) {
    params.push(o.role);
    where.push(`m.role = $${params.length}`);
  }
  if (o.search) {
    params.push(`%${o.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    where.push(`(u.display_name ILIKE $${params.length} OR u.email ILIKE $${params.length})`);
  }
  const countParams = [...params];
  const countSql = `SELECT count(*) AS n FROM members m JOIN users u ON u.id = m.user_id WHERE ${where.join(' AND ')}`;
  const cmp = o.order === 'asc' ? '>' : '<';
  if (o.after) {
    params.push(o.after[0], o.after[1]);
    where.push(`(${expr}, m.user_id) ${cmp} ($${params.length - 1}::${cast}, $${params.length})`);
  }
  params.push(o.limit + 1);
  const dir = o.order === 'asc' ? 'ASC' : 'DESC';
  const { rows } = await db.query<MemberRow & { sort_key: string }>(
    `SELECT ${SELECT_MEMBER}, ${expr}::text AS sort_key FROM members m JOIN users u ON u.id = m.user_id
      WHERE ${where.join(' AND ')}
      ORDER BY ${expr} ${dir}, m.user_id ${dir} LIMIT $${params.length}`,
    params,
  );
  const { rows: c } = await db.query(countSql, countParams);
  return { rows, count: c[0].n as number };
}

export async function updateMemberRole(db: Queryable, orgId: string, userId: string, role: string | null) {
  const { rowCount } = await db.query('UPDATE members SET role = $3 WHERE organization_id = $1 AND user_id = $2', [orgId, userId, role]);
  return (rowCount ?? 0) > 0;
}

export async function deleteMember(db: Queryable, orgId: string, userId: string) {
  const { rowCount } = await db.query('DELETE FROM members WHERE organization_id = $1 AND user_id = $2', [orgId, userId]);
  return (rowCount ?? 0) > 0;
}

/** Number of enabled admins other than `exceptUserId`, locking them so concurrent demotions serialize. */
export async function countOtherAdmins(db: Queryable, orgId: string, exceptUserId: string): Promise<number> {
  const { rows } = await db.query(
    `SELECT user_id FROM members WHERE organization_id = $1 AND role = 'admin' AND NOT disabled AND user_id <> $2 FOR UPDATE`,
    [orgId, exceptUserId],
  );
  return rows.length;
}

export async function touchLastSeen(db: Queryable, orgId: string, userId: string) {
  await db.query('UPDATE members SET last_seen_at = clock_timestamp() WHERE organization_id = $1 AND user_id = $2', [orgId, userId]);
}

export async function setMemberSso(db: Queryable, orgId: string, userId: string) {
  const { rowCount } = await db.query('UPDATE members SET sso = true WHERE organization_id = $1 AND user_id = $2', [orgId, userId]);
  return (rowCount ?? 0) > 0;
}
