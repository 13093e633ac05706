import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import type { Db } from './pool.js';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
// One fixed advisory-lock key: every API and worker process migrates under it, so several
// processes starting at once apply each migration exactly once, the others waiting then finding nothing to do.
const LOCK_KEY = 727_001;

interface Migration {
  version: number;
  name: string;
  sql: string;
}

async function loadMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((f) => /^\d{4}_.+\.sql$/.test(f)).sort();
  return Promise.all(files.map(async (f) => ({ version: Number(f.slice(0, 4)), name: f, sql: await readFile(path.join(dir, f), 'utf8') })));
}

/**
 * How long one migration statement may wait for a table lock before the migration is rolled back
 * and tried again: an ALTER TABLE queued behind a long transaction would otherwise hold up every
 * query of the running processes on that table while it waits.
 */
const LOCK_TIMEOUT_MS = 3_000;
const LOCK_ATTEMPTS = 20;

/**
 * Apply pending migrations under a session advisory lock; returns the names applied by this call.
 * Several processes may call it at once (each API and worker migrates at start): one applies, the
 * others wait for the lock and find nothing left. Each migration is one transaction with its
 * version row. Migrations must keep the previous version working (expand, then contract a release
 * later: docs/operations.md, Upgrades), since processes of that version keep serving meanwhile.
 */
export async function migrate(db: Db, migrations?: Migration[], opts: { lockTimeoutMs?: number } = {}): Promise<string[]> {
  const list = migrations ?? (await loadMigrations());
  const lockTimeoutMs = opts.lockTimeoutMs ?? LOCK_TIMEOUT_MS;
  const client = await db.connect();
  const applied: string[] = [];
  // Given back with a failed unlock (its connection died), the connection is discarded, and the
  // session lock with it.
  let discard: Error | undefined;
  try {
    await client.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    const done = new Set((await client.query('SELECT version FROM schema_migrations')).rows.map((r) => r.version));
    for (const m of list) {
      if (done.has(m.version)) continue;
      for (let attempt = 1; ; attempt++) {
        await client.query('BEGIN');
        try {
          await client.query(`SET LOCAL lock_timeout = ${Math.max(1, Math.trunc(lockTimeoutMs))}`);
          await client.query(m.sql);
          await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
          await client.query('COMMIT');
          applied.push(m.name);
          break;
        } catch (err) {
          await client.query('ROLLBACK');
          // lock_not_available: a running transaction holds the table; let it end, then again.
          if ((err as { code?: string }).code === '55P03' && attempt < LOCK_ATTEMPTS) {
            await new Promise((r) => setTimeout(r, 100 * attempt));
            continue;
          }
          throw new Error(`Migration ${m.name} failed: ${(err as Error).message}`, { cause: err });
        }
      }
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]).catch((err: Error) => (discard = err));
    client.release(discard);
  }
  return applied;
}
