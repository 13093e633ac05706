// The sibling ordering shared by the spaces and collections of one parent (a collection, or the
// top level of an organization when the parent is null): `position`, then creation time, then id.
import type { Queryable } from '../pool.js';

interface Sibling {
  type: 'space' | 'collection';
  id: string;
  position: number;
}

/** Next position at the end of a parent's children (spaces and collections share the ordering). */
export async function nextPosition(db: Queryable, orgId: string, parentId: string | null): Promise<number> {
  const { rows } = await db.query(
    `SELECT coalesce(max(p), 0) + 1 AS n FROM (
       SELECT position AS p FROM spaces WHERE organization_id = $1 AND parent_id IS NOT DISTINCT FROM $2 AND deleted_at IS NULL
       UNION ALL SELECT position FROM collections WHERE organization_id = $1 AND parent_id IS NOT DISTINCT FROM $2) x`,
    [orgId, parentId],
  );
  return Number(rows[0].n);
}

/** The live spaces and the collections under a parent, in sibling order. */
export async function listSiblings(db: Queryable, orgId: string, parentId: string | null): Promise<Sibling[]> {
  const { rows } = await db.query<Sibling>(
    `SELECT 'space' AS type, id, position, created_at FROM spaces
      WHERE organization_id = $1 AND parent_id IS NOT DISTINCT FROM $2 AND deleted_at IS NULL
     UNION ALL
     SELECT 'collection', id, position, created_at FROM collections WHERE organization_id = $1 AND parent_id IS NOT DISTINCT FROM $2
     ORDER BY position, created_at, id`,
    [orgId, parentId],
  );
  return rows;
}

export async function setSiblingPosition(db: Queryable, s: Pick<Sibling, 'type' | 'id'>, position: number): Promise<void> {
  await db.query(`UPDATE ${s.type === 'space' ? 'spaces' : 'collections'} SET position = $2 WHERE id = $1`, [s.id, position]);
}
