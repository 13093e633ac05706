// SAML providers, the AuthnRequest ids we issued, the assertion ids already consumed, and the
// browser sessions an SSO login opens.
import type { Queryable } from '../pool.js';

export interface SamlProviderRow {
  id: string;
  organization_id: string;
  label: string;
  entity_id: string;
  certificate: string;
  sso_url: string;
  default_team_id: string | null;
  default_role: string | null;
  status: 'active' | 'pending';
  created_at: Date;
  last_login_at: Date | null;
  sort_key: string;
}

const SELECT = `p.*, p.created_at::text AS sort_key`;

export async function insertProvider(
  db: Queryable,
  p: {
    id: string;
    orgId: string;
    label: string;
    entityId: string;
    certificate: string;
    ssoUrl: string;
    defaultTeam: string | null;
    defaultRole: string | null;
  },
) {
  await db.query(
    `INSERT INTO saml_providers (id, organization_id, label, entity_id, certificate, sso_url, default_team_id, default_role)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [p.id, p.orgId, p.label, p.entityId, p.certificate, p.ssoUrl, p.defaultTeam, p.defaultRole],
  );
}

/** A provider by id; with `orgId`, only when it belongs to that organization. */
export async function getProvider(db: Queryable, id: string, orgId?: string): Promise<SamlProviderRow | null> {
  const { rows } = await db.query<SamlProviderRow>(
    `SELECT ${SELECT} FROM saml_providers p WHERE p.id = $1 ${orgId ? 'AND p.organization_id = $2' : ''}`,
    orgId ? [id, orgId] : [id],
  );
  return rows[0] ?? null;
}

export async function listProviders(db: Queryable, orgId: string, o: { limit: number; after?: [string, string]; activeOnly?: boolean }) {
  const params: unknown[] = [orgId];
  const where = ['p.organization_id = $1'];
  if (o.activeOnly) where.push(`p.status = 'active'`);
  const countWhere = [...where];
  if (o.after) {
    params.push(o.after[0], o.after[1]);
    where.push(`(p.created_at, p.id) > ($2::timestamptz, $3)`);
  }
  params.push(o.limit + 1);
  const { rows } = await db.query<SamlProviderRow>(
    `SELECT ${SELECT} FROM saml_providers p WHERE ${where.join(' AND ')} ORDER BY p.created_at, p.id LIMIT $${params.length}`,
    params,
  );
  const { rows: c } = await db.query(`SELECT count(*)::int AS n FROM saml_providers p WHERE ${countWhere.join(' AND ')}`, [orgId]);
  return { rows, count: c[0].n as number };
}

const PATCHABLE: Record<string, string> = {
  label: 'label',
  entityId: 'entity_id',
  certificate: 'certificate',
  ssoUrl: 'sso_url',
  defaultTeam: 'default_team_id',
  defaultRole: 'default_role',
  status: 'status',
};

/** Set the fields of `patch` that PATCHABLE maps (column names never come from input). */
export async function updateProvider(db: Queryable, id: string, patch: Record<string, unknown>) {
  const sets: string[] = [];
  const params: unknown[] = [id];
  for (const [field, value] of Object.entries(patch)) {
    const column = PATCHABLE[field];
    if (!column || value === undefined) continue;
    params.push(value);
    sets.push(`${column} = $${params.length}`);
  }
  if (sets.length) await db.query(`UPDATE saml_providers SET ${sets.join(', ')} WHERE id = $1`, params);
}

export async function deleteProvider(db: Queryable, orgId: string, id: string) {
  const { rowCount } = await db.query('DELETE FROM saml_providers WHERE organization_id = $1 AND id = $2', [orgId, id]);
  return (rowCount ?? 0) > 0;
}

/** First good login: the provider becomes active. */
export async function markProviderLogin(db: Queryable, id: string) {
  await db.query(`UPDATE saml_providers SET status = 'active', last_login_at = clock_timestamp() WHERE id = $1`, [id]);
}

// node-saml's cache of AuthnRequest ids, scoped to one provider.
export async function saveRequest(db: Queryable, providerId: string, id: string, value: string, ttlMs: number) {
  await db.query(
    `INSERT INTO saml_requests (id, provider_id, value, expires_at) VALUES ($1, $2, $3, clock_timestamp() + $4 * interval '1 millisecond')
     ON CONFLICT (id) DO NOTHING`,
    [id, providerId, value, ttlMs],
  );
  // Sweep what has expired (cheap with the index; bounded so a backlog never slows a login).
  await db.query('DELETE FROM saml_requests WHERE id IN (SELECT id FROM saml_requests WHERE expires_at < clock_timestamp() LIMIT 100)');
}

export async function getRequest(db: Queryable, providerId: string, id: string): Promise<string | null> {
  const { rows } = await db.query('SELECT value FROM saml_requests WHERE id = $1 AND provider_id = $2 AND expires_at > clock_timestamp()', [
    id,
    providerId,
  ]);
  return (rows[0]?.value as string | undefined) ?? null;
}

export async function removeRequest(db: Queryable, providerId: string, id: string): Promise<string | null> {
  const { rows } = await db.query('DELETE FROM saml_requests WHERE id = $1 AND provider_id = $2 RETURNING value', [id, providerId]);
  return (rows[0]?.value as string | undefined) ?? null;
}

/** Record an assertion id as consumed; false when it already was (a replay). Atomic across instances. */
export async function consumeAssertion(db: Queryable, providerId: string, assertionId: string, expiresAt: Date): Promise<boolean> {
  await db.query('DELETE FROM saml_assertions_seen WHERE provider_id = $1 AND assertion_id = $2 AND expires_at < clock_timestamp()', [
    providerId,
    assertionId,
  ]);
  const { rowCount } = await db.query(
    `INSERT INTO saml_assertions_seen (provider_id, assertion_id, expires_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
    [providerId, assertionId, expiresAt],
  );
  await db.query(
    `DELETE FROM saml_assertions_seen WHERE (provider_id, assertion_id) IN
       (SELECT provider_id, assertion_id FROM saml_assertions_seen WHERE expires_at < clock_timestamp() LIMIT 100)`,
  );
  return (rowCount ?? 0) > 0;
}

export interface SessionRow {
  user_id: string;
  organization_id: string;
  token_issued: boolean;
}

export async function insertSession(
  db: Queryable,
  s: { idHash: string; userId: string; orgId: string; providerId: string; ttlMs: number },
) {
  await db.query(
    `INSERT INTO sessions (id_hash, user_id, organization_id, provider_id, expires_at)
     VALUES ($1, $2, $3, $4, clock_timestamp() + $5 * interval '1 millisecond')`,
    [s.idHash, s.userId, s.orgId, s.providerId, s.ttlMs],
  );
  // Sweep expired sessions a few at a time.
  await db.query('DELETE FROM sessions WHERE id_hash IN (SELECT id_hash FROM sessions WHERE expires_at < clock_timestamp() LIMIT 100)');
}

export async function findSession(db: Queryable, idHash: string): Promise<SessionRow | null> {
  const { rows } = await db.query<SessionRow>(
    'SELECT user_id, organization_id, token_issued FROM sessions WHERE id_hash = $1 AND expires_at > clock_timestamp()',
    [idHash],
  );
  return rows[0] ?? null;
}

/** Claim the session's one token display; false when it was already claimed. */
export async function claimSessionToken(db: Queryable, idHash: string): Promise<boolean> {
  const { rowCount } = await db.query(
    'UPDATE sessions SET token_issued = true WHERE id_hash = $1 AND NOT token_issued AND expires_at > clock_timestamp()',
    [idHash],
  );
  return (rowCount ?? 0) > 0;
}
