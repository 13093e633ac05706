import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { DeleteObjectsCommand, S3Client } from '@aws-sdk/client-s3';
import { InvalidBlobKey, type BlobStore } from '../../../src/storage/blobstore.js';
import { LocalBlobStore } from '../../../src/storage/local.js';
import { S3BlobStore } from '../../../src/storage/s3.js';
import { startS3rver, type RunningS3rver } from '../../helpers/s3rver.js';

function makeS3Store(endpoint: string): S3BlobStore {
  return new S3BlobStore({
    endpoint,
    region: 'us-east-1',
    bucket: 'test-bucket',
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    forcePathStyle: true,
  });
}

interface StoreHandle {
  store: BlobStore;
  teardown(): Promise<void>;
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(c as Uint8Array));
  return Buffer.concat(chunks);
}

const ALL_BYTES = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
const UNICODE_TEXT = 'Grüße, Ünïcödé — 日本語のドキュメント 中文文档 한국어 🚀\n';

/**
 * The BlobStore contract every driver must honour. Each driver gets its own store; every test
 * works under a fresh per-test prefix so tests never see each other's keys.
 */
function contract(name: string, makeStore: () => Promise<StoreHandle>): void {
  describe(`BlobStore contract: ${name}`, () => {
    let handle: StoreHandle;
    let store: BlobStore;
    let ns: string;
    let counter = 0;

    beforeAll(async () => {
      handle = await makeStore();
      store = handle.store;
    });

    afterAll(async () => {
      await handle?.teardown();
    });

    beforeEach(() => {
      counter += 1;
      ns = `t${counter}`;
    });

    it('reports the expected driver name', () => {
      expect(store.driver).toBe(name);
    });

    it('round-trips a binary Buffer with all 256 byte values', async () => {
      await store.put(`${ns}/bin`, ALL_BYTES);
      const got = await store.get(`${ns}/bin`);
      expect(got).not.toBeNull();
      expect(Buffer.isBuffer(got)).toBe(true);
      expect(got!.length).toBe(256);
      expect(got!.equals(ALL_BYTES)).toBe(true);
    });

    it('round-trips a UTF-8 string with non-ASCII and CJK text', async () => {
      await store.put(`${ns}/text.md`, UNICODE_TEXT, { contentType: 'text/markdown; charset=utf-8' });
      const got = await store.get(`${ns}/text.md`);
      expect(got).not.toBeNull();
      expect(got!.equals(Buffer.from(UNICODE_TEXT, 'utf8'))).toBe(true);
      expect(got!.toString('utf8')).toBe(UNICODE_TEXT);
      // size is in bytes, not UTF-16 code units
      expect(await store.head(`${ns}/text.md`)).toEqual({ size: Buffer.byteLength(UNICODE_TEXT, 'utf8') });
    });

    it('round-trips an empty object', async () => {
      await store.put(`${ns}/empty`, Buffer.alloc(0));
      expect(await store.head(`${ns}/empty`)).toEqual({ size: 0 });
      const got = await store.get(`${ns}/empty`);
      expect(got).not.toBeNull();
      expect(got!.length).toBe(0);
    });

    it('returns null from get/head/getStream for a missing key', async () => {
      expect(await store.get(`${ns}/missing`)).toBeNull();
      expect(await store.head(`${ns}/missing`)).toBeNull();
      expect(await store.getStream(`${ns}/missing`)).toBeNull();
    });

    // A missing key is missing whatever else is stored around it: a key that is only the "folder"
    // of other keys, or a key "inside" an existing object, must read as null and delete as a no-op
    // (on disk those are a directory and a path through a regular file).
    it('treats a key that is only a "folder" of other keys as missing', async () => {
      await store.put(`${ns}/dir/child`, 'x');
      expect(await store.get(`${ns}/dir`)).toBeNull();
      expect(await store.head(`${ns}/dir`)).toBeNull();
      expect(await store.getStream(`${ns}/dir`)).toBeNull();
      await expect(store.delete(`${ns}/dir`)).resolves.toBeUndefined();
      // ...and deleting that non-existent key must not take the children with it
      expect((await store.get(`${ns}/dir/child`))!.toString()).toBe('x');
      expect(await store.list(`${ns}/`)).toEqual([`${ns}/dir/child`]);
    });

    it('treats a key "inside" an existing object as missing', async () => {
      await store.put(`${ns}/leaf`, 'x');
      expect(await store.get(`${ns}/leaf/child`)).toBeNull();
      expect(await store.head(`${ns}/leaf/child`)).toBeNull();
      expect(await store.getStream(`${ns}/leaf/child`)).toBeNull();
      await expect(store.delete(`${ns}/leaf/child`)).resolves.toBeUndefined();
      expect((await store.get(`${ns}/leaf`))!.toString()).toBe('x');
      expect(await store.list(`${ns}/leaf/`)).toEqual([]);
    });

    it('head returns the size in bytes', async () => {
      await store.put(`${ns}/bin`, ALL_BYTES);
      expect(await store.head(`${ns}/bin`)).toEqual({ size: 256 });
    });

    it('getStream yields the exact bytes and the right size', async () => {
      await store.put(`${ns}/bin`, ALL_BYTES);
      const r = await store.getStream(`${ns}/bin`);
      expect(r).not.toBeNull();
      expect(r!.size).toBe(256);
      const got = await readAll(r!.stream);
      expect(got.equals(ALL_BYTES)).toBe(true);
    });

    it('put overwrites an existing key (including with a shorter body)', async () => {
      await store.put(`${ns}/k`, 'first version, which is the longer one');
      await store.put(`${ns}/k`, 'second');
      expect((await store.get(`${ns}/k`))!.toString()).toBe('second');
      expect(await store.head(`${ns}/k`)).toEqual({ size: 6 });
      expect(await store.list(`${ns}/`)).toEqual([`${ns}/k`]);
    });

    it('delete removes the key and leaves its siblings alone', async () => {
      await store.put(`${ns}/a`, 'a');
      await store.put(`${ns}/b`, 'b');
      await store.delete(`${ns}/a`);
      expect(await store.get(`${ns}/a`)).toBeNull();
      expect(await store.head(`${ns}/a`)).toBeNull();
      expect(await store.getStream(`${ns}/a`)).toBeNull();
      expect((await store.get(`${ns}/b`))!.toString()).toBe('b');
      expect(await store.list(`${ns}/`)).toEqual([`${ns}/b`]);
    });

    it('deleting a missing key does not throw (twice, and never-existing)', async () => {
      await store.put(`${ns}/gone`, 'x');
      await store.delete(`${ns}/gone`);
      await expect(store.delete(`${ns}/gone`)).resolves.toBeUndefined();
      await expect(store.delete(`${ns}/never/existed`)).resolves.toBeUndefined();
    });

    it('list(prefix) returns exactly the keys under the prefix, sorted, nested folders included', async () => {
      const keys = [
        `${ns}/a/b/z.txt`,
        `${ns}/a/b/c/d/deep.bin`,
        `${ns}/a/b/A.txt`,
        `${ns}/a/b/c/e.txt`,
        `${ns}/a/b/10`,
        `${ns}/a/b/9`,
        // siblings that share the string prefix "a/b" but are not under "a/b/"
        `${ns}/a/bc/x.txt`,
        `${ns}/a/b.txt`,
        `${ns}/a/ab/y`,
        `${ns}/a/c`,
        `${ns}/other/a/b/q`,
      ];
      // put in a scrambled order so a driver returning insertion order would fail
      for (const k of [...keys].reverse()) await store.put(k, k);

      const underAB = await store.list(`${ns}/a/b/`);
      expect(underAB).toEqual([
        `${ns}/a/b/10`,
        `${ns}/a/b/9`,
        `${ns}/a/b/A.txt`,
        `${ns}/a/b/c/d/deep.bin`,
        `${ns}/a/b/c/e.txt`,
        `${ns}/a/b/z.txt`,
      ]);
      expect(underAB).not.toContain(`${ns}/a/bc/x.txt`);
      expect(underAB).not.toContain(`${ns}/a/b.txt`);
      // The prefix is a plain string prefix (S3 semantics), not a folder: without the trailing
      // slash the siblings match too. Callers wanting a "folder" must pass the slash.
      expect(await store.list(`${ns}/a/b`)).toEqual([...underAB, `${ns}/a/b.txt`, `${ns}/a/bc/x.txt`].sort());

      // The whole namespace, sorted, nothing else (no temp files, no other tests' keys).
      expect(await store.list(`${ns}/`)).toEqual([...keys].sort());
      expect(await store.list(`${ns}/a/b/c/`)).toEqual([`${ns}/a/b/c/d/deep.bin`, `${ns}/a/b/c/e.txt`]);
      expect(await store.list(`${ns}/nothing/`)).toEqual([]);
      // every listed key is readable with its own content
      for (const k of underAB) expect((await store.get(k))!.toString()).toBe(k);
    });

    it('list("") includes keys at the root and nested keys', async () => {
      const root = `${ns}-rootfile`;
      await store.put(root, 'r');
      await store.put(`${ns}/nested/k`, 'n');
      const all = await store.list('');
      expect(all).toContain(root);
      expect(all).toContain(`${ns}/nested/k`);
      expect(all).toEqual([...all].sort());
      expect(all.some((k) => k.startsWith('.tmp'))).toBe(false);
    });

    it('deletePrefix removes only that prefix and returns the count', async () => {
      const doomed = [`${ns}/p/one`, `${ns}/p/two`, `${ns}/p/sub/three`, `${ns}/p/sub/deeper/four`];
      const kept = [`${ns}/pq/keep`, `${ns}/p.txt`, `${ns}/other/p/keep`];
      await Promise.all([...doomed, ...kept].map((k) => store.put(k, k)));

      expect(await store.deletePrefix(`${ns}/p/`)).toBe(doomed.length);
      for (const k of doomed) expect(await store.head(k)).toBeNull();
      for (const k of kept) expect((await store.get(k))!.toString()).toBe(k);
      expect(await store.list(`${ns}/p/`)).toEqual([]);
      expect(await store.list(`${ns}/`)).toEqual([...kept].sort());

      // nothing left: a second call deletes nothing
      expect(await store.deletePrefix(`${ns}/p/`)).toBe(0);
    });

    it.each([['../x'], ['/abs'], ['a//b'], ['a/./b'], [''], ['a/../../etc/passwd'], ['a/'], ['.'], ['..'], ['a\\b']])(
      'refuses the invalid key %j with InvalidBlobKey',
      async (bad) => {
        await expect(store.put(bad, 'x')).rejects.toBeInstanceOf(InvalidBlobKey);
        await expect(store.get(bad)).rejects.toBeInstanceOf(InvalidBlobKey);
        await expect(store.head(bad)).rejects.toBeInstanceOf(InvalidBlobKey);
        await expect(store.getStream(bad)).rejects.toBeInstanceOf(InvalidBlobKey);
        await expect(store.delete(bad)).rejects.toBeInstanceOf(InvalidBlobKey);
      },
    );

    it('a refused put writes nothing', async () => {
      await expect(store.put(`${ns}/../escape`, 'x')).rejects.toBeInstanceOf(InvalidBlobKey);
      expect(await store.list(`${ns}/`)).toEqual([]);
      expect(await store.get('escape')).toBeNull();
    });

    it('round-trips a 5 MiB object', async () => {
      const big = Buffer.alloc(5 * 1024 * 1024);
      // deterministic, non-repeating-ish content so truncation or reordering is detected
      for (let i = 0; i < big.length; i += 4) big.writeUInt32LE((i * 2654435761) >>> 0, i);
      await store.put(`${ns}/big.bin`, big);
      expect(await store.head(`${ns}/big.bin`)).toEqual({ size: big.length });
      const got = await store.get(`${ns}/big.bin`);
      expect(got!.length).toBe(big.length);
      expect(got!.equals(big)).toBe(true);
      const r = await store.getStream(`${ns}/big.bin`);
      expect(r!.size).toBe(big.length);
      expect((await readAll(r!.stream)).equals(big)).toBe(true);
    });

    it('concurrent puts of 20 different keys all land', async () => {
      const keys = Array.from({ length: 20 }, (_, i) => `${ns}/c/${String(i).padStart(2, '0')}/obj`);
      await Promise.all(keys.map((k, i) => store.put(k, Buffer.from(`payload-${i}-${k}`))));
      expect(await store.list(`${ns}/c/`)).toEqual(keys);
      const bodies = await Promise.all(keys.map((k) => store.get(k)));
      bodies.forEach((b, i) => expect(b!.toString()).toBe(`payload-${i}-${keys[i]}`));
    });

    it('list and deletePrefix go past one S3 page (1000 keys)', async () => {
      const keys = Array.from({ length: 1005 }, (_, i) => `${ns}/many/${String(i).padStart(4, '0')}`);
      for (let i = 0; i < keys.length; i += 50) {
        await Promise.all(keys.slice(i, i + 50).map((k) => store.put(k, 'x')));
      }
      await store.put(`${ns}/many-sibling`, 'keep');
      expect(await store.list(`${ns}/many/`)).toEqual(keys);
      expect(await store.deletePrefix(`${ns}/many/`)).toBe(keys.length);
      expect(await store.list(`${ns}/`)).toEqual([`${ns}/many-sibling`]);
    });
  });
}

