// Site objects as the API shows them: the union of the 0.137.0 shape the seed was written from and
// the 0.202.0 description the responses are validated against (see reference/wave2.md §0).
import type { AppContext } from '../context.js';
import type { SiteRow } from '../db/repos/sites.js';
import type { GroupRow, SectionRow, SiteSpaceRow } from '../db/repos/site-structure.js';
import type { ShareLinkRow } from '../db/repos/site-share-links.js';
import { appUrls } from './urls.js';
import { previewToken } from '../sites/preview.js';

export interface SitePermissions {
  view: boolean;
  access: boolean;
  edit: boolean;
  create: boolean;
  admin: boolean;
  installIntegration: boolean;
  viewAdaptiveSchema: boolean;
  editAdaptiveSchema: boolean;
}

/** Where the reader-facing site always lives: `${PUBLIC_URL}/site/{siteId}` (src/reader/routes.ts). */
export function sitePathBaseUrl(app: AppContext, siteId: string): string {
  return `${app.config.publicUrl}/site/${siteId}`;
}

/** `host` (lowercase, no port) served through the same front as PUBLIC_URL: its scheme and port. */
export function hostBaseUrl(app: AppContext, host: string, path = ''): string {
  const u = new URL(app.config.publicUrl);
  return `${u.protocol}//${host}${u.port ? `:${u.port}` : ''}${path}`;
}

/** The organization's host for its sites: its custom hostname, else `{hostname}.{SITES_DOMAIN}`. */
export function orgSitesHost(app: AppContext, s: Pick<SiteRow, 'org_custom_hostname' | 'org_hostname'>): string | null {
  if (s.org_custom_hostname) return s.org_custom_hostname;
  return s.org_hostname && app.config.sitesDomain ? `${s.org_hostname}.${app.config.sitesDomain}` : null;
}

/**
 * The site's canonical base URL: its own custom hostname; else its organization's host followed by
 * its basename (or the host's root for the organization's default site); else PUBLIC_URL/site/{id}.
 */
export function siteBaseUrl(app: AppContext, s: SiteRow): string {
  if (s.hostname) return hostBaseUrl(app, s.hostname.toLowerCase());
  const orgHost = orgSitesHost(app, s);
  if (orgHost && s.basename) return hostBaseUrl(app, orgHost, `/${s.basename.split('/').map(encodeURIComponent).join('/')}`);
  if (orgHost && s.org_default_site === s.id) return hostBaseUrl(app, orgHost);
  return sitePathBaseUrl(app, s.id);
}

/** A published URL under the site's canonical base, carrying the share key when one was presented. */
export function publishedUrl(app: AppContext, site: SiteRow, segments: string[], shareKey?: string): string {
  const path = segments.filter(Boolean).map(encodeURIComponent).join('/');
  const url = `${siteBaseUrl(app, site)}${path ? `/${path}` : ''}`;
  return shareKey ? `${url}?share=${encodeURIComponent(shareKey)}` : url;
}

export interface UrlOptions {
  shareKey?: string;
}

export function toSite(app: AppContext, s: SiteRow, permissions: SitePermissions, opts: UrlOptions = {}) {
  const urls = appUrls(app);
  const base = sitePathBaseUrl(app, s.id);
  return {
    object: 'site',
    id: s.id,
    type: s.type,
    appliedType: s.type,
    title: s.title,
    ...(s.hostname ? { hostname: s.hostname } : {}),
    ...(s.basename !== null ? { basename: s.basename } : {}),
    ...(s.proxy_origin ? { proxy: { origin: s.proxy_origin, target: siteBaseUrl(app, s) } } : {}),
    visibility: s.visibility,
    defaultLevel: s.default_level,
    permissions,
    published: s.published,
    siteSpaces: s.site_spaces,
    createdAt: s.created_at.toISOString(),
    adaptiveContent: { enabled: s.adaptive_content },
    agentsContext: s.agents_context,
    features: [],
    urls: {
      location: urls.api(`/orgs/${s.organization_id}/sites/${s.id}`),
      app: urls.app(`/o/${s.organization_id}/sites/${s.id}`),
      preview: `${base}/~preview?token=${previewToken(app.secret, s.id)}`,
      ...(s.published ? { published: publishedUrl(app, s, [], opts.shareKey) } : {}),
      ...(s.visibility === 'visitor-auth' ? { login: `${base}/~site/auth/login`, logout: `${base}/~site/auth/logout` } : {}),
    },
  };
}

