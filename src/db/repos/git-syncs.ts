// Git Sync rows (`git_syncs`, migration 0019): a repository branch kept in sync with a space (or a
// site), its webhook, polling, coalescing and conflict state. The runs are `git.sync` operations
// (src/services/git-sync/runs.ts).
import type { Queryable } from '../pool.js';

export type GitSyncDirection = 'bidirectional' | 'import' | 'export';
export type GitSyncStatus = 'idle' | 'importing' | 'exporting' | 'conflict' | 'error';

export interface GitSyncRow {
  id: string;
  organization_id: string;
  kind: 'space' | 'site';
  space_id: string | null;
  site_id: string | null;
  url: string;
  credentials: string | null;
  ref: string;
  project_directory: string;
  direction: GitSyncDirection;
  poll_interval_seconds: number;
  status: GitSyncStatus;
  last_imported_commit: string | null;
  last_exported_commit: string | null;
  last_synced_at: Date | null;
  last_error: string | null;
  hook_id: string;
  webhook_secret: string;
  synced_commit: string | null;
  synced_revision_id: string | null;
  next_poll_at: Date | null;
  run_due_at: Date | null;
  failures: number;
  wanted_head: string | null;
  export_pending: boolean;
  queued_operation_id: string | null;
  conflict_change_request_id: string | null;
  conflict_commit: string | null;
  created_at: Date;
  updated_at: Date;
  /** Who set the sync up (site runs create spaces as that user). */
  created_by: string | null;
  /** A space sync made by a site sync for one of its directories (stopped with it). */
  site_sync_id: string | null;
  /** Site rows: the site version and the docs.yaml hash of the last run. */
  synced_site_version: number | null;
  synced_config_hash: string | null;
}

/**
 * The sync a run works for, as it read it: a run records its outcome only while the sync still
 * points at the same repository, branch and folder (a PUT that changed them started over).
 */
export type SyncTarget = Pick<GitSyncRow, 'id' | 'url' | 'ref' | 'project_directory'>;

export interface GitSyncSettings {
  url: string;
  credentials: string | null;
  ref: string;
  projectDirectory: string;
  direction: GitSyncDirection;
  pollIntervalSeconds: number;
}

export async function getGitSyncOfSpace(db: Queryable, spaceId: string, forUpdate = false): Promise<GitSyncRow | null> {
  const { rows } = await db.query<GitSyncRow>(`SELECT * FROM git_syncs WHERE space_id = $1${forUpdate ? ' FOR UPDATE' : ''}`, [spaceId]);
  return rows[0] ?? null;
}

export async function getGitSync(db: Queryable, id: string, forUpdate = false): Promise<GitSyncRow | null> {
  const { rows } = await db.query<GitSyncRow>(`SELECT * FROM git_syncs WHERE id = $1${forUpdate ? ' FOR UPDATE' : ''}`, [id]);
  return rows[0] ?? null;
}

export async function getGitSyncOfSite(db: Queryable, siteId: string, forUpdate = false): Promise<GitSyncRow | null> {
  const { rows } = await db.query<GitSyncRow>(`SELECT * FROM git_syncs WHERE site_id = $1${forUpdate ? ' FOR UPDATE' : ''}`, [siteId]);
  return rows[0] ?? null;
}

/** A space sync of the organization reading this repository, branch and folder (a site reuses its space). */
export async function findSpaceSyncOfRemote(
  db: Queryable,
  orgId: string,
  r: { url: string; ref: string; projectDirectory: string },
): Promise<GitSyncRow | null> {
  const { rows } = await db.query<GitSyncRow>(
    `SELECT * FROM git_syncs WHERE organization_id = $1 AND kind = 'space' AND url = $2 AND ref = $3 AND project_directory = $4
     ORDER BY created_at LIMIT 1`,
    [orgId, r.url, r.ref, r.projectDirectory],
  );
  return rows[0] ?? null;
}

export async function getGitSyncByHook(db: Queryable, hookId: string): Promise<GitSyncRow | null> {
  const { rows } = await db.query<GitSyncRow>('SELECT * FROM git_syncs WHERE hook_id = $1', [hookId]);
  return rows[0] ?? null;
}

