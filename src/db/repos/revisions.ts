import type { Queryable } from '../pool.js';

export interface RevisionRow {
  id: string;
  space_id: string;
  root_hash: string;
  parents: string[];
  type: string;
  git: Record<string, unknown> | null;
  change_request_id: string | null;
  created_by: string | null;
  created_at: Date;
}

export async function insertRevision(
  db: Queryable,
  r: {
    id: string;
    spaceId: string;
    rootHash: string;
    parents: string[];
    type?: string;
    git?: unknown;
    changeRequestId?: string | null;
    createdBy?: string | null;
  },
): Promise<RevisionRow> {
  const { rows } = await db.query<RevisionRow>(
    `INSERT INTO revisions (id, space_id, root_hash, parents, type, git, change_request_id, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
    [
      r.id,
      r.spaceId,
      r.rootHash,
      r.parents,
      r.type ?? 'edits',
      r.git ? JSON.stringify(r.git) : null,
      r.changeRequestId ?? null,
      r.createdBy ?? null,
    ],
  );
  return rows[0];
}

export async function getRevision(db: Queryable, spaceId: string, id: string): Promise<RevisionRow | null> {
  const { rows } = await db.query<RevisionRow>('SELECT * FROM revisions WHERE space_id = $1 AND id = $2', [spaceId, id]);
  return rows[0] ?? null;
}
