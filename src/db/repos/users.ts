import type { Queryable } from '../pool.js';

export interface UserRow {
  id: string;
  display_name: string;
  email: string;
  photo_url: string | null;
  is_operator: boolean;
  created_at: Date;
}

export async function insertUser(
  db: Queryable,
  u: { id: string; displayName: string; email: string; photoURL?: string; operator?: boolean },
) {
  const { rows } = await db.query<UserRow>(
    'INSERT INTO users (id, display_name, email, photo_url, is_operator) VALUES ($1, $2, $3, $4, $5) RETURNING *',
    [u.id, u.displayName, u.email, u.photoURL ?? null, u.operator ?? false],
  );
  return rows[0];
}

export async function getUser(db: Queryable, id: string): Promise<UserRow | null> {
  const { rows } = await db.query<UserRow>('SELECT * FROM users WHERE id = $1', [id]);
  return rows[0] ?? null;
}

export async function findUserByEmail(db: Queryable, email: string): Promise<UserRow | null> {
  const { rows } = await db.query<UserRow>('SELECT * FROM users WHERE lower(email) = lower($1)', [email]);
  return rows[0] ?? null;
}

/** The first operator (the one the first start created, unless removed): shown at start-up for new tokens. */
export async function oldestOperator(db: Queryable): Promise<UserRow | null> {
  const { rows } = await db.query<UserRow>('SELECT * FROM users WHERE is_operator ORDER BY created_at, id LIMIT 1');
  return rows[0] ?? null;
}

const BOOTSTRAP_LOCK = 727_002;

/** Transaction-scoped advisory lock around creating the first user: processes starting together bootstrap once. */
export async function lockFirstUser(db: Queryable): Promise<void> {
  await db.query('SELECT pg_advisory_xact_lock($1)', [BOOTSTRAP_LOCK]);
}

/** A user's own profile fields; only the given ones change. */
export async function updateUserProfile(
  db: Queryable,
  id: string,
  p: { displayName?: string; photoURL?: string },
): Promise<UserRow | null> {
  const { rows } = await db.query<UserRow>(
    `UPDATE users SET display_name = COALESCE($2, display_name), photo_url = COALESCE($3, photo_url) WHERE id = $1 RETURNING *`,
    [id, p.displayName ?? null, p.photoURL ?? null],
  );
  return rows[0] ?? null;
}

/** Whether two users are members of at least one common organization. */
export async function shareAnOrganization(db: Queryable, a: string, b: string): Promise<boolean> {
  const { rows } = await db.query(
    `SELECT 1 FROM members x JOIN members y ON y.organization_id = x.organization_id WHERE x.user_id = $1 AND y.user_id = $2 LIMIT 1`,
    [a, b],
  );
  return rows.length > 0;
}