/** A new space sync; polling starts now (the first run is requested by the caller). */
export async function insertSpaceGitSync(
  db: Queryable,
  s: GitSyncSettings & {
    id: string;
    organizationId: string;
    spaceId: string;
    hookId: string;
    webhookSecret: string;
    createdBy?: string | null;
    siteSyncId?: string | null;
  },
): Promise<GitSyncRow> {
  return insertGitSync(db, { ...s, kind: 'space', targetId: s.spaceId });
}

/** A new site sync (docs.yaml); polling starts now (the first run is requested by the caller). */
export async function insertSiteGitSync(
  db: Queryable,
  s: GitSyncSettings & {
    id: string;
    organizationId: string;
    siteId: string;
    hookId: string;
    webhookSecret: string;
    createdBy: string | null;
  },
): Promise<GitSyncRow> {
  return insertGitSync(db, { ...s, kind: 'site', targetId: s.siteId });
}

async function insertGitSync(
  db: Queryable,
  s: GitSyncSettings & {
    id: string;
    organizationId: string;
    kind: 'space' | 'site';
    targetId: string;
    hookId: string;
    webhookSecret: string;
    createdBy?: string | null;
    siteSyncId?: string | null;
  },
): Promise<GitSyncRow> {
  const { rows } = await db.query<GitSyncRow>(
    `INSERT INTO git_syncs (id, organization_id, kind, space_id, site_id, url, credentials, ref, project_directory, direction,
       poll_interval_seconds, hook_id, webhook_secret, next_poll_at, created_by, site_sync_id)
     VALUES ($1, $2, $12, CASE WHEN $12 = 'space' THEN $3 END, CASE WHEN $12 = 'site' THEN $3 END, $4, $5, $6, $7, $8, $9, $10, $11,
       CASE WHEN $9::int > 0 THEN clock_timestamp() + make_interval(secs => $9::int) END, $13, $14)
     RETURNING *`,
    [
      s.id,
      s.organizationId,
      s.targetId,
      s.url,
      s.credentials,
      s.ref,
      s.projectDirectory,
      s.direction,
      s.pollIntervalSeconds,
      s.hookId,
      s.webhookSecret,
      s.kind,
      s.createdBy ?? null,
      s.siteSyncId ?? null,
    ],
  );
  return rows[0];
}

/**
 * New settings of an existing sync. `resetState` (another repository, branch or folder): what was
 * synced is forgotten, as for a new sync; otherwise the state and the webhook are kept.
 */
export async function updateGitSyncSettings(db: Queryable, id: string, s: GitSyncSettings, resetState: boolean): Promise<GitSyncRow> {
  const { rows } = await db.query<GitSyncRow>(
    `UPDATE git_syncs SET url = $2, credentials = $3, ref = $4, project_directory = $5, direction = $6,
       poll_interval_seconds = $7,
       next_poll_at = CASE WHEN $7::int > 0 THEN clock_timestamp() + make_interval(secs => $7::int) END,
       failures = 0,
       ${
         resetState
           ? `status = 'idle', last_error = NULL, synced_commit = NULL, synced_revision_id = NULL, last_imported_commit = NULL,
       last_exported_commit = NULL, last_synced_at = NULL, wanted_head = NULL, export_pending = false,
       conflict_change_request_id = NULL, conflict_commit = NULL,`
           : ''
       }
       updated_at = clock_timestamp()
     WHERE id = $1 RETURNING *`,
    [id, s.url, s.credentials, s.ref, s.projectDirectory, s.direction, s.pollIntervalSeconds],
  );
  return rows[0];
}

export async function deleteGitSyncOfSpace(db: Queryable, spaceId: string): Promise<GitSyncRow | null> {
  const { rows } = await db.query<GitSyncRow>('DELETE FROM git_syncs WHERE space_id = $1 RETURNING *', [spaceId]);
  return rows[0] ?? null;
}

export async function deleteGitSyncOfSite(db: Queryable, siteId: string): Promise<GitSyncRow | null> {
  const { rows } = await db.query<GitSyncRow>('DELETE FROM git_syncs WHERE site_id = $1 RETURNING *', [siteId]);
  return rows[0] ?? null;
}

