// Sections, section groups and site spaces of a site. A site's structure is small (bounded by the
// service), so reads load a whole site's rows at once, in sibling order (position, created, id).
import type { Queryable } from '../pool.js';
import { spaceColumns, type SpaceRow } from './spaces.js';

export interface SectionRow {
  id: string;
  site_id: string;
  group_id: string | null;
  title: string;
  description: string | null;
  path: string;
  condition: string | null;
  icon: string | null;
  is_default: boolean;
  position: number;
  created_at: Date;
  /** The docs.yaml key of a section synced from git, and its per-language texts (migration 0020; absent in fakes). */
  git_key?: string | null;
  localized_title?: Record<string, string> | null;
  localized_description?: Record<string, string> | null;
}

export interface GroupRow {
  id: string;
  site_id: string;
  parent_group_id: string | null;
  title: string;
  icon: string | null;
  position: number;
  created_at: Date;
  git_key?: string | null;
  localized_title?: Record<string, string> | null;
}

export interface SiteSpaceRow {
  id: string;
  site_id: string;
  section_id: string | null;
  space_id: string;
  path: string;
  title: string | null;
  condition: string | null;
  hidden: boolean;
  page_id: string | null;
  is_default: boolean;
  position: number;
  customization: Record<string, any> | null;
  customization_updated_at: Date | null;
  created_at: Date;
  git_key?: string | null;
  localized_title?: Record<string, string> | null;
}

const ORDER = 'ORDER BY position, created_at, id';

export async function listSections(db: Queryable, siteId: string): Promise<SectionRow[]> {
  const { rows } = await db.query<SectionRow>(`SELECT * FROM site_sections WHERE site_id = $1 ${ORDER}`, [siteId]);
  return rows;
}

export async function listGroups(db: Queryable, siteId: string): Promise<GroupRow[]> {
  const { rows } = await db.query<GroupRow>(`SELECT * FROM site_section_groups WHERE site_id = $1 ${ORDER}`, [siteId]);
  return rows;
}

/** Site spaces of a site whose space is live (a space in the trash leaves the site until restored). */
export async function listSiteSpaces(db: Queryable, siteId: string): Promise<SiteSpaceRow[]> {
  const { rows } = await db.query<SiteSpaceRow>(
    `SELECT ss.* FROM site_spaces ss JOIN spaces sp ON sp.id = ss.space_id AND sp.deleted_at IS NULL
      WHERE ss.site_id = $1 ORDER BY ss.position, ss.created_at, ss.id`,
    [siteId],
  );
  return rows;
}

/** Every site space row of the site, trashed spaces included (paths and defaults must not collide with them). */
export async function listAllSiteSpaces(db: Queryable, siteId: string): Promise<SiteSpaceRow[]> {
  const { rows } = await db.query<SiteSpaceRow>(`SELECT * FROM site_spaces WHERE site_id = $1 ${ORDER}`, [siteId]);
  return rows;
}

/**
 * Live spaces by id, with their counters (for the Space objects inside site spaces), or, with
 * `counters: false`, without (they read as 0: the reader site and site search show none). Named
 * per variant (prepared once per connection): the reader site loads them on every page view.
 */
export async function spacesByIds(db: Queryable, ids: string[], opts: { counters?: boolean } = {}): Promise<SpaceRow[]> {
  if (!ids.length) return [];
  const counters = opts.counters !== false;
  const { rows } = await db.query<SpaceRow>({
    name: `spaces_by_ids_${counters ? 'counted' : 'bare'}`,
    text: `SELECT ${spaceColumns(counters)} FROM spaces s WHERE s.id = ANY($1) AND s.deleted_at IS NULL`,
    values: [ids],
  });
  return rows;
}

