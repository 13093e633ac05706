// The on-disk format of a backup (docs/backups.md), shared by `backup` and `restore`:
//
//   <dir>/manifest.json            written last: a folder without it is a backup that did not finish
//   <dir>/db/<table>.copy.gz       each table's rows, PostgreSQL COPY text format, gzip
//   <dir>/blobs.ndjson.gz          one line per stored object: {"k": key, "s": size, "h": sha256}
//   <dir>/blobs/<h[0:2]>/<h>       the object's bytes, stored by their sha256 (identical bytes once)
//
// The manifest holds the format version, the schema migration level, row and object counts, and
// the sha256 of every file but the objects' (each is named by its own sha256, listed in the index).
import { createHash, createHmac } from 'node:crypto';
import { createReadStream } from 'node:fs';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { z } from 'zod';

export const FORMAT = 'docsplatform-backup';
/** Bumped when a reader of the previous format could not restore a new backup correctly. */
export const FORMAT_VERSION = 1;
export const MANIFEST = 'manifest.json';
export const BLOB_INDEX = 'blobs.ndjson.gz';
/** A manifest is small (a few KB per table); anything much larger is not ours. */
export const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;
/** Missing or damaged keys named in the manifest (the counts are complete). */
export const MAX_LISTED_KEYS = 1000;

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/);
const fileEntry = z.object({ file: z.string().regex(/^db\/[A-Za-z0-9_]+\.copy\.gz$/), bytes: z.number().int().min(0), sha256: sha256Hex });

export const manifestSchema = z.object({
  format: z.literal(FORMAT),
  formatVersion: z.number().int().min(1),
  createdAt: z.string(),
  migration: z.object({ version: z.number().int().min(1), name: z.string() }),
  postgres: z.object({ serverVersion: z.string() }),
  storage: z.object({ driver: z.enum(['local', 's3']) }),
  /**
   * The server secret is configuration and never in a backup. `check` tells a restore whether the
   * SECRET_KEY it is given is the same key (an HMAC of a fixed text under the key; it does not reveal it).
   */
  secretKey: z.object({ source: z.enum(['SECRET_KEY', 'database', 'none']), check: z.string().nullable() }),
  tables: z.array(
    fileEntry.extend({
      name: z.string().regex(/^[A-Za-z0-9_]+$/),
      columns: z.array(z.string().min(1)).min(1),
      rows: z.number().int().min(0),
    }),
  ),
  sequences: z.array(z.object({ name: z.string().min(1), value: z.number().int(), isCalled: z.boolean() })),
  blobs: z.object({
    objects: z.number().int().min(0),
    bytes: z.number().int().min(0),
    index: z.object({ file: z.literal(BLOB_INDEX), bytes: z.number().int().min(0), sha256: sha256Hex }),
    /** Referenced by the snapshot but not in storage when the backup ran (the source was already missing them). */
    missing: z.object({ count: z.number().int().min(0), keys: z.array(z.string()) }),
    /** In storage with other bytes than the database recorded: left out of the backup. */
    damaged: z.object({ count: z.number().int().min(0), keys: z.array(z.string()) }),
  }),
});
export type Manifest = z.infer<typeof manifestSchema>;

export interface IndexEntry {
  k: string;
  s: number;
  h: string;
}

export function tableFile(table: string): string {
  return `db/${table}.copy.gz`;
}

export function blobFile(dir: string, sha256: string): string {
  return path.join(dir, 'blobs', sha256.slice(0, 2), sha256);
}

/** The manifest's key check: an HMAC of a fixed text under the key (the key cannot be read back from it). */
export function secretKeyCheck(key: string): string {
  return createHmac('sha256', key).update('docsplatform backup: key check').digest('hex').slice(0, 32);
}

/** A pass-through stream counting and hashing what flows through it. */
export function hashTap(): Transform & { result(): { bytes: number; sha256: string } } {
  const hash = createHash('sha256');
  let bytes = 0;
  const t = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      bytes += chunk.length;
      done(null, chunk);
    },
  });
  return Object.assign(t, { result: () => ({ bytes, sha256: hash.digest('hex') }) });
}

/** Size and sha256 of a file, read as a stream. */
export async function hashFile(file: string): Promise<{ bytes: number; sha256: string }> {
  return hashStream(createReadStream(file));
}

export async function hashStream(source: Readable): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of source) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { bytes, sha256: hash.digest('hex') };
}

/** Stream `source` through `stages` into `sink`, returning the size and sha256 of what reached the sink. */
export async function pipeHashed(source: Readable, stages: Transform[], sink: NodeJS.WritableStream) {
  const tap = hashTap();
  await pipeline([source, ...stages, tap, sink]);
  return tap.result();
}

/** One field of a COPY text-format line: `\N` is null, backslash escapes are decoded. */
export function copyField(raw: string): string | null {
  if (raw === '\\N') return null;
  if (!raw.includes('\\')) return raw;
  return raw.replace(/\\(x[0-9a-fA-F]{1,2}|[0-7]{1,3}|.)/g, (_m, e: string) => {
    if (e[0] === 'x') return String.fromCharCode(parseInt(e.slice(1), 16));
    if (/^[0-7]/.test(e)) return String.fromCharCode(parseInt(e, 8));
    return { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' }[e] ?? e;
  });
}

/**
 * Run `fn` over `items` with at most `limit` calls at once, reading the items only as calls finish
 * (an async iterable of a million keys is never held in memory). The first failure stops it.
 */
export async function forEachBounded<T>(items: AsyncIterable<T> | Iterable<T>, limit: number, fn: (item: T) => Promise<void>) {
  const running = new Set<Promise<void>>();
  let failure: { err: unknown } | undefined;
  for await (const item of items) {
    if (failure) break;
    const p: Promise<void> = fn(item)
      .catch((err) => {
        failure ??= { err };
      })
      .finally(() => running.delete(p));
    running.add(p);
    if (running.size >= limit) await Promise.race(running);
  }
  await Promise.all(running);
  if (failure) throw failure.err;
}
