import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { PoolClient } from 'pg';
import type { Db, Queryable } from '../db/pool.js';
import type { ContentObject, Hash } from './types.js';
import * as repo from '../db/repos/content-objects.js';

/** JSON with object keys sorted, so equal content always gives equal bytes and an equal hash. */
export function canonicalJson(value: unknown): string {
  return plainJson(value) ?? replacerJson(value);
}

/** Keys JavaScript enumerates before the others (array indices): an object with one goes the general way. */
const INDEX_KEY = /^(?:0|[1-9]\d*)$/;

/**
 * canonicalJson of plain data (objects with prototype Object or null, arrays, strings, finite
 * numbers, booleans, null, undefined where JSON.stringify drops it), written in one walk; undefined
 * for anything else (a toJSON, a Date, an index-like key, a non-finite number...), which the
 * general serializer handles. Page nodes and roots are plain data: their hash is computed on every
 * commit. test/unit/content/objects.test.ts checks it against the general one.
 */
function plainJson(v: unknown, depth = 0): string | undefined {
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'boolean':
      return v ? 'true' : 'false';
    case 'number':
      return Number.isFinite(v) ? JSON.stringify(v) : undefined;
    case 'object':
      break;
    default:
      return undefined;
  }
  if (v === null) return 'null';
  if (depth > 100) return undefined;
  if (Array.isArray(v)) {
    const parts: string[] = [];
    for (const x of v) {
      const j = x === undefined ? 'null' : plainJson(x, depth + 1);
      if (j === undefined) return undefined;
      parts.push(j);
    }
    return `[${parts.join(',')}]`;
  }
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return undefined;
  const o = v as Record<string, unknown>;
  if ('toJSON' in o) return undefined;
  const keys = Object.keys(o).sort();
  const parts: string[] = [];
  for (const k of keys) {
    if (INDEX_KEY.test(k)) return undefined;
    const x = o[k];
    if (x === undefined) continue;
    const j = plainJson(x, depth + 1);
    if (j === undefined) return undefined;
    parts.push(`${JSON.stringify(k)}:${j}`);
  }
  return `{${parts.join(',')}}`;
}

function replacerJson(value: unknown): string {
  return JSON.stringify(value, (_k, v) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(v).sort()) if (v[key] !== undefined) out[key] = v[key];
      return out;
    }
    return v;
  });
}

/** 144 bits of SHA-256, base64url: collision-free in practice for a space's objects. */
export function hashObject(obj: ContentObject): Hash {
  return hashJson(canonicalJson(obj));
}

/** hashObject of an object given as its canonicalJson. */
export function hashJson(json: string): Hash {
  return createHash('sha256').update(json).digest('base64url').slice(0, 24);
}

/** canonicalJson of a body object `{ kind: 'body', markdown }`, without walking it (its keys are in order already). */
export function bodyJson(markdown: string): string {
  return `{"kind":"body","markdown":${JSON.stringify(markdown)}}`;
}

// Objects never change, so a process-wide cache is always correct; it bounds memory, not staleness.
const cache = new LRUCache<string, ContentObject>({ max: 200_000 });

/** Read objects of a space by hash (cache first, then one query for the rest). */
export async function getObjects(db: Queryable, spaceId: string, hashes: Hash[]): Promise<Map<Hash, ContentObject>> {
  const out = new Map<Hash, ContentObject>();
  const missing: Hash[] = [];
  for (const h of hashes) {
    const hit = cache.get(`${spaceId}:${h}`);
    if (hit) out.set(h, hit);
    else missing.push(h);
  }
  if (missing.length) {
    const rows = await repo.selectObjects<ContentObject>(db, spaceId, [...new Set(missing)]);
    for (const r of rows) {
      cache.set(`${spaceId}:${r.hash}`, r.data);
      out.set(r.hash, r.data);
    }
    const lost = missing.filter((h) => !out.has(h));
    if (lost.length) throw new Error(`Content objects missing in space ${spaceId}: ${lost.slice(0, 3).join(', ')}`);
  }
  return out;
}

export async function getObject<T extends ContentObject>(db: Queryable, spaceId: string, hash: Hash): Promise<T> {
  return (await getObjects(db, spaceId, [hash])).get(hash) as T;
}

/** Store objects given by hash as their canonicalJson (the JSON their hash was computed from). */
export async function putObjects(db: Queryable, spaceId: string, objects: Map<Hash, string>): Promise<void> {
  if (objects.size === 0) return;
  await repo.insertObjects(db, spaceId, [...objects.keys()], [...objects.values()]);
}

/**
 * Objects stored ahead of the revision that will reference them (a git import: its page bodies
 * are most of the revision's bytes, and its pages' own objects are known before its files are
 * stored), in statements of their own on one pool connection, while the caller's transaction does
 * its other work. Their commits do not wait for the WAL flush: the revision's durable commit, later
 * in the same WAL, covers them. Objects of a revision that is never committed stay unreferenced
 * (nothing reads an object no revision names; the same import again reuses them).
 *
 * The connection is taken at construction (before the caller opens its transaction) and held
 * until `release`: a transaction waiting for these objects never waits for a connection they
 * need, whatever the pool's size. Inserts run in the order they were asked for.
 */
export class ObjectsAhead {
  private readonly client: Promise<PoolClient>;
  /** The inserts asked for so far, settled (the next one starts after them). */
  private chain: Promise<unknown>;
  private failed = false;
  private released = false;

  constructor(
    pool: Db,
    private readonly spaceId: string,
  ) {
    this.client = pool.connect();
    this.client.catch(() => {}); // seen by the inserts and by release
    this.chain = this.client;
  }

  /**
   * Store the body objects of these markdowns (`Draft.knowStoredBodies` then commits the revision
   * without writing them again). Resolves, once they are committed, with each markdown's body hash.
   */
  async bodies(markdowns: Iterable<string>): Promise<Map<string, Hash>> {
    const byMarkdown = new Map<string, Hash>();
    const objects = new Map<Hash, string>();
    for (const markdown of markdowns) {
      if (!markdown || byMarkdown.has(markdown)) continue;
      const json = bodyJson(markdown);
      const hash = hashJson(json);
      byMarkdown.set(markdown, hash);
      objects.set(hash, json);
    }
    await this.objects(objects);
    return byMarkdown;
  }

  /** Store objects given by hash as their canonicalJson (`Draft.pageObjectsNow`); resolves once committed. */
  objects(objects: Map<Hash, string>): Promise<void> {
    if (this.released) return Promise.reject(new Error('objects asked for after the connection was given back'));
    const done = this.chain.then(async () => {
      if (!objects.size) return;
      const client = await this.client;
      try {
        await repo.insertObjects(client, this.spaceId, [...objects.keys()], [...objects.values()], { flushWait: false });
      } catch (err) {
        this.failed = true;
        throw err;
      }
    });
    this.chain = done.catch(() => {});
    return done;
  }

  /**
   * Give the connection back once the inserts asked for are done (whatever their outcome): as soon
   * as the caller has what it needs, and again in its `finally` (later calls do nothing).
   */
  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    await this.chain;
    const client = await this.client.catch(() => null);
    client?.release(this.failed);
  }
}

/** Copy every object of one space to another (duplicate): rows are copied, file bytes are not. */
export async function copyObjects(db: Queryable, fromSpace: string, toSpace: string): Promise<void> {
  await repo.copyObjects(db, fromSpace, toSpace);
}
