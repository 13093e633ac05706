import type { AppContext } from '../context.js';
import type { Principal } from '../auth/principal.js';
import type { Queryable } from '../db/pool.js';
import * as ops from '../db/repos/operations.js';
import { getSpace } from '../db/repos/spaces.js';
import type { OperationRow } from '../db/repos/operations.js';
import { queueFor, type JobName, type JobPayloads } from '../queue/registry.js';
import type { QueueName } from '../config.js';
import { newId } from '../util/ids.js';
import { notFound } from '../core/errors.js';
import { canSeeOperation } from '../policies/operations.js';
import { toOperation } from '../presenters/operations.js';

/**
 * Record a long-running operation inside the caller's transaction. The job is enqueued after the
 * commit by `enqueue`; if that fails (or the process dies in between) the reconciler enqueues it.
 */
export async function createOperation<K extends JobName>(
  c: Queryable,
  kind: K,
  o: {
    organizationId: string | null;
    payload: JobPayloads[K];
    targetType?: string;
    targetId?: string;
    createdBy?: string;
    /** Only for a job whose registry entry lets the caller choose (`anyQueue`); ignored otherwise. */
    queue?: QueueName;
  },
): Promise<OperationRow> {
  return ops.insertOperation(c, {
    id: newId(),
    kind,
    queue: queueFor(kind, o.queue),
    organizationId: o.organizationId,
    payload: o.payload as Record<string, unknown>,
    targetType: o.targetType,
    targetId: o.targetId,
    createdBy: o.createdBy,
  });
}

/** Enqueue after commit. A Redis failure is logged, not thrown: the operation row is the truth. */
export async function enqueue(app: Pick<AppContext, 'jobs' | 'log'>, op: OperationRow, opts: { delayMs?: number } = {}): Promise<void> {
  try {
    await app.jobs.enqueue(op, opts);
  } catch (err) {
    app.log.warn({ err, operationId: op.id }, 'enqueue failed; the reconciler will retry');
  }
}

/**
 * Create and enqueue a job that brings one of a space's derived indexes up to its current revision
 * (`search.index`, `links.index`); nothing when the space is gone. Returns whether one was created.
 */
export async function scheduleSpaceIndex(app: AppContext, kind: 'search.index' | 'links.index', spaceId: string): Promise<boolean> {
  const space = await getSpace(app.db, spaceId);
  if (!space) return false;
  const op = await createOperation(app.db, kind, {
    organizationId: space.organization_id,
    payload: { spaceId },
    targetType: 'space',
    targetId: spaceId,
  });
  await enqueue(app, op);
  return true;
}

/** An operation its target's readers may see (src/policies/operations.ts); anyone else gets the 404 of an unknown id. */
export async function getOperation(app: AppContext, p: Principal, id: string) {
  const op = await ops.getOperation(app.db, id);
  if (!op || !(await canSeeOperation(app.db, p, op))) throw notFound(`Operation "${id}" not found`);
  return toOperation(app, op);
}
