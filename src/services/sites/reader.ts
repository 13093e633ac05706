/**
 * The reader-facing site (issue 12): what one reader sees of a published site, without a bearer
 * token. The reader's access is the site's: a published site's visibility, a share key checked on
 * every request, a visitor token verified with the site's publishing-auth key, and the conditions
 * of sections and site spaces evaluated against the reader's claims (src/sites/reader.ts). What a
 * reader may not see is absent from navigation and its URL is a 404, by the same filter.
 *
 * `locatePage` is cheap (rows plus cached revision snapshots) and yields the immutable render key
 * (site version, revision, page, audience); `readerPage` renders the body (off the event loop).
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { jwtVerify, errors as joseErrors } from 'jose';
import type { AppContext } from '../../context.js';
import { notFound } from '../../core/errors.js';
import { getSite, readerSiteStamp, type SiteRow } from '../../db/repos/sites.js';
import { spacesByIds } from '../../db/repos/site-structure.js';
import type { SpaceRow } from '../../db/repos/spaces.js';
import { revisionSnapshot } from '../../content/commit.js';
import type { Snapshot, TreePage } from '../../content/snapshot.js';
import { effectiveCustomization, withOverrides, withProxiedImages } from '../../sites/customization.js';
import { checkPreviewToken } from '../../sites/preview.js';
import {
  audienceOf,
  editOnGitUrl,
  outlineOf,
  readerContext,
  resolveSitePath,
  sitePath,
  variantsOf,
  visibleSite,
  type OutlineItem,
  type ReaderSection,
  type ReaderSiteSpace,
  type VisibleSite,
} from '../../sites/reader.js';
import type { ConditionContext } from '../../sites/conditions.js';
import { evaluateCondition } from '../../sites/conditions.js';
import { loadTree, sectionsInOrder, type SiteTree } from './structure.js';
import { validShareKey } from './share-links.js';
import { visitorSigningKey } from './settings.js';
import { conditionalContext, readerBodyMarkdown, renderPageBody } from '../page-body.js';
import { conditionOutcomes } from '../../content/conditional-blocks.js';
import { hreflangAlternates, type Alternate } from '../../sites/alternates.js';
import { siteBaseUrl } from '../../presenters/sites.js';
import { loadBody } from '../../content/snapshot.js';
import { fileDownloadUrl, imageProxyUrl } from '../../content/present.js';
import { requestReaderPagePdf } from '../pdf.js';

const MAX_TOKEN_BYTES = 8 * 1024;
const trees = new LRUCache<string, SiteTree>({ max: 500 });
const snapshots = new LRUCache<string, Snapshot>({ max: 64 });
const MAX_VARIANTS = 50;

/**
 * A site as one request reaches it: `base` is where (PUBLIC_URL/site/{id}, its custom hostname, or
 * its organization's host and basename); every link, cookie path and redirect of the answer uses it.
 */
export type ServedSite = ReaderSiteRow & {
  base: string;
  /** PUBLIC_URL's origin when `base` is on another host: page images (signed /files/ URLs) live there. */
  fileOrigin?: string;
};

/**
 * A site row as the reader loaded it, with the rows of the live spaces it shows (read in the same
 * check): readerStructure uses them instead of reading the spaces again.
 */
export type ReaderSiteRow = SiteRow & { liveSpaces?: Map<string, SpaceRow> };

interface SiteState {
  stamp: string;
  siteStamp: string;
  site: ReaderSiteRow;
  /** Live spaces by id, and each one's `id:xmin`. */
  spaces: Map<string, SpaceRow>;
  spaceStamps: Map<string, string>;
}

/** Site and space rows per site, valid while their stamp (row versions, one statement) is unchanged. */
const states = new LRUCache<string, SiteState>({ max: 1000 });

/**
 * The site and its live spaces as they are now. Every request checks the rows' versions (one small
 * prepared statement, src/db/repos/sites.ts readerSiteStamp) and reads again only the rows that
 * changed: a change (published, visibility, a merge moving a space's revision) shows on the next
 * request, on any instance, and an unchanged site costs one round trip instead of two wide reads.
 */
