// What an access check reads about a caller in one organization, in one statement (src/core/access/
// computes roles from it): their membership, whether the organization enforces SSO, its collection
// chain, their explicit grants on its collections and on the given spaces (own and through teams).
// One round trip instead of five: every space request runs it.
import type { Queryable } from '../pool.js';

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

export async function accessRows(db: Queryable, orgId: string, userId: string, spaceIds: string[]): Promise<AccessRows> {
  const { rows } = await db.query<{
    member: AccessRows['member'];
    sso: boolean | null;
    collections: [string, string | null, string | null][] | null;
    collection_grants: [string, string][] | null;
    space_grants: [string, string][] | null;
  }>({
    name: 'access_rows',
    text: `SELECT
      (SELECT json_build_object('role', m.role, 'disabled', m.disabled) FROM members m
        WHERE m.organization_id = $1 AND m.user_id = $2) AS member,
      (SELECT o.sso FROM organizations o WHERE o.id = $1) AS sso,
      (SELECT json_agg(json_build_array(c.id, c.parent_id, c.default_level)) FROM collections c
        WHERE c.organization_id = $1) AS collections,
      (SELECT json_agg(json_build_array(g.collection_id, g.role)) FROM (
         SELECT g.collection_id, g.role FROM collection_members g JOIN collections c ON c.id = g.collection_id
          WHERE g.user_id = $2 AND c.organization_id = $1
         UNION ALL
         SELECT p.collection_id, p.role FROM collection_team_permissions p
           JOIN team_members tm ON tm.team_id = p.team_id JOIN collections c ON c.id = p.collection_id
          WHERE tm.user_id = $2 AND c.organization_id = $1) g) AS collection_grants,
      (SELECT json_agg(json_build_array(g.space_id, g.role)) FROM (
         SELECT space_id, role FROM space_members WHERE user_id = $2 AND space_id = ANY($3::text[])
         UNION ALL
         SELECT p.space_id, p.role FROM space_team_permissions p JOIN team_members tm ON tm.team_id = p.team_id
          WHERE tm.user_id = $2 AND p.space_id = ANY($3::text[])) g) AS space_grants`,
    values: [orgId, userId, spaceIds],
  });
  const r = rows[0];
  return {
    member: r.member,
    sso: r.sso === true,
    collections: (r.collections ?? []).map(([id, parent, level]) => ({ id, parent, level })),
    collectionGrants: r.collection_grants ?? [],
    spaceGrants: r.space_grants ?? [],
  };
}
