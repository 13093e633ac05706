import type { Queryable } from '../pool.js';
import { updateColumns } from '../patch.js';

export interface CollectionRow {
  id: string;
  organization_id: string;
  parent_id: string | null;
  title: string;
  description: string | null;
  default_level: string | null;
  position: number;
  created_at: Date;
  updated_at: Date;
}

export async function getCollection(db: Queryable, id: string, forUpdate = false): Promise<CollectionRow | null> {
  const { rows } = await db.query<CollectionRow>(`SELECT * FROM collections WHERE id = $1 ${forUpdate ? 'FOR UPDATE' : ''}`, [id]);
  return rows[0] ?? null;
}

/** Every collection of an organization with its parent and default level: enough to resolve inheritance. */
export async function collectionChainInfo(
  db: Queryable,
  orgId: string,
): Promise<Map<string, { parent: string | null; level: string | null }>> {
  const { rows } = await db.query({
    name: 'collection_chain',
    text: 'SELECT id, parent_id, default_level FROM collections WHERE organization_id = $1',
    values: [orgId],
  });
  return new Map(rows.map((r) => [r.id, { parent: r.parent_id, level: r.default_level }]));
}

/** A collection row plus `created_us`, its creation time in microseconds (a stable sort key). */
export type CollectionListRow = CollectionRow & { created_us: number };

export async function insertCollection(
  db: Queryable,
  c: { id: string; orgId: string; parentId: string | null; title: string; position: number },
): Promise<void> {
  await db.query(`INSERT INTO collections (id, organization_id, parent_id, title, position) VALUES ($1, $2, $3, $4, $5)`, [
    c.id,
    c.orgId,
    c.parentId,
    c.title,
    c.position,
  ]);
}

/** Every collection of an organization (the tree is small enough to resolve in memory). */
export async function listOrgCollections(db: Queryable, orgId: string): Promise<CollectionListRow[]> {
  const { rows } = await db.query<CollectionListRow>(
    `SELECT *, (extract(epoch FROM created_at) * 1000000)::bigint AS created_us FROM collections
      WHERE organization_id = $1 ORDER BY position, created_at, id`,
    [orgId],
  );
  return rows;
}

const PATCHABLE: Record<string, string> = { title: 'title', description: 'description', defaultLevel: 'default_level' };

export async function updateCollection(db: Queryable, id: string, patch: object): Promise<void> {
  await updateColumns(db, 'collections', id, patch, PATCHABLE);
}

/** The collection and all its descendants (ids), the collection first. */
export async function collectionSubtree(db: Queryable, id: string): Promise<string[]> {
  const { rows } = await db.query(
    `WITH RECURSIVE sub(id, depth) AS (
       SELECT id, 0 FROM collections WHERE id = $1
       UNION SELECT c.id, sub.depth + 1 FROM collections c JOIN sub ON c.parent_id = sub.id
     ) SELECT id FROM sub ORDER BY depth, id`,
    [id],
  );
  return rows.map((r) => r.id);
}

/**
 * Serialize structural changes (move, transfer, delete) of an organization's collection tree
 * within the current transaction, so that two concurrent moves can never build a cycle.
 */
export async function lockCollectionTree(db: Queryable, orgIds: string[]): Promise<void> {
  for (const orgId of [...new Set(orgIds)].sort()) {
    await db.query(`SELECT pg_advisory_xact_lock(hashtext('collections:' || $1))`, [orgId]);
  }
}

/**
 * Lock collection rows against concurrent inserts of spaces or collections into them (the
 * foreign-key check of such an insert takes a conflicting lock on the parent row).
 */
export async function lockCollectionRows(db: Queryable, ids: string[]): Promise<void> {
  if (ids.length) await db.query('SELECT id FROM collections WHERE id = ANY($1) ORDER BY id FOR UPDATE', [ids]);
}

export async function setCollectionPlace(db: Queryable, id: string, parentId: string | null, position: number): Promise<void> {
  await db.query('UPDATE collections SET parent_id = $2, position = $3, updated_at = clock_timestamp() WHERE id = $1', [
    id,
    parentId,
    position,
  ]);
}

export async function setCollectionsOrganization(db: Queryable, ids: string[], orgId: string): Promise<void> {
  if (!ids.length) return;
  await db.query('UPDATE collections SET organization_id = $2, updated_at = clock_timestamp() WHERE id = ANY($1)', [ids, orgId]);
}

/** Deletes the row; its sub-collections go with it (ON DELETE CASCADE). */
export async function deleteCollectionRow(db: Queryable, id: string): Promise<void> {
  await db.query('DELETE FROM collections WHERE id = $1', [id]);
}