export async function insertSection(
  db: Queryable,
  s: {
    id: string;
    siteId: string;
    groupId: string | null;
    title: string;
    path: string;
    icon: string | null;
    isDefault: boolean;
    position: number;
  },
): Promise<void> {
  await db.query(
    `INSERT INTO site_sections (id, site_id, group_id, title, path, icon, is_default, position) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [s.id, s.siteId, s.groupId, s.title, s.path, s.icon, s.isDefault, s.position],
  );
}

const SECTION_COLUMNS: Record<string, string> = {
  title: 'title',
  description: 'description',
  path: 'path',
  condition: 'condition',
  icon: 'icon',
  groupId: 'group_id',
  position: 'position',
  gitKey: 'git_key',
  localizedTitle: 'localized_title',
  localizedDescription: 'localized_description',
};
const SITE_SPACE_COLUMNS: Record<string, string> = {
  path: 'path',
  condition: 'condition',
  spaceId: 'space_id',
  title: 'title',
  hidden: 'hidden',
  pageId: 'page_id',
  sectionId: 'section_id',
  position: 'position',
  gitKey: 'git_key',
  localizedTitle: 'localized_title',
};
const GROUP_COLUMNS: Record<string, string> = {
  title: 'title',
  icon: 'icon',
  parentId: 'parent_group_id',
  position: 'position',
  gitKey: 'git_key',
  localizedTitle: 'localized_title',
};

async function update(db: Queryable, table: string, columns: Record<string, string>, id: string, patch: Record<string, unknown>) {
  const sets: string[] = [];
  const params: unknown[] = [id];
  for (const [field, value] of Object.entries(patch)) {
    const column = columns[field];
    if (!column || value === undefined) continue;
    params.push(value);
    sets.push(`${column} = $${params.length}`);
  }
  if (sets.length) await db.query(`UPDATE ${table} SET ${sets.join(', ')} WHERE id = $1`, params);
}

export const updateSection = (db: Queryable, id: string, patch: Record<string, unknown>) =>
  update(db, 'site_sections', SECTION_COLUMNS, id, patch);
export const updateSiteSpace = (db: Queryable, id: string, patch: Record<string, unknown>) =>
  update(db, 'site_spaces', SITE_SPACE_COLUMNS, id, patch);
export const updateGroup = (db: Queryable, id: string, patch: Record<string, unknown>) =>
  update(db, 'site_section_groups', GROUP_COLUMNS, id, patch);

/** Make `sectionId` the site's one default section (null: none). */
export async function setDefaultSection(db: Queryable, siteId: string, sectionId: string | null): Promise<void> {
  await db.query('UPDATE site_sections SET is_default = false WHERE site_id = $1 AND is_default AND id IS DISTINCT FROM $2', [
    siteId,
    sectionId,
  ]);
  if (sectionId) await db.query('UPDATE site_sections SET is_default = true WHERE id = $1 AND site_id = $2', [sectionId, siteId]);
}

/** Make `siteSpaceId` the default of its section (or of the root), unsetting the previous one. */
export async function setDefaultSiteSpace(db: Queryable, siteId: string, sectionId: string | null, siteSpaceId: string | null) {
  await db.query(
    `UPDATE site_spaces SET is_default = false
      WHERE site_id = $1 AND section_id IS NOT DISTINCT FROM $2 AND is_default AND id IS DISTINCT FROM $3`,
    [siteId, sectionId, siteSpaceId],
  );
  if (siteSpaceId) await db.query('UPDATE site_spaces SET is_default = true WHERE id = $1 AND site_id = $2', [siteSpaceId, siteId]);
}

export async function insertSiteSpace(
  db: Queryable,
  s: {
    id: string;
    siteId: string;
    sectionId: string | null;
    spaceId: string;
    path: string;
    title: string | null;
    isDefault: boolean;
    position: number;
  },
): Promise<void> {
  await db.query(
    `INSERT INTO site_spaces (id, site_id, section_id, space_id, path, title, is_default, position) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [s.id, s.siteId, s.sectionId, s.spaceId, s.path, s.title, s.isDefault, s.position],
  );
}

/** Move every root site space of a site into a section (a site without sections gaining one). */
export async function moveRootSiteSpaces(db: Queryable, siteId: string, sectionId: string): Promise<void> {
  await db.query('UPDATE site_spaces SET section_id = $2 WHERE site_id = $1 AND section_id IS NULL', [siteId, sectionId]);
}

export async function insertGroup(
  db: Queryable,
  g: { id: string; siteId: string; parentId: string | null; title: string; icon: string | null; position: number },
): Promise<void> {
  await db.query(`INSERT INTO site_section_groups (id, site_id, parent_group_id, title, icon, position) VALUES ($1, $2, $3, $4, $5, $6)`, [
    g.id,
    g.siteId,
    g.parentId,
    g.title,
    g.icon,
    g.position,
  ]);
}

export async function deleteSection(db: Queryable, siteId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM site_sections WHERE id = $1 AND site_id = $2', [id, siteId]);
  return (rowCount ?? 0) > 0;
}

export async function deleteSiteSpace(db: Queryable, siteId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM site_spaces WHERE id = $1 AND site_id = $2', [id, siteId]);
  return (rowCount ?? 0) > 0;
}

export async function deleteGroup(db: Queryable, siteId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM site_section_groups WHERE id = $1 AND site_id = $2', [id, siteId]);
  return (rowCount ?? 0) > 0;
}

export async function setSiteSpaceCustomization(db: Queryable, id: string, overrides: object | null): Promise<void> {
  await db.query(
    `UPDATE site_spaces SET customization = $2, customization_updated_at = CASE WHEN $2::jsonb IS NULL THEN NULL ELSE clock_timestamp() END
      WHERE id = $1`,
    [id, overrides === null ? null : JSON.stringify(overrides)],
  );
}
