import type { TestApp } from './app.js';
import { withTx } from '../../src/db/pool.js';
import { editMainContent } from '../../src/content/commit.js';
import type { Draft } from '../../src/content/draft.js';
import { storeFileBytes } from '../../src/content/files.js';
import { afterContentChange } from '../../src/services/content-hooks.js';
import { png } from './png.js';

/** Change a space's main content through the same write path the API uses. */
export async function editContent(t: TestApp, spaceId: string, mutate: (d: Draft) => unknown) {
  const r = await withTx(t.app.db, (c) => editMainContent(c, spaceId, mutate));
  await afterContentChange(t.app, spaceId);
  return r.revision;
}

/** Store bytes and add them as a file of the space's main content; returns the file id. */
export async function addFile(t: TestApp, spaceId: string, name: string, contentType: string, bytes: Buffer, id?: string): Promise<string> {
  let fileId = '';
  await withTx(t.app.db, async (c) => {
    const stored = await storeFileBytes(t.app, c, spaceId, bytes, contentType);
    await editMainContent(c, spaceId, (d) => {
      fileId = d.insertFile({
        id,
        name,
        contentType,
        size: stored.size,
        blobKey: stored.blobKey,
        sha256: stored.sha256,
        dimensions: stored.dimensions,
      });
    });
  });
  await afterContentChange(t.app, spaceId);
  return fileId;
}

/** A real 2x1 PNG. */
export const PNG_2x1 = png(2, 1, [200, 40, 40]);
