// File bytes of a space's content, stored content-addressed: identical bytes are stored once and
// shared by every space (and duplicate) that references them.
import { createHash } from 'node:crypto';
import { imageSize } from 'image-size';
import type { AppContext } from '../context.js';
import type { Queryable } from '../db/pool.js';
import { blobRecorded, lockBlobKey, recordBlob, referenceBlob } from '../db/repos/blobs.js';

export function blobKeyFor(sha256: string) {
  return `files/sha256/${sha256}`;
}

interface StoredBytes {
  blobKey: string;
  sha256: string;
  size: number;
  dimensions?: { width: number; height: number };
}

/**
 * Store file bytes for a space. Runs inside the caller's transaction and holds a per-key lock so
 * the purge job cannot delete bytes that are being referenced again.
 */
export async function storeFileBytes(
  app: Pick<AppContext, 'blobs'>,
  c: Queryable,
  spaceId: string,
  bytes: Buffer,
  contentType: string,
): Promise<StoredBytes> {
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const blobKey = blobKeyFor(sha256);
  await lockBlobKey(c, blobKey);
  if (!(await blobRecorded(c, blobKey)) || !(await app.blobs.head(blobKey))) {
    await app.blobs.put(blobKey, bytes, { contentType });
    await recordBlob(c, { key: blobKey, size: bytes.length, sha256 });
  }
  await referenceBlob(c, spaceId, blobKey);
  return { blobKey, sha256, size: bytes.length, dimensions: dimensionsOf(bytes, contentType) };
}

function dimensionsOf(bytes: Buffer, contentType: string): { width: number; height: number } | undefined {
  if (!contentType.startsWith('image/')) return undefined;
  try {
    const d = imageSize(bytes);
    return d.width && d.height ? { width: d.width, height: d.height } : undefined;
  } catch {
    return undefined;
  }
}
