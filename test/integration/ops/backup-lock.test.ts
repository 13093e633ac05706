// While a backup runs, no stored bytes its snapshot may reference are deleted (src/ops/backup.ts):
// the purge's pass over blob_garbage and an OpenAPI spec's deletion yield to the backup's lock,
// leaving the bytes queued, and the next purge run after the backup deletes them.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { addFile, PNG_2x1 } from '../../helpers/content.js';
import { operationSettled } from '../../helpers/operations.js';
import { purgeSpaces, type PurgeResult } from '../../../jobs/purge-spaces.js';
import type { JobContext } from '../../../jobs/types.js';
import { blobKeyFor } from '../../../src/content/files.js';
import { lockBlobDeletion, unlockBlobDeletion } from '../../../src/db/repos/backup.js';

const { t, org } = useTestApp({ workers: ['openapi'], seedOrg: true });

async function runPurge(): Promise<PurgeResult> {
  const ctx = { app: t.app, log: t.app.log, progress: async () => {} } as unknown as JobContext;
  return (await purgeSpaces({}, ctx)) as PurgeResult;
}

/** Hold the lock a running backup holds, for the span of `fn`. */
async function duringBackup<T>(fn: () => Promise<T>): Promise<T> {
  const c = await t.app.db.connect();
  try {
    await lockBlobDeletion(c);
    return await fn();
  } finally {
    await unlockBlobDeletion(c);
    c.release();
  }
}

describe('deletion of stored bytes during a backup', () => {
  it('the purge leaves the bytes of a purged space queued until the backup is done', async () => {
    const bytes = Buffer.concat([PNG_2x1, Buffer.from('backup-lock')]);
    const key = blobKeyFor(createHash('sha256').update(bytes).digest('hex'));
    const spaceId = (await t.api('POST', `/v1/orgs/${org.orgId}/spaces`, { token: org.adminToken, body: { title: 'Gone' } })).body.id;
    await addFile(t, spaceId, 'a.png', 'image/png', bytes);
    expect((await t.api('DELETE', `/v1/spaces/${spaceId}`, { token: org.adminToken })).status).toBe(204);
    await t.app.db.query(`UPDATE spaces SET deleted_at = now() - interval '30 days' WHERE id = $1`, [spaceId]);

    const during = await duringBackup(runPurge);
    expect(during.spaces).toBe(1); // rows go (the backup's snapshot still has them) ...
    expect(during.blobs).toMatchObject({ deleted: 0, paused: true });
    expect(await t.app.blobs.head(key)).not.toBeNull(); // ... the bytes stay
    const after = await runPurge();
    expect(after.blobs).toMatchObject({ deleted: 1 });
    expect(after.blobs.paused).toBeUndefined();
    expect(await t.app.blobs.head(key)).toBeNull();
  });

  it("an OpenAPI spec deleted meanwhile keeps its versions' bytes until the next purge", async () => {
    const put = await t.api('PUT', `/v1/orgs/${org.orgId}/openapi/pets`, {
      token: org.adminToken,
      body: { source: { text: JSON.stringify({ openapi: '3.0.0', info: { title: 'Pets', version: '1' }, paths: {} }) } },
    });
    expect((await operationSettled(t, put.headers.get('location'), { token: org.adminToken })).status).toBe('succeeded');
    const before = await t.app.blobs.list('openapi/');
    expect(before.length).toBe(2); // the bundle and the source text
    await duringBackup(async () => {
      expect((await t.api('DELETE', `/v1/orgs/${org.orgId}/openapi/pets`, { token: org.adminToken })).status).toBe(204);
    });
    expect(await t.app.blobs.list('openapi/')).toEqual(before);
    expect((await runPurge()).blobs).toMatchObject({ prefixes: 1 });
    expect(await t.app.blobs.list('openapi/')).toEqual([]);
  });
});
