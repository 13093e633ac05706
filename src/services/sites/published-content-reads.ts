/**
 * What a site token (src/auth/site-token.ts) reads: the content one reader of its site may read,
 * decided at every use, not when the token was issued. The site must still be published, with the
 * same visibility the token was issued for (its share key still valid, a visitor token behind it
 * on a visitor-auth site); the spaces are those of the site spaces the token's claims make
 * visible (conditions of sections and site spaces, as the reader site evaluates them), and the
 * revisions are their current ones: a revision stops being readable when a newer one is published.
 * Anything else is a 403 naming what the token does not open; an unpublished site a 401.
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { AppContext } from '../../context.js';
import { forbidden, isDomainError, unauthenticated } from '../../core/errors.js';
import type { SiteGrant } from '../../auth/site-token.js';
import type { SpaceRow } from '../../db/repos/spaces.js';
import type { ContentTarget } from '../content.js';
import { readerContext, unsignedClaims, variantsOf, type VisibleSite } from '../../sites/reader.js';
import type { ConditionContext } from '../../sites/conditions.js';
import { publishedSite, readerStructure, shareKeyOpens, snapshotOf, type ReaderSiteRow } from './reader.js';
import { TreePresenter, type SiteTree } from './structure.js';
import { visibleExternalLinks } from './external-links.js';
import { selectObjects } from '../../db/repos/content-objects.js';
import { publishedContentSite } from './sites.js';
import { specVersionContent } from '../openapi.js';
import { documentJson } from '../history.js';
import { visitorSigningKey } from './settings.js';
import { revisionSnapshot } from '../../content/commit.js';
import { filterConditionalDocument, filterConditionalMarkdown } from '../../content/conditional-blocks.js';
import type { JSONDocument } from '../../content/markdown/types.js';

export interface SiteScope {
  grant: SiteGrant;
  site: ReaderSiteRow;
  ctx: ConditionContext;
  tree: SiteTree;
  visible: VisibleSite;
  /** Live spaces of the site by id (all of them; `readableSpaces` are those the claims show). */
  spaces: Map<string, SpaceRow>;
  readableSpaces: Set<string>;
}

/** The scope of a verified grant now; 401 when the site no longer opens to it. */
export async function openScope(app: AppContext, grant: SiteGrant): Promise<SiteScope> {
  const gone = () =>
    unauthenticated('This site token no longer opens its site (unpublished, deleted or its access changed); resolve the URL again');
  let site: ReaderSiteRow;
  try {
    site = await publishedSite(app, grant.site);
  } catch (err) {
    if (isDomainError(err) && err.kind === 'not-found') throw gone();
    throw err;
  }
  if (site.organization_id !== grant.organization) throw gone();
  if (site.visibility === 'share-link') {
    if (!(await shareKeyOpens(app, site, grant.shareKey))) throw gone();
  } else if (site.visibility === 'visitor-auth') {
    if (!grant.visitor || grant.visitor !== (await visitorKeyFingerprint(app, site))) throw gone();
  } else if (site.visibility !== 'public' && site.visibility !== 'unlisted') throw gone();
  // Unsigned claims count only while the site has adaptive content, filtered by its schema now, as for the reader site.
  const ctx = readerContext(grant.signed, adaptiveClaims(site, grant.unsigned));
  const { tree, spaces, visible } = await readerStructure(app, site, ctx);
  const readableSpaces = new Set<string>();
  for (const list of visible.variants.values()) for (const ss of list) readableSpaces.add(ss.space_id);
  // Without sections, the root's site spaces; with sections, only those of visible sections.
  if (visible.sections.length) {
    readableSpaces.clear();
    for (const s of visible.sections) for (const ss of variantsOf(visible, s)) readableSpaces.add(ss.space_id);
  }
  return { grant, site, ctx, tree, visible, spaces, readableSpaces };
}

/** A fingerprint of the site's visitor signing key (never the key): a site token remembers which key admitted it. */
export async function visitorKeyFingerprint(app: AppContext, site: ReaderSiteRow): Promise<string | undefined> {
  const key = await visitorSigningKey(app, site);
  return key ? createHash('sha256').update(`site-token-visitor-key\n${key}`).digest('base64url').slice(0, 22) : undefined;
}

/** Unsigned claims as the reader site takes them: only with adaptive content, only those the adaptive schema declares. */
export function adaptiveClaims(
  site: ReaderSiteRow,
  given: Record<string, unknown>,
  params = new URLSearchParams(),
): Record<string, unknown> {
  if (!site.adaptive_content) return {};
  const all = new URLSearchParams(params);
  for (const [k, v] of Object.entries(given).slice(0, 50)) all.set(`visitor.${k}`, typeof v === 'string' ? v : JSON.stringify(v));
  return unsignedClaims(all, site.adaptive_schema);
}