async function siteState(app: AppContext, siteId: string): Promise<SiteState | null> {
  const stamp = await stampNow(app, siteId);
  if (!stamp) return null;
  const key = `${stamp.site}|${stamp.spaces.join(',')}`;
  const cached = states.get(siteId);
  if (cached?.stamp === key) return cached;
  const row: SiteRow | null = cached?.siteStamp === stamp.site ? cached.site : await getSite(app.db, siteId);
  if (!row) return null;
  const spaceStamps = new Map(stamp.spaces.map((x) => [x.slice(0, x.indexOf(':')), x]));
  const spaces = new Map<string, SpaceRow>();
  const stale: string[] = [];
  for (const [id, x] of spaceStamps) {
    const had = cached?.spaceStamps.get(id) === x ? cached.spaces.get(id) : undefined;
    if (had) spaces.set(id, had);
    else stale.push(id);
  }
  for (const r of await spacesByIds(app.db, stale, { counters: false })) spaces.set(r.id, r);
  // Rows read after the stamp may be newer than it: kept under it all the same (never older), the
  // next request's stamp differs and reads them again.
  const state: SiteState = {
    stamp: key,
    siteStamp: stamp.site,
    site: { ...row, site_spaces: spaces.size, liveSpaces: spaces },
    spaces,
    spaceStamps,
  };
  states.set(siteId, state);
  return state;
}

type Stamp = Awaited<ReturnType<typeof readerSiteStamp>>;
interface StampRead {
  read: Promise<Stamp>;
  /** The read the requests that arrived while `read` was in flight share, sent once it is done. */
  next: Promise<Stamp> | null;
}
const stampReads = new Map<string, StampRead>();

/**
 * A site's stamp as of a moment after this call: under load, the requests of one site that arrive
 * while its stamp is being read share the next read (sent once that one is done) rather than each
 * sending its own. Never the read in flight: it was sent before they arrived and could miss a
 * change (a merge) they were told about.
 */
function stampNow(app: AppContext, siteId: string): Promise<Stamp> {
  const flight = stampReads.get(siteId);
  if (!flight) return startStampRead(app, siteId);
  const noop = () => {};
  flight.next ??= flight.read.then(noop, noop).then(() => startStampRead(app, siteId));
  return flight.next;
}

function startStampRead(app: AppContext, siteId: string): Promise<Stamp> {
  const flight: StampRead = { read: readerSiteStamp(app.db, siteId), next: null };
  stampReads.set(siteId, flight);
  const done = () => {
    if (stampReads.get(siteId) === flight) stampReads.delete(siteId);
  };
  flight.read.then(done, done);
  return flight.read;
}

/**
 * A published site, or one a member previews with a valid preview token; else a 404 (unpublished
 * and unknown look the same).
 */
export async function publishedSite(app: AppContext, siteId: string, preview?: string): Promise<ReaderSiteRow> {
  const state = await siteState(app, siteId);
  const site = state?.site;
  if (!site) throw notFound('Not found');
  if (!site.published && !(preview && checkPreviewToken(app.secret, site.id, preview) !== null)) throw notFound('Not found');
  return site; // shared: never modified (routes spread it into a ServedSite)
}

/** The expiry of a valid preview token of an existing site, or null. */
export async function previewExpiry(app: AppContext, siteId: string, token: string): Promise<number | null> {
  const site = await getSite(app.db, siteId);
  return site ? checkPreviewToken(app.secret, site.id, token) : null;
}

export const shareKeyOpens = (app: AppContext, site: SiteRow, key: string | undefined) =>
  key ? validShareKey(app.db, site.id, key) : Promise.resolve(false);

export type TokenCheck = { ok: true; payload: Record<string, unknown>; exp: number } | { ok: false; reason: string };

