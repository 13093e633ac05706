import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { waitFor } from '../../helpers/http.js';
import { addFile, editContent, PNG_2x1 } from '../../helpers/content.js';
import { purgeSpaces, type PurgeResult } from '../../../jobs/purge-spaces.js';
import type { JobContext } from '../../../jobs/types.js';
import { blobKeyFor, storeFileBytes, storeFilesBytes } from '../../../src/content/files.js';
import { withTx } from '../../../src/db/pool.js';

// Workers check their job schedulers every RECONCILE_INTERVAL_MS.
const { t, org } = useTestApp({ env: { RECONCILE_INTERVAL_MS: '300' }, seedOrg: true });

/** Run the processor as a worker would (no operation row needed for the processor itself). */
async function runPurge(payload: { before?: string } = {}): Promise<PurgeResult> {
  const ctx = { app: t.app, log: t.app.log, progress: async () => {} } as unknown as JobContext;
  return (await purgeSpaces(payload, ctx)) as PurgeResult;
}

async function createSpace(title: string): Promise<string> {
  const r = await t.api('POST', `/v1/orgs/${org.orgId}/spaces`, { token: org.adminToken, body: { title } });
  expect(r.status).toBe(201);
  return r.body.id;
}

async function deleteSpace(spaceId: string, daysAgo: number) {
  expect((await t.api('DELETE', `/v1/spaces/${spaceId}`, { token: org.adminToken })).status).toBe(204);
  await t.app.db.query(`UPDATE spaces SET deleted_at = now() - make_interval(days => $2) WHERE id = $1`, [spaceId, daysAgo]);
}

async function rowsOf(spaceId: string) {
  const count = async (sql: string) => (await t.app.db.query(sql, [spaceId])).rows[0].n as number;
  return {
    spaces: await count('SELECT count(*)::int AS n FROM spaces WHERE id = $1'),
    revisions: await count('SELECT count(*)::int AS n FROM revisions WHERE space_id = $1'),
    contentObjects: await count('SELECT count(*)::int AS n FROM content_objects WHERE space_id = $1'),
    spaceBlobs: await count('SELECT count(*)::int AS n FROM space_blobs WHERE space_id = $1'),
  };
}

const keyOf = (bytes: Buffer) => blobKeyFor(createHash('sha256').update(bytes).digest('hex'));
const stored = async (key: string) => !!(await t.app.blobs.head(key));
const blobRow = async (key: string) => (await t.app.db.query('SELECT 1 FROM blobs WHERE key = $1', [key])).rows.length > 0;
const garbage = async () => (await t.app.db.query('SELECT blob_key FROM blob_garbage ORDER BY blob_key')).rows.map((r) => r.blob_key);

/** A space with three revisions beyond its first, two pages and `files` (name -> bytes). */
async function spaceWithContent(title: string, files: Record<string, Buffer>) {
  const id = await createSpace(title);
  await editContent(t, id, (d) => {
    const guide = d.insertPage(null, { title: 'Guide', markdown: '# Guide\n\nSome text.' });
    d.insertPage(guide, { title: 'Install', markdown: 'Run the installer.' });
  });
  const fileIds: Record<string, string> = {};
  for (const [name, bytes] of Object.entries(files)) fileIds[name] = await addFile(t, id, name, 'image/png', bytes);
  return { id, fileIds };
}

