// An S3 endpoint on loopback (s3rver) for tests that run the blob store, the platform or its CLI on S3
// storage.
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
// @ts-expect-error -- s3rver ships no type declarations; the shape we use is typed below.
import S3rverUntyped from 's3rver';

interface S3rverInstance {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}
type S3rverCtor = new (opts: { address: string; port: number; silent: boolean; directory: string }) => S3rverInstance;
const S3rver = S3rverUntyped as S3rverCtor;

export interface RunningS3rver {
  endpoint: string;
  /** The environment that points the platform (API, workers, CLI) at `bucket` on this server. */
  env(bucket: string): Record<string, string>;
  stop(): Promise<void>;
}

/**
 * s3rver 3.x signs ListObjectsV2 continuation tokens with single DES, which OpenSSL 3 only has in
 * its legacy provider: map 'des' onto triple DES with the key repeated (the same cipher) while it runs.
 */
function patchSingleDes(): () => void {
  const nodeCrypto = createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto');
  try {
    nodeCrypto.createCipheriv('des', Buffer.alloc(8), Buffer.alloc(8));
    return () => {};
  } catch {
    /* fall through */
  }
  type Factory = (alg: string, key: Buffer, iv: Buffer | null, opts?: unknown) => unknown;
  const mutable = nodeCrypto as unknown as { createCipheriv: Factory; createDecipheriv: Factory };
  const { createCipheriv, createDecipheriv } = mutable;
  const wrap =
    (orig: Factory): Factory =>
    (alg, key, iv, opts) =>
      alg.toLowerCase() === 'des' && key.length === 8
        ? orig.call(nodeCrypto, 'des-ede3-cbc', Buffer.concat([key, key, key]), iv, opts)
        : orig.call(nodeCrypto, alg, key, iv, opts);
  mutable.createCipheriv = wrap(createCipheriv);
  mutable.createDecipheriv = wrap(createDecipheriv);
  return () => {
    mutable.createCipheriv = createCipheriv;
    mutable.createDecipheriv = createDecipheriv;
  };
}

export async function startS3rver(): Promise<RunningS3rver> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'dp-s3rver-'));
  const unpatch = patchSingleDes();
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: dir });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    env: (bucket) => ({ S3_BUCKET: bucket, S3_ENDPOINT: endpoint, S3_ACCESS_KEY_ID: 'S3RVER', S3_SECRET_ACCESS_KEY: 'S3RVER' }),
    async stop() {
      await server.close();
      unpatch();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
