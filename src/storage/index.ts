import type { Config } from '../config.js';
import type { BlobStore } from './blobstore.js';
import { LocalBlobStore } from './local.js';
import { S3BlobStore } from './s3.js';

export type { BlobStore } from './blobstore.js';

export async function createBlobStore(config: Config['storage']): Promise<BlobStore> {
  if (config.driver === 'local') return new LocalBlobStore(config.dir);
  const store = new S3BlobStore(config);
  await store.ensureBucket();
  return store;
}
