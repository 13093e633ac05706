/**
 * Site redirects (issue 29 item 1): the six operations of the 0.202.0 description, and the
 * redirect a reader's request takes. Sources follow the description's SiteRedirectSourcePath;
 * destinations are a section, a site space, a page of a site space (a `path` destination is
 * turned into the page it names on write) or an external http(s) URL. A write that would make a
 * chain come back to where it started is refused (400). Bounds: MAX_REDIRECTS per site (draft and
 * live together), 512-character sources, 2048-character URLs, 500 entries per bulk call.
 *
 * Every write bumps the site version: the reader keeps a site's compiled redirects per version.
 */
import { LRUCache } from 'lru-cache';
import type { AppContext } from '../../context.js';
import type { Principal } from '../../auth/principal.js';
import { withTx, type Queryable } from '../../db/pool.js';
import * as repo from '../../db/repos/site-redirects.js';
import { bumpSiteVersion, lockSiteStructure, type SiteRow } from '../../db/repos/sites.js';
import { spacesByIds } from '../../db/repos/site-structure.js';
import type { SpaceRow } from '../../db/repos/spaces.js';
import { requireSite } from '../../policies/sites.js';
import { invalid, isDomainError, notFound } from '../../core/errors.js';
import { pageInMemory } from '../../core/pagination.js';
import { newId } from '../../util/ids.js';
import { toSiteRedirect } from '../../presenters/site-settings.js';
import { siteBaseUrl, sitePathBaseUrl } from '../../presenters/sites.js';
import { compile, findLoop, match, normalPath, withCaptured, SOURCE_PATTERN, MAX_SOURCE_LENGTH } from '../../sites/redirects.js';
import { resolveSitePath, sitePath, visibleSite, type VisibleSite } from '../../sites/reader.js';
import { loadTree, sectionsInOrder, type SiteTree } from './structure.js';
import { snapshotOf } from './reader.js';
import type { Snapshot, TreePage } from '../../content/snapshot.js';
import type { ConditionContext } from '../../sites/conditions.js';
import { httpUrlError } from '../../util/uri.js';

export const MAX_REDIRECTS = 5000;
export const MAX_BULK = 500;

export type Destination =
  | { kind: 'site-section'; siteSectionId: string }
  | { kind: 'site-space'; siteSpaceId: string }
  | { kind: 'site-page'; siteSpaceId: string; pageId: string }
  | { kind: 'external'; url: string };
export type InputDestination = Destination | { kind: 'path'; spaceId: string; path: string };

export interface RedirectInput {
  source: string;
  captureWildcard?: boolean;
  draft?: boolean;
  permanent?: boolean;
  destination: InputDestination;
}

// ---- The site as redirects see it ---------------------------------------------------------------

interface SiteView {
  tree: SiteTree;
  /** Every section and site space, conditions ignored: the canonical paths of destinations. */
  visible: VisibleSite;
  spaces: Map<string, SpaceRow>;
}

async function siteView(app: AppContext, db: Queryable, site: SiteRow): Promise<SiteView> {
  const tree = await loadTree(db, site);
  const spaces = new Map(
    (await spacesByIds(db, [...new Set(tree.siteSpaces.map((s) => s.space_id))], { counters: false })).map((s) => [s.id, s]),
  );
  const open = { condition: null };
  const visible = visibleSite(
    sectionsInOrder(tree).map((s) => ({ ...s, ...open })),
    tree.siteSpaces.filter((ss) => spaces.has(ss.space_id)).map((ss) => ({ ...ss, ...open })),
    {} as ConditionContext,
  );
  return { tree, visible, spaces };
}

/** The site path (no leading slash) of an internal destination, or null when it no longer exists. */
async function destinationPath(app: AppContext, v: SiteView, d: Destination): Promise<string | null> {
  if (d.kind === 'external') return null;
  if (d.kind === 'site-section') {
    const section = v.visible.sections.find((s) => s.id === d.siteSectionId);
    const variants = section ? (v.visible.variants.get(section.id) ?? []) : [];
    const def = variants.find((x) => x.is_default && !x.hidden) ?? variants.find((x) => !x.hidden) ?? variants[0];
    return section && def ? sitePath(v.visible, section, def, '') : null;
  }
  const ss = [...v.visible.variants.values()].flat().find((x) => x.id === d.siteSpaceId);
  if (!ss) return null;
  const section = ss.section_id ? (v.visible.sections.find((s) => s.id === ss.section_id) ?? null) : null;
  if (d.kind === 'site-space') return sitePath(v.visible, section, ss, '');
  const space = v.spaces.get(ss.space_id);
  if (!space) return null;
  const page = (await snapshotOf(app, space)).byId.get(d.pageId);
  return page ? sitePath(v.visible, section, ss, page.path) : null;
}