/** Verify a visitor token: HS256 only, `exp` required, signed with the site's current key. */
export async function verifyVisitorToken(app: AppContext, site: SiteRow, token: string): Promise<TokenCheck> {
  if (!token || Buffer.byteLength(token) > MAX_TOKEN_BYTES) return { ok: false, reason: 'missing or too large' };
  const key = await visitorSigningKey(app, site);
  if (!key) return { ok: false, reason: 'the site has no signing key' };
  try {
    const { payload } = await jwtVerify(token, new TextEncoder().encode(key), {
      algorithms: ['HS256'],
      clockTolerance: 30,
      requiredClaims: ['exp'],
    });
    return { ok: true, payload: payload as Record<string, unknown>, exp: payload.exp! };
  } catch (err) {
    return { ok: false, reason: err instanceof joseErrors.JOSEError ? err.code : 'invalid' };
  }
}

export interface ReaderLocation {
  site: ServedSite;
  tree: SiteTree;
  visible: VisibleSite;
  spaces: Map<string, SpaceRow>;
  section: ReaderSection | null;
  siteSpace: ReaderSiteSpace;
  space: SpaceRow;
  snapshot: Snapshot;
  page: TreePage;
  /**
   * The page's one URL under the site base (defaults omitted, no leading slash): its canonical URL,
   * in the sitemap and the alternates; a variant's first page is at the variant's home (`''`, `fr`).
   */
  path: string;
  /** The immutable render key: site version, revision, page, audience, what the page shows of space rows. */
  key: string;
}

/** What the reader sees of the site's structure (conditions applied, trashed spaces left out). */
export async function readerStructure(app: AppContext, site: ReaderSiteRow, ctx: ConditionContext) {
  // Every structural change bumps the site version, so the tree is memoized by it; the spaces'
  // current revisions are read on every request (a merge shows on the next one, on any instance).
  const treeKey = `${site.id}:${site.version}`;
  let tree = trees.get(treeKey);
  if (!tree) {
    tree = await loadTree(app.db, site);
    trees.set(treeKey, tree);
  }
  // The live spaces publishedSite read with the site, or read now.
  const spaces =
    site.liveSpaces ??
    new Map((await spacesByIds(app.db, [...new Set(tree.siteSpaces.map((s) => s.space_id))], { counters: false })).map((r) => [r.id, r]));
  const live = tree.siteSpaces.filter((ss) => spaces.has(ss.space_id));
  const visible = visibleSite(sectionsInOrder(tree), live, ctx);
  return { tree, spaces, visible };
}

const readable = (p: TreePage) => (p.node.type === 'document' || p.node.type === 'computed') && !p.node.hidden;

/** Pages of a revision in reading order, hidden pages and their subtrees left out. */
export function readingOrder(snapshot: Snapshot): TreePage[] {
  const out: TreePage[] = [];
  const walk = (list: TreePage[]) => {
    for (const p of list) {
      if (p.node.hidden) continue;
      if (readable(p)) out.push(p);
      walk(p.children);
    }
  };
  walk(snapshot.pages);
  return out;
}

/** The snapshot of a space's current revision (cached per revision). */
export async function snapshotOf(app: AppContext, space: SpaceRow): Promise<Snapshot> {
  // A revision never changes: its snapshot is memoized by its id.
  const key = `${space.id}:${space.revision_id}`;
  let snapshot = snapshots.get(key);
  if (!snapshot) {
    snapshot = (await revisionSnapshot(app.db, space.id, space.revision_id)).snapshot;
    snapshots.set(key, snapshot);
  }
  return snapshot;
}

/**
 * Locations already found, per site state (the Map of live spaces publishedSite read, a new one
 * whenever a row of the site or its spaces changed): a location is a function of that state, the
 * base, the path and the reader's claims, so a page read again skips the structure walk and the key.
 */
const locations = new WeakMap<Map<string, SpaceRow>, LRUCache<string, ReaderLocation>>();