export function requireScopeSite(scope: SiteScope, orgId: string, siteId: string): void {
  if (siteId !== scope.site.id || orgId !== scope.site.organization_id)
    throw forbidden(`This site token only reads site "${scope.site.id}"; it does not open site "${siteId}"`);
}

export function scopeSpace(scope: SiteScope, spaceId: string): SpaceRow {
  const space = scope.readableSpaces.has(spaceId) ? scope.spaces.get(spaceId) : undefined;
  if (!space) throw forbidden(`This site token does not open space "${spaceId}": it is not published by its site for this visitor`);
  return space;
}

/** A revision the site publishes now (its space's current one) as a content target. */
export function scopeRevision(scope: SiteScope, spaceId: string, revisionId: string): ContentTarget & { space: SpaceRow } {
  const space = scopeSpace(scope, spaceId);
  if (space.revision_id !== revisionId)
    throw forbidden(
      `This site token does not open revision "${revisionId}": the site publishes revision "${space.revision_id}" of this space`,
    );
  return { spaceId, revisionId, organizationId: space.organization_id, space };
}

/** Site spaces the token may search: the request's scope, within what its claims show. */
export function searchableSpaces(
  scope: SiteScope,
  body: {
    scope?: { mode: string; currentSiteSpace?: string; siteSpaceIds?: string[] };
    mode?: string;
    siteSpaceIds?: string[];
    siteSpaceId?: string;
  },
): string[] {
  const visible = [...scope.visible.variants.values()].flat().filter((ss) => scope.readableSpaces.has(ss.space_id));
  const mode = body.scope?.mode ?? body.mode ?? 'default';
  const specific = body.scope?.siteSpaceIds ?? body.siteSpaceIds;
  const current = body.scope?.currentSiteSpace ?? body.siteSpaceId;
  let chosen = visible;
  if (mode === 'specific' || (specific && mode !== 'all')) {
    const wanted = new Set(specific ?? []);
    chosen = visible.filter((ss) => wanted.has(ss.id));
  } else if (mode !== 'all') {
    const defaults = new Set<string>();
    for (const s of scope.visible.sections.length ? scope.visible.sections : [null]) {
      const list = variantsOf(scope.visible, s);
      const def = list.find((x) => x.is_default && !x.hidden) ?? list.find((x) => !x.hidden) ?? list[0];
      if (def) defaults.add(def.id);
    }
    chosen = visible.filter((ss) => defaults.has(ss.id) || ss.id === current);
  }
  return [...new Set(chosen.map((ss) => ss.space_id))];
}

// ---- getPublishedContentSite ----------------------------------------------------------------------

/**
 * The published site as the token's reader sees it: sections and site spaces its claims show, and
 * the external links the reader site shows them (live, condition holding for the claims; a link
 * whose group is hidden shows at the root, as in the reader's header).
 */
export async function publishedSiteForScope(app: AppContext, scope: SiteScope, shareKey: string | undefined) {
  const { site } = scope;
  const visibleSections = new Set(scope.visible.sections.map((s) => s.id));
  // Site spaces of the visible sections (or of the root, without sections) that the claims show.
  const visibleSpaces = new Set(
    [...scope.visible.variants.values()]
      .flat()
      .filter((ss) => (visibleSections.size ? ss.section_id !== null && visibleSections.has(ss.section_id) : ss.section_id === null))
      .map((ss) => ss.id),
  );
  // Section groups holding a visible section, and the groups above them (no empty group shows).
  const groups = new Set<string>();
  const byId = new Map(scope.tree.groups.map((g) => [g.id, g]));
  for (const s of scope.tree.sections)
    if (visibleSections.has(s.id))
      for (
        let g = s.group_id ? byId.get(s.group_id) : undefined, n = 0;
        g && n < 20;
        g = g.parent_group_id ? byId.get(g.parent_group_id) : undefined, n++
      )
        groups.add(g.id);
  const tree: SiteTree = {
    ...scope.tree,
    groups: scope.tree.groups.filter((g) => groups.has(g.id)),
    sections: scope.tree.sections.filter((s) => visibleSections.has(s.id)),
    siteSpaces: scope.tree.siteSpaces.filter((ss) => visibleSpaces.has(ss.id)),
  };
  const rows = [...scope.readableSpaces].map((id) => scope.spaces.get(id)!).filter(Boolean);
  const opts = shareKey && scope.grant.shareKey === shareKey ? { shareKey } : {};
  const links = await visibleExternalLinks(app, site, scope.ctx);
  return publishedContentSite(app, site, TreePresenter.forReader(app, tree, rows, opts, links), null, opts);
}

