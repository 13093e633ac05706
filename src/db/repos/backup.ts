// SQL of `npm run cli -- backup` and `restore` (src/ops/backup*.ts): the catalog of what to copy,
// the COPY streams (pg-copy-streams: in-process, no pg_dump binary to match the server's version),
// the snapshot, sequences, and the lock that keeps referenced bytes in storage while a backup runs.
import pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import type { Queryable } from '../pool.js';

/**
 * Advisory lock key of blob deletion. Every deletion of stored bytes that a committed row may have
 * referenced (the purge's pass over blob_garbage, an OpenAPI spec's versions) first takes it shared
 * for its transaction, without waiting (tryHoldBlobDeletion); a backup holds it exclusively from
 * before its snapshot until it has copied the bytes that snapshot references. So no byte the
 * snapshot references is deleted under the backup: those deletions wait in blob_garbage for the
 * next purge run.
 */
const BLOB_DELETION_LOCK = 727_026;

/** Rows a backup leaves out: the server secret, which is configuration and never goes into a backup. */
const LEFT_OUT: Record<string, string> = { settings: `key <> 'secret_key'` };

/** Inside a transaction: may stored bytes be deleted now? False while a backup runs (nothing waits). */
export async function tryHoldBlobDeletion(c: Queryable): Promise<boolean> {
  const { rows } = await c.query<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock_shared($1) AS ok', [BLOB_DELETION_LOCK]);
  return rows[0].ok;
}

/** Session lock of a backup: waits for deletions under way to commit, then keeps new ones out. */
export async function lockBlobDeletion(c: pg.PoolClient): Promise<void> {
  await c.query('SELECT pg_advisory_lock($1)', [BLOB_DELETION_LOCK]);
}

export async function unlockBlobDeletion(c: pg.PoolClient): Promise<void> {
  await c.query('SELECT pg_advisory_unlock($1)', [BLOB_DELETION_LOCK]);
}

/** One snapshot of the whole database for every following statement on `c`, until commit. */
export async function beginSnapshot(c: pg.PoolClient): Promise<void> {
  await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY');
}

export async function endSnapshot(c: pg.PoolClient): Promise<void> {
  await c.query('COMMIT');
}

export interface TableInfo {
  name: string;
  /** Stored columns in table order (generated columns are computed again on restore). */
  columns: string[];
}

/** Tables of the schema, schema_migrations aside (restore rebuilds it by migrating). */
export async function listTables(c: Queryable): Promise<TableInfo[]> {
  const { rows } = await c.query<{ name: string; columns: string[] }>(
    `SELECT c.relname AS name,
            array_agg(a.attname::text ORDER BY a.attnum) AS columns
       FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace
       JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
      WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND NOT c.relispartition
        AND c.relname <> 'schema_migrations'
      GROUP BY c.relname
      ORDER BY c.relname`,
  );
  return rows;
}

/** Foreign keys between two different tables of the schema: `from` references `to`. */
export async function foreignKeyEdges(c: Queryable): Promise<{ from: string; to: string }[]> {
  const { rows } = await c.query<{ from: string; to: string }>(
    `SELECT DISTINCT f.relname AS "from", t.relname AS "to"
       FROM pg_constraint k
       JOIN pg_class f ON f.oid = k.conrelid
       JOIN pg_class t ON t.oid = k.confrelid
       JOIN pg_namespace n ON n.oid = f.relnamespace
      WHERE k.contype = 'f' AND n.nspname = current_schema() AND k.conrelid <> k.confrelid`,
  );
  return rows;
}

export interface SequenceValue {
  name: string;
  value: number;
  isCalled: boolean;
}