/** Where a destination leads, as a URL under `base` (external ones as they are); null when gone. */
async function destinationUrl(app: AppContext, v: SiteView, d: Destination, base: string): Promise<string | null> {
  if (d.kind === 'external') return d.url;
  const path = await destinationPath(app, v, d);
  return path === null ? null : `${base}/${path.split('/').map(encodeURIComponent).join('/')}`;
}

/** A site path when `url` is on one of the site's bases; else null (it leaves the site). */
function pathOnSite(app: AppContext, site: SiteRow, url: string): string | null {
  for (const base of new Set([siteBaseUrl(app, site), sitePathBaseUrl(app, site.id)])) {
    if (url === base || url.startsWith(`${base}/`) || url.startsWith(`${base}?`))
      return url.slice(base.length).replace(/[?#].*$/, '') || '/';
  }
  return null;
}

// ---- Checks -------------------------------------------------------------------------------------

function checkSource(source: string, where: string): string {
  if (source.length > MAX_SOURCE_LENGTH) throw invalid(`Invalid request: ${where}: at most ${MAX_SOURCE_LENGTH} characters`);
  if (!SOURCE_PATTERN.test(source))
    throw invalid(`Invalid request: ${where}: "${source}" is not a redirect source path (an absolute path, optionally ending in * or /*)`);
  return source;
}

function findPageByPath(snapshot: Snapshot, path: string): TreePage | undefined {
  const p = path.replace(/^\/+|\/+$/g, '').replace(/\.md$/i, '');
  return snapshot.byPath.get(p) ?? (p === '' ? snapshot.ordered.find((x) => x.node.type === 'document') : undefined);
}

/** A destination checked against the site (400 naming what is wrong); `path` ones become pages. */
async function checkDestination(app: AppContext, v: SiteView, d: InputDestination, where: string): Promise<Destination> {
  if (d.kind === 'external') {
    const error = httpUrlError(d.url);
    if (error) throw invalid(`Invalid request: ${where}.url: ${error}`);
    return { kind: 'external', url: d.url };
  }
  if (d.kind === 'path') {
    const ss = v.tree.siteSpaces.find((x) => x.space_id === d.spaceId && v.spaces.has(x.space_id));
    if (!ss) throw invalid(`Invalid request: ${where}.spaceId: space "${d.spaceId}" is not shown by this site`);
    const page = findPageByPath(await snapshotOf(app, v.spaces.get(ss.space_id)!), d.path);
    if (!page) throw invalid(`Invalid request: ${where}.path: no page at "${d.path}" in space "${d.spaceId}"`);
    return { kind: 'site-page', siteSpaceId: ss.id, pageId: page.node.id };
  }
  if (d.kind === 'site-section') {
    if (!v.tree.sections.some((s) => s.id === d.siteSectionId))
      throw invalid(`Invalid request: ${where}.siteSectionId: section "${d.siteSectionId}" is not in this site`);
    return { kind: 'site-section', siteSectionId: d.siteSectionId };
  }
  const ss = v.tree.siteSpaces.find((x) => x.id === d.siteSpaceId);
  if (!ss) throw invalid(`Invalid request: ${where}.siteSpaceId: site space "${d.siteSpaceId}" is not in this site`);
  if (d.kind === 'site-space') return { kind: 'site-space', siteSpaceId: d.siteSpaceId };
  const space = v.spaces.get(ss.space_id);
  if (!space || !(await snapshotOf(app, space)).byId.has(d.pageId))
    throw invalid(`Invalid request: ${where}.pageId: page "${d.pageId}" is not in site space "${d.siteSpaceId}"`);
  return { kind: 'site-page', siteSpaceId: d.siteSpaceId, pageId: d.pageId };
}

/** 400 when the site's redirects of one kind (draft or live) would contain a loop. */
async function checkNoLoop(app: AppContext, db: Queryable, site: SiteRow, v: SiteView, draft: boolean) {
  const rows = (await repo.listRedirects(db, site.id, draft)).map((r) => ({ ...r, destination: r.destination as Destination }));
  const paths = new Map<string, string | null>();
  for (const r of rows) {
    const d = r.destination;
    paths.set(
      r.id,
      d.kind === 'external' ? pathOnSite(app, site, d.url) : await destinationPath(app, v, d).then((p) => (p === null ? null : `/${p}`)),
    );
  }
  const loop = findLoop(rows, (r, rest) => {
    const p = paths.get(r.id) ?? null;
    return p === null ? null : r.capture_wildcard ? withCaptured(p, rest) : p;
  });
  if (loop)
    throw invalid(`Invalid request: the redirect from "${loop.source}" would lead back to itself through a chain of redirects (a loop)`);
}

async function checkCount(db: Queryable, siteId: string) {
  if ((await repo.countRedirects(db, siteId)) > MAX_REDIRECTS)
    throw invalid(`Invalid request: a site has at most ${MAX_REDIRECTS} redirects`);
}

// ---- Operations ---------------------------------------------------------------------------------

export async function listRedirects(
  app: AppContext,
  p: Principal,
  orgId: string,
  siteId: string,
  q: { page?: string; limit?: number; search?: string; draft?: boolean; orderBy?: 'createdAt' | 'updatedAt' | 'source' },
) {
  await requireSite(app.db, p, orgId, siteId, 'admin');
  let rows = await repo.listRedirects(app.db, siteId, q.draft ?? false);
  if (q.search) {
    const needle = q.search.toLowerCase();
    rows = rows.filter((r) => r.source.toLowerCase().includes(needle));
  }
  const order = q.orderBy ?? 'createdAt';
  if (order === 'source') return pageInMemory(rows, q, (r) => [r.source, r.id], toSiteRedirect);
  const time = (r: repo.SiteRedirectRow) => (order === 'updatedAt' ? (r.updated_at ?? r.created_at) : r.created_at).toISOString();
  return pageInMemory(rows, q, (r) => [time(r), r.id], toSiteRedirect, true);
}

export async function createRedirect(app: AppContext, p: Principal, orgId: string, siteId: string, body: RedirectInput) {
  const { site } = await requireSite(app.db, p, orgId, siteId, 'admin');
  checkSource(body.source, 'body.source');
  const id = newId();
  await withTx(app.db, async (c) => {
    await lockSiteStructure(c, siteId);
    const v = await siteView(app, c, site);
    const destination = await checkDestination(app, v, body.destination, 'body.destination');
    const draft = body.draft ?? false;
    const existing = await repo.redirectBySource(c, siteId, body.source, draft);
    const fields = {
      source: body.source,
      draft,
      captureWildcard: body.captureWildcard ?? false,
      permanent: body.permanent ?? false,
      destination,
    };
    // One redirect per source (and draft state): creating it again replaces it, as bulk upserts do.
    if (existing) await repo.updateRedirect(c, existing.id, fields);
    else await repo.insertRedirect(c, id, siteId, fields);
    await checkCount(c, siteId);
    await checkNoLoop(app, c, site, v, draft);
    await bumpSiteVersion(c, siteId);
  });
  const row = await repo.redirectBySource(app.db, siteId, body.source, body.draft ?? false);
  return toSiteRedirect(row!);
}

export async function updateRedirect(
  app: AppContext,
  p: Principal,
  orgId: string,
  siteId: string,
  redirectId: string,
  patch: Partial<RedirectInput> & { destination?: Destination },
) {
  const { site } = await requireSite(app.db, p, orgId, siteId, 'admin');
  if (patch.source !== undefined) checkSource(patch.source, 'body.source');
  await withTx(app.db, async (c) => {
    await lockSiteStructure(c, siteId);
    const row = await repo.getRedirect(c, siteId, redirectId);
    if (!row) throw notFound(`Redirect "${redirectId}" not found in this site`);
    const v = await siteView(app, c, site);
    const destination = patch.destination
      ? await checkDestination(app, v, patch.destination, 'body.destination')
      : (row.destination as Destination);
    const fields = {
      source: patch.source ?? row.source,
      draft: patch.draft ?? row.draft,
      captureWildcard: patch.captureWildcard ?? row.capture_wildcard,
      permanent: patch.permanent ?? row.permanent,
      destination,
    };
    const clash = await repo.redirectBySource(c, siteId, fields.source, fields.draft);
    // Promoting a draft (or renaming onto a taken source) replaces the redirect already there.
    if (clash && clash.id !== redirectId) await repo.deleteRedirect(c, siteId, clash.id);
    await repo.updateRedirect(c, redirectId, fields);
    await checkNoLoop(app, c, site, v, fields.draft);
    await bumpSiteVersion(c, siteId);
  });
  return toSiteRedirect((await repo.getRedirect(app.db, siteId, redirectId))!);
}

/** true when it existed (205), false when not (204). */
export async function deleteRedirect(app: AppContext, p: Principal, orgId: string, siteId: string, redirectId: string): Promise<boolean> {
  await requireSite(app.db, p, orgId, siteId, 'admin');
  return withTx(app.db, async (c) => {
    await lockSiteStructure(c, siteId);
    const gone = await repo.deleteRedirect(c, siteId, redirectId);
    if (gone) await bumpSiteVersion(c, siteId);
    return gone;
  });
}

export type BulkEntry =
  | { source: string; intent: 'publish' }
  | { source: string; intent?: 'live' | 'draft'; captureWildcard?: boolean; permanent?: boolean; destination: InputDestination | null };

type BulkResult =
  | { status: 'created' | 'updated' | 'published'; source: string; draft: boolean; id: string }
  | { status: 'deleted'; source: string; draft: boolean }
  | { status: 'error'; source: string; draft: boolean; error: string };

/**
 * Each entry on its own (an entry that fails is reported and the others still apply); the loop
 * and count checks run on the result, and refuse the whole call (400) when it would break them.
 */
export async function bulkUpsertRedirects(app: AppContext, p: Principal, orgId: string, siteId: string, entries: BulkEntry[]) {
  const { site } = await requireSite(app.db, p, orgId, siteId, 'admin');
  if (entries.length > MAX_BULK) throw invalid(`Invalid request: body.redirects: at most ${MAX_BULK} entries`);
  const results: BulkResult[] = [];
  await withTx(app.db, async (c) => {
    await lockSiteStructure(c, siteId);
    const v = await siteView(app, c, site);
    const touched = new Set<boolean>();
    for (const [i, e] of entries.entries()) {
      const draft = 'intent' in e && e.intent === 'draft';
      const at = `body.redirects[${i}]`;
      try {
        checkSource(e.source, `${at}.source`);
        if (e.intent === 'publish') {
          const d = await repo.redirectBySource(c, siteId, e.source, true);
          if (!d) throw notFound(`no draft redirect from "${e.source}"`);
          const live = await repo.redirectBySource(c, siteId, e.source, false);
          const fields = {
            source: d.source,
            draft: false,
            captureWildcard: d.capture_wildcard,
            permanent: d.permanent,
            destination: d.destination,
          };
          if (live) {
            await repo.updateRedirect(c, live.id, fields);
            await repo.deleteRedirect(c, siteId, d.id);
          } else await repo.updateRedirect(c, d.id, fields);
          touched.add(false);
          results.push({ status: 'published', source: e.source, draft: false, id: live?.id ?? d.id });
          continue;
        }
        const existing = await repo.redirectBySource(c, siteId, e.source, draft);
        if (e.destination === null) {
          if (existing) await repo.deleteRedirect(c, siteId, existing.id);
          results.push({ status: 'deleted', source: e.source, draft });
          continue;
        }
        const destination = await checkDestination(app, v, e.destination, `${at}.destination`);
        const fields = {
          source: e.source,
          draft,
          captureWildcard: e.captureWildcard ?? existing?.capture_wildcard ?? false,
          permanent: e.permanent ?? existing?.permanent ?? false,
          destination,
        };
        touched.add(draft);
        if (existing) {
          await repo.updateRedirect(c, existing.id, fields);
          results.push({ status: 'updated', source: e.source, draft, id: existing.id });
        } else {
          const id = newId();
          await repo.insertRedirect(c, id, siteId, fields);
          results.push({ status: 'created', source: e.source, draft, id });
        }
      } catch (err) {
        if (!isDomainError(err, 'invalid', 'not-found')) throw err;
        results.push({ status: 'error', source: e.source, draft, error: err.message.replace(/^Invalid request: /, '') });
      }
    }
    await checkCount(c, siteId);
    for (const draft of touched) await checkNoLoop(app, c, site, v, draft);
    await bumpSiteVersion(c, siteId);
  });
  return { results };
}

/** The live redirect a source path takes (exact first, then the longest wildcard) and where it leads. */
export async function redirectBySource(app: AppContext, p: Principal, orgId: string, siteId: string, source: string) {
  const { site } = await requireSite(app.db, p, orgId, siteId, 'read');
  return redirectOfSite(app, site, source);
}

/** getSiteRedirectBySource once the caller may read the site (a member, or a site token: published-content-reads.ts). */
export async function redirectOfSite(app: AppContext, site: SiteRow, source: string) {
  const siteId = site.id;
  const rows = await repo.listRedirects(app.db, siteId, false);
  const m = match(compile(rows), source);
  if (!m) throw notFound(`No redirect from "${source}" in this site`);
  const v = await siteView(app, app.db, site);
  const url = await destinationUrl(app, v, m.item.destination as Destination, siteBaseUrl(app, site));
  if (url === null) throw notFound(`The redirect from "${m.item.source}" leads to something no longer in this site`);
  return { redirect: toSiteRedirect(m.item), target: m.item.capture_wildcard ? withCaptured(url, m.rest) : url };
}

// ---- Readers ------------------------------------------------------------------------------------

/** A site's live redirects, compiled once per site version (every redirect write bumps it). */
const compiled = new LRUCache<string, ReturnType<typeof compile<repo.SiteRedirectRow>>>({ max: 500 });

export interface ReaderRedirect {
  location: string;
  status: number;
}

/**
 * Where a reader's request for `rest` (a site path, decoded) is sent by a live site redirect, or
 * null. Permanent redirects answer 308 on a published site, 307 elsewhere (a preview); others 307.
 */
export async function siteRedirectFor(app: AppContext, site: SiteRow & { base: string }, rest: string): Promise<ReaderRedirect | null> {
  const key = `${site.id}:${site.version}`;
  let c = compiled.get(key);
  if (!c) {
    c = compile(await repo.listRedirects(app.db, site.id, false));
    compiled.set(key, c);
  }
  if (!c.exact.size && !c.prefixes.length) return null;
  const m = match(c, rest);
  if (!m) return null;
  const url = await destinationUrl(app, await siteView(app, app.db, site), m.item.destination as Destination, site.base);
  if (url === null) return null;
  return {
    location: m.item.capture_wildcard ? withCaptured(url, m.rest) : url,
    status: m.item.permanent && site.published ? 308 : 307,
  };
}

/**
 * The `.gitbook.yaml` redirect of the space a path falls in (git sync's `redirects`: old path ->
 * file), as the page it names on this site, or null. Only asked when nothing is at the path.
 */
export async function spaceRedirectFor(
  app: AppContext,
  site: SiteRow & { base: string },
  visible: VisibleSite,
  spaces: Map<string, SpaceRow>,
  segments: string[],
): Promise<string | null> {
  const r = resolveSitePath(visible, segments);
  if (!r || !r.pagePath) return null;
  const space = spaces.get(r.siteSpace.space_id);
  if (!space) return null;
  const snapshot = await snapshotOf(app, space);
  const redirects = snapshot.root.redirects;
  if (!redirects) return null;
  const from = normalPath(r.pagePath).slice(1);
  const target = redirects[from] ?? redirects[from.replace(/\.md$/i, '')] ?? redirects[`${from}.md`];
  if (!target) return null;
  const file = target.replace(/^\.?\/+/, '');
  const page = snapshot.ordered.find((x) => {
    const g = x.node.git?.path;
    return x.node.type === 'document' && !!g && (g === file || g.endsWith(`/${file}`));
  });
  if (!page) return null;
  const path = sitePath(visible, r.section, r.siteSpace, page.path);
  return `${site.base}/${path.split('/').map(encodeURIComponent).join('/')}`;
}