/** Where `segments` lead for this reader; 404 when nothing visible is there. */
export async function locatePage(app: AppContext, site: ServedSite, segments: string[], ctx: ConditionContext): Promise<ReaderLocation> {
  const state = site.liveSpaces;
  if (!state) return findPage(app, site, segments, ctx);
  let memo = locations.get(state);
  if (!memo) locations.set(state, (memo = new LRUCache<string, ReaderLocation>({ max: 256 })));
  const key = JSON.stringify([site.base, site.fileOrigin ?? null, segments, ctx]);
  let found = memo.get(key);
  if (!found) {
    found = await findPage(app, site, segments, ctx);
    memo.set(key, found);
  }
  return found;
}

async function findPage(app: AppContext, site: ServedSite, segments: string[], ctx: ConditionContext): Promise<ReaderLocation> {
  const { tree, spaces, visible } = await readerStructure(app, site, ctx);
  const r = resolveSitePath(visible, segments);
  if (!r) throw notFound('Not found');
  const space = spaces.get(r.siteSpace.space_id)!;
  const snapshot = await snapshotOf(app, space);
  const first = firstReadable(snapshot);
  const page = r.pagePath ? snapshot.byPath.get(r.pagePath) : first;
  if (!page || !(page.node.type === 'document' || page.node.type === 'computed')) throw notFound('Not found');
  // One URL per page: a variant's first page is its home (`/`, `/fr`), by whichever path reached.
  const path = sitePath(visible, r.section, r.siteSpace, page === first ? '' : page.path);
  // The audience: what the reader's claims decided (visible sections and variants, header links).
  const ss = tree.siteSpaces.find((x) => x.id === r.siteSpace.id);
  const links = (withOverrides(effectiveCustomization(site.customization), ss?.customization ?? null).header?.links ?? []) as {
    condition?: string;
  }[];
  const linkOutcomes = links.map((l) => (evaluateCondition(l.condition, ctx) ? 1 : 0)).join('');
  // A body with `{% if %}` blocks differs by reader: what its conditions decide joins the key (the
  // claims themselves when reusable content, which may hold some, is included).
  const body = page.node.type === 'document' ? await loadBody(app.db, space.id, page.node) : '';
  const conditional = /\{%\s*include\b/.test(body)
    ? createHash('sha256')
        .update(JSON.stringify(ctx.visitor?.claims ?? {}))
        .digest('base64url')
    : conditionOutcomes(body, conditionalContext(ctx, snapshot, page));
  const key = createHash('sha256')
    .update(
      JSON.stringify([
        site.id,
        site.base,
        site.version,
        r.siteSpace.id,
        space.revision_id,
        page.node.id,
        path,
        audienceOf(visible),
        // What the page shows of space rows, which do not move the site version: the section's
        // variants' languages (hreflang alternates) and titles (the variant switcher, when the site
        // space has none of its own); the space's last update and Git URL (the page's meta line).
        variantsOf(visible, r.section).map((x) => [spaces.get(x.space_id)?.language ?? '', x.title ?? spaces.get(x.space_id)?.title ?? '']),
        space.updated_at?.getTime() ?? null,
        space.git_sync?.url ?? null,
        // The canonical base (canonical URL, alternates) follows the organization's hosts too.
        siteBaseUrl(app, site),
        linkOutcomes,
        conditional,
      ]),
    )
    .digest('base64url')
    .slice(0, 32);
  return { site, tree, visible, spaces, section: r.section, siteSpace: r.siteSpace, space, snapshot, page, path, key };
}

export interface NavLink {
  title: string;
  href: string;
  current: boolean;
}

export interface TreeItem {
  title: string;
  href: string | null;
  current: boolean;
  open: boolean;
  group: boolean;
  /** The page's `icon` (a Font Awesome name, drawn by the layout when it knows it). */
  icon?: string;
  children: TreeItem[];
}

export interface HeaderLink {
  title: string;
  href: string | null;
}

export interface SectionTab extends NavLink {
  group: string | null;
  /** The id of the section group it is in (external links whose parent it is show in its menu). */
  groupId: string | null;
}

/** A page's cover image as a reader sees it: a light source and, when the page has one, a dark one. */
export interface PageCover {
  light: string;
  dark: string | null;
  /** `layout.coverSize`: `hero` (within the content column) or `full` (the layout's width). */
  size: 'hero' | 'full';
}

export interface ReaderPage {
  location: ReaderLocation;
  cover: PageCover | null;
  base: string;
  title: string;
  settings: Record<string, any>;
  sections: SectionTab[];
  variants: NavLink[];
  tree: TreeItem[];
  breadcrumbs: NavLink[];
  outline: OutlineItem[];
  previous: NavLink | null;
  next: NavLink | null;
  headerLinks: HeaderLink[];
  /** hreflang alternates of the page (src/sites/alternates.ts), absolute URLs on the canonical base. */
  alternates: Alternate[];
  bodyHtml: string;
  lastUpdated: Date | null;
  /** The page's file in the synced repository, when the customization shows edit links. */
  editUrl: string | null;
  indexable: boolean;
}

/**
 * The cover of a page, when its layout shows one (`layout.cover`, as the API reports it) and its
 * image resolves: a file of the space (a signed download URL on our origin) or an http(s) URL.
 */
export function pageCover(app: AppContext, snapshot: Snapshot, page: TreePage): PageCover | null {
  const cover = page.node.cover as { ref?: any; refDark?: any } | undefined;
  if (!cover || page.node.layout?.cover !== true) return null;
  const src = (ref: any): string | null => {
    if (!ref || typeof ref !== 'object') return null;
    if (ref.kind === 'url') return typeof ref.url === 'string' && /^https?:\/\//i.test(ref.url) ? imageProxyUrl(app, ref.url) : null;
    if (ref.kind !== 'file' || (ref.space && ref.space !== snapshot.spaceId)) return null;
    const file = snapshot.filesById.get(String(ref.file));
    return file && file.contentType.startsWith('image/') ? fileDownloadUrl(app, file) : null;
  };
  const light = src(cover.ref);
  if (!light) return null;
  const dark = src(cover.refDark);
  return { light, dark: dark && dark !== light ? dark : null, size: page.node.layout?.coverSize === 'hero' ? 'hero' : 'full' };
}

/** The href of a ContentRef of the customization (external URLs only; others need the API). */
function refHref(to: any): string | null {
  return to && to.kind === 'url' && typeof to.url === 'string' ? to.url : null;
}

/** The whole page model a layout turns into HTML. */
export async function readerPage(app: AppContext, loc: ReaderLocation, ctx: ConditionContext): Promise<ReaderPage> {
  const { site, visible, section, siteSpace, snapshot, page } = loc;
  const base = site.base;
  const href = (path: string) => `${base}/${path}`;
  const pathIn = (sec: ReaderSection | null, ss: ReaderSiteSpace, p: string) => href(sitePath(visible, sec, ss, p));
  const pageHref = (p: TreePage, anchor?: string) => `${pathIn(section, siteSpace, p.path)}${anchor ? `#${anchor}` : ''}`;

  const settings = readerCustomization(
    app,
    withOverrides(
      effectiveCustomization(site.customization),
      loc.tree.siteSpaces.find((x) => x.id === siteSpace.id)?.customization ?? null,
    ),
  );
  const groups = new Map(loc.tree.groups.map((g) => [g.id, g.title]));
  const sections: SectionTab[] = visible.sections.map((s) => {
    const def = variantsOf(visible, s).find((x) => !x.hidden) ?? variantsOf(visible, s)[0];
    return {
      title: s.title,
      href: pathIn(s, def, ''),
      current: s.id === section?.id,
      group: s.group_id ? (groups.get(s.group_id) ?? null) : null,
      groupId: s.group_id && groups.has(s.group_id) ? s.group_id : null,
    };
  });

  const variants: NavLink[] = [];
  for (const ss of variantsOf(visible, section)
    .filter((x) => !x.hidden || x.id === siteSpace.id)
    .slice(0, MAX_VARIANTS)) {
    const space = loc.spaces.get(ss.space_id)!;
    let target = '';
    if (ss.id === siteSpace.id) target = page.path;
    else {
      const other = await snapshotOf(app, space);
      const same = other.byPath.get(page.path);
      if (same && readable(same)) target = page.path;
    }
    variants.push({ title: ss.title ?? space.title, href: pathIn(section, ss, target), current: ss.id === siteSpace.id });
  }

  const alternates = await pageAlternates(app, loc);

  const openIds = new Set<string>();
  for (let p: TreePage | undefined = page; p; p = p.parentId ? snapshot.byId.get(p.parentId) : undefined) openIds.add(p.node.id);
  const treeOf = (list: TreePage[], depth: number): TreeItem[] =>
    depth > 20
      ? []
      : list
          .filter((p) => !p.node.hidden)
          .map((p) => ({
            title: p.node.title,
            href: p.node.type === 'group' ? null : p.node.type === 'link' ? (p.node.href ?? null) : pageHref(p),
            current: p === page,
            open: openIds.has(p.node.id),
            group: p.node.type === 'group',
            ...(p.node.icon ? { icon: p.node.icon } : {}),
            children: treeOf(p.children, depth + 1),
          }));

  const breadcrumbs: NavLink[] = [];
  for (let p = page.parentId ? snapshot.byId.get(page.parentId) : undefined; p; p = p.parentId ? snapshot.byId.get(p.parentId) : undefined)
    breadcrumbs.unshift({ title: p.node.title, href: readable(p) ? pageHref(p) : '', current: false });

  const order = readingOrder(snapshot);
  const at = order.indexOf(page);
  const link = (p: TreePage | undefined): NavLink | null => (p ? { title: p.node.title, href: pageHref(p), current: false } : null);

  // Header links: URLs as given; a space or a page of a space the reader can see leads into the site.
  const contentHref = async (to: any): Promise<string | null> => {
    if (!to || typeof to !== 'object') return null;
    if (to.kind === 'url') return refHref(to);
    const spaceId: string | undefined = to.space ?? (to.kind === 'page' || to.kind === 'anchor' ? siteSpace.space_id : undefined);
    if (!spaceId || (to.kind !== 'space' && to.kind !== 'page' && to.kind !== 'anchor')) return null;
    for (const sec of visible.sections.length ? visible.sections : [null]) {
      const ss = variantsOf(visible, sec).find((x) => x.space_id === spaceId && (x.id === siteSpace.id || !x.hidden));
      if (!ss) continue;
      if (to.kind === 'space') return pathIn(sec, ss, '');
      const target = to.page ? (await snapshotOf(app, loc.spaces.get(ss.space_id)!)).byId.get(to.page) : page;
      if (!target || !readable(target)) return null;
      return `${pathIn(sec, ss, target.path)}${to.kind === 'anchor' ? `#${encodeURIComponent(to.anchor)}` : ''}`;
    }
    return null;
  };
  const headerLinks: HeaderLink[] = [];
  for (const l of ((settings.header?.links ?? []) as any[]).slice(0, 50))
    if (evaluateCondition(l.condition, ctx)) headerLinks.push({ title: String(l.title ?? ''), href: await contentHref(l.to) });

  const body = await renderPageBody(app, site.organization_id, snapshot, page, pageHref, ctx);
  const title = typeof settings.title === 'string' ? settings.title : site.title;
  return {
    location: loc,
    cover: pageCover(app, snapshot, page),
    base,
    title,
    settings,
    sections,
    variants,
    tree: treeOf(snapshot.pages, 0),
    breadcrumbs,
    outline: outlineOf(body.html),
    previous: at > 0 ? link(order[at - 1]) : null,
    next: at >= 0 ? link(order[at + 1]) : null,
    headerLinks,
    alternates,
    bodyHtml: body.html,
    lastUpdated: loc.space.updated_at ?? null,
    editUrl: settings.git?.showEditLink ? editOnGitUrl(loc.space.git_sync?.url, page.node.git?.path) : null,
    indexable: site.published && site.visibility === 'public' && !page.node.noIndex && !page.node.noRobotsIndex,
  };
}

/**
 * hreflang alternates of a located page: the page in each language variant of its section that has
 * it, matched as the variant switcher matches it (same path, a readable page; no fallback to the
 * variant's home). URLs are on the canonical base, as `<link rel=canonical>`; the page's own URL is
 * its canonical one, and the other variants' take the same form (the variant's home when the page
 * is that variant's first page, as its own canonical URL and the sitemap have it). Per variant, one
 * lookup in the revision's path index (the cached snapshot's `byPath`).
 */
async function pageAlternates(app: AppContext, loc: ReaderLocation): Promise<Alternate[]> {
  const { site, visible, section, siteSpace, page, spaces } = loc;
  const base = siteBaseUrl(app, site);
  const snapshotFor = async (ss: ReaderSiteSpace) => snapshotOf(app, spaces.get(ss.space_id)!);
  const found = new Map<string, boolean>();
  const targets = new Map<string, string>();
  for (const ss of variantsOf(visible, section).filter((x) => !x.hidden && x.id !== siteSpace.id)) {
    if (found.size >= MAX_VARIANTS) break;
    const other = await snapshotFor(ss);
    const same = other.byPath.get(page.path);
    found.set(ss.id, !!same && readable(same));
    targets.set(ss.id, same && firstReadable(other) === same ? '' : page.path);
  }
  return hreflangAlternates(visible, section, siteSpace, {
    languageOf: (ss) => spaces.get(ss.space_id)?.language,
    has: (ss) => found.get(ss.id) ?? false,
    href: (ss) => `${base}/${ss.id === siteSpace.id ? loc.path : sitePath(visible, section, ss, targets.get(ss.id) ?? page.path)}`,
  });
}

/** `readingOrder(snapshot)[0]` (a revision's home), without walking the rest. */
export function firstReadable(snapshot: Snapshot): TreePage | undefined {
  const walk = (list: TreePage[]): TreePage | undefined => {
    for (const p of list) {
      if (p.node.hidden) continue;
      if (readable(p)) return p;
      const inner = walk(p.children);
      if (inner) return inner;
    }
    return undefined;
  };
  return walk(snapshot.pages);
}

/** The customization a variant shows: the site's, with the site space's overrides when given. */
export async function readerSettings(app: AppContext, site: SiteRow, siteSpaceId?: string): Promise<Record<string, any>> {
  const base = effectiveCustomization(site.customization);
  if (!siteSpaceId) return readerCustomization(app, base);
  const ss = (await loadTree(app.db, site)).siteSpaces.find((x) => x.id === siteSpaceId);
  return readerCustomization(app, withOverrides(base, ss?.customization ?? null));
}

/** Customization as readers' pages use it: images of other origins through the image proxy. */
export function readerCustomization(app: AppContext, settings: Record<string, any>): Record<string, any> {
  return withProxiedImages(settings, (url) => imageProxyUrl(app, url));
}

/** The PDF of a located page (the `pdf` page action): a signed link to a shared render. */
export async function readerPagePdf(app: AppContext, loc: ReaderLocation): Promise<string> {
  return (await requestReaderPagePdf(app, loc.space, loc.page.node.id)).url;
}

/** The Markdown of a located page as the reader with `ctx` sees it (`.md` URLs, `Accept: text/markdown`). */
export async function readerMarkdown(app: AppContext, loc: ReaderLocation, ctx: ConditionContext): Promise<string> {
  const body = await readerBodyMarkdown(app, loc.site.organization_id, loc.snapshot, loc.page, ctx);
  return `# ${loc.page.node.title}\n\n${loc.page.node.description ? `${loc.page.node.description}\n\n` : ''}${body}`;
}

export { readerContext };