contract('local', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'blobstore-local-'));
  const store = new LocalBlobStore(dir);
  return {
    store,
    async teardown() {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

contract('s3', async () => {
  const s3 = await startS3rver();
  const store = makeS3Store(s3.endpoint);
  // The bucket does not exist yet: this exercises the HeadBucket-404 -> CreateBucket path...
  await store.ensureBucket();
  // ...and it is idempotent once the bucket exists.
  await store.ensureBucket();
  return {
    store,
    async teardown() {
      await store.close();
      await s3.stop();
    },
  };
});

describe('S3BlobStore specifics', () => {
  let s3: RunningS3rver;
  let store: S3BlobStore;

  beforeAll(async () => {
    s3 = await startS3rver();
    store = makeS3Store(s3.endpoint);
    await store.ensureBucket();
  });

  afterAll(async () => {
    await store?.close();
    await s3?.stop();
  });

  afterEach(() => {
    vi.restoreAllMocks();
  });

  // DeleteObjects answers HTTP 200 and lists per-key failures in <Error> elements (s3rver never
  // produces them, so the response is substituted); deletePrefix must not report them as deleted.
  it('deletePrefix fails loudly when DeleteObjects reports per-key errors', async () => {
    await store.put('partial/one', '1');
    await store.put('partial/two', '2');
    const realSend = S3Client.prototype.send;
    vi.spyOn(S3Client.prototype, 'send').mockImplementation(function (this: S3Client, ...args: unknown[]) {
      if (args[0] instanceof DeleteObjectsCommand) {
        return Promise.resolve({
          $metadata: { httpStatusCode: 200 },
          Errors: [{ Key: 'partial/two', Code: 'AccessDenied', Message: 'Access Denied' }],
        });
      }
      return (realSend as (...a: unknown[]) => Promise<unknown>).apply(this, args);
    } as typeof S3Client.prototype.send);
    await expect(store.deletePrefix('partial/')).rejects.toThrow(/AccessDenied/);
  });
});
