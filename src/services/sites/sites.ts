/**
 * Sites: list (filters `space`, `title`, `published`, `type`), create, read, update, delete,
 * publish, unpublish, the published profile and the adaptive-content schema.
 *
 * Access (src/policies/sites.ts): members see a site per its default level and their own and
 * their teams' grants; only site admins change it. Whoever creates a site (members with the
 * organization's `createContent`) is granted admin on it.
 *
 * Create: `spaces` is a list of space ids of the organization (each becomes a site space at the
 * root), or `"empty"` / `"sample"` (0.137.0), which create a new space titled like the site (blank,
 * or from the product-docs template) and add it. DELETE removes the site with its structure, share
 * links, customization and schema; the spaces stay.
 */
import type { AppContext } from '../../context.js';
import type { Principal } from '../../auth/principal.js';
import type { Role } from '../../core/roles.js';
import { withTx } from '../../db/pool.js';
import * as repo from '../../db/repos/sites.js';
import * as structure from '../../db/repos/site-structure.js';
import { setSiteUserPermission } from '../../db/repos/site-permissions.js';
import { requireOrg } from '../../policies/organizations.js';
import { orgRoleOf, requireSite, sitePermissions, siteRoles } from '../../policies/sites.js';
import { requireSpace } from '../../policies/spaces.js';
import { isDomainError, invalid, conflict, notFound } from '../../core/errors.js';
import { pageInMemory } from '../../core/pagination.js';
import { toSite, type UrlOptions } from '../../presenters/sites.js';
import { newId } from '../../util/ids.js';
import { adaptiveJsonSchema, defaultAdaptiveSchema, templateConditions, type AdaptiveJsonSchema } from '../../sites/adaptive-schema.js';
import { slugify, uniquePath } from '../../sites/structure.js';
import { effectiveCustomization, withOverrides } from '../../sites/customization.js';
import { createSpace } from '../spaces.js';
import { loadTree, TreePresenter, urlOptions } from './structure.js';
import { scheduleSiteRevalidation } from './revalidation.js';

/** Most site spaces one create call adds. */
const MAX_CREATE_SPACES = 100;

export function presentSite(app: AppContext, site: repo.SiteRow, role: Role | null, opts: UrlOptions = {}) {
  return toSite(app, site, sitePermissions(role), opts);
}

export async function getSite(app: AppContext, p: Principal, orgId: string, siteId: string) {
  const { site, role } = await requireSite(app.db, p, orgId, siteId, 'read');
  return presentSite(app, site, role);
}

export async function listSites(
  app: AppContext,
  p: Principal,
  orgId: string,
  q: { page?: string; limit?: number; space?: string; title?: string; published?: boolean; type?: string[] },
) {
  await requireOrg(app.db, p, orgId, 'view');
  const [rows, orgRole] = await Promise.all([
    repo.listOrgSites(app.db, orgId, { space: q.space, title: q.title, published: q.published, types: q.type }),
    orgRoleOf(app.db, orgId, p),
  ]);
  const roles = await siteRoles(app.db, p.userId, orgRole, rows);
  const visible = rows.filter((r) => roles.get(r.id));
  return pageInMemory(
    visible,
    q,
    (r) => [r.created_key, r.id],
    (r) => presentSite(app, r, roles.get(r.id)!),
  );
}

interface CreateSiteInput {
  type?: string;
  title?: string;
  visibility?: string;
  spaces?: string[] | 'empty' | 'sample';
}

export async function createSite(app: AppContext, p: Principal, orgId: string, input: CreateSiteInput) {
  await requireOrg(app.db, p, orgId, 'createContent');
  const title = input.title ?? 'Untitled site';
  let spaceIds: string[] = [];
  if (Array.isArray(input.spaces)) {
    if (input.spaces.length > MAX_CREATE_SPACES) throw invalid(`Invalid request: body.spaces: at most ${MAX_CREATE_SPACES} spaces`);
    spaceIds = [...new Set(input.spaces)];
    for (const [i, id] of spaceIds.entries()) await requireOrgSpace(app, p, orgId, id, `body.spaces.${i}`);
  } else if (input.spaces) {
    const space = await createSpace(
      app,
      p,
      orgId,
      input.spaces === 'empty' ? { title, empty: true } : { title, template: { id: 'product-docs' } },
    );
    spaceIds = [space.id];
  }
  const id = newId();
  await withTx(app.db, async (c) => {
    await repo.insertSite(c, {
      id,
      orgId,
      type: input.type ?? 'basic',
      title,
      visibility: input.visibility ?? 'public',
      createdBy: p.userId,
    });
    await setSiteUserPermission(c, id, p.userId, 'admin');
    const spaces = await structure.spacesByIds(c, spaceIds);
    const taken: string[] = [];
    for (const [i, spaceId] of spaceIds.entries()) {
      const space = spaces.find((s) => s.id === spaceId)!;
      const path = uniquePath(slugify(space.title, 'space'), taken);
      taken.push(path);
      await structure.insertSiteSpace(c, {
        id: newId(),
        siteId: id,
        sectionId: null,
        spaceId,
        path,
        title: null,
        isDefault: i === 0,
        position: i + 1,
      });
    }
  });
  return getSite(app, p, orgId, id);
}

