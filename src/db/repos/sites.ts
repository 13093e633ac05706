import type { Queryable } from '../pool.js';
import { columnsOf } from '../columns.js';

export interface SiteRow {
  id: string;
  organization_id: string;
  type: string;
  title: string;
  visibility: string;
  published: boolean;
  basename: string | null;
  /** The site's own custom hostname (lowercase), or null. */
  hostname: string | null;
  proxy_origin: string | null;
  default_level: string | null;
  adaptive_content: boolean;
  agents_context: string;
  customization: Record<string, any> | null;
  customization_updated_at: Date | null;
  adaptive_schema: Record<string, any> | null;
  adaptive_schema_updated_at: Date | null;
  auth_key_sealed: string | null;
  auth_fallback_url: string | null;
  auth_logout_url: string | null;
  version: number;
  created_at: Date;
  updated_at: Date;
  /** Site spaces whose space is live (computed). */
  site_spaces: number;
  /** The organization's hosts and default site, for the site's canonical URL (computed). */
  org_hostname: string | null;
  org_custom_hostname: string | null;
  org_default_site: string | null;
}

const SITE_COLUMNS = `${columnsOf('sites', 's')},
  (SELECT count(*) FROM site_spaces ss JOIN spaces sp ON sp.id = ss.space_id AND sp.deleted_at IS NULL
    WHERE ss.site_id = s.id) AS site_spaces,
  o.hostname AS org_hostname, lower(o.custom_hostname) AS org_custom_hostname,
  o.default_content->>'site' AS org_default_site`;
const SITES = 'sites s JOIN organizations o ON o.id = s.organization_id';

export async function insertSite(
  db: Queryable,
  s: { id: string; orgId: string; type: string; title: string; visibility: string; createdBy: string },
): Promise<void> {
  await db.query(`INSERT INTO sites (id, organization_id, type, title, visibility, created_by) VALUES ($1, $2, $3, $4, $5, $6)`, [
    s.id,
    s.orgId,
    s.type,
    s.title,
    s.visibility,
    s.createdBy,
  ]);
}

export async function getSite(db: Queryable, id: string): Promise<SiteRow | null> {
  // Named (prepared once per connection): the reader site loads its site on every page view.
  const { rows } = await db.query<SiteRow>({
    name: 'site_by_id',
    text: `SELECT ${SITE_COLUMNS} FROM ${SITES} WHERE s.id = $1`,
    values: [id],
  });
  return rows[0] ?? null;
}

/**
 * What a reader request checks its cached site against, in one prepared statement: the row versions
 * (`xmin`, which every UPDATE of a row changes) of the site and its organization, and of each live
 * space the site shows (`id:xmin`, sorted). Equal stamps mean equal rows (getSite, spacesByIds).
 */
export async function readerSiteStamp(db: Queryable, id: string): Promise<{ site: string; spaces: string[] } | null> {
  const { rows } = await db.query<{ site: string; spaces: string[] }>({
    name: 'reader_site_stamp',
    text: `SELECT s.xmin::text || ':' || o.xmin::text AS site,
      ARRAY(SELECT sp.id || ':' || sp.xmin::text FROM site_spaces ss JOIN spaces sp ON sp.id = ss.space_id AND sp.deleted_at IS NULL
        WHERE ss.site_id = s.id ORDER BY 1) AS spaces
      FROM ${SITES} WHERE s.id = $1`,
    values: [id],
  });
  return rows[0] ?? null;
}

/** Published sites open to anyone (public or unlisted) that show `spaceId`, oldest first. */
export async function openSitesShowingSpace(db: Queryable, spaceId: string): Promise<SiteRow[]> {
  const { rows } = await db.query<SiteRow>(
    `SELECT ${SITE_COLUMNS} FROM ${SITES}
      WHERE s.published AND s.visibility IN ('public', 'unlisted')
        AND s.id IN (SELECT site_id FROM site_spaces WHERE space_id = $1)
      ORDER BY s.created_at, s.id LIMIT 5`,
    [spaceId],
  );
  return rows;
}

/**
 * Published public sites of every organization that show at least one live space: what anyone may
 * find (the home page lists them). Unlisted, share-link and visitor-auth sites never appear.
 * At most `limit`, ordered by title then id.
 */
export async function listPublicSites(db: Queryable, limit: number): Promise<SiteRow[]> {
  const { rows } = await db.query<SiteRow>(
    `SELECT ${SITE_COLUMNS} FROM ${SITES}
      WHERE s.published AND s.visibility = 'public'
        AND EXISTS (SELECT 1 FROM site_spaces ss JOIN spaces sp ON sp.id = ss.space_id AND sp.deleted_at IS NULL WHERE ss.site_id = s.id)
      ORDER BY s.title, s.id LIMIT $1`,
    [limit],
  );
  return rows;
}

export interface SiteFilters {
  space?: string;
  title?: string;
  published?: boolean;
  types?: string[];
}

