// Fake of src/db/repos/content-objects.ts: content-addressed objects per space.
import type * as real from '../../../../src/db/repos/content-objects.js';
import { copy, key, tables } from '../store.js';

export const selectObjects: typeof real.selectObjects = async <T>(_db: unknown, spaceId: string, hashes: string[]) =>
  hashes
    .filter((h) => tables.objects.has(key(spaceId, h)))
    .map((hash) => ({ hash, data: copy(tables.objects.get(key(spaceId, hash))) as T }));

export const insertObjects: typeof real.insertObjects = async (_db, spaceId, hashes, datas) => {
  hashes.forEach((h, i) => {
    if (!tables.objects.has(key(spaceId, h))) tables.objects.set(key(spaceId, h), JSON.parse(datas[i]));
  });
};

export const copyObjects: typeof real.copyObjects = async (_db, fromSpace, toSpace) => {
  for (const [k, data] of [...tables.objects]) {
    const [space, hash] = k.split(' ');
    if (space === fromSpace && !tables.objects.has(key(toSpace, hash))) tables.objects.set(key(toSpace, hash), copy(data));
  }
};
