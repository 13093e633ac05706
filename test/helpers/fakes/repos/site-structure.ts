// Fake of src/db/repos/site-structure.ts: sections, section groups and site spaces of sites.
import type * as real from '../../../../src/db/repos/site-structure.js';
import { copy, now, tables } from '../store.js';

type Ordered = { position: number; created_at: Date; id: string };
const ordered = <T extends Ordered>(rows: Iterable<T>) =>
  [...rows].sort((a, b) => a.position - b.position || a.created_at.getTime() - b.created_at.getTime() || (a.id < b.id ? -1 : 1)).map(copy);
const liveSpace = (spaceId: string) => {
  const s = tables.spaces.get(spaceId);
  return !!s && !s.deleted_at;
};

/** The unique indexes of migration 0010 (a violation is a 23505, as PostgreSQL raises it). */
function checkUnique(): void {
  const seen = new Set<string>();
  const once = (k: string, index: string) => {
    if (seen.has(k)) throw Object.assign(new Error(`duplicate key value violates unique constraint "${index}"`), { code: '23505' });
    seen.add(k);
  };
  for (const s of tables.sections.values()) {
    once(`path ${s.site_id} ${s.path}`, 'site_sections_path_idx');
    if (s.is_default) once(`default ${s.site_id}`, 'site_sections_default_idx');
  }
  for (const ss of tables.siteSpaces.values()) {
    const at = `${ss.site_id} ${ss.section_id ?? ''}`;
    once(`ss-path ${at} ${ss.path}`, 'site_spaces_path_idx');
    once(`ss-space ${at} ${ss.space_id}`, 'site_spaces_space_once_idx');
    if (ss.is_default) once(`ss-default ${at}`, 'site_spaces_default_idx');
  }
}

export const listSections: typeof real.listSections = async (_db, siteId) =>
  ordered([...tables.sections.values()].filter((s) => s.site_id === siteId));

export const listGroups: typeof real.listGroups = async (_db, siteId) =>
  ordered([...tables.groups.values()].filter((g) => g.site_id === siteId));

export const listSiteSpaces: typeof real.listSiteSpaces = async (_db, siteId) =>
  ordered([...tables.siteSpaces.values()].filter((ss) => ss.site_id === siteId && liveSpace(ss.space_id)));

export const listAllSiteSpaces: typeof real.listAllSiteSpaces = async (_db, siteId) =>
  ordered([...tables.siteSpaces.values()].filter((ss) => ss.site_id === siteId));

export const spacesByIds: typeof real.spacesByIds = async (_db, ids) => ids.filter(liveSpace).map((id) => copy(tables.spaces.get(id)!));

export const insertSection: typeof real.insertSection = async (_db, s) => {
  tables.sections.set(s.id, {
    id: s.id,
    site_id: s.siteId,
    group_id: s.groupId,
    title: s.title,
    description: null,
    path: s.path,
    condition: null,
    icon: s.icon,
    is_default: s.isDefault,
    position: s.position,
    created_at: now(),
  });
  checkUnique();
};

export const insertGroup: typeof real.insertGroup = async (_db, g) => {
  tables.groups.set(g.id, {
    id: g.id,
    site_id: g.siteId,
    parent_group_id: g.parentId,
    title: g.title,
    icon: g.icon,
    position: g.position,
    created_at: now(),
  });
};

export const insertSiteSpace: typeof real.insertSiteSpace = async (_db, s) => {
  tables.siteSpaces.set(s.id, {
    id: s.id,
    site_id: s.siteId,
    section_id: s.sectionId,
    space_id: s.spaceId,
    path: s.path,
    title: s.title,
    condition: null,
    hidden: false,
    page_id: null,
    is_default: s.isDefault,
    position: s.position,
    customization: null,
    customization_updated_at: null,
    created_at: now(),
  });
  checkUnique();
};

/** A patch in API names applied with the real module's column maps: undefined is left alone, null clears. */
function patchRow(row: object | undefined, columns: Record<string, string>, patch: Record<string, unknown>) {
  if (!row) return;
  for (const [field, value] of Object.entries(patch))
    if (columns[field] && value !== undefined) Object.assign(row, { [columns[field]]: value });
  checkUnique();
}

export const updateSection: typeof real.updateSection = async (_db, id, patch) =>
  patchRow(tables.sections.get(id), {
    title: 'title',
    description: 'description',
    path: 'path',
    condition: 'condition',
    icon: 'icon',
    groupId: 'group_id',
    position: 'position',
  }, patch); // prettier-ignore

export const updateSiteSpace: typeof real.updateSiteSpace = async (_db, id, patch) =>
  patchRow(tables.siteSpaces.get(id), {
    path: 'path',
    condition: 'condition',
    spaceId: 'space_id',
    title: 'title',
    hidden: 'hidden',
    pageId: 'page_id',
    sectionId: 'section_id',
    position: 'position',
  }, patch); // prettier-ignore

export const updateGroup: typeof real.updateGroup = async (_db, id, patch) =>
  patchRow(tables.groups.get(id), { title: 'title', icon: 'icon', parentId: 'parent_group_id', position: 'position' }, patch);

export const setDefaultSection: typeof real.setDefaultSection = async (_db, siteId, sectionId) => {
  for (const s of tables.sections.values()) if (s.site_id === siteId) s.is_default = s.id === sectionId;
  checkUnique();
};

export const setDefaultSiteSpace: typeof real.setDefaultSiteSpace = async (_db, siteId, sectionId, siteSpaceId) => {
  for (const ss of tables.siteSpaces.values())
    if (ss.site_id === siteId && (ss.section_id === sectionId || ss.id === siteSpaceId)) ss.is_default = ss.id === siteSpaceId;
  checkUnique();
};

export const moveRootSiteSpaces: typeof real.moveRootSiteSpaces = async (_db, siteId, sectionId) => {
  for (const ss of tables.siteSpaces.values()) if (ss.site_id === siteId && ss.section_id === null) ss.section_id = sectionId;
  checkUnique();
};

export const deleteSection: typeof real.deleteSection = async (_db, siteId, id) => {
  if (tables.sections.get(id)?.site_id !== siteId) return false;
  tables.sections.delete(id);
  // ON DELETE CASCADE: the section's site spaces go with it.
  for (const [k, ss] of tables.siteSpaces) if (ss.section_id === id) tables.siteSpaces.delete(k);
  return true;
};

export const deleteSiteSpace: typeof real.deleteSiteSpace = async (_db, siteId, id) =>
  tables.siteSpaces.get(id)?.site_id === siteId && tables.siteSpaces.delete(id);

export const deleteGroup: typeof real.deleteGroup = async (_db, siteId, id) =>
  tables.groups.get(id)?.site_id === siteId && tables.groups.delete(id);

export const setSiteSpaceCustomization: typeof real.setSiteSpaceCustomization = async (_db, id, overrides) => {
  const ss = tables.siteSpaces.get(id);
  if (ss)
    Object.assign(ss, {
      customization: overrides === null ? null : copy(overrides),
      customization_updated_at: overrides === null ? null : now(),
    });
};
