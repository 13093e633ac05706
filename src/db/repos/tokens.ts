import type { Queryable } from '../pool.js';

/** `ssoOrgId`: the organization whose SSO login minted the token. */
export async function insertToken(db: Queryable, t: { id: string; userId: string; hash: string; label?: string; ssoOrgId?: string }) {
  await db.query('INSERT INTO api_tokens (id, user_id, token_hash, label, sso_organization_id) VALUES ($1, $2, $3, $4, $5)', [
    t.id,
    t.userId,
    t.hash,
    t.label ?? null,
    t.ssoOrgId ?? null,
  ]);
}

/** Resolve a token hash to its user; touches last_used_at at most once a minute. */
export async function findTokenByHash(
  db: Queryable,
  hash: string,
): Promise<{ id: string; userId: string; ssoOrgId: string | null } | null> {
  // Named: prepared once per connection (this runs on every authenticated request). Only queries
  // with explicit column lists are named: a prepared `SELECT *` fails after a migration alters the table.
  const { rows } = await db.query({
    name: 'token_by_hash_sso',
    text: `SELECT id, user_id, sso_organization_id, last_used_at < now() - interval '1 minute' OR last_used_at IS NULL AS stale
       FROM api_tokens WHERE token_hash = $1 AND (expires_at IS NULL OR expires_at > now())`,
    values: [hash],
  });
  if (!rows[0]) return null;
  if (rows[0].stale) await db.query('UPDATE api_tokens SET last_used_at = now() WHERE id = $1', [rows[0].id]);
  return { id: rows[0].id, userId: rows[0].user_id, ssoOrgId: rows[0].sso_organization_id };
}

export async function countUsers(db: Queryable): Promise<number> {
  const { rows } = await db.query('SELECT count(*) AS n FROM users');
  return rows[0].n;
}