/** The space syncs a site sync made take its new credentials and direction (same repository and branch). */
export async function updateLinkedSpaceSyncs(
  db: Queryable,
  siteSyncId: string,
  s: { credentials: string | null; direction: GitSyncDirection },
): Promise<void> {
  await db.query(
    `UPDATE git_syncs SET credentials = $2, direction = $3, failures = 0, updated_at = clock_timestamp()
     WHERE site_sync_id = $1 AND (credentials IS DISTINCT FROM $2 OR direction <> $3)`,
    [siteSyncId, s.credentials, s.direction],
  );
}

/** The space syncs a site sync made for its directories. */
export async function listSpaceSyncsOfSiteSync(db: Queryable, siteSyncId: string): Promise<GitSyncRow[]> {
  const { rows } = await db.query<GitSyncRow>('SELECT * FROM git_syncs WHERE site_sync_id = $1 ORDER BY created_at', [siteSyncId]);
  return rows;
}

/**
 * A site run's outcome: the commit both sides agree on, the site version and docs.yaml hash it
 * agreed on (the structure is written back when it gives another docs.yaml).
 */
export async function recordSiteSyncSuccess(
  db: Queryable,
  target: SyncTarget,
  r: { commit: string; siteVersion: number; configHash: string; imported?: string | null; exported?: string | null },
): Promise<void> {
  await db.query(
    `UPDATE git_syncs SET status = 'idle', last_error = NULL, failures = 0, last_synced_at = clock_timestamp(),
       synced_commit = $2, synced_site_version = $3, synced_config_hash = $4,
       last_imported_commit = coalesce($5, last_imported_commit), last_exported_commit = coalesce($6, last_exported_commit),
       export_pending = false,
       next_poll_at = CASE WHEN poll_interval_seconds > 0 THEN clock_timestamp() + make_interval(secs => poll_interval_seconds) END,
       updated_at = clock_timestamp()
     WHERE id = $1 AND url = $7 AND ref = $8 AND project_directory = $9`,
    [
      target.id,
      r.commit,
      r.siteVersion,
      r.configHash,
      r.imported ?? null,
      r.exported ?? null,
      target.url,
      target.ref,
      target.project_directory,
    ],
  );
}

/**
 * Site syncs whose site moved (its version differs from the one of their last run) and that write
 * docs.yaml back: their run is due after `debounceMs` (a burst of structure edits joins one run).
 * Syncs in error keep their back-off; a first sync not done yet is left to its own run.
 */
export async function markSiteExportsDue(db: Queryable, debounceMs: number): Promise<number> {
  const { rowCount } = await db.query(
    `UPDATE git_syncs g SET export_pending = true,
       run_due_at = clock_timestamp() + make_interval(secs => $1::double precision / 1000),
       updated_at = clock_timestamp()
     FROM sites s
     WHERE g.kind = 'site' AND s.id = g.site_id AND g.direction IN ('bidirectional', 'export')
       AND g.synced_commit IS NOT NULL AND g.synced_site_version IS DISTINCT FROM s.version
       AND NOT g.export_pending AND g.run_due_at IS NULL AND g.queued_operation_id IS NULL
       AND g.status NOT IN ('error', 'importing', 'exporting')`,
    [debounceMs],
  );
  return rowCount ?? 0;
}

/** The translations of a space shown as language variants of sites synced from docs.yaml, with who set each sync up. */
export async function siteVariantTranslations(
  db: Queryable,
  sourceSpaceId: string,
): Promise<{ translation_id: string; created_by: string | null }[]> {
  const { rows } = await db.query<{ translation_id: string; created_by: string | null }>(
    `SELECT DISTINCT ON (t.id) t.id AS translation_id, g.created_by
       FROM translations t
       JOIN site_spaces ss ON ss.space_id = t.result_space_id
       JOIN git_syncs g ON g.site_id = ss.site_id AND g.kind = 'site'
      WHERE t.source_space_id = $1
      ORDER BY t.id, g.created_at`,
    [sourceSpaceId],
  );
  return rows;
}

