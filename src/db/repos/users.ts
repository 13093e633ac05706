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