/** Sites of an organization matching the filters, oldest first. */
export async function listOrgSites(db: Queryable, orgId: string, f: SiteFilters): Promise<(SiteRow & { created_key: string })[]> {
  const where = ['s.organization_id = $1'];
  const params: unknown[] = [orgId];
  if (f.space) {
    params.push(f.space);
    where.push(`EXISTS (SELECT 1 FROM site_spaces ss WHERE ss.site_id = s.id AND ss.space_id = $${params.length})`);
  }
  if (f.title) {
    params.push(`%${f.title.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    where.push(`s.title ILIKE $${params.length}`);
  }
  if (f.published !== undefined) {
    params.push(f.published);
    where.push(`s.published = $${params.length}`);
  }
  if (f.types?.length) {
    params.push(f.types);
    where.push(`s.type = ANY($${params.length})`);
  }
  const { rows } = await db.query<SiteRow & { created_key: string }>(
    `SELECT ${SITE_COLUMNS}, s.created_at::text AS created_key FROM ${SITES} WHERE ${where.join(' AND ')} ORDER BY s.created_at, s.id`,
    params,
  );
  return rows;
}

const PATCHABLE: Record<string, string> = {
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

/** Set the given fields (API names, see PATCHABLE) and bump the site version. */
export async function updateSite(db: Queryable, id: string, patch: Record<string, unknown>): Promise<void> {
  const sets: string[] = [];
  const params: unknown[] = [id];
  for (const [field, value] of Object.entries(patch)) {
    const column = PATCHABLE[field];
    if (!column || value === undefined) continue;
    params.push(value);
    sets.push(`${column} = $${params.length}`);
  }
  await db.query(
    `UPDATE sites SET ${[...sets, 'version = version + 1', 'updated_at = clock_timestamp()'].join(', ')} WHERE id = $1`,
    params,
  );
}

/** Record a structural change (sections, site spaces, groups, links) of the site. */
export async function bumpSiteVersion(db: Queryable, id: string): Promise<void> {
  await db.query('UPDATE sites SET version = version + 1, updated_at = clock_timestamp() WHERE id = $1', [id]);
}

/** Serialize structural changes of one site within the current transaction. */
export async function lockSiteStructure(db: Queryable, id: string): Promise<void> {
  await db.query(`SELECT pg_advisory_xact_lock(hashtext('site:' || $1))`, [id]);
}

export async function deleteSiteRow(db: Queryable, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM sites WHERE id = $1', [id]);
  return (rowCount ?? 0) > 0;
}

export async function setSiteCustomization(db: Queryable, id: string, settings: object): Promise<void> {
  await db.query(
    `UPDATE sites SET customization = $2, customization_updated_at = clock_timestamp(), version = version + 1,
       updated_at = clock_timestamp() WHERE id = $1`,
    [id, JSON.stringify(settings)],
  );
}

export async function setSiteAdaptiveSchema(db: Queryable, id: string, schema: object): Promise<void> {
  await db.query(
    `UPDATE sites SET adaptive_schema = $2, adaptive_schema_updated_at = clock_timestamp(), version = version + 1,
       updated_at = clock_timestamp() WHERE id = $1`,
    [id, JSON.stringify(schema)],
  );
}

/** Publishing auth: the sealed signing key (only when given) and the login/logout URLs. */
export async function setSiteAuth(
  db: Queryable,
  id: string,
  a: { keySealed?: string; fallbackUrl?: string | null; logoutUrl?: string | null },
): Promise<void> {
  await db.query(
    `UPDATE sites SET
       auth_key_sealed = coalesce($2, auth_key_sealed),
       auth_fallback_url = CASE WHEN $3 THEN $4 ELSE auth_fallback_url END,
       auth_logout_url = CASE WHEN $5 THEN $6 ELSE auth_logout_url END,
       version = version + 1, updated_at = clock_timestamp()
     WHERE id = $1`,
    [id, a.keySealed ?? null, a.fallbackUrl !== undefined, a.fallbackUrl ?? null, a.logoutUrl !== undefined, a.logoutUrl ?? null],
  );
}

/** A space's current revision changed: every site showing it renders anew (its version moves). */
export async function bumpSitesOfSpace(db: Queryable, spaceId: string): Promise<void> {
  await db.query(`UPDATE sites SET version = version + 1 WHERE id IN (SELECT site_id FROM site_spaces WHERE space_id = $1)`, [spaceId]);
}

/** The site whose own custom hostname is `host` (lowercase, no port), or null. */
export async function siteIdByHostname(db: Queryable, host: string): Promise<string | null> {
  const { rows } = await db.query<{ id: string }>('SELECT id FROM sites WHERE lower(hostname) = $1', [host]);
  return rows[0]?.id ?? null;
}

/**
 * The organization serving its sites at `host`: its custom hostname, or its `hostname` label under
 * `domain` (SITES_DOMAIN; null when unset). Also its sites with a basename and its default site.
 */
export async function orgSitesByHost(
  db: Queryable,
  host: string,
  domain: string | null,
): Promise<{ orgId: string; defaultSite: string | null; sites: { id: string; basename: string }[] } | null> {
  const label = domain && host.endsWith(`.${domain}`) ? host.slice(0, -domain.length - 1) : null;
  const { rows } = await db.query<{ id: string; default_site: string | null }>(
    `SELECT o.id, (SELECT d.id FROM sites d WHERE d.id = o.default_content->>'site' AND d.organization_id = o.id) AS default_site
       FROM organizations o
      WHERE lower(o.custom_hostname) = $1 OR ($2::text IS NOT NULL AND o.hostname = $2)
      ORDER BY (lower(o.custom_hostname) = $1) DESC NULLS LAST LIMIT 1`,
    [host, label],
  );
  if (!rows[0]) return null;
  const { rows: sites } = await db.query<{ id: string; basename: string }>(
    `SELECT id, basename FROM sites WHERE organization_id = $1 AND basename IS NOT NULL
      ORDER BY published DESC, created_at, id LIMIT 1000`,
    [rows[0].id],
  );
  return { orgId: rows[0].id, defaultSite: rows[0].default_site, sites };
}

/** Another site of the organization using `basename` (they must differ on the organization's host). */
export async function siteWithBasename(db: Queryable, orgId: string, basename: string, except: string): Promise<string | null> {
  const { rows } = await db.query<{ id: string }>(
    'SELECT id FROM sites WHERE organization_id = $1 AND basename = $2 AND id <> $3 LIMIT 1',
    [orgId, basename, except],
  );
  return rows[0]?.id ?? null;
}
