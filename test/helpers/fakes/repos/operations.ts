// Fake of src/db/repos/operations.ts (what services read and write; the runner's lease functions
// are the workers' and are not faked).
import type * as real from '../../../../src/db/repos/operations.js';
import { copy, now, tables } from '../store.js';

export const insertOperation: typeof real.insertOperation = async (_db, op) => {
  const at = now();
  const row = {
    id: op.id,
    organization_id: op.organizationId,
    kind: op.kind,
    queue: op.queue,
    status: 'queued' as const,
    target_type: op.targetType ?? null,
    target_id: op.targetId ?? null,
    payload: copy(op.payload),
    progress: 0,
    result: null,
    error: null,
    attempts: 0,
    created_by: op.createdBy ?? null,
    created_at: at,
    updated_at: at,
    started_at: null,
    finished_at: null,
    lease_owner: null,
    lease_expires_at: null,
  };
  tables.operations.set(op.id, row);
  return copy(row);
};

export const getOperation: typeof real.getOperation = async (_db, id) => {
  const op = tables.operations.get(id);
  return op ? copy(op) : null;
};

export const queuedOperationFor: typeof real.queuedOperationFor = async (_db, kind, targetId) => {
  const found = [...tables.operations.values()]
    .filter((o) => o.kind === kind && o.target_id === targetId && o.status === 'queued')
    .sort((a, b) => b.created_at.getTime() - a.created_at.getTime())[0];
  return found ? copy(found) : null;
};

export const earlierRunning: typeof real.earlierRunning = async (_db, kind, targetId, id) => {
  const me = tables.operations.get(id);
  if (!me) return false;
  const t = Date.now();
  return [...tables.operations.values()].some(
    (o) =>
      o.kind === kind &&
      o.target_id === targetId &&
      o.id !== id &&
      o.status === 'running' &&
      !!o.lease_expires_at &&
      o.lease_expires_at.getTime() > t &&
      (o.created_at.getTime() < me.created_at.getTime() || (o.created_at.getTime() === me.created_at.getTime() && o.id < me.id)),
  );
};
