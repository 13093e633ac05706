import { randomBytes } from 'node:crypto';
import type { Queryable } from '../pool.js';

/** The server secret generated once and shared through PostgreSQL by every process (when SECRET_KEY is unset). */
export async function sharedSecret(db: Queryable): Promise<string> {
  await db.query(`INSERT INTO settings (key, value) VALUES ('secret_key', $1) ON CONFLICT (key) DO NOTHING`, [
    randomBytes(32).toString('base64url'),
  ]);
  const { rows } = await db.query(`SELECT value FROM settings WHERE key = 'secret_key'`);
  return rows[0].value;
}

/** A round trip to the database (readiness). */
export async function ping(db: Queryable): Promise<void> {
  await db.query('SELECT 1');
}
