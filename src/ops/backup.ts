// `npm run cli -- backup <dir>`: one consistent copy of the database and of the stored bytes it
// references (docs/backups.md).
//
// The database: every table through COPY ... TO STDOUT inside one REPEATABLE READ, READ ONLY
// transaction (one snapshot), streamed through gzip to a file: no table is held in memory, and no
// pg_dump binary matching the server's major version is needed where the command runs.
//
// The bytes: stored objects are immutable (file bytes are content-addressed, `files/sha256/<hex>`;
// PDFs and OpenAPI versions get a new key per render or version), so an object the snapshot
// references has the same bytes when it is copied a moment later, and objects written after the
// snapshot are simply not referenced by it. The one hazard is deletion: the backup takes the
// blob-deletion lock (src/db/repos/backup.ts) before its snapshot and keeps it until the referenced
// objects are copied, so the purge and spec deletion leave bytes queued in blob_garbage meanwhile.
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import { createGzip } from 'node:zlib';
import type { Config } from '../config.js';
import type { Db } from '../db/pool.js';
import type { BlobStore } from '../storage/index.js';
import { invalid } from '../core/errors.js';
import * as repo from '../db/repos/backup.js';
import {
  BLOB_INDEX,
  FORMAT,
  FORMAT_VERSION,
  MANIFEST,
  MAX_LISTED_KEYS,
  blobFile,
  copyField,
  forEachBounded,
  hashTap,
  pipeHashed,
  secretKeyCheck,
  tableFile,
  type IndexEntry,
  type Manifest,
} from './backup-format.js';

/** Objects copied at once (S3 round trips overlap; local disk does not mind). */
const COPY_CONCURRENCY = 8;

export interface BackupDeps {
  db: Db;
  blobs: BlobStore;
  config: Pick<Config, 'secretKey'>;
  /** Progress and warnings, one line each. */
  say(line: string): void;
}

/** Write a backup into `dir` (missing or empty); returns its manifest. */
export async function backup(deps: BackupDeps, dir: string): Promise<Manifest> {
  await prepareFolder(dir);
  const client = await deps.db.connect();
  let locked = false;
  try {
    await repo.lockBlobDeletion(client);
    locked = true;
    await repo.beginSnapshot(client);
    const migration = await repo.migrationLevel(client);
    if (!migration.name) throw invalid('The database has no schema yet (no migration applied): nothing to back up');
    const serverVersion = await repo.serverVersion(client);
    const storedKey = deps.config.secretKey ? null : await repo.storedSecretKey(client);
    const key = deps.config.secretKey ?? storedKey;
    const secretKey: Manifest['secretKey'] = {
      source: deps.config.secretKey ? 'SECRET_KEY' : storedKey ? 'database' : 'none',
      check: key ? secretKeyCheck(key) : null,
    };
    const tables: Manifest['tables'] = [];
    await mkdir(path.join(dir, 'db'));
    for (const table of await repo.listTables(client)) {
      const file = tableFile(table.name);
      const out = repo.copyTableOut(client, table);
      const written = await pipeHashed(out, [createGzip()], createWriteStream(path.join(dir, file)));
      tables.push({ name: table.name, columns: table.columns, rows: out.rowCount, file, ...written });
    }
    const sequences = await repo.readSequences(client);
    const keysFile = path.join(dir, '.keys');
    await pipeHashed(repo.copyReferencedBlobKeysOut(client), [], createWriteStream(keysFile));
    await repo.endSnapshot(client);
    deps.say(`database: ${tables.length} tables, ${tables.reduce((n, t) => n + t.rows, 0)} rows (migration ${migration.name})`);

    const blobs = await copyObjects(deps.blobs, dir, keysFile);
    await rm(keysFile);
    await repo.unlockBlobDeletion(client);
    locked = false;
    deps.say(`storage (${deps.blobs.driver}): ${blobs.objects} objects, ${blobs.bytes} bytes`);
    if (blobs.missing.count) {
      deps.say(
        `WARNING: ${blobs.missing.count} object(s) the database references were already missing from storage (the backup keeps their rows); e.g. ${blobs.missing.keys.slice(0, 3).join(', ')}`,
      );
    }
    if (blobs.damaged.count) {
      deps.say(
        `WARNING: ${blobs.damaged.count} object(s) in storage do not match the checksum the database recorded and were left out; e.g. ${blobs.damaged.keys.slice(0, 3).join(', ')}`,
      );
    }
    if (secretKey.source === 'database') {
      deps.say(
        'NOTE: SECRET_KEY is not set, so this installation keeps its key in the database; the key is NOT in the backup. ' +
          'Sealed credentials (git sync, OpenAPI source URLs) open only with it: keep it apart from the backup (docs/backups.md).',
      );
    }
    const manifest: Manifest = {
      format: FORMAT,
      formatVersion: FORMAT_VERSION,
      createdAt: new Date().toISOString(),
      migration: { version: migration.version, name: migration.name },
      postgres: { serverVersion },
      storage: { driver: deps.blobs.driver },
      secretKey,
      tables,
      sequences,
      blobs,
    };
    // Last, and atomically: a folder without a manifest is a backup that did not finish.
    await writeFile(path.join(dir, `${MANIFEST}.tmp`), `${JSON.stringify(manifest, null, 2)}\n`);
    await rename(path.join(dir, `${MANIFEST}.tmp`), path.join(dir, MANIFEST));
    return manifest;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    if (locked) await repo.unlockBlobDeletion(client).catch(() => {});
    client.release();
  }
}

