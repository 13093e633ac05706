import type { Queryable } from '../pool.js';
import { updateColumns } from '../patch.js';
import { columnsOf } from '../columns.js';

export interface OrgRow {
  id: string;
  title: string;
  created_at: Date;
  updated_at: Date;
  email_domains: string[];
  hostname: string | null;
  type: string;
  use_case: string | null;
  community_type: string | null;
  default_role: string | null;
  default_content: { type: 'site'; site: string } | null;
  logo_url: string | null;
  sso: boolean;
  ai: boolean;
  invite_links: boolean;
  plan: string;
  custom_hostname: string | null;
}

/** An organization together with the caller's membership (null when not a member). */
export interface OrgWithMembership extends OrgRow {
  member_role: string | null;
  is_member: boolean;
  owns_team: boolean;
}

const WITH_MEMBERSHIP = `${columnsOf('organizations', 'o')}, m.role AS member_role, (m.user_id IS NOT NULL AND NOT m.disabled) AS is_member,
  EXISTS (SELECT 1 FROM team_members tm JOIN teams t ON t.id = tm.team_id
           WHERE t.organization_id = o.id AND tm.user_id = $1 AND tm.role = 'owner') AS owns_team`;

export async function insertOrg(db: Queryable, o: { id: string; title: string; hostname?: string | null }) {
  const { rows } = await db.query<OrgRow>('INSERT INTO organizations (id, title, hostname) VALUES ($1, $2, $3) RETURNING *', [
    o.id,
    o.title,
    o.hostname ?? null,
  ]);
  return rows[0];
}

export async function getOrgForUser(db: Queryable, orgId: string, userId: string): Promise<OrgWithMembership | null> {
  const { rows } = await db.query<OrgWithMembership>({
    name: 'org_for_user', // prepared once per connection: every organization request runs it
    text: `SELECT ${WITH_MEMBERSHIP} FROM organizations o
       LEFT JOIN members m ON m.organization_id = o.id AND m.user_id = $1
      WHERE o.id = $2`,
    values: [userId, orgId],
  });
  return rows[0] ?? null;
}

/** Organizations the user belongs to, oldest membership first, keyset on (joined_at, id). */
export async function listOrgsForUser(db: Queryable, userId: string, limit: number, after?: [string, string]) {
  const params: unknown[] = [userId, limit + 1];
  let cond = '';
  if (after) {
    params.push(after[0], after[1]);
    cond = 'AND (m.joined_at, o.id) > ($3::timestamptz, $4)';
  }
  const { rows } = await db.query<OrgWithMembership & { sort_key: string }>(
    `SELECT ${WITH_MEMBERSHIP}, m.joined_at::text AS sort_key FROM organizations o
       JOIN members m ON m.organization_id = o.id AND m.user_id = $1 AND NOT m.disabled
      WHERE true ${cond}
      ORDER BY m.joined_at, o.id LIMIT $2`,
    params,
  );
  const { rows: c } = await db.query('SELECT count(*) AS n FROM members WHERE user_id = $1 AND NOT disabled', [userId]);
  return { rows, count: c[0].n as number };
}

/** Organizations that list `domain` among their email domains and have invite links enabled. */
export async function listOrgsByEmailDomain(db: Queryable, domain: string, userId: string) {
  const { rows } = await db.query<OrgWithMembership>(
    `SELECT ${WITH_MEMBERSHIP} FROM organizations o
       LEFT JOIN members m ON m.organization_id = o.id AND m.user_id = $1
      WHERE o.email_domains @> ARRAY[lower($2)]::text[] AND (o.invite_links OR m.user_id IS NOT NULL)
      ORDER BY o.created_at, o.id LIMIT 100`,
    [userId, domain],
  );
  return rows;
}

const COLUMNS: Record<string, string> = {
  title: 'title',
  emailDomains: 'email_domains',
  hostname: 'hostname',
  defaultRole: 'default_role',
  defaultContent: 'default_content',
  logo: 'logo_url',
  sso: 'sso',
  ai: 'ai',
  inviteLinks: 'invite_links',
};

export async function updateOrg(db: Queryable, id: string, patch: Record<string, unknown>): Promise<void> {
  await updateColumns(db, 'organizations', id, patch, COLUMNS, (col, v) =>
    col === 'default_content' && v !== null ? JSON.stringify(v) : v,
  );
}

export async function deleteLinkInvite(db: Queryable, orgId: string, inviteId: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM link_invites WHERE organization_id = $1 AND id = $2', [orgId, inviteId]);
  return (rowCount ?? 0) > 0;
}

export async function insertLinkInvite(db: Queryable, i: { id: string; orgId: string; role: string | null; createdBy: string }) {
  await db.query('INSERT INTO link_invites (id, organization_id, role, created_by) VALUES ($1, $2, $3, $4)', [
    i.id,
    i.orgId,
    i.role,
    i.createdBy,
  ]);
}

/** Lock an organization's row: membership changes of one organization queue behind each other. */
export async function lockOrganization(db: Queryable, orgId: string): Promise<void> {
  await db.query('SELECT 1 FROM organizations WHERE id = $1 FOR UPDATE', [orgId]);
}

/** Whether the organization enforces single sign-on (null when it does not exist). */
export async function orgEnforcesSso(db: Queryable, orgId: string): Promise<boolean | null> {
  const { rows } = await db.query({ name: 'org_enforces_sso', text: 'SELECT sso FROM organizations WHERE id = $1', values: [orgId] });
  return rows[0] ? (rows[0].sso as boolean) : null;
}
