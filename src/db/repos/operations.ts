import { NO_FLUSH_WAIT, type Queryable } from '../pool.js';

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
  /** The run holding the operation (workers/runner.ts), while `lease_expires_at` is in the future. */
  lease_owner: string | null;
  lease_expires_at: Date | null;
}

/**
 * What a run gets of the operation it claimed: what identifies it and what it carries, not its
 * timestamps, outcome or lease (the claim runs before every job; returning and parsing fewer
 * columns is part of the time between a job's acceptance and its start).
 */
export type ClaimedOperation = Pick<
  OperationRow,
  'id' | 'organization_id' | 'kind' | 'queue' | 'status' | 'target_type' | 'target_id' | 'payload' | 'attempts' | 'created_by'
>;
const CLAIMED_COLUMNS = 'id, organization_id, kind, queue, status, target_type, target_id, payload, attempts, created_by';

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

const interval = (ms: string) => `make_interval(secs => ${ms} / 1000.0)`;

// NO_FLUSH_WAIT (pool.ts) only for a run's intermediate writes (running, progress, lease): a crash
// may lose the last of them, and the lease simply lapses; an operation's acceptance and its final
// state are always durable commits. Saves a WAL flush per write, and the wait for it. Call the
// functions using it on the pool, never inside a transaction that commits anything else.

export type Claim =
  | { state: 'claimed'; operation: ClaimedOperation }
  /** Another run holds a fresh lease on it: it is running elsewhere; look again in `remainingMs`. */
  | { state: 'leased'; owner: string; remainingMs: number }
  | { state: 'finished' }
  | { state: 'missing' };

/**
 * Start a run of an operation: queued|running -> running under a lease of `leaseMs` owned by
 * `owner`, unless it is final or another run holds a lease that has not expired. The row lock of
 * the UPDATE makes two claimers of one operation take turns, so at most one gets it.
 */
export async function claimOperation(db: Queryable, id: string, owner: string, leaseMs: number): Promise<Claim> {
  // Not durable (NO_FLUSH_WAIT): `running` and the lease are intermediate. Lost in a crash, the
  // row is `queued` again with no lease, which is what the crash left anyway. Named: prepared once
  // per connection (it runs before every job); its column list is explicit, as a prepared
  // statement's must be (see findTokenByHash).
  const { rows } = await db.query<ClaimedOperation>({
    name: 'operation_claim',
    text: `UPDATE operations SET status = 'running', attempts = attempts + 1, started_at = coalesce(started_at, clock_timestamp()),
            updated_at = clock_timestamp(), lease_owner = $2, lease_expires_at = clock_timestamp() + ${interval('$3')}
      WHERE id = $1 AND status IN ('queued', 'running') AND (lease_expires_at IS NULL OR lease_expires_at <= clock_timestamp())
        AND ${NO_FLUSH_WAIT}
      RETURNING ${CLAIMED_COLUMNS}`,
    values: [id, owner, leaseMs],
  });
  if (rows[0]) return { state: 'claimed', operation: rows[0] };
  const { rows: now } = await db.query<{ status: OperationStatus; lease_owner: string | null; remaining_ms: number | null }>(
    `SELECT status, lease_owner, (extract(epoch FROM lease_expires_at - clock_timestamp()) * 1000)::float8 AS remaining_ms
       FROM operations WHERE id = $1`,
    [id],
  );
  const row = now[0];
  if (!row) return { state: 'missing' };
  if (row.status !== 'queued' && row.status !== 'running') return { state: 'finished' };
  // Expired between the two statements: the caller simply claims again.
  return { state: 'leased', owner: row.lease_owner ?? '', remainingMs: Math.max(0, row.remaining_ms ?? 0) };
}

