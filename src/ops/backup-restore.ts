// `npm run cli -- restore <dir>`: a backup (src/ops/backup.ts) into an empty database and an empty
// storage (docs/backups.md). Everything is checked before anything is written: the manifest, the
// format and migration level, every file's checksum (table files, the index, each object), the
// secret key, and that the database and the storage are empty. Then: the schema is migrated to the
// backup's level, the objects are put into storage, every table is loaded in one transaction (in
// foreign-key order, row counts checked) with its sequences, and the newer migrations of this
// version run last.
import { createReadStream } from 'node:fs';
import { readFile, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import { pipeline } from 'node:stream/promises';
import type { Config } from '../config.js';
import { withTx, type Db } from '../db/pool.js';
import { migrate } from '../db/migrate.js';
import type { BlobStore } from '../storage/index.js';
import { checkKey, InvalidBlobKey } from '../storage/blobstore.js';
import { invalid, conflict } from '../core/errors.js';
import * as repo from '../db/repos/backup.js';
import {
  BLOB_INDEX,
  FORMAT,
  FORMAT_VERSION,
  MANIFEST,
  MAX_MANIFEST_BYTES,
  blobFile,
  forEachBounded,
  hashFile,
  manifestSchema,
  secretKeyCheck,
  type IndexEntry,
  type Manifest,
} from './backup-format.js';

const MIGRATIONS_DIR = fileURLToPath(new URL('../db/migrations/', import.meta.url));
const PUT_CONCURRENCY = 4;
/** Longest line of the object index: a key (at most 1024 characters, escaped) and two numbers. */
const MAX_INDEX_LINE = 16 * 1024;

export interface RestoreDeps {
  db: Db;
  blobs: BlobStore;
  config: Pick<Config, 'secretKey'>;
  say(line: string): void;
}

export interface RestoreOptions {
  /** Restore although SECRET_KEY is not the backed-up installation's key (sealed credentials are then lost). */
  newSecretKey?: boolean;
}

/** Read and check a backup's manifest and files; throws a domain error naming what is wrong. */
export async function verifyBackup(dir: string): Promise<Manifest> {
  const manifest = await readManifest(dir);
  const migrations = await localMigrations();
  const latest = migrations.at(-1)!;
  if (manifest.migration.version > latest.version) {
    throw conflict(
      `The backup's database is at migration ${manifest.migration.name}, newer than this version knows (${latest.name}): restore it with that version of the platform or a later one`,
    );
  }
  const same = migrations.find((m) => m.version === manifest.migration.version);
  if (!same || same.name !== manifest.migration.name) {
    throw invalid(
      `The backup's migration ${manifest.migration.name} is not one of this version's migrations: it comes from another code line`,
    );
  }
  for (const t of manifest.tables) await checkFile(dir, t.file, t.bytes, t.sha256);
  await checkFile(dir, manifest.blobs.index.file, manifest.blobs.index.bytes, manifest.blobs.index.sha256);
  let objects = 0;
  let bytes = 0;
  await forEachBounded(readIndex(dir), PUT_CONCURRENCY, async (e) => {
    objects++;
    bytes += e.s;
    const got = await hashFile(blobFile(dir, e.h)).catch(() => null);
    if (!got) throw invalid(`The backup is damaged: the bytes of ${e.k} (blobs/${e.h.slice(0, 2)}/${e.h}) are missing`);
    if (got.sha256 !== e.h || got.bytes !== e.s) throw invalid(`The backup is damaged: the bytes of ${e.k} do not match their checksum`);
  });
  if (objects !== manifest.blobs.objects || bytes !== manifest.blobs.bytes) {
    throw invalid(`The backup is damaged: its index lists ${objects} objects (${bytes} bytes), the manifest ${manifest.blobs.objects}`);
  }
  return manifest;
}

/** Restore `dir` into the (empty) database and storage of `deps`. */
export async function restore(deps: RestoreDeps, dir: string, opts: RestoreOptions = {}): Promise<Manifest> {
  const manifest = await verifyBackup(dir);
  checkSecretKey(manifest, deps.config.secretKey, opts);
  deps.say(`backup verified: ${manifest.tables.length} tables, ${manifest.blobs.objects} objects, migration ${manifest.migration.name}`);

  // Refusals first: nothing is written into a database or storage that holds anything.
  const level = await repo.migrationLevel(deps.db);
  if (level.version > manifest.migration.version) {
    throw conflict(`The database is already migrated past the backup's level (${level.name}): restore into a new, empty database`);
  }
  const full = await repo.nonEmptyTables(
    deps.db,
    (await repo.listTables(deps.db)).map((t) => t.name),
  );
  if (full.length) throw conflict(`The database is not empty (rows in ${full.slice(0, 5).join(', ')}): restore into a new, empty database`);
  await checkStorageEmpty(deps.blobs, dir);

  const migrations = await localMigrations();
  await migrate(
    deps.db,
    migrations.filter((m) => m.version <= manifest.migration.version),
  );
  await forEachBounded(readIndex(dir), PUT_CONCURRENCY, async (e) => {
    await deps.blobs.put(e.k, await readFile(blobFile(dir, e.h)));
  });
  deps.say(`storage (${deps.blobs.driver}): ${manifest.blobs.objects} objects put`);

  await withTx(deps.db, async (c) => {
    const present = new Map((await repo.listTables(c)).map((t) => [t.name, t]));
    for (const t of manifest.tables) {
      const target = present.get(t.name);
      const absent = target ? t.columns.filter((col) => !target.columns.includes(col)) : [];
      if (!target || absent.length) {
        throw invalid(
          `The backup does not fit the schema of its own migration level: ${target ? `columns ${absent.join(', ')} of` : 'table'} ${t.name}`,
        );
      }
    }
    for (const t of loadOrder(manifest.tables, await repo.foreignKeyEdges(c))) {
      const load = repo.copyTableIn(c, t);
      await pipeline(createReadStream(path.join(dir, t.file)), createGunzip(), load);
      if (load.rowCount !== t.rows)
        throw invalid(`The backup is damaged: ${t.name} loaded ${load.rowCount} rows, the manifest says ${t.rows}`);
    }
    for (const s of manifest.sequences) await repo.setSequence(c, s);
    // The backed-up installation kept its key in the database: the same key (checked above) goes back there.
    if (manifest.secretKey.source === 'database' && deps.config.secretKey && !opts.newSecretKey) {
      await repo.restoreSecretKey(c, deps.config.secretKey);
    }
  });
  deps.say(`database: ${manifest.tables.reduce((n, t) => n + t.rows, 0)} rows in ${manifest.tables.length} tables`);
  const applied = await migrate(deps.db, migrations);
  if (applied.length) deps.say(`migrations applied after the restore: ${applied.join(', ')}`);
  if (manifest.blobs.missing.count) {
    deps.say(
      `WARNING: the backup lacks ${manifest.blobs.missing.count} object(s) its database references (they were missing when it was made)`,
    );
  }
  return manifest;
}

function checkSecretKey(manifest: Manifest, secretKey: string | undefined, opts: RestoreOptions): void {
  const { check, source } = manifest.secretKey;
  if (!check || opts.newSecretKey) return;
  const where = source === 'database' ? 'kept in its database, SECRET_KEY being unset there' : 'its SECRET_KEY';
  if (!secretKey) {
    throw invalid(
      `SECRET_KEY is not set: the backed-up installation's key (${where}) is not in the backup, and its sealed credentials open only with it. ` +
        'Set SECRET_KEY to that key, or pass --new-secret-key to restore without it (git sync and OpenAPI source credentials must then be entered again)',
    );
  }
  if (secretKeyCheck(secretKey) !== check) {
    throw invalid(
      `SECRET_KEY is not the backed-up installation's key (${where}): its sealed credentials would not open. ` +
        'Set SECRET_KEY to that key, or pass --new-secret-key to restore anyway (git sync and OpenAPI source credentials must then be entered again)',
    );
  }
}

async function readManifest(dir: string): Promise<Manifest> {
  const file = path.join(dir, MANIFEST);
  const s = await stat(file).catch(() => null);
  if (!s) throw invalid(`${dir} holds no ${MANIFEST}: not a backup, or one that did not finish`);
  if (s.size > MAX_MANIFEST_BYTES) throw invalid(`${file} is ${s.size} bytes: not a manifest of ours`);
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(file, 'utf8'));
  } catch {
    throw invalid(`The backup is damaged: ${MANIFEST} is not JSON`);
  }
  const head = raw as { format?: unknown; formatVersion?: unknown };
  if (head?.format !== FORMAT) throw invalid(`${file} is not a backup manifest of this platform`);
  if (typeof head.formatVersion === 'number' && head.formatVersion > FORMAT_VERSION) {
    throw conflict(
      `The backup has format ${head.formatVersion}, newer than this version reads (${FORMAT_VERSION}): restore it with the version that wrote it or a later one`,
    );
  }
  const parsed = manifestSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw invalid(`The backup is damaged: ${MANIFEST} ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  return parsed.data;
}

async function checkFile(dir: string, file: string, bytes: number, sha256: string): Promise<void> {
  const got = await hashFile(path.join(dir, file)).catch(() => null);
  if (!got) throw invalid(`The backup is damaged: ${file} is missing`);
  if (got.bytes !== bytes || got.sha256 !== sha256) throw invalid(`The backup is damaged: ${file} does not match its checksum`);
}

/** The object index, one entry at a time, each checked (a key the storage would refuse is damage). */
async function* readIndex(dir: string): AsyncGenerator<IndexEntry> {
  const lines = createInterface({ input: createReadStream(path.join(dir, BLOB_INDEX)).pipe(createGunzip()), crlfDelay: Infinity });
  let n = 0;
  for await (const line of lines) {
    n++;
    if (!line) continue;
    let e: IndexEntry;
    try {
      if (line.length > MAX_INDEX_LINE) throw new Error('too long');
      e = JSON.parse(line);
      checkKey(e.k);
      if (!/^[0-9a-f]{64}$/.test(e.h) || !Number.isSafeInteger(e.s) || e.s < 0) throw new Error('bad entry');
    } catch (err) {
      const what = err instanceof InvalidBlobKey ? err.message : 'not an index entry';
      throw invalid(`The backup is damaged: ${BLOB_INDEX} line ${n}: ${what}`);
    }
    yield e;
  }
}

/** Storage must be empty, or hold only objects of this very backup (a restore of it stopped half-way). */
async function checkStorageEmpty(store: BlobStore, dir: string): Promise<void> {
  const present = new Set(await store.list(''));
  if (!present.size) return;
  for await (const e of readIndex(dir)) present.delete(e.k);
  if (present.size) {
    throw conflict(
      `The storage is not empty (${present.size} object(s) not in this backup, e.g. ${[...present].slice(0, 3).join(', ')}): restore into new, empty storage`,
    );
  }
}

async function localMigrations(): Promise<{ version: number; name: string; sql: string }[]> {
  const files = (await readdir(MIGRATIONS_DIR)).filter((f) => /^\d{4}_.+\.sql$/.test(f)).sort();
  return Promise.all(
    files.map(async (f) => ({ version: Number(f.slice(0, 4)), name: f, sql: await readFile(path.join(MIGRATIONS_DIR, f), 'utf8') })),
  );
}

/** Tables in an order where every table comes after those it references (self-references aside). */
function loadOrder<T extends { name: string }>(tables: T[], edges: { from: string; to: string }[]): T[] {
  const byName = new Map(tables.map((t) => [t.name, t]));
  const deps = new Map(tables.map((t) => [t.name, new Set<string>()]));
  for (const e of edges) if (byName.has(e.from) && byName.has(e.to)) deps.get(e.from)!.add(e.to);
  const out: T[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (name: string, trail: string[]) => {
    if (state.get(name) === 'done') return;
    if (state.get(name) === 'visiting')
      throw invalid(`Tables reference each other in a cycle (${[...trail, name].join(' -> ')}): cannot order the restore`);
    state.set(name, 'visiting');
    for (const d of [...deps.get(name)!].sort()) visit(d, [...trail, name]);
    state.set(name, 'done');
    out.push(byName.get(name)!);
  };
  for (const t of [...tables].sort((a, b) => a.name.localeCompare(b.name))) visit(t.name, []);
  return out;
}