/**
 * A space named in a request (`field`): it must be a live space of the organization the caller can
 * see (400 naming the field otherwise). Any space of the organization qualifies, translated ones
 * included (a translation is added to a site as a variant of its source).
 */
export async function requireOrgSpace(app: AppContext, p: Principal, orgId: string, spaceId: string, field: string) {
  try {
    const { space } = await requireSpace(app.db, p, spaceId, 'read');
    if (space.organization_id === orgId) return space;
  } catch (err) {
    if (!isDomainError(err, 'not-found')) throw err;
  }
  throw invalid(`Invalid request: ${field}: space "${spaceId}" does not exist in this organization`);
}

export interface SitePatch {
  title?: string;
  visibility?: string;
  basename?: string;
  hostname?: string | null;
  adaptiveContent?: { enabled: boolean };
  agentsContext?: string;
  defaultSiteSpace?: string;
  defaultSiteSection?: string;
  proxy?: string | null;
  defaultLevel?: string | null;
}

export async function updateSite(app: AppContext, p: Principal, orgId: string, siteId: string, patch: SitePatch) {
  const { site } = await requireSite(app.db, p, orgId, siteId, 'admin');
  if (patch.hostname && patch.hostname === new URL(app.config.publicUrl).hostname.toLowerCase())
    throw invalid(`Invalid request: body.hostname: "${patch.hostname}" is the API's own host (PUBLIC_URL)`);
  await withTx(app.db, async (c) => {
    await repo.lockSiteStructure(c, siteId);
    const holder = patch.hostname ? await repo.siteIdByHostname(c, patch.hostname) : null;
    if (holder !== null && holder !== siteId) throw conflict(`Hostname "${patch.hostname}" is already used by another site`);
    // Sites of one organization share its host, where the basename tells them apart.
    if (patch.basename !== undefined && (await repo.siteWithBasename(c, orgId, patch.basename, siteId)))
      throw conflict(`Basename "${patch.basename}" is already used by another site of this organization`);
    const tree = await loadTree(c, site);
    let defaultSection = tree.sections.find((s) => s.is_default) ?? null;
    if (patch.defaultSiteSection !== undefined) {
      defaultSection = tree.sections.find((s) => s.id === patch.defaultSiteSection) ?? null;
      if (!defaultSection)
        throw invalid(`Invalid request: body.defaultSiteSection: section "${patch.defaultSiteSection}" is not in this site`);
      await structure.setDefaultSection(c, siteId, defaultSection.id);
    }
    if (patch.defaultSiteSpace !== undefined) {
      const container = tree.sections.length ? (defaultSection?.id ?? null) : null;
      const ss = tree.siteSpaces.find((x) => x.id === patch.defaultSiteSpace && x.section_id === container);
      if (!ss)
        throw invalid(
          `Invalid request: body.defaultSiteSpace: site space "${patch.defaultSiteSpace}" is not in this site${tree.sections.length ? "'s default section" : ''}`,
        );
      await structure.setDefaultSiteSpace(c, siteId, container, ss.id);
    }
    await repo.updateSite(c, siteId, {
      title: patch.title,
      visibility: patch.visibility,
      basename: patch.basename,
      hostname: patch.hostname,
      proxy: patch.proxy,
      defaultLevel: patch.defaultLevel,
      adaptiveContent: patch.adaptiveContent?.enabled,
      agentsContext: patch.agentsContext,
    });
  });
  return getSite(app, p, orgId, siteId);
}

