// File bytes of a space's content, stored content-addressed: identical bytes are stored once and
// shared by every space (and duplicate) that references them.
import { createHash } from 'node:crypto';
import { imageSize } from 'image-size';
import type { AppContext } from '../context.js';
import type { Queryable } from '../db/pool.js';
import pLimit from 'p-limit';
import { lockBlobKeys, recordedBlobs, recordBlobs, referenceBlobs } from '../db/repos/blobs.js';

export function blobKeyFor(sha256: string) {
  return `files/sha256/${sha256}`;
}

export interface StoredBytes {
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
  const [stored] = await storeFilesBytes(app, c, spaceId, [{ bytes, contentType }]);
  return stored!;
}

/** BlobStore calls (head, put) storeFilesBytes makes at once. */
const BLOB_CALLS = 4;

/**
 * Store several files' bytes for a space at once (an import stores its files in batches): the
 * per-key locks in one statement (in one order), one lookup of the recorded keys, one insert of
 * blob rows and one of references per batch, the BlobStore calls a few at a time. Bytes recorded
 * but missing from storage are put again. Results in the order of `files`.
 */
export async function storeFilesBytes(
  app: Pick<AppContext, 'blobs'>,
  c: Queryable,
  spaceId: string,
  files: { bytes: Buffer; contentType: string }[],
): Promise<StoredBytes[]> {
  if (!files.length) return [];
  const out = files.map(({ bytes, contentType }) => {
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    return { blobKey: blobKeyFor(sha256), sha256, size: bytes.length, dimensions: dimensionsOf(bytes, contentType) };
  });
  const keys = [...new Set(out.map((o) => o.blobKey))];
  await lockBlobKeys(c, keys);
  const recorded = await recordedBlobs(c, keys);
  const limit = pLimit(BLOB_CALLS);
  const first = new Map<string, number>();
  out.forEach((o, i) => first.has(o.blobKey) || first.set(o.blobKey, i));
  const toRecord: { key: string; size: number; sha256: string }[] = [];
  const settled = await Promise.allSettled(
    [...first].map(([key, i]) =>
      limit(async () => {
        if (recorded.has(key) && (await app.blobs.head(key))) return;
        await app.blobs.put(key, files[i].bytes, { contentType: files[i].contentType });
        toRecord.push({ key, size: out[i].size, sha256: out[i].sha256 });
      }),
    ),
  );
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  await recordBlobs(c, toRecord);
  await referenceBlobs(c, spaceId, keys);
  return out;
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
