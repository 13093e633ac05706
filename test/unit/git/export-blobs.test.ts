import { describe, expect, it } from 'vitest';
import { BLOB_READS_AHEAD, BLOB_READS_AHEAD_BYTES, blobReader, type StoredFileRef } from '../../../src/git/export-blobs.js';

/** A BlobStore whose reads finish when the test says so, recording which are under way. */
function slowBlobs() {
  const pending = new Map<string, () => void>();
  const started: string[] = [];
  return {
    started,
    pending,
    /** Finish every read under way. */
    finishAll: () => [...pending.values()].forEach((f) => f()),
    blobs: {
      get: (key: string) =>
        new Promise<Buffer | null>((resolve) => {
          started.push(key);
          pending.set(key, () => {
            pending.delete(key);
            resolve(key.startsWith('missing') ? null : Buffer.from(key));
          });
        }),
    },
  };
}

const file = (key: string, size = 1000): StoredFileRef => ({ blobKey: key, name: `${key}.png`, size });

/** Take everything in order, finishing reads as they are waited for; the largest number of reads under way at once. */
async function drain(store: ReturnType<typeof slowBlobs>, next: () => Promise<Buffer | null>) {
  const out: string[] = [];
  let most = 0;
  for (;;) {
    most = Math.max(most, store.pending.size);
    const p = next();
    store.finishAll();
    const b = await p;
    if (!b) return { out, most };
    out.push(b.toString());
  }
}

describe('export blob reader', () => {
  it('gives every blob in order, generated ones as they are and stored ones read', async () => {
    const store = slowBlobs();
    const contents = [Buffer.from('page-1'), file('img-1'), Buffer.from('page-2'), file('img-2'), file('img-3')];
    const { out } = await drain(store, blobReader(store as never, contents));
    expect(out).toEqual(['page-1', 'img-1', 'page-2', 'img-2', 'img-3']);
  });

  it('starts reading the next stored files before their turn, past the generated files between, and never more than the limit', async () => {
    const store = slowBlobs();
    const contents: (Buffer | StoredFileRef)[] = [];
    for (let i = 0; i < 40; i++) contents.push(Buffer.from(`page-${i}`), Buffer.from(`page-${i}b`), file(`img-${i}`));
    const next = blobReader(store as never, contents);
    expect((await next())!.toString()).toBe('page-0');
    // Taking the first page started the reads of the first files, 3 entries apart.
    expect(store.started).toEqual(Array.from({ length: BLOB_READS_AHEAD }, (_, i) => `img-${i}`));
    const { out, most } = await drain(store, next);
    expect(out).toHaveLength(contents.length - 1);
    expect(most).toBeLessThanOrEqual(BLOB_READS_AHEAD);
  });

  it('holds at most BLOB_READS_AHEAD_BYTES of files read ahead of the one taken, and reads a larger file alone', async () => {
    const store = slowBlobs();
    const big = BLOB_READS_AHEAD_BYTES / 2 + 1;
    const contents = [file('a', big), file('b', big), file('c', big), file('huge', BLOB_READS_AHEAD_BYTES * 2), file('d', 10)];
    const next = blobReader(store as never, contents);
    const first = next();
    // a is taken; b is read ahead; c would take the files read ahead over the limit.
    expect(store.started).toEqual(['a', 'b']);
    store.finishAll();
    expect((await first)!.toString()).toBe('a');
    const second = next();
    expect(store.started).toEqual(['a', 'b', 'c']);
    store.finishAll();
    await second;
    const third = next();
    // huge is over the limit on its own: it is read only once nothing else is ahead of it.
    expect(store.started).toEqual(['a', 'b', 'c', 'huge']);
    store.finishAll();
    await third;
    const rest = await drain(store, next);
    expect(rest.out).toEqual(['huge', 'd']);
    expect(store.started).toEqual(['a', 'b', 'c', 'huge', 'd']);
  });

  it('fails on a missing stored file when its turn comes, with its name', async () => {
    const store = slowBlobs();
    const next = blobReader(store as never, [Buffer.from('page'), file('missing-1')]);
    expect((await next())!.toString()).toBe('page');
    const p = next();
    store.finishAll();
    await expect(p).rejects.toThrow('The stored bytes of file "missing-1.png" are missing');
  });
});
