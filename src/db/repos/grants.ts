// Explicit grants on spaces and collections, to users (space_members, collection_members) and to
// teams (space_team_permissions, collection_team_permissions). Roles are computed from them at
// request time by src/policies/; nothing here caches a role.
import type { Queryable } from '../pool.js';
import { SELECT_MEMBER, type MemberRow } from './members.js';

export type GrantTarget = 'space' | 'collection';

const T = {
  space: { users: 'space_members', teams: 'space_team_permissions', col: 'space_id' },
  collection: { users: 'collection_members', teams: 'collection_team_permissions', col: 'collection_id' },
} as const;

/**
 * Every grant `userId` holds on `spaceIds`, their own and through their teams: space id -> roles.
 * A team grant counts only for members of the space's organization (a team belongs to one).
 */
export async function spaceGrantsOfUser(db: Queryable, userId: string, spaceIds: string[]): Promise<Map<string, string[]>> {
  if (!spaceIds.length) return new Map();
  const { rows } = await db.query({
    name: 'space_grants_of_user',
    text: `SELECT space_id, role FROM space_members WHERE user_id = $1 AND space_id = ANY($2)
           UNION ALL
           SELECT p.space_id, p.role FROM space_team_permissions p JOIN team_members tm ON tm.team_id = p.team_id
            WHERE tm.user_id = $1 AND p.space_id = ANY($2)`,
    values: [userId, spaceIds],
  });
  return group(rows, 'space_id');
}

function group(rows: Record<string, string>[], key: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const r of rows) {
    const list = out.get(r[key]) ?? [];
    list.push(r.role);
    out.set(r[key], list);
  }
  return out;
}

export async function setUserGrant(db: Queryable, target: GrantTarget, id: string, userId: string, role: string) {
  const t = T[target];
  await db.query(
    `INSERT INTO ${t.users} (${t.col}, user_id, role) VALUES ($1, $2, $3)
     ON CONFLICT (${t.col}, user_id) DO UPDATE SET role = EXCLUDED.role`,
    [id, userId, role],
  );
}

export async function setTeamGrant(db: Queryable, target: GrantTarget, id: string, teamId: string, role: string) {
  const t = T[target];
  await db.query(
    `INSERT INTO ${t.teams} (${t.col}, team_id, role) VALUES ($1, $2, $3)
     ON CONFLICT (${t.col}, team_id) DO UPDATE SET role = EXCLUDED.role`,
    [id, teamId, role],
  );
}

export async function deleteUserGrant(db: Queryable, target: GrantTarget, id: string, userId: string): Promise<boolean> {
  const t = T[target];
  const { rowCount } = await db.query(`DELETE FROM ${t.users} WHERE ${t.col} = $1 AND user_id = $2`, [id, userId]);
  return (rowCount ?? 0) > 0;
}

export async function deleteTeamGrant(db: Queryable, target: GrantTarget, id: string, teamId: string): Promise<boolean> {
  const t = T[target];
  const { rowCount } = await db.query(`DELETE FROM ${t.teams} WHERE ${t.col} = $1 AND team_id = $2`, [id, teamId]);
  return (rowCount ?? 0) > 0;
}

export async function getUserGrant(db: Queryable, target: GrantTarget, id: string, userId: string): Promise<string | null> {
  const t = T[target];
  const { rows } = await db.query(`SELECT role FROM ${t.users} WHERE ${t.col} = $1 AND user_id = $2`, [id, userId]);
  return rows[0]?.role ?? null;
}

export async function getTeamGrant(db: Queryable, target: GrantTarget, id: string, teamId: string): Promise<string | null> {
  const t = T[target];
  const { rows } = await db.query(`SELECT role FROM ${t.teams} WHERE ${t.col} = $1 AND team_id = $2`, [id, teamId]);
  return rows[0]?.role ?? null;
}

