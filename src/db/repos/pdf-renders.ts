// PDF exports (migration 0005): one row per (space, revision, change request or main, scope).
import type { Queryable } from '../pool.js';
import type { OperationStatus } from './operations.js';

export interface PdfRenderRow {
  id: string;
  space_id: string;
  revision_id: string;
  change_request_id: string | null;
  scope: string;
  organization_id: string;
  operation_id: string;
  status: 'pending' | 'ready' | 'failed';
  file_name: string;
  blob_key: string | null;
  size: number | null;
  page_count: number | null;
  error: string | null;
  created_at: Date;
  updated_at: Date;
}

/** A render with the state of its current operation (null when that row is gone). */
export interface PdfRenderState extends PdfRenderRow {
  op_status: OperationStatus | null;
  op_error: string | null;
}

export interface RenderKey {
  spaceId: string;
  revisionId: string;
  changeRequestId: string | null;
  scope: string;
}

const WITH_OP = `SELECT r.*, o.status AS op_status, o.error AS op_error
                   FROM pdf_renders r LEFT JOIN operations o ON o.id = r.operation_id`;

export async function getRender(db: Queryable, id: string): Promise<PdfRenderState | null> {
  const { rows } = await db.query<PdfRenderState>(`${WITH_OP} WHERE r.id = $1`, [id]);
  return rows[0] ?? null;
}

export async function findRender(db: Queryable, k: RenderKey): Promise<PdfRenderState | null> {
  const { rows } = await db.query<PdfRenderState>(
    `${WITH_OP} WHERE r.space_id = $1 AND r.revision_id = $2 AND coalesce(r.change_request_id, '') = coalesce($3, '') AND r.scope = $4`,
    [k.spaceId, k.revisionId, k.changeRequestId, k.scope],
  );
  return rows[0] ?? null;
}

/** Serializes requests for one render key until the end of the caller's transaction. */
export async function lockRenderKey(c: Queryable, k: RenderKey) {
  await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`pdf:${k.spaceId}:${k.revisionId}:${k.changeRequestId ?? ''}:${k.scope}`]);
}

export async function insertRender(
  c: Queryable,
  r: RenderKey & { id: string; organizationId: string; operationId: string; fileName: string },
): Promise<void> {
  await c.query(
    `INSERT INTO pdf_renders (id, space_id, revision_id, change_request_id, scope, organization_id, operation_id, file_name)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [r.id, r.spaceId, r.revisionId, r.changeRequestId, r.scope, r.organizationId, r.operationId, r.fileName],
  );
}

/** Hand a failed render to a new operation (the next attempt). */
export async function restartRender(c: Queryable, id: string, operationId: string): Promise<void> {
  await c.query(
    `UPDATE pdf_renders SET operation_id = $2, status = 'pending', error = NULL, blob_key = NULL, size = NULL, page_count = NULL,
            updated_at = clock_timestamp()
      WHERE id = $1`,
    [id, operationId],
  );
}

/** pending -> ready, only for the operation that owns the render; false when superseded. */
export async function markRenderReady(
  c: Queryable,
  id: string,
  operationId: string,
  f: { blobKey: string; size: number; pageCount: number },
): Promise<boolean> {
  const { rowCount } = await c.query(
    `UPDATE pdf_renders SET status = 'ready', blob_key = $3, size = $4, page_count = $5, error = NULL, updated_at = clock_timestamp()
      WHERE id = $1 AND operation_id = $2 AND status = 'pending'`,
    [id, operationId, f.blobKey, f.size, f.pageCount],
  );
  return (rowCount ?? 0) > 0;
}

/** pending -> failed with the reason, only for the operation that owns the render. */
export async function markRenderFailed(c: Queryable, id: string, operationId: string, error: string): Promise<boolean> {
  const { rowCount } = await c.query(
    `UPDATE pdf_renders SET status = 'failed', error = $3, updated_at = clock_timestamp()
      WHERE id = $1 AND operation_id = $2 AND status = 'pending'`,
    [id, operationId, error],
  );
  return (rowCount ?? 0) > 0;
}
