// The purge service (the `spaces.purge` job's body) without PostgreSQL or Redis: spaces, the
// space_blobs references and the blob_garbage queue live in Maps behind the repository's functions
// (the same rules as their SQL), the bytes in a memory BlobStore.
import pino from 'pino';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { AppContext } from '../../../src/context.js';
import { DomainError } from '../../../src/core/errors.js';
import { JobFailure } from '../../../src/queue/errors.js';
import { purgeDeletedSpaces } from '../../../src/services/purge.js';
import { asJobFailure } from '../../../jobs/failures.js';
import { memoryBlobs, type MemoryBlobs } from '../../helpers/memory-blobs.js';

const db = vi.hoisted(() => ({
  spaces: new Map<string, { organizationId: string; deletedAt: Date | null; blobKeys: string[] }>(),
  garbage: new Set<string>(),
  /** Rows of the `blobs` table (metadata of stored bytes). */
  blobRows: new Set<string>(),
  /** The `before` each purgeNextSpace call was given. */
  cutoffs: [] as Date[],
}));

vi.mock('../../../src/db/repos/purge.js', () => ({
  purgeNextSpace: async (_c: unknown, before: Date) => {
    db.cutoffs.push(before);
    const next = [...db.spaces]
      .filter(([, s]) => s.deletedAt && s.deletedAt < before)
      .sort(([a, x], [b, y]) => x.deletedAt!.getTime() - y.deletedAt!.getTime() || a.localeCompare(b))[0];
    if (!next) return null;
    const [id, space] = next;
    const queued = space.blobKeys.filter((k) => !db.garbage.has(k));
    for (const k of queued) db.garbage.add(k);
    db.spaces.delete(id);
    return { id, organizationId: space.organizationId, blobKeys: queued.length };
  },
  listGarbageAfter: async (_db: unknown, after: string | null, limit: number) =>
    [...db.garbage]
      .sort()
      .filter((k) => after === null || k > after)
      .slice(0, limit),
  claimGarbageKey: async (_c: unknown, key: string) => db.garbage.has(key),
  blobReferences: async (_c: unknown, key: string) => {
    const refs = [...db.spaces.values()].filter((s) => s.blobKeys.includes(key));
    return { live: refs.filter((s) => !s.deletedAt).length, deleted: refs.filter((s) => s.deletedAt).length };
  },
  forgetBlob: async (_c: unknown, key: string) => {
    db.blobRows.delete(key);
    db.garbage.delete(key);
  },
  dropGarbageKey: async (_c: unknown, key: string) => {
    db.garbage.delete(key);
  },
}));

// The same run keeps the audit log to its retention (test/integration/audit/audit.test.ts covers it).
vi.mock('../../../src/db/repos/audit.js', () => ({
  purgeAuditEvents: async () => 0,
}));

// No font upload to sweep here (test/integration/sites/site-settings.test.ts covers the sweep).
vi.mock('../../../src/db/repos/custom-fonts.js', () => ({
  sweepUnusedFontUploads: async () => 0,
}));

// No backup holds the deletion lock here (test/integration/ops/backup-lock.test.ts covers one that does).
vi.mock('../../../src/db/repos/backup.js', () => ({
  tryHoldBlobDeletion: async () => true,
}));

vi.mock('../../../src/db/pool.js', () => ({
  withTx: async (_db: unknown, fn: (c: unknown) => Promise<unknown>) => fn({}),
}));

const DAY = 86_400_000;
const daysAgo = (n: number) => new Date(Date.now() - n * DAY);

let blobs: MemoryBlobs;
let app: AppContext;
const run = { log: pino({ level: 'silent' }), progress: vi.fn(async () => {}) };

function space(id: string, deletedAt: Date | null, blobKeys: string[] = []) {
  db.spaces.set(id, { organizationId: 'org1', deletedAt, blobKeys });
}

async function storeBytes(...keys: string[]) {
  for (const key of keys) {
    await blobs.put(key, `bytes of ${key}`);
    db.blobRows.add(key);
  }
}

beforeEach(() => {
  db.spaces.clear();
  db.garbage.clear();
  db.blobRows.clear();
  db.cutoffs.length = 0;
  run.progress.mockClear();
  blobs = memoryBlobs();
  app = { db: {}, blobs, config: { purge: { retentionDays: 30 } } } as unknown as AppContext;
});

