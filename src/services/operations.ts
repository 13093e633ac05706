import type { AppContext } from '../context.js';
import type { Principal } from '../auth/principal.js';
import type { Queryable } from '../db/pool.js';
import * as ops from '../db/repos/operations.js';
import type { OperationRow } from '../db/repos/operations.js';
import { JOBS, type JobName, type JobPayloads } from '../../jobs/registry.js';
import { newId } from '../util/ids.js';
import { notFound } from '../http/errors.js';
import { requireOrg, appUrls } from './access.js';

/**
 * Record a long-running operation inside the caller's transaction. The job is enqueued after the
 * commit by `enqueue`; if that fails (or the process dies in between) the reconciler enqueues it.
 */
export async function createOperation<K extends JobName>(
  c: Queryable,
  kind: K,
  o: { organizationId: string | null; payload: JobPayloads[K]; targetType?: string; targetId?: string; createdBy?: string },
): Promise<OperationRow> {
  return ops.insertOperation(c, {
    id: newId(),
    kind,
    queue: JOBS[kind].queue,
    organizationId: o.organizationId,
    payload: o.payload as Record<string, unknown>,
    targetType: o.targetType,
    targetId: o.targetId,
    createdBy: o.createdBy,
  });
}

/** Enqueue after commit. A Redis failure is logged, not thrown: the operation row is the truth. */
export async function enqueue(app: AppContext, op: OperationRow): Promise<void> {
  try {
    await app.jobs.enqueue(op);
  } catch (err) {
    app.log.warn({ err, operationId: op.id }, 'enqueue failed; the reconciler will retry');
  }
}

export function operationLocation(app: AppContext, id: string): string {
  return appUrls(app).api(`/operations/${id}`);
}

export function toOperation(app: AppContext, op: OperationRow) {
  return {
    object: 'operation',
    id: op.id,
    kind: op.kind,
    status: op.status,
    progress: op.progress,
    ...(op.target_type ? { target: { type: op.target_type, id: op.target_id } } : {}),
    ...(op.result !== null && op.result !== undefined ? { result: op.result } : {}),
    ...(op.error ? { error: op.error } : {}),
    attempts: op.attempts,
    createdAt: op.created_at.toISOString(),
    updatedAt: op.updated_at.toISOString(),
    ...(op.started_at ? { startedAt: op.started_at.toISOString() } : {}),
    ...(op.finished_at ? { finishedAt: op.finished_at.toISOString() } : {}),
    urls: { location: operationLocation(app, op.id) },
  };
}

export async function getOperation(app: AppContext, p: Principal, id: string) {
  const op = await ops.getOperation(app.db, id);
  if (!op) throw notFound(`Operation "${id}" not found`);
  if (op.created_by !== p.userId) {
    if (!op.organization_id) throw notFound(`Operation "${id}" not found`);
    await requireOrg(app.db, p, op.organization_id, 'view');
  }
  return toOperation(app, op);
}