/** Extend the lease of a run that still holds it. False: the run lost it (taken over, or the operation ended). */
export async function renewLease(db: Queryable, id: string, owner: string, leaseMs: number): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE operations SET lease_expires_at = clock_timestamp() + ${interval('$3')}
      WHERE id = $1 AND lease_owner = $2 AND status = 'running' AND ${NO_FLUSH_WAIT}`,
    [id, owner, leaseMs],
  );
  return (rowCount ?? 0) > 0;
}

/** Give the lease up (the run ended without finishing the operation: a retry may claim it at once). */
export async function releaseLease(db: Queryable, id: string, owner: string) {
  await db.query(
    `UPDATE operations SET lease_owner = NULL, lease_expires_at = NULL WHERE id = $1 AND lease_owner = $2 AND ${NO_FLUSH_WAIT}`,
    [id, owner],
  );
}

/**
 * Fencing inside the caller's transaction: lock the operation row and check that `owner` still
 * holds it. A run that commits its effect after this check cannot be overtaken by another run of
 * the same operation before the commit (a claimer waits for the row lock, then sees the effect).
 */
export async function lockLease(c: Queryable, id: string, owner: string): Promise<boolean> {
  const { rows } = await c.query(`SELECT 1 FROM operations WHERE id = $1 AND lease_owner = $2 AND status = 'running' FOR UPDATE`, [
    id,
    owner,
  ]);
  return rows.length > 0;
}

/** Progress of a running operation; with `owner`, only while that run holds it. */
export async function markProgress(db: Queryable, id: string, progress: number, owner?: string) {
  await db.query(
    `UPDATE operations SET progress = $2, updated_at = clock_timestamp()
      WHERE id = $1 AND status = 'running' AND ($3::text IS NULL OR lease_owner = $3) AND ${NO_FLUSH_WAIT}`,
    [id, progress, owner ?? null],
  );
}

/**
 * Move a running (or queued) operation to a final state and clear its lease. With `owner`, only
 * the run holding the lease may (a run that lost it leaves the outcome to the run that took over).
 * Returns false if it was already final (or `owner` no longer holds it).
 */
export async function finishOperation(
  db: Queryable,
  id: string,
  status: 'succeeded' | 'failed' | 'skipped',
  fields: { result?: unknown; error?: string | null },
  owner?: string,
): Promise<boolean> {
  return (await finishOperations(db, [{ id, status, result: fields.result, error: fields.error, owner: owner ?? null }])).has(id);
}

/** One run's final state, for finishOperations. */
export interface FinalState {
  id: string;
  status: 'succeeded' | 'failed' | 'skipped';
  result?: unknown;
  error?: string | null;
  /** The run that must still hold the lease; null: whoever holds it. */
  owner: string | null;
  /**
   * Set when the run never claimed the operation (it started at once and ended before its claim
   * went out): then it is finished only where a claim would have succeeded (no other run holds a
   * live lease), counting the attempt and keeping this as its start. Ignored with `owner` null.
   */
  unclaimedSince?: Date;
}

/**
 * finishOperation for several runs in one statement and one durable commit (one WAL flush for
 * all). Each id at most once. Returns the ids that were moved to their final state (the others
 * were already final, or their run no longer held them, or, for a run that never claimed its
 * operation, another run held it).
 */
export async function finishOperations(db: Queryable, states: FinalState[]): Promise<Set<string>> {
  if (!states.length) return new Set();
  // Named: prepared once per connection (it ends every job). Durable: these are final states.
  const { rows } = await db.query<{ id: string }>({
    name: 'operation_finish_many',
    text: `UPDATE operations o SET status = f.status, result = f.result::jsonb, error = f.error,
            progress = CASE WHEN f.status = 'succeeded' THEN 1 ELSE o.progress END,
            attempts = o.attempts + (f.since IS NOT NULL)::int, started_at = coalesce(o.started_at, f.since),
            finished_at = clock_timestamp(), updated_at = clock_timestamp(), lease_owner = NULL, lease_expires_at = NULL
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::timestamptz[]) AS f(id, status, result, error, owner, since)
      WHERE o.id = f.id AND o.status IN ('queued', 'running')
        AND (f.owner IS NULL OR o.lease_owner = f.owner
             OR (f.since IS NOT NULL AND (o.lease_expires_at IS NULL OR o.lease_expires_at <= clock_timestamp())))
      RETURNING o.id`,
    values: [
      states.map((s) => s.id),
      states.map((s) => s.status),
      states.map((s) => (s.result === undefined ? null : JSON.stringify(s.result))),
      states.map((s) => s.error ?? null),
      states.map((s) => s.owner),
      states.map((s) => (s.owner !== null && s.unclaimedSince ? s.unclaimedSince : null)),
    ],
  });
  return new Set(rows.map((r) => r.id));
}

/**
 * Record a failed attempt that will be retried: the error stays visible while the job waits. The
 * run's lease is given up, so the retry claims the operation at once.
 */
export async function recordAttemptError(db: Queryable, id: string, error: string, owner?: string) {
  await db.query(
    `UPDATE operations SET error = $2, updated_at = clock_timestamp(), lease_owner = NULL, lease_expires_at = NULL
      WHERE id = $1 AND status IN ('queued', 'running') AND ($3::text IS NULL OR lease_owner = $3)`,
    [id, error, owner ?? null],
  );
}

/**
 * Operations accepted but not finished, untouched for at least `minAgeMs` and not held by a live
 * run (no lease, or an expired one): candidates for re-enqueueing.
 */
export async function listOpenOperations(db: Queryable, minAgeMs: number, limit = 500): Promise<OperationRow[]> {
  const { rows } = await db.query<OperationRow>(
    `SELECT * FROM operations WHERE status IN ('queued', 'running')
        AND updated_at < clock_timestamp() - make_interval(secs => $1 / 1000.0)
        AND (lease_expires_at IS NULL OR lease_expires_at <= clock_timestamp())
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

/** The newest operation of `kind` on a target that is still queued (a run asked for again joins it). */
export async function queuedOperationFor(db: Queryable, kind: string, targetId: string): Promise<OperationRow | null> {
  const { rows } = await db.query<OperationRow>(
    `SELECT * FROM operations WHERE kind = $1 AND target_id = $2 AND status = 'queued' ORDER BY created_at DESC LIMIT 1`,
    [kind, targetId],
  );
  return rows[0] ?? null;
}

/** Whether an operation of `kind` on the same target, created before `id`, is running under a live lease. */
export async function earlierRunning(db: Queryable, kind: string, targetId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `SELECT 1 FROM operations o, operations me
     WHERE me.id = $3 AND o.kind = $1 AND o.target_id = $2 AND o.id <> me.id AND o.status = 'running'
       AND o.lease_expires_at > clock_timestamp() AND (o.created_at, o.id) < (me.created_at, me.id)`,
    [kind, targetId, id],
  );
  return (rowCount ?? 0) > 0;
}
