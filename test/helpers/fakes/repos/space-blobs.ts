// Fake of src/db/repos/space-blobs.ts: which blobs each space references.
import type * as real from '../../../../src/db/repos/space-blobs.js';
import { key, tables } from '../store.js';

const blobsOf = (spaceId: string) =>
  [...tables.spaceBlobs].filter((k) => k.startsWith(`${spaceId} `)).map((k) => k.slice(spaceId.length + 1));

export const copySpaceBlobs: typeof real.copySpaceBlobs = async (_db, from, to) => {
  for (const b of blobsOf(from)) tables.spaceBlobs.add(key(to, b));
};

export const shareSpaceBlobs: typeof real.shareSpaceBlobs = copySpaceBlobs;
