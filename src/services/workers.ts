import type { AppContext } from '../context.js';
import type { QueueName } from '../config.js';
import * as ops from '../db/repos/operations.js';
import type { OperationRow } from '../db/repos/operations.js';
import { createOperation, enqueue } from './operations.js';
import { queueFor } from '../queue/registry.js';

/** What a health check needs: the store, the queue client and a logger (the CLI has no full context). */
export type PingContext = Pick<AppContext, 'db' | 'jobs' | 'log'>;

/**
 * Accept a health check of the worker pool of `queue` (default: the registry's, maintenance): a
 * `workers.ping` operation (durable, as any operation) and its job. Returns once both are done;
 * the pool runs it like any other job.
 */
export async function pingWorkers(app: PingContext, queue?: QueueName): Promise<OperationRow> {
  const op = await createOperation(app.db, 'workers.ping', {
    organizationId: null,
    payload: {},
    queue,
    targetType: 'queue',
    targetId: queueFor('workers.ping', queue),
  });
  await enqueue(app, op);
  return op;
}

/** The operation once it is final (succeeded, failed or skipped), or null after `timeoutMs`. */
export async function waitForOperation(
  app: Pick<AppContext, 'db'>,
  id: string,
  timeoutMs: number,
  everyMs = 50,
): Promise<OperationRow | null> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const op = await ops.getOperation(app.db, id);
    if (op && op.status !== 'queued' && op.status !== 'running') return op;
    if (Date.now() >= until) return null;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
