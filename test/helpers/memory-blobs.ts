import { Readable } from 'node:stream';
import { checkKey, type BlobStore } from '../../src/storage/blobstore.js';

/**
 * An in-memory BlobStore for unit tests of services that store bytes, without S3 or a disk. It
 * checks keys as the drivers do (an invalid key throws InvalidBlobKey) and exposes what it holds.
 */
export interface MemoryBlobs extends BlobStore {
  /** The objects held, by key. */
  readonly objects: Map<string, Buffer>;
}

export function memoryBlobs(): MemoryBlobs {
  const objects = new Map<string, Buffer>();
  return {
    driver: 'local',
    objects,
    async put(key, data) {
      objects.set(checkKey(key), Buffer.from(data));
    },
    async get(key) {
      return objects.get(checkKey(key)) ?? null;
    },
    async getStream(key) {
      const bytes = objects.get(checkKey(key));
      return bytes ? { stream: Readable.from([bytes]), size: bytes.length } : null;
    },
    async head(key) {
      const bytes = objects.get(checkKey(key));
      return bytes ? { size: bytes.length } : null;
    },
    async delete(key) {
      objects.delete(checkKey(key));
    },
    async list(prefix) {
      return [...objects.keys()].filter((k) => k.startsWith(prefix)).sort();
    },
    async deletePrefix(prefix) {
      const keys = [...objects.keys()].filter((k) => k.startsWith(prefix));
      for (const k of keys) objects.delete(k);
      return keys.length;
    },
    async close() {},
  };
}