describe('purgeDeletedSpaces', () => {
  it('removes the spaces deleted past the retention period and keeps the recently deleted and the live ones', async () => {
    space('old2', daysAgo(31));
    space('old1', daysAgo(90));
    space('recent', daysAgo(5));
    space('live', null);
    const started = Date.now();
    const result = await purgeDeletedSpaces(app, {}, run);

    expect(result.spaces).toBe(2);
    expect(result.spaceIds).toEqual(['old1', 'old2']);
    expect([...db.spaces.keys()].sort()).toEqual(['live', 'recent']);
    // The cut-off is the retention period ago, and it is what the result reports.
    const before = new Date(result.before).getTime();
    expect(before).toBeGreaterThanOrEqual(started - 30 * DAY);
    expect(before).toBeLessThanOrEqual(Date.now() - 30 * DAY);
    expect(db.cutoffs.every((c) => c.getTime() === before)).toBe(true);
    expect(run.progress).toHaveBeenCalledWith(0.5);
  });

  it('purges up to an explicit `before`', async () => {
    space('a', new Date('2026-01-01T00:00:00Z'));
    space('b', new Date('2026-03-01T00:00:00Z'));
    const result = await purgeDeletedSpaces(app, { before: '2026-02-01T00:00:00Z' }, run);
    expect(result).toMatchObject({ before: '2026-02-01T00:00:00.000Z', spaces: 1, spaceIds: ['a'] });
    expect(db.spaces.has('b')).toBe(true);
  });

  it("deletes the purged space's bytes that nothing references, and keeps those another space still needs", async () => {
    await storeBytes('files/only-old', 'files/shared-live', 'files/shared-recent');
    space('old', daysAgo(40), ['files/only-old', 'files/shared-live', 'files/shared-recent']);
    space('live', null, ['files/shared-live']);
    space('recent', daysAgo(1), ['files/shared-recent']);
    const result = await purgeDeletedSpaces(app, {}, run);

    expect(result.blobs).toEqual({ deleted: 1, prefixes: 0, kept: 1, deferred: 1 });
    expect(await blobs.get('files/only-old')).toBeNull();
    expect(db.blobRows.has('files/only-old')).toBe(false);
    // A live space's bytes stay and leave the queue; a soft-deleted space's stay queued for its own purge.
    expect(await blobs.get('files/shared-live')).not.toBeNull();
    expect(await blobs.get('files/shared-recent')).not.toBeNull();
    expect([...db.garbage]).toEqual(['files/shared-recent']);
  });

  it('deletes queued prefixes, but never a protected or empty one', async () => {
    await storeBytes('pdf/s1/r1/op1.pdf', 'pdf/s1/r2/op2.pdf', 'files/keep');
    db.garbage.add('pdf/s1/');
    db.garbage.add('files/');
    db.garbage.add('/');
    const result = await purgeDeletedSpaces(app, {}, run);
    expect(result.blobs).toEqual({ deleted: 0, prefixes: 1, kept: 2, deferred: 0 });
    expect(await blobs.list('pdf/')).toEqual([]);
    expect(await blobs.get('files/keep')).not.toBeNull();
    expect(db.garbage.size).toBe(0);
  });

  it('drops an invalid key from the queue instead of failing every run on it', async () => {
    db.garbage.add('files//bad');
    const result = await purgeDeletedSpaces(app, {}, run);
    expect(result.blobs.deleted).toBe(1);
    expect(db.garbage.size).toBe(0);
  });

  it('a storage failure fails the run with the key still queued (retried)', async () => {
    await storeBytes('files/a');
    db.garbage.add('files/a');
    blobs.delete = async () => {
      throw new Error('S3 is down');
    };
    await expect(purgeDeletedSpaces(app, {}, run)).rejects.toThrow('S3 is down');
    expect([...db.garbage]).toEqual(['files/a']);
    expect(db.blobRows.has('files/a')).toBe(true);
  });

  it('a `before` that is not a date is invalid: a final failure, nothing purged', async () => {
    space('old', daysAgo(40));
    const err = await purgeDeletedSpaces(app, { before: 'soon' }, run).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).kind).toBe('invalid');
    expect((err as DomainError).message).toBe('payload.before: "soon" is not a date');
    expect(() => asJobFailure(err)).toThrow(JobFailure);
    expect(db.spaces.has('old')).toBe(true);
  });
});