/** Where a site space sits, as the presenter needs it. */
export interface SiteSpacePlace {
  site: SiteRow;
  section?: SectionRow;
}

export function toSiteSpace(
  app: AppContext,
  ss: SiteSpaceRow,
  space: object & { title: string },
  place: SiteSpacePlace,
  opts: UrlOptions = {},
) {
  const segments = [place.section && !place.section.is_default ? place.section.path : '', ss.is_default ? '' : ss.path];
  return {
    object: 'site-space',
    id: ss.id,
    path: ss.path,
    ...(ss.section_id ? { section: ss.section_id } : {}),
    space,
    title: ss.title ?? space.title,
    ...(ss.localized_title ? { localizedTitle: ss.localized_title } : {}),
    default: ss.is_default,
    ...(ss.condition !== null ? { condition: ss.condition } : {}),
    draft: false,
    hidden: ss.hidden,
    pageId: ss.page_id,
    hasAdvancedCustomizationFeature: true,
    urls: place.site.published ? { published: publishedUrl(app, place.site, segments, opts.shareKey) } : {},
  };
}

export function toSection(app: AppContext, site: SiteRow, s: SectionRow, siteSpaces: object[], opts: UrlOptions = {}) {
  return {
    object: 'site-section',
    id: s.id,
    title: s.title,
    ...(s.localized_title ? { localizedTitle: s.localized_title } : {}),
    ...(s.description !== null ? { description: s.description } : {}),
    ...(s.localized_description ? { localizedDescription: s.localized_description } : {}),
    default: s.is_default,
    draft: false,
    path: s.path,
    ...(s.condition !== null ? { condition: s.condition } : {}),
    ...(s.group_id ? { sectionGroup: s.group_id } : {}),
    siteSpaces,
    urls: site.published ? { published: publishedUrl(app, site, [s.is_default ? '' : s.path], opts.shareKey) } : {},
    ...(s.icon !== null ? { icon: s.icon } : {}),
  };
}

export function toGroup(g: GroupRow, sections: object[], children: object[]) {
  return {
    object: 'site-section-group',
    id: g.id,
    title: g.title,
    ...(g.localized_title ? { localizedTitle: g.localized_title } : {}),
    sections,
    children,
    draft: false,
    ...(g.parent_group_id ? { sectionGroup: g.parent_group_id } : {}),
    ...(g.icon !== null ? { icon: g.icon } : {}),
  };
}

export function toShareLink(app: AppContext, site: SiteRow, l: ShareLinkRow, key: string) {
  return {
    object: 'share-link',
    id: l.id,
    createdAt: l.created_at.toISOString(),
    name: l.name,
    active: l.active,
    urls: { published: publishedUrl(app, site, [], key) },
  };
}

/** A team as a site permission override names it (OrganizationTeam). */
export function toSiteTeam(
  app: AppContext,
  orgId: string,
  t: { team_id: string; title: string; created_at: Date; members: number },
  canAdmin: boolean,
) {
  return {
    object: 'team',
    id: t.team_id,
    title: t.title,
    members: t.members,
    spaces: 0,
    createdAt: t.created_at.toISOString(),
    permissions: { admin: canAdmin, view: true },
    urls: { location: appUrls(app).api(`/orgs/${orgId}/teams/${t.team_id}`) },
  };
}