/** Users granted on one space or collection, with their user columns, keyset on user id. */
export async function listUserGrants(db: Queryable, target: GrantTarget, id: string, o: { limit: number; after?: string }) {
  const t = T[target];
  const params: unknown[] = [id];
  if (o.after) params.push(o.after);
  params.push(o.limit + 1);
  const { rows } = await db.query<{ user_id: string; role: string; display_name: string; email: string; photo_url: string | null }>(
    `SELECT g.user_id, g.role, u.display_name, u.email, u.photo_url FROM ${t.users} g JOIN users u ON u.id = g.user_id
      WHERE g.${t.col} = $1 ${o.after ? 'AND g.user_id > $2' : ''} ORDER BY g.user_id LIMIT $${params.length}`,
    params,
  );
  const { rows: c } = await db.query(`SELECT count(*)::int AS n FROM ${t.users} WHERE ${t.col} = $1`, [id]);
  return { rows, count: c[0].n as number };
}

/** Team ids granted on one space or collection, keyset on team id. */
export async function listTeamGrants(db: Queryable, target: GrantTarget, id: string, o: { limit: number; after?: string }) {
  const t = T[target];
  const params: unknown[] = [id];
  if (o.after) params.push(o.after);
  params.push(o.limit + 1);
  const { rows } = await db.query<{ team_id: string; role: string }>(
    `SELECT team_id, role FROM ${t.teams} WHERE ${t.col} = $1 ${o.after ? 'AND team_id > $2' : ''} ORDER BY team_id LIMIT $${params.length}`,
    params,
  );
  const { rows: c } = await db.query(`SELECT count(*)::int AS n FROM ${t.teams} WHERE ${t.col} = $1`, [id]);
  return { rows, count: c[0].n as number };
}

/**
 * What the effective list of one space or collection needs, for every enabled member of `orgId`:
 * their membership, their own grants and their teams' grants on `spaceId` (when given) and on
 * every collection of the organization.
 */
export async function grantsOfMembers(db: Queryable, orgId: string, spaceId: string | null) {
  const [members, spaceGrants, collectionGrants] = await Promise.all([
    db.query<MemberRow>(
      `SELECT ${SELECT_MEMBER} FROM members m JOIN users u ON u.id = m.user_id
        WHERE m.organization_id = $1 AND NOT m.disabled ORDER BY m.user_id`,
      [orgId],
    ),
    spaceId
      ? db.query(
          `SELECT user_id, role FROM space_members WHERE space_id = $1
           UNION ALL
           SELECT tm.user_id, p.role FROM space_team_permissions p JOIN team_members tm ON tm.team_id = p.team_id WHERE p.space_id = $1`,
          [spaceId],
        )
      : Promise.resolve({ rows: [] as Record<string, string>[] }),
    db.query(
      `SELECT g.user_id, g.collection_id, g.role FROM collection_members g JOIN collections c ON c.id = g.collection_id
        WHERE c.organization_id = $1
       UNION ALL
       SELECT tm.user_id, p.collection_id, p.role FROM collection_team_permissions p
         JOIN team_members tm ON tm.team_id = p.team_id JOIN collections c ON c.id = p.collection_id
        WHERE c.organization_id = $1`,
      [orgId],
    ),
  ]);
  return { members: members.rows, spaceGrants: spaceGrants.rows, collectionGrants: collectionGrants.rows };
}

/** A member leaving an organization loses their collection grants there (space grants: see spaces repo). */
export async function deleteCollectionGrantsInOrganization(db: Queryable, orgId: string, userId: string): Promise<void> {
  await db.query(
    'DELETE FROM collection_members g USING collections c WHERE c.id = g.collection_id AND c.organization_id = $1 AND g.user_id = $2',
    [orgId, userId],
  );
}

/**
 * After spaces or collections moved to another organization: drop the grants of teams of other
 * organizations and of users who are not members there.
 */
export async function dropForeignGrants(db: Queryable, target: GrantTarget, ids: string[], orgId: string): Promise<void> {
  if (!ids.length) return;
  const t = T[target];
  await db.query(`DELETE FROM ${t.teams} g USING teams tm WHERE tm.id = g.team_id AND g.${t.col} = ANY($1) AND tm.organization_id <> $2`, [
    ids,
    orgId,
  ]);
  await db.query(
    `DELETE FROM ${t.users} WHERE ${t.col} = ANY($1) AND user_id NOT IN (SELECT user_id FROM members WHERE organization_id = $2)`,
    [ids, orgId],
  );
}