async function prepareFolder(dir: string): Promise<void> {
  const s = await stat(dir).catch(() => null);
  if (s && !s.isDirectory()) throw invalid(`${dir} is not a folder`);
  if (s && (await readdir(dir)).length) throw invalid(`The backup folder ${dir} is not empty: give a new or empty folder`);
  await mkdir(dir, { recursive: true });
}

/**
 * Copy every object named in `keysFile` (COPY text lines: key or folder prefix, expected sha256 or
 * null) into the backup, writing the index as it goes. Objects are read one stream each and named
 * by their sha256, so identical bytes under two keys are stored once.
 */
async function copyObjects(store: BlobStore, dir: string, keysFile: string): Promise<Manifest['blobs']> {
  const indexTap = hashTap();
  const gzip = createGzip();
  const indexOut = createWriteStream(path.join(dir, BLOB_INDEX));
  const indexDone = new Promise<void>((resolve, reject) => {
    gzip.pipe(indexTap).pipe(indexOut);
    indexOut.on('finish', resolve).on('error', reject);
    gzip.on('error', reject);
  });
  const result: Manifest['blobs'] = {
    objects: 0,
    bytes: 0,
    index: { file: BLOB_INDEX, bytes: 0, sha256: '' },
    missing: { count: 0, keys: [] },
    damaged: { count: 0, keys: [] },
  };
  const note = (list: { count: number; keys: string[] }, key: string) => {
    list.count++;
    if (list.keys.length < MAX_LISTED_KEYS) list.keys.push(key);
  };
  const tmpDir = path.join(dir, 'blobs', '.tmp');
  await mkdir(tmpDir, { recursive: true });

  const copyOne = async (key: string, expected: string | null) => {
    const got = await store.getStream(key);
    if (!got) return note(result.missing, key);
    const tmp = path.join(tmpDir, randomBytes(8).toString('hex'));
    const { bytes, sha256 } = await pipeHashed(got.stream, [], createWriteStream(tmp));
    if (expected && sha256 !== expected) {
      await rm(tmp);
      return note(result.damaged, key);
    }
    const target = blobFile(dir, sha256);
    await mkdir(path.dirname(target), { recursive: true });
    await rename(tmp, target); // identical bytes already there: the same content, replaced
    result.objects++;
    result.bytes += bytes;
    const entry: IndexEntry = { k: key, s: bytes, h: sha256 };
    if (!gzip.write(`${JSON.stringify(entry)}\n`)) await new Promise((r) => gzip.once('drain', r));
  };

  const lines = createInterface({ input: createReadStream(keysFile), crlfDelay: Infinity });
  await forEachBounded(lines, COPY_CONCURRENCY, async (line) => {
    if (!line) return;
    const [rawKey, rawSha] = line.split('\t');
    const key = copyField(rawKey)!;
    if (key.endsWith('/')) {
      // An OpenAPI version's folder: every object in it (its bundle and its source text).
      const keys = await store.list(key);
      if (!keys.length) return note(result.missing, key);
      for (const k of keys) await copyOne(k, null);
    } else {
      await copyOne(key, copyField(rawSha ?? '\\N'));
    }
  });
  gzip.end();
  await indexDone;
  await rm(tmpDir, { recursive: true, force: true });
  result.index = { file: BLOB_INDEX, ...indexTap.result() };
  return result;
}
