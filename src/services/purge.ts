// The work of the `spaces.purge` job: permanently remove spaces deleted more than
// SPACE_RETENTION_DAYS ago (or before `before`), then delete stored bytes nothing references any
// more (blob_garbage).
//
// Safe to re-run and to run in several workers at once:
// - each space goes in its own transaction that locks its row FOR UPDATE SKIP LOCKED, so two runs
//   never purge the same space, and a restore racing with the purge either wins (the row is no
//   longer deleted) or finds the space gone (404);
// - the space's blob keys are queued in blob_garbage in that same transaction, so a crash after it
//   leaves the bytes queued, and the next run deletes them;
// - bytes are deleted per key under the advisory lock storeFileBytes takes, after re-checking that
//   no space references them: bytes shared with a live space (a duplicate, the same file uploaded
//   elsewhere) are kept. Keys still referenced only by soft-deleted spaces wait for their purge.
import type { AppContext } from '../context.js';
import type { Logger } from '../log.js';
import { invalid } from '../core/errors.js';
import { withTx } from '../db/pool.js';
import { purgeNextSpace, listGarbageAfter, claimGarbageKey, blobReferences, forgetBlob, dropGarbageKey } from '../db/repos/purge.js';
import { tryHoldBlobDeletion } from '../db/repos/backup.js';
import { InvalidBlobKey } from '../storage/blobstore.js';
import type { OperationRun } from './operation-run.js';
import { purgeExpiredAuditEvents } from './audit.js';
import { sweepUnusedFontUploads } from '../db/repos/custom-fonts.js';

const DAY_MS = 86_400_000;
/** How long an upload may wait for the font that uses it (or stay after its font went) before it is swept. */
export const FONT_UPLOAD_GRACE_MS = DAY_MS;
/** Byte deletion by prefix never reaches into the content-addressed area (reference-counted per key). */
const PROTECTED_PREFIXES = ['files/'];

export interface PurgeResult {
  before: string;
  spaces: number;
  /** The purged spaces (first 1000). */
  spaceIds: string[];
  blobs: GarbageResult;
  /** Audit events removed for being older than AUDIT_RETENTION_DAYS. */
  auditEvents: number;
  /** Font uploads no custom font used for FONT_UPLOAD_GRACE_MS, forgotten (their bytes queued above). */
  fontUploads: number;
}

interface GarbageResult {
  /** Keys whose bytes were deleted. */
  deleted: number;
  /** Prefixes whose objects were deleted. */
  prefixes: number;
  /** Keys still referenced by a live space: bytes kept, key dropped from the queue. */
  kept: number;
  /** Keys referenced only by soft-deleted spaces: left queued until those are purged. */
  deferred: number;
  /** A backup was running: the pass stopped, the rest stays queued for the next run (src/ops/backup.ts). */
  paused?: boolean;
}

/**
 * Purge the spaces deleted before `before` (default: the retention period ago), then one pass over
 * the bytes queued for deletion. A `before` that is not a date is invalid (a final failure).
 */
export async function purgeDeletedSpaces(
  app: AppContext,
  options: { before?: string },
  run: Pick<OperationRun, 'log' | 'progress'>,
): Promise<PurgeResult> {
  const before = options.before !== undefined ? new Date(options.before) : new Date(Date.now() - app.config.purge.retentionDays * DAY_MS);
  if (Number.isNaN(before.getTime())) throw invalid(`payload.before: "${options.before}" is not a date`);
  const spaceIds: string[] = [];
  for (;;) {
    const purged = await withTx(app.db, (c) => purgeNextSpace(c, before));
    if (!purged) break;
    spaceIds.push(purged.id);
    run.log.info({ spaceId: purged.id, organizationId: purged.organizationId, blobKeys: purged.blobKeys }, 'space purged');
  }
  // Font uploads no font uses any more: their bytes join the queue drained just below.
  const fontUploads = await sweepUnusedFontUploads(app.db, new Date(Date.now() - FONT_UPLOAD_GRACE_MS));
  await run.progress(0.5);
  const blobs = await drainBlobGarbage(app, run.log);
  // The same maintenance run keeps the audit log to AUDIT_RETENTION_DAYS (src/services/audit.ts).
  const auditEvents = await purgeExpiredAuditEvents(app);
  const result: PurgeResult = {
    before: before.toISOString(),
    spaces: spaceIds.length,
    spaceIds: spaceIds.slice(0, 1000),
    blobs,
    auditEvents,
    fontUploads,
  };
  if (spaceIds.length || blobs.deleted || blobs.prefixes) run.log.info({ spaces: spaceIds.length, blobs }, 'purge finished');
  return result;
}

/**
 * One pass over blob_garbage (keys queued before or during the pass; each key at most once).
 * Every key is handled in its own short transaction; a storage failure fails the run with the key
 * still queued, and the next run (or retry) picks it up.
 */
async function drainBlobGarbage(app: AppContext, log: Logger): Promise<GarbageResult> {
  const out: GarbageResult = { deleted: 0, prefixes: 0, kept: 0, deferred: 0 };
  let after: string | null = null;
  for (;;) {
    const keys = await listGarbageAfter(app.db, after, 200);
    if (!keys.length) return out;
    for (const key of keys) {
      after = key;
      const outcome = await withTx(app.db, async (c) => {
        // A backup copies the bytes its snapshot references: none is deleted until it is done.
        if (!(await tryHoldBlobDeletion(c))) return 'paused' as const;
        if (!(await claimGarbageKey(c, key))) return 'gone' as const;
        if (key.endsWith('/')) {
          if (key === '/' || PROTECTED_PREFIXES.some((p) => key.startsWith(p) || p.startsWith(key))) {
            log.warn({ key }, 'refusing to delete a protected or empty blob prefix; dropped from the queue');
            await dropGarbageKey(c, key);
            return 'kept' as const;
          }
          await app.blobs.deletePrefix(key);
          await dropGarbageKey(c, key);
          return 'prefix' as const;
        }
        const refs = await blobReferences(c, key);
        if (refs.live > 0) {
          await dropGarbageKey(c, key);
          return 'kept' as const;
        }
        if (refs.deleted > 0) return 'deferred' as const;
        // No space references the bytes, and none can start to while we hold the key's lock.
        try {
          await app.blobs.delete(key);
        } catch (err) {
          if (!(err instanceof InvalidBlobKey)) throw err;
          log.warn({ key }, 'invalid blob key in blob_garbage; dropped from the queue');
        }
        await forgetBlob(c, key);
        return 'deleted' as const;
      });
      if (outcome === 'paused') {
        log.info({ key }, 'a backup is running: stored bytes are deleted by a later purge run');
        return { ...out, paused: true };
      }
      if (outcome === 'deleted') out.deleted++;
      else if (outcome === 'prefix') out.prefixes++;
      else if (outcome === 'kept') out.kept++;
      else if (outcome === 'deferred') out.deferred++;
    }
  }
}