/** 204 whether or not the site existed; the spaces stay. A site the caller cannot see is a 404. */
export async function deleteSite(app: AppContext, p: Principal, orgId: string, siteId: string) {
  const existing = await repo.getSite(app.db, siteId);
  if (!existing || existing.organization_id !== orgId) return;
  const access = await requireSite(app.db, p, orgId, siteId, 'admin').catch(async (err: unknown) => {
    // Deleted by a concurrent call since the read above: 204 as for any absent site.
    if (isDomainError(err, 'not-found') && !(await repo.getSite(app.db, siteId))) return null;
    throw err;
  });
  if (access) await repo.deleteSiteRow(app.db, siteId);
}

export async function setPublished(app: AppContext, p: Principal, orgId: string, siteId: string, published: boolean) {
  await requireSite(app.db, p, orgId, siteId, 'admin');
  await repo.updateSite(app.db, siteId, { published });
  // Unpublishing is announced here (the server announces writes to published sites: src/server.ts).
  if (!published) await scheduleSiteRevalidation(app, [{ id: siteId, organization_id: orgId }]);
  return getSite(app, p, orgId, siteId);
}

/** The site's customization object: stored settings completed with defaults, plus `updatedAt`. */
export function presentCustomization(settings: Record<string, unknown>, updatedAt: Date | null) {
  return { ...settings, ...(updatedAt ? { updatedAt: updatedAt.toISOString() } : {}) };
}

/** Everything a published experience needs: site, structure, customizations, scripts. */
export async function getPublishedSite(app: AppContext, p: Principal, orgId: string, siteId: string, q: { shareKey?: string }) {
  const { site, role } = await requireSite(app.db, p, orgId, siteId, 'read');
  if (!site.published) throw notFound(`Site "${siteId}" is not published`);
  const opts = await urlOptions(app, siteId, q.shareKey);
  const presenter = await TreePresenter.create(app, p, await loadTree(app.db, site), opts, 'live');
  return publishedContentSite(app, site, presenter, role, opts);
}

/**
 * The description's PublishedContentSite: the site, the structure `presenter` shows, and the
 * customizations (the site's, and each site space's own over it).
 */
export function publishedContentSite(app: AppContext, site: repo.SiteRow, presenter: TreePresenter, role: Role | null, opts: UrlOptions) {
  const base = effectiveCustomization(site.customization);
  const siteSpaces: Record<string, unknown> = {};
  for (const ss of presenter.tree.siteSpaces)
    if (ss.customization)
      siteSpaces[ss.id] = presentCustomization(
        withOverrides(base, ss.customization),
        ss.customization_updated_at ?? site.customization_updated_at,
      );
  return {
    object: 'published-content-site',
    site: presentSite(app, site, role, opts),
    structure: presenter.structure(),
    customizations: { site: presentCustomization(base, site.customization_updated_at), siteSpaces },
    scripts: [],
  };
}

function presentSchema(site: repo.SiteRow) {
  return {
    object: 'site-adaptive-schema',
    jsonSchema: site.adaptive_schema ?? defaultAdaptiveSchema(),
    updatedAt: (site.adaptive_schema_updated_at ?? site.created_at).toISOString(),
  };
}

/** The schema as last put (echoed exactly), or the empty default before any PUT. */
export async function getAdaptiveSchema(app: AppContext, p: Principal, orgId: string, siteId: string) {
  const { site } = await requireSite(app.db, p, orgId, siteId, 'edit');
  return presentSchema(site);
}

export async function putAdaptiveSchema(app: AppContext, p: Principal, orgId: string, siteId: string, jsonSchema: unknown) {
  await requireSite(app.db, p, orgId, siteId, 'admin');
  const parsed = adaptiveJsonSchema.safeParse(jsonSchema);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw invalid(`Invalid request: body.jsonSchema${issue.path.map((x) => `.${String(x)}`).join('')}: ${issue.message}`);
  }
  await repo.setSiteAdaptiveSchema(app.db, siteId, jsonSchema as object);
  return presentSchema((await repo.getSite(app.db, siteId))!);
}

export async function listTemplateConditions(app: AppContext, p: Principal, orgId: string, siteId: string) {
  const { site } = await requireSite(app.db, p, orgId, siteId, 'edit');
  return { items: templateConditions((site.adaptive_schema ?? defaultAdaptiveSchema()) as AdaptiveJsonSchema) };
}