// ---- OpenAPI specs the site's pages use ----------------------------------------------------------

const SPEC_ATTR = /\bspec="([^"]{1,200})"/g;
/** Slugs of the specs one revision uses (OpenAPI blocks, computed pages), by revision: immutable. */
const specsByRevision = new LRUCache<string, Set<string>>({ max: 500 });
const BODY_BATCH = 500;

async function specsOfRevision(app: AppContext, space: SpaceRow): Promise<Set<string>> {
  const key = `${space.id}:${space.revision_id}`;
  const had = specsByRevision.get(key);
  if (had) return had;
  const snapshot = await snapshotOf(app, space);
  const used = new Set<string>();
  const bodies: string[] = [];
  for (const p of snapshot.ordered) {
    const deps = p.node.computed?.dependencies;
    if (deps) for (const m of JSON.stringify(deps).matchAll(/"spec":"([^"]{1,200})"/g)) used.add(m[1]);
    if (p.node.body) bodies.push(p.node.body);
  }
  for (let i = 0; i < bodies.length; i += BODY_BATCH) {
    const rows = await selectObjects<{ kind: string; markdown?: string }>(app.db, space.id, bodies.slice(i, i + BODY_BATCH));
    for (const r of rows) if (r.data.markdown?.includes('openapi')) for (const m of r.data.markdown.matchAll(SPEC_ATTR)) used.add(m[1]);
  }
  specsByRevision.set(key, used);
  return used;
}

/** The content of a spec version, when a page the token may read uses the spec. */
export async function specContentForScope(app: AppContext, scope: SiteScope, orgId: string, slug: string, versionId?: string) {
  if (orgId !== scope.site.organization_id) throw forbidden(`This site token does not open the OpenAPI specs of organization "${orgId}"`);
  for (const id of scope.readableSpaces) {
    const space = scope.spaces.get(id);
    if (space && (await specsOfRevision(app, space)).has(slug)) return specVersionContent(app, orgId, slug, versionId);
  }
  throw forbidden(`This site token does not open OpenAPI spec "${slug}": no page its site publishes uses it`);
}

// ---- `{% if %}` blocks -------------------------------------------------------------------------------

const MAY_HOLD_CONDITIONS = /"type":"if"|"condition"|\{%\s*(?:end)?if\b/;

/**
 * A page, document or reusable-content answer as the token's reader may see it: the `{% if %}`
 * blocks its claims hide taken out (src/content/conditional-blocks.ts), evaluated or not, so a site
 * token never carries a branch its reader could not see. `pageId`: the page whose variables the
 * expressions read (else the answer's own `id`, when it is a page).
 */
export async function conditionalFiltered(
  app: AppContext,
  scope: SiteScope,
  t: ContentTarget,
  json: string,
  pageId?: string,
): Promise<string> {
  if (!MAY_HOLD_CONDITIONS.test(json)) return json;
  const { snapshot } = await revisionSnapshot(app.db, t.spaceId, t.revisionId);
  const value = JSON.parse(json) as Record<string, any>;
  const page = snapshot.byId.get(pageId ?? String(value.id ?? ''));
  const ctx: ConditionContext = {
    visitor: { claims: scope.ctx.visitor?.claims ?? {} },
    space: { vars: snapshot.root.variables ?? {} },
    page: { vars: page?.node.variables ?? {} },
  };
  if (value.object === 'document' && Array.isArray(value.nodes))
    return JSON.stringify(filterConditionalDocument(value as JSONDocument, ctx));
  if (value.document && typeof value.document === 'object') value.document = filterConditionalDocument(value.document as JSONDocument, ctx);
  if (typeof value.markdown === 'string') value.markdown = filterConditionalMarkdown(value.markdown, ctx);
  return JSON.stringify(value);
}

// ---- getDocumentById ------------------------------------------------------------------------------

/**
 * A document by id (a body's hash) when it is the body of a page or of a reusable content of the
 * published revision: a member may read any body the space ever had, a site token only what is
 * published now.
 */
export async function documentOfRevision(app: AppContext, t: ContentTarget, documentId: string): Promise<string> {
  const { snapshot } = await revisionSnapshot(app.db, t.spaceId, t.revisionId);
  const published =
    snapshot.ordered.some((p) => p.node.body === documentId) || (snapshot.root.reusableContents ?? []).some((r) => r.body === documentId);
  const json = published ? await documentJson(app, t.spaceId, documentId) : null;
  if (json === null) throw forbidden(`This site token does not open document "${documentId}": it is not in the published revision`);
  return json;
}
