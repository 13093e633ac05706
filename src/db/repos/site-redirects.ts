// Site redirects (issue 29): rows of site_redirects.
import type { Queryable } from '../pool.js';

export interface SiteRedirectRow {
  id: string;
  site_id: string;
  source: string;
  draft: boolean;
  capture_wildcard: boolean;
  permanent: boolean;
  destination: Record<string, any>;
  created_at: Date;
  updated_at: Date | null;
}

export interface RedirectFields {
  source: string;
  draft: boolean;
  captureWildcard: boolean;
  permanent: boolean;
  destination: Record<string, unknown>;
}

export async function listRedirects(db: Queryable, siteId: string, draft?: boolean): Promise<SiteRedirectRow[]> {
  const { rows } = await db.query(
    `SELECT * FROM site_redirects WHERE site_id = $1 AND ($2::boolean IS NULL OR draft = $2) ORDER BY created_at, id`,
    [siteId, draft ?? null],
  );
  return rows;
}

export async function countRedirects(db: Queryable, siteId: string): Promise<number> {
  const { rows } = await db.query('SELECT count(*)::int AS n FROM site_redirects WHERE site_id = $1', [siteId]);
  return rows[0].n;
}

export async function getRedirect(db: Queryable, siteId: string, id: string): Promise<SiteRedirectRow | null> {
  const { rows } = await db.query('SELECT * FROM site_redirects WHERE site_id = $1 AND id = $2', [siteId, id]);
  return rows[0] ?? null;
}

export async function redirectBySource(db: Queryable, siteId: string, source: string, draft: boolean): Promise<SiteRedirectRow | null> {
  const { rows } = await db.query('SELECT * FROM site_redirects WHERE site_id = $1 AND source = $2 AND draft = $3', [
    siteId,
    source,
    draft,
  ]);
  return rows[0] ?? null;
}

export async function insertRedirect(db: Queryable, id: string, siteId: string, f: RedirectFields): Promise<void> {
  await db.query(
    `INSERT INTO site_redirects (id, site_id, source, draft, capture_wildcard, permanent, destination)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [id, siteId, f.source, f.draft, f.captureWildcard, f.permanent, JSON.stringify(f.destination)],
  );
}

export async function updateRedirect(db: Queryable, id: string, f: RedirectFields): Promise<void> {
  await db.query(
    `UPDATE site_redirects SET source = $2, draft = $3, capture_wildcard = $4, permanent = $5, destination = $6,
       updated_at = clock_timestamp() WHERE id = $1`,
    [id, f.source, f.draft, f.captureWildcard, f.permanent, JSON.stringify(f.destination)],
  );
}

export async function deleteRedirect(db: Queryable, siteId: string, id: string): Promise<boolean> {
  const r = await db.query('DELETE FROM site_redirects WHERE site_id = $1 AND id = $2', [siteId, id]);
  return (r.rowCount ?? 0) > 0;
}