describe('purge of deleted spaces', () => {
  it('removes a space deleted more than 7 days ago with its rows and own bytes, keeping bytes a live duplicate shares', async () => {
    const sharedBytes = Buffer.concat([PNG_2x1, Buffer.from('shared')]);
    const ownBytes = Buffer.concat([PNG_2x1, Buffer.from('own')]);
    const { id: old, fileIds } = await spaceWithContent('Old', { 'shared.png': sharedBytes });
    const dup = await t.api('POST', `/v1/spaces/${old}/duplicate`, { token: org.adminToken });
    expect(dup.status).toBe(201);
    const duplicate = dup.body.id as string;
    await addFile(t, old, 'own.png', 'image/png', ownBytes);
    const before = await rowsOf(old);
    expect(before.revisions).toBeGreaterThanOrEqual(4);
    expect(before.spaceBlobs).toBe(2);

    const recentBytes = Buffer.concat([PNG_2x1, Buffer.from('recent')]);
    const { id: recent } = await spaceWithContent('Recent', { 'recent.png': recentBytes });
    const live = await createSpace('Live');
    await deleteSpace(old, 8);
    await deleteSpace(recent, 2);
    // A prefix queued by another feature (an OpenAPI spec's versions, say) is drained too.
    await t.app.blobs.put('openapi/gone-spec/v1.json', '{}');
    await t.app.blobs.put('openapi/gone-spec/v2.json', '{}');
    await t.app.db.query(`INSERT INTO blob_garbage (blob_key) VALUES ('openapi/gone-spec/')`);

    const result = await runPurge();
    expect(result.spaceIds).toEqual([old]);
    expect(result.blobs).toMatchObject({ deleted: 1, kept: 1, prefixes: 1, deferred: 0 });

    expect(await rowsOf(old)).toEqual({ spaces: 0, revisions: 0, contentObjects: 0, spaceBlobs: 0 });
    expect(await stored(keyOf(ownBytes))).toBe(false);
    expect(await blobRow(keyOf(ownBytes))).toBe(false);
    expect(await stored(keyOf(sharedBytes))).toBe(true);
    expect(await blobRow(keyOf(sharedBytes))).toBe(true);
    expect(await t.app.blobs.list('openapi/gone-spec/')).toEqual([]);
    expect(await garbage()).toEqual([]);

    // The duplicate still serves the shared bytes.
    const file = await t.api('GET', `/v1/spaces/${duplicate}/content/files/${fileIds['shared.png']}`, { token: org.adminToken });
    expect(file.status).toBe(200);
    const download = await fetch(file.body.downloadURL);
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(sharedBytes)).toBe(true);

    // The recently deleted space and the live one are untouched; the purged one cannot be restored.
    expect((await rowsOf(recent)).spaces).toBe(1);
    expect(await stored(keyOf(recentBytes))).toBe(true);
    expect((await t.api('GET', `/v1/spaces/${live}`, { token: org.adminToken })).status).toBe(200);
    const restoreOld = await t.api('POST', `/v1/spaces/${old}/restore`, { token: org.adminToken });
    expect(restoreOld.status).toBe(404);
    const restoreRecent = await t.api('POST', `/v1/spaces/${recent}/restore`, { token: org.adminToken });
    expect(restoreRecent.status).toBe(200);
    expect(
      (await t.api('GET', `/v1/spaces/${recent}/content/pages`, { token: org.adminToken })).body.pages.map((p: any) => p.title),
    ).toEqual(['Introduction', 'Guide']);

    // Running it again is harmless.
    const again = await runPurge();
    expect(again).toMatchObject({ spaces: 0, blobs: { deleted: 0, kept: 0, prefixes: 0, deferred: 0 } });
    expect((await fetch(file.body.downloadURL)).status).toBe(200);
  });

  it('bytes shared only by deleted spaces wait until the last of them is purged', async () => {
    const bytes = Buffer.concat([PNG_2x1, Buffer.from('two deleted owners')]);
    const a = await spaceWithContent('A', { 'x.png': bytes });
    const b = await spaceWithContent('B', { 'x.png': bytes });
    await deleteSpace(a.id, 9);
    await deleteSpace(b.id, 3);
    const first = await runPurge();
    expect(first.spaceIds).toEqual([a.id]);
    expect(first.blobs).toMatchObject({ deleted: 0, deferred: 1 });
    expect(await stored(keyOf(bytes))).toBe(true);
    expect(await garbage()).toEqual([keyOf(bytes)]);
    // Later, B passes its retention period too.
    await t.app.db.query(`UPDATE spaces SET deleted_at = now() - interval '8 days' WHERE id = $1`, [b.id]);
    const second = await runPurge();
    expect(second.spaceIds).toEqual([b.id]);
    expect(second.blobs).toMatchObject({ deleted: 1, deferred: 0 });
    expect(await stored(keyOf(bytes))).toBe(false);
    expect(await garbage()).toEqual([]);
  });

  it('a run interrupted while deleting bytes leaves them queued; the next run finishes', async () => {
    const bytes = Buffer.concat([PNG_2x1, Buffer.from('interrupted')]);
    const { id } = await spaceWithContent('Interrupted', { 'i.png': bytes });
    await deleteSpace(id, 8);
    const original = t.app.blobs.delete.bind(t.app.blobs);
    t.app.blobs.delete = async () => {
      throw new Error('storage unavailable');
    };
    try {
      await expect(runPurge()).rejects.toThrow('storage unavailable');
    } finally {
      t.app.blobs.delete = original;
    }
    // The space's rows are gone (that transaction committed); its bytes are still there, queued.
    expect((await rowsOf(id)).spaces).toBe(0);
    expect(await stored(keyOf(bytes))).toBe(true);
    expect(await garbage()).toEqual([keyOf(bytes)]);
    const retry = await runPurge();
    expect(retry.blobs.deleted).toBe(1);
    expect(await stored(keyOf(bytes))).toBe(false);
    expect(await garbage()).toEqual([]);
  });

  it('two runs at once purge each space exactly once, without errors', async () => {
    const shared = Buffer.concat([PNG_2x1, Buffer.from('shared by all six')]);
    const spaces: { id: string; own: Buffer }[] = [];
    for (let i = 0; i < 6; i++) {
      const own = Buffer.concat([PNG_2x1, Buffer.from(`own ${i}`)]);
      const s = await spaceWithContent(`Concurrent ${i}`, { 'shared.png': shared, 'own.png': own });
      await deleteSpace(s.id, 10 + i);
      spaces.push({ id: s.id, own });
    }
    const [r1, r2] = await Promise.all([runPurge(), runPurge()]);
    const purged = [...r1.spaceIds, ...r2.spaceIds];
    expect(purged.length).toBe(6);
    expect(new Set(purged)).toEqual(new Set(spaces.map((s) => s.id)));
    expect(r1.blobs.deleted + r2.blobs.deleted).toBe(7);
    for (const s of spaces) {
      expect(await rowsOf(s.id)).toEqual({ spaces: 0, revisions: 0, contentObjects: 0, spaceBlobs: 0 });
      expect(await stored(keyOf(s.own))).toBe(false);
    }
    expect(await stored(keyOf(shared))).toBe(false);
    expect(await garbage()).toEqual([]);
  });

  it('a new upload of purged bytes while the purge runs is never lost', async () => {
    const bytes = Buffer.concat([PNG_2x1, Buffer.from('re-uploaded')]);
    const { id } = await spaceWithContent('Gone soon', { 'r.png': bytes });
    await deleteSpace(id, 8);
    const other = await createSpace('Uploader');
    // Upload the same bytes into another space at the same time as the purge.
    const [result, fileId] = await Promise.all([runPurge(), addFile(t, other, 'r.png', 'image/png', bytes)]);
    expect(result.spaceIds).toEqual([id]);
    expect(await stored(keyOf(bytes))).toBe(true);
    const file = await t.api('GET', `/v1/spaces/${other}/content/files/${fileId}`, { token: org.adminToken });
    const download = await fetch(file.body.downloadURL);
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it('refuses a payload whose "before" is not a date', async () => {
    await expect(runPurge({ before: 'yesterday-ish' })).rejects.toThrow(/payload.before/);
  });
});

describe('storing bytes in batches (imports)', () => {
  it('stores each distinct content once, references it, restores bytes lost from storage, and answers like storeFileBytes', async () => {
    const spaceId = await createSpace('Batch store');
    const a = Buffer.from(`batch a ${Date.now()}`);
    const b = Buffer.from(`batch b ${Date.now()}`);
    const lost = Buffer.from(`batch lost ${Date.now()}`);
    // Recorded earlier (another space), then its bytes vanished from storage.
    const other = await createSpace('Batch store, other');
    await withTx(t.app.db, (c) => storeFileBytes(t.app, c, other, lost, 'text/plain'));
    await t.app.blobs.delete(blobKeyFor(createHash('sha256').update(lost).digest('hex')));

    const files = [
      { bytes: a, contentType: 'text/plain' },
      { bytes: PNG_2x1, contentType: 'image/png' },
      { bytes: a, contentType: 'text/plain' },
      { bytes: lost, contentType: 'text/plain' },
      { bytes: b, contentType: 'text/plain' },
    ];
    const batch = await withTx(t.app.db, (c) => storeFilesBytes(t.app, c, spaceId, files));
    // One file after the other: they share the transaction's connection, which runs one query at a time.
    const one = await withTx(t.app.db, async (c) => {
      const stored = [];
      for (const f of files) stored.push(await storeFileBytes(t.app, c, spaceId, f.bytes, f.contentType));
      return stored;
    });
    expect(batch).toEqual(one);
    expect(batch[1].dimensions).toEqual({ width: 2, height: 1 });
    expect(batch[0].blobKey).toBe(batch[2].blobKey);
    for (const [i, f] of files.entries()) expect((await t.app.blobs.get(batch[i].blobKey))?.equals(f.bytes)).toBe(true);
    const keys = [...new Set(batch.map((x) => x.blobKey))];
    const refs = await t.app.db.query('SELECT blob_key FROM space_blobs WHERE space_id = $1 AND blob_key = ANY($2) ORDER BY 1', [
      spaceId,
      keys,
    ]);
    expect(refs.rows.map((r) => r.blob_key)).toEqual([...keys].sort());
    const recorded = await t.app.db.query('SELECT key, size FROM blobs WHERE key = ANY($1)', [keys]);
    expect(recorded.rows).toHaveLength(4);
  });
});

describe('the purge job scheduler', () => {
  it('is registered in Redis when workers start, and its runs are operations that purge', async () => {
    const { id: doomed } = await spaceWithContent('Scheduled', { 's.png': Buffer.concat([PNG_2x1, Buffer.from('scheduled')]) });
    await deleteSpace(doomed, 8);
    const queue = t.app.jobs.queue('maintenance');
    expect(await queue.getJobSchedulers()).toEqual([]);

    t.startWorkers(['maintenance']);
    const scheduler = await waitFor(async () => (await queue.getJobSchedulers()).find((s) => s.key === 'spaces.purge'), {
      what: 'the job scheduler',
    });
    expect(scheduler).toMatchObject({ key: 'spaces.purge', name: 'schedule:spaces.purge', every: t.config.purge.intervalMs });

    // The first iteration runs at once: an operation row, then the purge.
    const op = await waitFor(
      async () => {
        const { rows } = await t.app.db.query(`SELECT * FROM operations WHERE kind = 'spaces.purge' AND status = 'succeeded'`);
        return rows[0];
      },
      { what: 'a scheduled purge operation' },
    );
    expect(op).toMatchObject({ queue: 'maintenance', target_type: 'schedule', target_id: 'spaces.purge', organization_id: null });
    expect(op.id).toMatch(/^sched-repeat-spaces-purge-\d+$/);
    expect(op.result.spaceIds).toEqual([doomed]);
    expect((await rowsOf(doomed)).spaces).toBe(0);

    // Another worker process starting upserts the same scheduler: still one, and no extra run.
    t.startWorkers(['maintenance']);
    await new Promise((r) => setTimeout(r, 300));
    expect((await queue.getJobSchedulers()).map((s) => s.key).sort()).toEqual(['insights.aggregate', 'spaces.purge']);
    const { rows } = await t.app.db.query(`SELECT count(*)::int AS n FROM operations WHERE kind = 'spaces.purge'`);
    expect(rows[0].n).toBe(1);
  });

  it('is registered again after Redis loses it', async () => {
    const queue = t.app.jobs.queue('maintenance');
    await queue.removeJobScheduler('spaces.purge');
    expect((await queue.getJobSchedulers()).map((s) => s.key)).not.toContain('spaces.purge');
    await waitFor(async () => (await queue.getJobSchedulers()).find((s) => s.key === 'spaces.purge'), {
      what: 'the job scheduler to come back',
    });
  });
});
