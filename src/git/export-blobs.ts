// The bytes of an export's blobs, in the order they are packed: generated files are in memory
// already; the space's stored files are read from the BlobStore ahead of their turn, a bounded
// number and size of them at once.
import type { AppContext } from '../context.js';
import { GitSyncError } from './repo.js';

/**
 * Stored files read ahead of the one being packed, and the most bytes of them in memory together
 * (one larger file is read alone): small files' reads overlap instead of waiting in turn.
 */
export const BLOB_READS_AHEAD = 16;
export const BLOB_READS_AHEAD_BYTES = 32 * 1024 * 1024;

/** A file of the space an export writes: its bytes stay in the BlobStore until then. */
export interface StoredFileRef {
  blobKey: string;
  name: string;
  size: number;
}

async function storedBytes(app: Pick<AppContext, 'blobs'>, f: StoredFileRef): Promise<Buffer> {
  const bytes = await app.blobs.get(f.blobKey);
  if (!bytes) throw new GitSyncError(`The stored bytes of file "${f.name}" are missing`);
  return bytes;
}

/**
 * The bytes of an export's blobs, in order: generated files as they are, stored files read from
 * the BlobStore ahead of their turn, however many generated files lie between (at most
 * BLOB_READS_AHEAD of them and BLOB_READS_AHEAD_BYTES, read or being read and not taken yet; a
 * larger file is read alone). Each read taken starts the next.
 */
export function blobReader(app: Pick<AppContext, 'blobs'>, contents: (Buffer | StoredFileRef)[]): () => Promise<Buffer | null> {
  const reads = new Map<number, Promise<Buffer>>();
  let readBytes = 0;
  /** The next content a read may start for (every stored file before it has one, or was taken). */
  let scan = 0;
  let taken = 0;
  const topUp = () => {
    for (; scan < contents.length && reads.size < BLOB_READS_AHEAD; scan++) {
      const c = contents[scan];
      if (Buffer.isBuffer(c)) continue;
      if (reads.size && readBytes + c.size > BLOB_READS_AHEAD_BYTES) break;
      const bytes = storedBytes(app, c);
      bytes.catch(() => {}); // awaited when taken; an export that fails first does not wait for it
      reads.set(scan, bytes);
      readBytes += c.size;
    }
  };
  return async () => {
    if (taken >= contents.length) return null;
    const i = taken++;
    const c = contents[i];
    if (!Buffer.isBuffer(c)) {
      // Files are taken in order: with none of the reads ahead left, this one starts here.
      if (!reads.has(i)) topUp();
      const bytes = reads.get(i)!;
      reads.delete(i);
      readBytes -= c.size;
      topUp();
      return bytes;
    }
    topUp();
    return c;
  };
}