/** Record the run queued for the sync (coalescing: a push while it is queued only records its head). */
export async function setQueuedRun(db: Queryable, id: string, operationId: string | null, wantedHead: string | null): Promise<void> {
  await db.query(
    `UPDATE git_syncs SET queued_operation_id = $2, wanted_head = coalesce($3, wanted_head), updated_at = clock_timestamp() WHERE id = $1`,
    [id, operationId, wantedHead],
  );
}

export async function setWantedHead(db: Queryable, id: string, wantedHead: string): Promise<void> {
  await db.query('UPDATE git_syncs SET wanted_head = $2, updated_at = clock_timestamp() WHERE id = $1', [id, wantedHead]);
}

/** The run `operationId` started: pushes from now on queue a run of their own. */
export async function clearQueuedRun(db: Queryable, id: string, operationId: string): Promise<void> {
  // A run starting now sees every change made before it: a run that was due (an export's debounce)
  // is this one, so the poll tick does not start another after it.
  await db.query(
    `UPDATE git_syncs SET run_due_at = NULL,
       queued_operation_id = CASE WHEN queued_operation_id = $2 THEN NULL ELSE queued_operation_id END
     WHERE id = $1`,
    [id, operationId],
  );
}

export async function setGitSyncStatus(db: Queryable, target: SyncTarget, status: GitSyncStatus): Promise<void> {
  await db.query(
    'UPDATE git_syncs SET status = $2, updated_at = clock_timestamp() WHERE id = $1 AND url = $3 AND ref = $4 AND project_directory = $5',
    [target.id, status, target.url, target.ref, target.project_directory],
  );
}

/**
 * A successful run: both sides agree on `commit` and `revisionId` now (either may be null: kept).
 * The back-off is reset, and the next poll counted from now.
 */
export async function recordSyncSuccess(
  db: Queryable,
  target: SyncTarget,
  r: { commit: string | null; revisionId: string | null; imported?: string | null; exported?: string | null },
): Promise<void> {
  await db.query(
    `UPDATE git_syncs SET status = 'idle', last_error = NULL, failures = 0, last_synced_at = clock_timestamp(),
       synced_commit = coalesce($2, synced_commit), synced_revision_id = coalesce($3, synced_revision_id),
       last_imported_commit = coalesce($4, last_imported_commit), last_exported_commit = coalesce($5, last_exported_commit),
       export_pending = false, conflict_change_request_id = NULL, conflict_commit = NULL,
       next_poll_at = CASE WHEN poll_interval_seconds > 0 THEN clock_timestamp() + make_interval(secs => poll_interval_seconds) END,
       updated_at = clock_timestamp()
     WHERE id = $1 AND url = $6 AND ref = $7 AND project_directory = $8`,
    [target.id, r.commit, r.revisionId, r.imported ?? null, r.exported ?? null, target.url, target.ref, target.project_directory],
  );
}

/**
 * Nothing to do this run: the sync stays as it is (a conflict stays a conflict), the next poll
 * counted from now, and `lastSyncedAt` says both sides were seen in agreement now. `seenHead`: a head that moved only outside the sync's folder (a monorepo), from
 * which the next comparison starts.
 */
export async function recordSyncChecked(db: Queryable, target: SyncTarget, seenHead: string | null = null): Promise<void> {
  await db.query(
    `UPDATE git_syncs SET status = CASE WHEN status = 'conflict' THEN 'conflict' ELSE 'idle' END,
       last_error = CASE WHEN status = 'conflict' THEN last_error END, failures = 0,
       last_synced_at = CASE WHEN status = 'conflict' THEN last_synced_at ELSE clock_timestamp() END,
       synced_commit = CASE WHEN status = 'conflict' THEN synced_commit ELSE coalesce($5, synced_commit) END,
       next_poll_at = CASE WHEN poll_interval_seconds > 0 THEN clock_timestamp() + make_interval(secs => poll_interval_seconds) END,
       updated_at = clock_timestamp()
     WHERE id = $1 AND url = $2 AND ref = $3 AND project_directory = $4`,
    [target.id, target.url, target.ref, target.project_directory, seenHead],
  );
}

