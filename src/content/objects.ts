import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Queryable } from '../db/pool.js';
import type { ContentObject, Hash } from './types.js';
import * as repo from '../db/repos/content-objects.js';

/** JSON with object keys sorted, so equal content always gives equal bytes and an equal hash. */
export function canonicalJson(value: unknown): string {
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
  return createHash('sha256').update(canonicalJson(obj)).digest('base64url').slice(0, 24);
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

/** Insert objects (already hashed); existing ones are kept as they are (same hash, same content). */
export async function putObjects(db: Queryable, spaceId: string, objects: Map<Hash, ContentObject>): Promise<void> {
  if (objects.size === 0) return;
  const hashes = [...objects.keys()];
  const datas = hashes.map((h) => canonicalJson(objects.get(h)));
  await repo.insertObjects(db, spaceId, hashes, datas);
}

/** Copy every object of one space to another (duplicate): rows are copied, file bytes are not. */
export async function copyObjects(db: Queryable, fromSpace: string, toSpace: string): Promise<void> {
  await repo.copyObjects(db, fromSpace, toSpace);
}
