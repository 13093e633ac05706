// Invites (issue 28 item 3): invite links (link_invites) and invites by e-mail (email_invites).
// Their secret tokens are stored as SHA-256 hashes only.
import type { Queryable } from '../pool.js';

export interface LinkInviteRow {
  id: string;
  organization_id: string;
  role: string | null;
  space_id: string | null;
  collection_id: string | null;
  token_hash: string | null;
  created_by: string | null;
  created_at: Date;
  expires_at: Date | null;
}

export async function insertLinkInvite(
  db: Queryable,
  i: {
    id: string;
    orgId: string;
    role: string | null;
    spaceId?: string | null;
    tokenHash: string;
    createdBy: string;
    expiresAt?: Date | null;
  },
): Promise<LinkInviteRow> {
  const { rows } = await db.query<LinkInviteRow>(
    `INSERT INTO link_invites (id, organization_id, role, space_id, token_hash, created_by, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
    [i.id, i.orgId, i.role, i.spaceId ?? null, i.tokenHash, i.createdBy, i.expiresAt ?? null],
  );
  return rows[0];
}

export async function getLinkInvite(db: Queryable, orgId: string, id: string): Promise<LinkInviteRow | null> {
  const { rows } = await db.query<LinkInviteRow>('SELECT * FROM link_invites WHERE organization_id = $1 AND id = $2', [orgId, id]);
  return rows[0] ?? null;
}

export async function findLinkInviteByToken(db: Queryable, tokenHash: string): Promise<LinkInviteRow | null> {
  const { rows } = await db.query<LinkInviteRow>('SELECT * FROM link_invites WHERE token_hash = $1', [tokenHash]);
  return rows[0] ?? null;
}

export async function listLinkInvites(db: Queryable, orgId: string, o: { limit: number; after?: [string, string] }) {
  const params: unknown[] = [orgId];
  let cond = '';
  if (o.after) {
    params.push(o.after[0], o.after[1]);
    cond = 'AND (created_at, id) > ($2::timestamptz, $3)';
  }
  params.push(o.limit + 1);
  const { rows } = await db.query<LinkInviteRow & { sort_key: string }>(
    `SELECT *, created_at::text AS sort_key FROM link_invites WHERE organization_id = $1 ${cond}
      ORDER BY created_at, id LIMIT $${params.length}`,
    params,
  );
  const { rows: c } = await db.query('SELECT count(*)::int AS n FROM link_invites WHERE organization_id = $1', [orgId]);
  return { rows, count: c[0].n as number };
}

export async function updateLinkInviteRole(db: Queryable, orgId: string, id: string, role: string | null): Promise<boolean> {
  const { rowCount } = await db.query('UPDATE link_invites SET role = $3 WHERE organization_id = $1 AND id = $2', [orgId, id, role]);
  return (rowCount ?? 0) > 0;
}

export interface EmailInviteRow {
  id: string;
  organization_id: string;
  email: string;
  user_id: string;
  role: string | null;
  sso: boolean;
  teams: string[];
  spaces: { space: string; role: string }[];
  token_hash: string;
  created_by: string | null;
  created_at: Date;
  expires_at: Date;
  accepted_at: Date | null;
}

export async function insertEmailInvite(
  db: Queryable,
  i: {
    id: string;
    orgId: string;
    email: string;
    userId: string;
    role: string | null;
    sso: boolean;
    teams: string[];
    spaces: { space: string; role: string }[];
    tokenHash: string;
    createdBy: string;
    expiresAt: Date;
  },
): Promise<void> {
  await db.query(
    `INSERT INTO email_invites (id, organization_id, email, user_id, role, sso, teams, spaces, token_hash, created_by, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10, $11)`,
    [i.id, i.orgId, i.email, i.userId, i.role, i.sso, i.teams, JSON.stringify(i.spaces), i.tokenHash, i.createdBy, i.expiresAt],
  );
}

/** The invite of a token, locked for its acceptance. */
export async function findEmailInviteByToken(db: Queryable, tokenHash: string, lock = false): Promise<EmailInviteRow | null> {
  const { rows } = await db.query<EmailInviteRow>(`SELECT * FROM email_invites WHERE token_hash = $1 ${lock ? 'FOR UPDATE' : ''}`, [
    tokenHash,
  ]);
  return rows[0] ?? null;
}

/** Open invites of an address to an organization (an SSO sign-in applies them), oldest first, locked. */
export async function openEmailInvites(db: Queryable, orgId: string, email: string): Promise<EmailInviteRow[]> {
  const { rows } = await db.query<EmailInviteRow>(
    `SELECT * FROM email_invites WHERE organization_id = $1 AND lower(email) = lower($2)
        AND accepted_at IS NULL AND expires_at > now()
      ORDER BY created_at, id LIMIT 20 FOR UPDATE`,
    [orgId, email],
  );
  return rows;
}

/** Single use: true only for the first acceptance. */
export async function markEmailInviteAccepted(db: Queryable, id: string): Promise<boolean> {
  const { rowCount } = await db.query('UPDATE email_invites SET accepted_at = clock_timestamp() WHERE id = $1 AND accepted_at IS NULL', [
    id,
  ]);
  return (rowCount ?? 0) > 0;
}

/** Existing ids among `teamIds` in the organization. */
export async function teamsInOrganization(db: Queryable, orgId: string, teamIds: string[]): Promise<string[]> {
  if (!teamIds.length) return [];
  const { rows } = await db.query<{ id: string }>('SELECT id FROM teams WHERE organization_id = $1 AND id = ANY($2)', [orgId, teamIds]);
  return rows.map((r) => r.id);
}

/** Live spaces among `spaceIds` in the organization. */
export async function spacesInOrganization(db: Queryable, orgId: string, spaceIds: string[]): Promise<string[]> {
  if (!spaceIds.length) return [];
  const { rows } = await db.query<{ id: string }>(
    'SELECT id FROM spaces WHERE organization_id = $1 AND id = ANY($2) AND deleted_at IS NULL',
    [orgId, spaceIds],
  );
  return rows.map((r) => r.id);
}

// Sign-in links (a sign-in by e-mail): single-use, short-lived, hashed.

export async function insertSignInLink(db: Queryable, l: { tokenHash: string; userId: string; expiresAt: Date }): Promise<void> {
  await db.query('INSERT INTO sign_in_links (token_hash, user_id, expires_at) VALUES ($1, $2, $3)', [l.tokenHash, l.userId, l.expiresAt]);
}

/** Links asked for a user since `since` (a bound on how many one address gets). */
export async function countRecentSignInLinks(db: Queryable, userId: string, since: Date): Promise<number> {
  const { rows } = await db.query('SELECT count(*)::int AS n FROM sign_in_links WHERE user_id = $1 AND created_at > $2', [userId, since]);
  return rows[0].n as number;
}

export async function findSignInLink(
  db: Queryable,
  tokenHash: string,
): Promise<{ user_id: string; expires_at: Date; used_at: Date | null } | null> {
  const { rows } = await db.query('SELECT user_id, expires_at, used_at FROM sign_in_links WHERE token_hash = $1', [tokenHash]);
  return rows[0] ?? null;
}

/** Use the link: the user id once, while it is unused and unexpired; null otherwise. */
export async function useSignInLink(db: Queryable, tokenHash: string): Promise<string | null> {
  const { rows } = await db.query<{ user_id: string }>(
    `UPDATE sign_in_links SET used_at = clock_timestamp()
      WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now() RETURNING user_id`,
    [tokenHash],
  );
  return rows[0]?.user_id ?? null;
}

/** Drop links expired for a day (kept that long so a late click reads "expired", not "unknown"). */
export async function deleteOldSignInLinks(db: Queryable): Promise<void> {
  await db.query(`DELETE FROM sign_in_links WHERE expires_at < now() - interval '1 day'`);
}
