// Fake of src/db/repos/sites.ts. The computed columns (live site spaces, the organization's hosts
// and default site) are derived on read, as the real statement joins them in.
import type * as real from '../../../../src/db/repos/sites.js';
import type { SiteRow } from '../../../../src/db/repos/sites.js';
import { copy, now, tables, type StoredSite } from '../store.js';

const liveSpace = (spaceId: string) => {
  const s = tables.spaces.get(spaceId);
  return !!s && !s.deleted_at;
};

function present(s: StoredSite): SiteRow {
  const org = tables.orgs.get(s.organization_id);
  const { created_by: _c, ...row } = copy(s);
  return {
    ...row,
    site_spaces: [...tables.siteSpaces.values()].filter((ss) => ss.site_id === s.id && liveSpace(ss.space_id)).length,
    org_hostname: org?.hostname ?? null,
    org_custom_hostname: org?.custom_hostname?.toLowerCase() ?? null,
    org_default_site: org?.default_content?.site ?? null,
  };
}

const byCreation = (a: StoredSite, b: StoredSite) => a.created_at.getTime() - b.created_at.getTime() || (a.id < b.id ? -1 : 1);

function bump(id: string) {
  const s = tables.sites.get(id);
  if (s) Object.assign(s, { version: s.version + 1, updated_at: now() });
  return s;
}

/**
 * The row versions a reader request compares (PostgreSQL's xmin there): here the rows' own content,
 * which changes whenever a write changes them, as xmin does.
 */
export const readerSiteStamp: typeof real.readerSiteStamp = async (_db, id) => {
  const s = tables.sites.get(id);
  if (!s) return null;
  const stamp = (row: unknown) => JSON.stringify(row);
  return {
    site: `${stamp(s)}:${stamp(tables.orgs.get(s.organization_id))}`,
    spaces: [...tables.siteSpaces.values()]
      .filter((ss) => ss.site_id === id && liveSpace(ss.space_id))
      .map((ss) => `${ss.space_id}:${stamp(tables.spaces.get(ss.space_id))}`)
      .sort(),
  };
};

/** A site as a new row holds it: the columns the insert does not name take their defaults. */
export function newSiteRow(s: Pick<StoredSite, 'id' | 'organization_id' | 'type' | 'title' | 'visibility' | 'created_by'>): StoredSite {
  const at = now();
  return {
    ...s,
    published: false,
    basename: null,
    hostname: null,
    proxy_origin: null,
    default_level: 'inherit',
    adaptive_content: false,
    agents_context: '',
    customization: null,
    customization_updated_at: null,
    adaptive_schema: null,
    adaptive_schema_updated_at: null,
    auth_key_sealed: null,
    auth_fallback_url: null,
    auth_logout_url: null,
    version: 1,
    created_at: at,
    updated_at: at,
  };
}

export const insertSite: typeof real.insertSite = async (_db, s) => {
  tables.sites.set(
    s.id,
    newSiteRow({ id: s.id, organization_id: s.orgId, type: s.type, title: s.title, visibility: s.visibility, created_by: s.createdBy }),
  );
};

export const getSite: typeof real.getSite = async (_db, id) => {
  const s = tables.sites.get(id);
  return s ? present(s) : null;
};

export const openSitesShowingSpace: typeof real.openSitesShowingSpace = async (_db, spaceId) =>
  [...tables.sites.values()]
    .filter(
      (s) =>
        s.published &&
        ['public', 'unlisted'].includes(s.visibility) &&
        [...tables.siteSpaces.values()].some((ss) => ss.site_id === s.id && ss.space_id === spaceId),
    )
    .sort(byCreation)
    .slice(0, 5)
    .map(present);

export const listOrgSites: typeof real.listOrgSites = async (_db, orgId, f) =>
  [...tables.sites.values()]
    .filter((s) => s.organization_id === orgId)
    .filter((s) => !f.space || [...tables.siteSpaces.values()].some((ss) => ss.site_id === s.id && ss.space_id === f.space))
    .filter((s) => !f.title || s.title.toLowerCase().includes(f.title.toLowerCase()))
    .filter((s) => f.published === undefined || s.published === f.published)
    .filter((s) => !f.types?.length || f.types.includes(s.type))
    .sort(byCreation)
    .map((s) => ({ ...present(s), created_key: s.created_at.toISOString() }));

const PATCHABLE: Record<string, keyof StoredSite> = {
  title: 'title',
  visibility: 'visibility',
  basename: 'basename',
  hostname: 'hostname',
  proxy: 'proxy_origin',
  defaultLevel: 'default_level',
  adaptiveContent: 'adaptive_content',
  agentsContext: 'agents_context',
  published: 'published',
};

export const updateSite: typeof real.updateSite = async (_db, id, patch) => {
  const s = bump(id);
  if (!s) return;
  for (const [field, value] of Object.entries(patch)) {
    const column = PATCHABLE[field];
    if (column && value !== undefined) Object.assign(s, { [column]: value });
  }
};

export const bumpSiteVersion: typeof real.bumpSiteVersion = async (_db, id) => void bump(id);

/** Transactions of these tests never overlap: the lock only has to be taken. */
export const lockSiteStructure: typeof real.lockSiteStructure = async () => {};

export const deleteSiteRow: typeof real.deleteSiteRow = async (_db, id) => {
  if (!tables.sites.delete(id)) return false;
  // ON DELETE CASCADE of the structure, share links and grants.
  for (const m of [tables.sections, tables.groups, tables.siteSpaces, tables.shareLinks] as Map<string, { site_id: string }>[])
    for (const [k, row] of m) if (row.site_id === id) m.delete(k);
  for (const k of tables.siteUserGrants.keys()) if (k.startsWith(`${id} `)) tables.siteUserGrants.delete(k);
  return true;
};

export const setSiteCustomization: typeof real.setSiteCustomization = async (_db, id, settings) => {
  const s = bump(id);
  if (s) Object.assign(s, { customization: copy(settings), customization_updated_at: now() });
};

export const setSiteAdaptiveSchema: typeof real.setSiteAdaptiveSchema = async (_db, id, schema) => {
  const s = bump(id);
  if (s) Object.assign(s, { adaptive_schema: copy(schema), adaptive_schema_updated_at: now() });
};

export const setSiteAuth: typeof real.setSiteAuth = async (_db, id, a) => {
  const s = bump(id);
  if (!s) return;
  if (a.keySealed) s.auth_key_sealed = a.keySealed;
  if (a.fallbackUrl !== undefined) s.auth_fallback_url = a.fallbackUrl;
  if (a.logoutUrl !== undefined) s.auth_logout_url = a.logoutUrl;
};

export const bumpSitesOfSpace: typeof real.bumpSitesOfSpace = async (_db, spaceId) => {
  for (const ss of tables.siteSpaces.values()) if (ss.space_id === spaceId) bump(ss.site_id);
};

export const siteIdByHostname: typeof real.siteIdByHostname = async (_db, host) =>
  [...tables.sites.values()].find((s) => s.hostname?.toLowerCase() === host)?.id ?? null;

export const siteWithBasename: typeof real.siteWithBasename = async (_db, orgId, basename, except) =>
  [...tables.sites.values()].find((s) => s.organization_id === orgId && s.basename === basename && s.id !== except)?.id ?? null;
