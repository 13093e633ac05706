import type { Queryable } from '../pool.js';

export interface ShareLinkRow {
  id: string;
  site_id: string;
  name: string;
  key_hash: string;
  key_sealed: string;
  active: boolean;
  created_at: Date;
}

export async function insertShareLink(
  db: Queryable,
  l: { id: string; siteId: string; name: string; keyHash: string; keySealed: string },
): Promise<void> {
  await db.query('INSERT INTO site_share_links (id, site_id, name, key_hash, key_sealed) VALUES ($1, $2, $3, $4, $5)', [
    l.id,
    l.siteId,
    l.name,
    l.keyHash,
    l.keySealed,
  ]);
}

export async function listShareLinks(db: Queryable, siteId: string): Promise<(ShareLinkRow & { created_key: string })[]> {
  const { rows } = await db.query(
    `SELECT *, created_at::text AS created_key FROM site_share_links WHERE site_id = $1 ORDER BY created_at, id`,
    [siteId],
  );
  return rows;
}

export async function getShareLink(db: Queryable, siteId: string, id: string): Promise<ShareLinkRow | null> {
  const { rows } = await db.query<ShareLinkRow>('SELECT * FROM site_share_links WHERE id = $1 AND site_id = $2', [id, siteId]);
  return rows[0] ?? null;
}

/** The active link of `siteId` whose key hashes to `keyHash` (read on every request: no caching). */
export async function findActiveShareLink(db: Queryable, siteId: string, keyHash: string): Promise<ShareLinkRow | null> {
  const { rows } = await db.query<ShareLinkRow>('SELECT * FROM site_share_links WHERE key_hash = $1 AND site_id = $2 AND active', [
    keyHash,
    siteId,
  ]);
  return rows[0] ?? null;
}

export async function updateShareLink(db: Queryable, id: string, patch: { name?: string; active?: boolean }): Promise<void> {
  await db.query('UPDATE site_share_links SET name = coalesce($2, name), active = coalesce($3, active) WHERE id = $1', [
    id,
    patch.name ?? null,
    patch.active ?? null,
  ]);
}

export async function deleteShareLink(db: Queryable, siteId: string, id: string): Promise<void> {
  await db.query('DELETE FROM site_share_links WHERE id = $1 AND site_id = $2', [id, siteId]);
}