/** Sequences of the schema with their current values (read inside the snapshot). */
export async function readSequences(c: Queryable): Promise<SequenceValue[]> {
  const { rows } = await c.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = current_schema() AND c.relkind = 'S' ORDER BY c.relname`,
  );
  const out: SequenceValue[] = [];
  for (const { name } of rows) {
    const r = await c.query<{ last_value: string; is_called: boolean }>(`SELECT last_value, is_called FROM ${pg.escapeIdentifier(name)}`);
    out.push({ name, value: Number(r.rows[0].last_value), isCalled: r.rows[0].is_called });
  }
  return out;
}

export async function setSequence(c: Queryable, s: SequenceValue): Promise<void> {
  await c.query('SELECT setval($1::regclass, $2, $3)', [pg.escapeIdentifier(s.name), s.value, s.isCalled]);
}

/** The highest migration applied, or 0 when none is (or the table does not exist). */
export async function migrationLevel(c: Queryable): Promise<{ version: number; name: string | null }> {
  const exists = await c.query(`SELECT to_regclass('schema_migrations') IS NOT NULL AS ok`);
  if (!exists.rows[0].ok) return { version: 0, name: null };
  const { rows } = await c.query<{ version: number; name: string }>(
    'SELECT version, name FROM schema_migrations ORDER BY version DESC LIMIT 1',
  );
  return rows[0] ?? { version: 0, name: null };
}

export async function serverVersion(c: Queryable): Promise<string> {
  const { rows } = await c.query<{ v: string }>(`SELECT current_setting('server_version') AS v`);
  return rows[0].v;
}

/** Tables of `tables` holding at least one row (a restore target must have none). */
export async function nonEmptyTables(c: Queryable, tables: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const t of tables) {
    const { rows } = await c.query(`SELECT 1 FROM ${pg.escapeIdentifier(t)} LIMIT 1`);
    if (rows.length) out.push(t);
  }
  return out;
}

/** A table's rows in COPY text format (what a backup writes), leaving out LEFT_OUT rows. */
export function copyTableOut(c: pg.PoolClient, table: TableInfo) {
  const cols = table.columns.map((x) => pg.escapeIdentifier(x)).join(', ');
  const where = LEFT_OUT[table.name] ? ` WHERE ${LEFT_OUT[table.name]}` : '';
  return c.query(copyTo(`COPY (SELECT ${cols} FROM ${pg.escapeIdentifier(table.name)}${where}) TO STDOUT`));
}

/** A writable stream loading COPY text rows into `table` (its `rowCount` is set once it finishes). */
export function copyTableIn(c: pg.PoolClient, table: TableInfo) {
  const cols = table.columns.map((x) => pg.escapeIdentifier(x)).join(', ');
  return c.query(copyFrom(`COPY ${pg.escapeIdentifier(table.name)} (${cols}) FROM STDIN`));
}

/**
 * Every stored object the snapshot references, one per line, sorted: file bytes (`blobs`), ready
 * PDF renders, and OpenAPI versions as the folder (prefix, ending in '/') holding their bundle and
 * their source text.
 */
export function copyReferencedBlobKeysOut(c: pg.PoolClient) {
  return c.query(
    copyTo(
      `COPY (
         SELECT key AS k, sha256 FROM blobs
         UNION SELECT blob_key, NULL FROM pdf_renders WHERE blob_key IS NOT NULL
         UNION SELECT regexp_replace(blob_key, '[^/]*$', ''), NULL FROM openapi_spec_versions
         ORDER BY 1
       ) TO STDOUT`,
    ),
  );
}

/** The server secret row a restore writes when the backed-up installation kept its key in the database. */
export async function restoreSecretKey(c: Queryable, value: string): Promise<void> {
  await c.query(`INSERT INTO settings (key, value) VALUES ('secret_key', $1)`, [value]);
}

/** The server secret the database holds (SECRET_KEY unset), or null. */
export async function storedSecretKey(c: Queryable): Promise<string | null> {
  const { rows } = await c.query<{ value: string }>(`SELECT value FROM settings WHERE key = 'secret_key'`);
  return rows[0]?.value ?? null;
}
