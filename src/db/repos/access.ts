// What an access check reads about a caller in one organization, in one statement (src/policies/
// computes roles from it): their membership, whether the organization enforces SSO, its collection
// chain, their explicit grants on its collections and on the given spaces (own and through teams).
// One round trip instead of five: every space request runs it.
import type { Queryable } from '../pool.js';
import { spaceColumns, type SpaceRow } from './spaces.js';

export interface AccessRows {
  member: { role: string | null; disabled: boolean } | null;
  /** The organization's `sso` flag (false when it does not exist). */
  sso: boolean;
  collections: { id: string; parent: string | null; level: string | null }[];
  /** [collection id, role] for each grant, own and through teams. */
  collectionGrants: [string, string][];
  /** [space id, role] for each grant on the requested spaces, own and through teams. */
  spaceGrants: [string, string][];
}

/** Rows of the access statement, before they are shaped into AccessRows. */
interface RawAccess {
  acc_member: AccessRows['member'];
  acc_sso: boolean | null;
  acc_collections: [string, string | null, string | null][] | null;
  acc_collection_grants: [string, string][] | null;
  acc_space_grants: [string, string][] | null;
}

/**
 * The access columns of a SELECT, for the organization `org`, the user `user` and the spaces
 * `spaces` (SQL expressions: parameters, or columns of the row they sit beside).
 */
function accessColumns(org: string, user: string, spaces: string): string {
  return `(SELECT json_build_object('role', m.role, 'disabled', m.disabled) FROM members m
        WHERE m.organization_id = ${org} AND m.user_id = ${user}) AS acc_member,
      (SELECT o.sso FROM organizations o WHERE o.id = ${org}) AS acc_sso,
      (SELECT json_agg(json_build_array(c.id, c.parent_id, c.default_level)) FROM collections c
        WHERE c.organization_id = ${org}) AS acc_collections,
      (SELECT json_agg(json_build_array(g.collection_id, g.role)) FROM (
         SELECT g.collection_id, g.role FROM collection_members g JOIN collections c ON c.id = g.collection_id
          WHERE g.user_id = ${user} AND c.organization_id = ${org}
         UNION ALL
         SELECT p.collection_id, p.role FROM collection_team_permissions p
           JOIN team_members tm ON tm.team_id = p.team_id JOIN collections c ON c.id = p.collection_id
          WHERE tm.user_id = ${user} AND c.organization_id = ${org}) g) AS acc_collection_grants,
      (SELECT json_agg(json_build_array(g.space_id, g.role)) FROM (
         SELECT space_id, role FROM space_members WHERE user_id = ${user} AND space_id = ANY(${spaces})
         UNION ALL
         SELECT p.space_id, p.role FROM space_team_permissions p JOIN team_members tm ON tm.team_id = p.team_id
          WHERE tm.user_id = ${user} AND p.space_id = ANY(${spaces})) g) AS acc_space_grants`;
}

function shaped(r: RawAccess): AccessRows {
  return {
    member: r.acc_member,
    sso: r.acc_sso === true,
    collections: (r.acc_collections ?? []).map(([id, parent, level]) => ({ id, parent, level })),
    collectionGrants: r.acc_collection_grants ?? [],
    spaceGrants: r.acc_space_grants ?? [],
  };
}

export async function accessRows(db: Queryable, orgId: string, userId: string, spaceIds: string[]): Promise<AccessRows> {
  const { rows } = await db.query<RawAccess>({
    name: 'access_rows',
    text: `SELECT ${accessColumns('$1', '$2', '$3::text[]')}`,
    values: [orgId, userId, spaceIds],
  });
  return shaped(rows[0]);
}

/**
 * A space (as getSpace reads it) and what an access check reads about `userId` in its organization
 * and on it (as accessRows), in one statement: the space's organization is known inside it, so a
 * space request checks access in one round trip instead of two. Null when there is no such space.
 */
export async function spaceWithAccessRows(
  db: Queryable,
  spaceId: string,
  userId: string,
  opts: { includeDeleted?: boolean; counters?: boolean } = {},
): Promise<{ space: SpaceRow; access: AccessRows } | null> {
  const { rows } = await db.query<SpaceRow & RawAccess>({
    name: `space_with_access_${opts.counters === false ? 'bare' : 'counted'}${opts.includeDeleted ? '_any' : ''}`,
    text: `SELECT ${spaceColumns(opts.counters !== false)}, ${accessColumns('s.organization_id', '$2', 'ARRAY[s.id]')}
       FROM spaces s WHERE s.id = $1 ${opts.includeDeleted ? '' : 'AND s.deleted_at IS NULL'}`,
    values: [spaceId, userId],
  });
  const row = rows[0];
  if (!row) return null;
  const { acc_member, acc_sso, acc_collections, acc_collection_grants, acc_space_grants, ...space } = row;
  return { space, access: shaped({ acc_member, acc_sso, acc_collections, acc_collection_grants, acc_space_grants }) };
}
