import type { Queryable } from '../pool.js';

export type OperationStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'skipped';

export interface OperationRow {
  id: string;
  organization_id: string | null;
  kind: string;
  queue: string;
  status: OperationStatus;
  target_type: string | null;
  target_id: string | null;
  payload: Record<string, unknown>;
  progress: number;
  result: unknown;
  error: string | null;
  attempts: number;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

export interface NewOperation {
  id: string;
  organizationId: string | null;
  kind: string;
  queue: string;
  targetType?: string;
  targetId?: string;
  payload: Record<string, unknown>;
  createdBy?: string | null;
}

export async function insertOperation(db: Queryable, op: NewOperation): Promise<OperationRow> {
  const { rows } = await db.query<OperationRow>(
    `INSERT INTO operations (id, organization_id, kind, queue, target_type, target_id, payload, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
    [op.id, op.organizationId, op.kind, op.queue, op.targetType ?? null, op.targetId ?? null, op.payload, op.createdBy ?? null],
  );
  return rows[0];
}

export async function getOperation(db: Queryable, id: string): Promise<OperationRow | null> {
  const { rows } = await db.query<OperationRow>('SELECT * FROM operations WHERE id = $1', [id]);
  return rows[0] ?? null;
}

/** queued|running -> running; returns null when the operation already reached a final state. */
export async function markRunning(db: Queryable, id: string): Promise<OperationRow | null> {
  const { rows } = await db.query<OperationRow>(
    `UPDATE operations SET status = 'running', attempts = attempts + 1, started_at = coalesce(started_at, clock_timestamp()),
            updated_at = clock_timestamp()
      WHERE id = $1 AND status IN ('queued', 'running') RETURNING *`,
    [id],
  );
  return rows[0] ?? null;
}

export async function markProgress(db: Queryable, id: string, progress: number) {
  await db.query(`UPDATE operations SET progress = $2, updated_at = clock_timestamp() WHERE id = $1 AND status = 'running'`, [
    id,
    progress,
  ]);
}

/** Move a running (or queued) operation to a final state. Returns false if it was already final. */
export async function finishOperation(
  db: Queryable,
  id: string,
  status: 'succeeded' | 'failed' | 'skipped',
  fields: { result?: unknown; error?: string | null },
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE operations SET status = $2, result = $3, error = $4, progress = CASE WHEN $2 = 'succeeded' THEN 1 ELSE progress END,
            finished_at = clock_timestamp(), updated_at = clock_timestamp()
      WHERE id = $1 AND status IN ('queued', 'running')`,
    [id, status, fields.result === undefined ? null : JSON.stringify(fields.result), fields.error ?? null],
  );
  return (rowCount ?? 0) > 0;
}

/** Record a failed attempt that will be retried: the error stays visible while the job waits. */
export async function recordAttemptError(db: Queryable, id: string, error: string) {
  await db.query(`UPDATE operations SET error = $2, updated_at = clock_timestamp() WHERE id = $1 AND status IN ('queued', 'running')`, [
    id,
    error,
  ]);
}

/** Operations accepted but not finished, untouched for at least `minAgeMs`: candidates for re-enqueueing. */
export async function listOpenOperations(db: Queryable, minAgeMs: number, limit = 500): Promise<OperationRow[]> {
  const { rows } = await db.query<OperationRow>(
    `SELECT * FROM operations WHERE status IN ('queued', 'running')
        AND updated_at < clock_timestamp() - make_interval(secs => $1 / 1000.0)
      ORDER BY updated_at LIMIT $2`,
    [minAgeMs, limit],
  );
  return rows;
}

/** Touch so the reconciler does not look at it again at once. */
export async function touchOperation(db: Queryable, id: string) {
  await db.query('UPDATE operations SET updated_at = clock_timestamp() WHERE id = $1', [id]);
}

export async function jobStats(db: Queryable) {
  const { rows } = await db.query<{ queue: string; kind: string; status: string; n: number }>(
    'SELECT queue, kind, status, count(*) AS n FROM operations GROUP BY queue, kind, status',
  );
  return rows;
}

/** Durations of finished operations: cumulative counts per upper bound (seconds), count and sum per queue. */
export async function jobDurationBuckets(db: Queryable, bounds: number[]) {
  const { rows } = await db.query<{ queue: string; le: number; n: number }>(
    `SELECT x.queue, b AS le, count(*) FILTER (WHERE x.d <= b) AS n
       FROM (SELECT queue, extract(epoch FROM finished_at - started_at)::float8 AS d FROM operations
              WHERE finished_at IS NOT NULL AND started_at IS NOT NULL) x
       CROSS JOIN unnest($1::float8[]) AS b
      GROUP BY x.queue, b`,
    [bounds],
  );
  const { rows: totals } = await db.query<{ queue: string; n: number; total: number }>(
    `SELECT queue, count(*) AS n, coalesce(sum(extract(epoch FROM finished_at - started_at)), 0)::float8 AS total
       FROM operations WHERE finished_at IS NOT NULL AND started_at IS NOT NULL GROUP BY queue`,
  );
  return { buckets: rows, totals };
}
