import type { Queryable } from '../pool.js';

export interface TeamMembershipRow {
  id: string;
  title: string;
  created_at: Date;
  members: number;
  role: 'owner' | 'member';
  sort_key: string;
}

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
    params.push(`%${o.title.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
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
    `SELECT t.id, t.title, t.created_at, tm.role, t.created_at::text AS sort_key,
            (SELECT count(*) FROM team_members x WHERE x.team_id = t.id) AS members
       FROM teams t JOIN team_members tm ON tm.team_id = t.id
      WHERE ${where.join(' AND ')} ORDER BY t.created_at, t.id LIMIT $${params.length}`,
    params,
  );
  const { rows: c } = await db.query(
    `SELECT count(*) AS n FROM teams t JOIN team_members tm ON tm.team_id = t.id WHERE ${countWhere.join(' AND ')}`,
    countParams,
  );
  return { rows, count: c[0].n as number };
}

export async function insertTeam(db: Queryable, t: { id: string; orgId: string; title: string }) {
  await db.query('INSERT INTO teams (id, organization_id, title) VALUES ($1, $2, $3)', [t.id, t.orgId, t.title]);
}

export async function addTeamMember(db: Queryable, teamId: string, userId: string, role: 'owner' | 'member') {
  await db.query(
    `INSERT INTO team_members (team_id, user_id, role) VALUES ($1, $2, $3)
     ON CONFLICT (team_id, user_id) DO UPDATE SET role = EXCLUDED.role`,
    [teamId, userId, role],
  );
}
