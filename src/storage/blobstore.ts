import type { Readable } from 'node:stream';

/**
 * Where bytes live: S3 (any S3-compatible endpoint) in production, a local folder for a single
 * machine. Keys are relative, slash-separated paths; metadata (content type, names) lives in
 * PostgreSQL rows, not here. Every driver passes the same contract tests (test/integration/storage/storage.test.ts).
 */
export interface BlobStore {
  readonly driver: 'local' | 's3';
  /** Write atomically: a reader sees either nothing or the whole object. */
  put(key: string, data: Buffer | string, opts?: { contentType?: string }): Promise<void>;
  get(key: string): Promise<Buffer | null>;
  getStream(key: string): Promise<{ stream: Readable; size: number } | null>;
  head(key: string): Promise<{ size: number } | null>;
  /** Idempotent: deleting a missing key succeeds. */
  delete(key: string): Promise<void>;
  list(prefix: string): Promise<string[]>;
  /** Delete every key under the prefix; returns how many were deleted. */
  deletePrefix(prefix: string): Promise<number>;
  close(): Promise<void>;
}

export class InvalidBlobKey extends Error {}

export function checkKey(key: string): string {
  if (
    !key ||
    key.length > 1024 ||
    key.startsWith('/') ||
    key.split('/').some((p) => p === '' || p === '.' || p === '..') ||
    /[\0\\]/.test(key)
  ) {
    throw new InvalidBlobKey(`Invalid blob key "${key}"`);
  }
  return key;
}
