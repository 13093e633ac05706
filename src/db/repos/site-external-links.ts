// External links of a site's header (issue 29): rows of site_external_links.
import type { Queryable } from '../pool.js';

export interface ExternalLinkRow {
  id: string;
  site_id: string;
  section_group_id: string | null;
  title: string;
  localized_title: Record<string, string> | null;
  description: string | null;
  localized_description: Record<string, string> | null;
  icon: string | null;
  url: string;
  draft: boolean;
  condition: string | null;
  position: number;
  /** The docs.yaml `key` of the link (site-level Git Sync), null until a sync or a write-back gave it one. */
  git_key: string | null;
  created_at: Date;
}

export interface ExternalLinkPatch {
  sectionGroupId?: string | null;
  title?: string;
  localizedTitle?: Record<string, string> | null;
  description?: string | null;
  localizedDescription?: Record<string, string> | null;
  icon?: string | null;
  url?: string;
  draft?: boolean;
  condition?: string | null;
  position?: number;
  gitKey?: string | null;
}

const COLUMNS: Record<keyof ExternalLinkPatch, string> = {
  sectionGroupId: 'section_group_id',
  title: 'title',
  localizedTitle: 'localized_title',
  description: 'description',
  localizedDescription: 'localized_description',
  icon: 'icon',
  url: 'url',
  draft: 'draft',
  condition: 'condition',
  position: 'position',
  gitKey: 'git_key',
};
const JSON_COLUMNS = new Set(['localizedTitle', 'localizedDescription']);

export async function listExternalLinks(db: Queryable, siteId: string): Promise<ExternalLinkRow[]> {
  const { rows } = await db.query('SELECT * FROM site_external_links WHERE site_id = $1 ORDER BY position, created_at, id', [siteId]);
  return rows;
}

export async function getExternalLink(db: Queryable, siteId: string, id: string): Promise<ExternalLinkRow | null> {
  const { rows } = await db.query('SELECT * FROM site_external_links WHERE site_id = $1 AND id = $2', [siteId, id]);
  return rows[0] ?? null;
}

export async function insertExternalLink(
  db: Queryable,
  l: { id: string; siteId: string; title: string; url: string; position: number } & ExternalLinkPatch,
): Promise<void> {
  await db.query(
    `INSERT INTO site_external_links (id, site_id, section_group_id, title, localized_title, description,
       localized_description, icon, url, draft, condition, position, git_key)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
    [
      l.id,
      l.siteId,
      l.sectionGroupId ?? null,
      l.title,
      l.localizedTitle ? JSON.stringify(l.localizedTitle) : null,
      l.description ?? null,
      l.localizedDescription ? JSON.stringify(l.localizedDescription) : null,
      l.icon ?? null,
      l.url,
      l.draft ?? false,
      l.condition ?? null,
      l.position,
      l.gitKey ?? null,
    ],
  );
}

export async function updateExternalLink(db: Queryable, id: string, patch: ExternalLinkPatch): Promise<void> {
  const sets: string[] = [];
  const values: unknown[] = [id];
  for (const [k, col] of Object.entries(COLUMNS) as [keyof ExternalLinkPatch, string][]) {
    const v = patch[k];
    if (v === undefined) continue;
    values.push(JSON_COLUMNS.has(k) && v !== null ? JSON.stringify(v) : v);
    sets.push(`${col} = $${values.length}`);
  }
  if (sets.length) await db.query(`UPDATE site_external_links SET ${sets.join(', ')} WHERE id = $1`, values);
}

export async function deleteExternalLink(db: Queryable, siteId: string, id: string): Promise<boolean> {
  const r = await db.query('DELETE FROM site_external_links WHERE site_id = $1 AND id = $2', [siteId, id]);
  return (r.rowCount ?? 0) > 0;
}
