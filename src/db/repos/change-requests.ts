import type { Queryable } from '../pool.js';

export type ChangeRequestStatus = 'draft' | 'open' | 'archived' | 'merged';

/** One external link of a change request, as stored (the description's ChangeRequestLink, without `expanded`). */
export interface ChangeRequestLinkRow {
  id: string;
  ref: { kind: 'url'; url: string };
  title?: string;
}

export interface ChangeRequestRow {
  id: string;
  space_id: string;
  number: number;
  subject: string;
  /** The description's JSON document as given, null when none. */
  description: Record<string, unknown> | null;
  links: ChangeRequestLinkRow[];
  status: ChangeRequestStatus;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
  revision_initial: string;
  revision: string;
  revision_merged_ancestor: string | null;
  revision_merged: string | null;
  merged_by: string | null;
  merged_at: Date | null;
  comments: number;
  creator_name: string | null;
  creator_email: string | null;
  creator_photo: string | null;
  merger_name: string | null;
  merger_email: string | null;
  merger_photo: string | null;
}

export const SELECT = `SELECT cr.*,
  (SELECT count(*) FROM comments c WHERE c.change_request_id = cr.id AND c.status = 'open') AS comments,
  u.display_name AS creator_name, u.email AS creator_email, u.photo_url AS creator_photo,
  mu.display_name AS merger_name, mu.email AS merger_email, mu.photo_url AS merger_photo
  FROM change_requests cr
  LEFT JOIN users u ON u.id = cr.created_by
  LEFT JOIN users mu ON mu.id = cr.merged_by`;

/** Allocate the next number of a space under its row lock: concurrent creations never collide. */
export async function nextChangeRequestNumber(db: Queryable, spaceId: string): Promise<number> {
  const { rows } = await db.query(
    'UPDATE spaces SET change_request_seq = change_request_seq + 1 WHERE id = $1 RETURNING change_request_seq AS n',
    [spaceId],
  );
  return rows[0].n;
}

export async function insertChangeRequest(
  db: Queryable,
  cr: { id: string; spaceId: string; number: number; subject: string; createdBy: string | null; revision: string },
) {
  await db.query(
    `INSERT INTO change_requests (id, space_id, number, subject, created_by, revision_initial, revision)
     VALUES ($1, $2, $3, $4, $5, $6, $6)`,
    [cr.id, cr.spaceId, cr.number, cr.subject, cr.createdBy, cr.revision],
  );
}

/** The space a change request belongs to (by id alone), or null when it no longer exists. */
export async function changeRequestSpaceId(db: Queryable, id: string): Promise<string | null> {
  const { rows } = await db.query<{ space_id: string }>('SELECT space_id FROM change_requests WHERE id = $1', [id]);
  return rows[0]?.space_id ?? null;
}

/** By id, or by number when the reference is all digits. */
export async function getChangeRequest(db: Queryable, spaceId: string, ref: string, forUpdate = false): Promise<ChangeRequestRow | null> {
  const byNumber = /^\d{1,9}$/.test(ref);
  if (forUpdate) {
    await db.query(`SELECT 1 FROM change_requests WHERE space_id = $1 AND ${byNumber ? 'number = $2::int' : 'id = $2'} FOR UPDATE`, [
      spaceId,
      ref,
    ]);
  }
  const { rows } = await db.query<ChangeRequestRow>(
    `${SELECT} WHERE cr.space_id = $1 AND ${byNumber ? 'cr.number = $2::int' : 'cr.id = $2'}`,
    [spaceId, ref],
  );
  return rows[0] ?? null;
}

export async function listChangeRequests(
  db: Queryable,
  spaceId: string,
  o: { status?: ChangeRequestStatus; creator?: string; limit: number; afterNumber?: number },
) {
  const where = ['cr.space_id = $1'];
  const params: unknown[] = [spaceId];
  if (o.status) {
    params.push(o.status);
    where.push(`cr.status = $${params.length}`);
  }
  if (o.creator) {
    params.push(o.creator);
    where.push(`cr.created_by = $${params.length}`);
  }
  const countSql = `SELECT count(*) AS n FROM change_requests cr WHERE ${where.join(' AND ')}`;
  const countParams = [...params];
  if (o.afterNumber !== undefined) {
    params.push(o.afterNumber);
    where.push(`cr.number < $${params.length}`);
  }
  params.push(o.limit + 1);
  const { rows } = await db.query<ChangeRequestRow>(
    `${SELECT} WHERE ${where.join(' AND ')} ORDER BY cr.number DESC LIMIT $${params.length}`,
    params,
  );
  const { rows: c } = await db.query(countSql, countParams);
  return { rows, count: c[0].n as number };
}

export async function updateChangeRequest(
  db: Queryable,
  id: string,
  patch: Partial<{
    subject: string;
    description: Record<string, unknown>;
    links: ChangeRequestLinkRow[];
    status: ChangeRequestStatus;
    revision: string;
    revision_merged_ancestor: string;
    revision_merged: string;
    merged_by: string;
  }>,
  opts: { unlessMerged?: boolean } = {},
): Promise<boolean> {
  const sets: string[] = [];
  const params: unknown[] = [id];
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined) continue;
    // jsonb columns get JSON text: node-postgres would send an array as a PostgreSQL array.
    const json = k === 'description' || k === 'links';
    params.push(json ? JSON.stringify(v) : v);
    sets.push(`${k} = $${params.length}${json ? '::jsonb' : ''}`);
  }
  if (!sets.length) return true;
  if (patch.status === 'merged') sets.push('merged_at = clock_timestamp()');
  const { rowCount } = await db.query(
    `UPDATE change_requests SET ${sets.join(', ')}, updated_at = clock_timestamp() WHERE id = $1 ${opts.unlessMerged ? "AND status <> 'merged'" : ''}`,
    params,
  );
  return (rowCount ?? 0) > 0;
}