/** Both sides moved: the repository's side waits in a change request. */
export async function recordSyncConflict(
  db: Queryable,
  target: SyncTarget,
  c: { changeRequestId: string; commit: string; message: string },
): Promise<void> {
  await db.query(
    `UPDATE git_syncs SET status = 'conflict', last_error = $4, conflict_change_request_id = $2, conflict_commit = $3, failures = 0,
       next_poll_at = CASE WHEN poll_interval_seconds > 0 THEN clock_timestamp() + make_interval(secs => poll_interval_seconds) END,
       updated_at = clock_timestamp()
     WHERE id = $1 AND url = $5 AND ref = $6 AND project_directory = $7`,
    [target.id, c.changeRequestId, c.commit, c.message, target.url, target.ref, target.project_directory],
  );
}

/**
 * A failed run: status `error` with the reason; the next try backs off (base interval, or 60 s for
 * a webhooks-only sync, doubled per failure, at most `maxSeconds`), so a failing remote recovers by itself.
 */
export async function recordSyncFailure(db: Queryable, target: SyncTarget, message: string, maxSeconds: number): Promise<void> {
  await db.query(
    `UPDATE git_syncs SET status = 'error', last_error = $2, failures = failures + 1,
       next_poll_at = clock_timestamp() + make_interval(secs => LEAST($3::int,
         (CASE WHEN poll_interval_seconds > 0 THEN poll_interval_seconds ELSE 60 END) * power(2, LEAST(failures, 16))::int)),
       updated_at = clock_timestamp()
     WHERE id = $1 AND url = $4 AND ref = $5 AND project_directory = $6`,
    [target.id, message.slice(0, 2000), maxSeconds, target.url, target.ref, target.project_directory],
  );
}

/**
 * After a change of the space's main content: an export run is wanted after `debounceMs` (the
 * first change of a burst sets the time; later ones join it). Only syncs that export.
 */
export async function markExportDue(db: Queryable, spaceId: string, debounceMs: number): Promise<string | null> {
  const { rows } = await db.query<{ id: string }>(
    `UPDATE git_syncs SET export_pending = true,
       run_due_at = coalesce(run_due_at, clock_timestamp() + make_interval(secs => $2::double precision / 1000)),
       updated_at = clock_timestamp()
     WHERE space_id = $1 AND direction IN ('bidirectional', 'export')
     RETURNING id`,
    [spaceId, debounceMs],
  );
  return rows[0]?.id ?? null;
}

/**
 * The syncs a poll tick runs now, at most `limit`: their poll (or back-off) time passed, or a run
 * is due (export debounce). Their times are moved on in the same statement, so two ticks never
 * take the same sync twice.
 */
export async function takeDueGitSyncs(db: Queryable, limit: number): Promise<GitSyncRow[]> {
  const { rows } = await db.query<GitSyncRow>(
    `UPDATE git_syncs g SET run_due_at = NULL,
       next_poll_at = CASE WHEN g.next_poll_at <= clock_timestamp() THEN
         clock_timestamp() + make_interval(secs => CASE WHEN g.poll_interval_seconds > 0 THEN g.poll_interval_seconds ELSE 60 END)
         ELSE g.next_poll_at END
     WHERE g.id IN (
       SELECT id FROM git_syncs
        WHERE run_due_at <= clock_timestamp()
           OR (next_poll_at <= clock_timestamp() AND (poll_interval_seconds > 0 OR failures > 0))
        ORDER BY coalesce(run_due_at, next_poll_at) LIMIT $1
        FOR UPDATE SKIP LOCKED)
     RETURNING g.*`,
    [limit],
  );
  return rows;
}

/**
 * Forget the finished `git.sync.poll` ticks older than `keepSeconds` (at most `limit` per call): a
 * tick every few seconds is an operation row each (workers/scheduler.ts), which would otherwise pile
 * up by the ten thousands a day. The runs they started are `git.sync` operations, kept.
 */
export async function pruneFinishedPollTicks(db: Queryable, keepSeconds: number, limit: number): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM operations WHERE id IN (
       SELECT id FROM operations
        WHERE kind = 'git.sync.poll' AND status IN ('succeeded', 'skipped', 'failed')
          AND finished_at < clock_timestamp() - make_interval(secs => $1::int)
        LIMIT $2)`,
    [keepSeconds, limit],
  );
  return rowCount ?? 0;
}
