import type { AppContext } from '../context.js';
import type { OperationRow } from '../db/repos/operations.js';
import { appUrls } from './urls.js';

/** Where a client polls a long-running operation (the Location header of a 202). */
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
