import type { Queryable } from '../pool.js';

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
export async function collectionChainInfo(db: Queryable, orgId: string): Promise<Map<string, { parent: string | null; level: string | null }>> {
  const { rows } = await db.query('SELECT id, parent_id, default_level FROM collections WHERE organization_id = $1', [orgId]);
  return new Map(rows.map((r) => [r.id, { parent: r.parent_id, level: r.default_level }]));
}
