// Links between content: what a page's Markdown points at, resolved against one revision, and the
// per-revision index that the link, backlink and broken-link reads are served from.
//
// ## Where links come from
// Every link and image of a page body (`extractLinks`: inline, autolink, reference-style) plus the
// `src` of `{% file src="…" %}` blocks (a download link, relation `link`). Images have relation
// `image`. Destinations inside raw HTML are not links. Only pages with a body have links (groups,
// link pages and computed pages have none).
//
// ## How a destination resolves (`createResolver` / `resolveLink`)
// - `''`, `#anchor`, `?query` alone: a jump inside the same page; not a link, ignored.
// - An absolute URL (any scheme: `http:`, `https:`, `mailto:`, `tel:`…, and `//host/…`): a URL
//   target, status `ok`; status `in-app` when it points under this platform's own PUBLIC_URL. An
//   in-app URL naming a page of this space (`<PUBLIC_URL>/app/s/<space>/page/<page>`, as the API's
//   `urls.app` gives it) still is a URL target, but counts as a backlink of that page.
// - `/pages/<id>` or `pages/<id>`: that page; `/files/<id>` or `files/<id>`: that file (when no such
//   id exists the path is tried as a docs-as-code path below, then it is broken).
// - A path containing `.gitbook/assets/<name>`: the file whose `git.path` it is, else the file named
//   `<name>`; otherwise broken.
// - Any other path is a docs-as-code path (percent-decoded; `?query` dropped; `#anchor` kept):
//   1. Pages synced from git: resolved against the directory of the linking page's `git.path` (a
//      `/`-prefixed path against the docs root, as GitBook does) and matched against pages' and
//      files' `git.path` (as written, with `.md`, or as `<folder>/README.md`).
//   2. Page paths: resolved against the linking page's directory — its own path when it has
//      children (it is the folder's README in a git layout), otherwise its parent's directory —
//      or against the space root when it starts with `/`. A trailing `.md` is stripped and a final
//      `README.md`/`readme.md` names the folder's page; the root README (or `/`) is the first page.
//      Matched against page paths as written, then with each segment slugified (`Getting Started.md`
//      finds `getting-started`).
//   3. Files: the resolved path equal to a file's `git.path`, else its last segment equal to a
//      file's name.
//   A path climbing above the space root with `..`, or matching nothing, is broken.
//
// ## Items
// A broken target is presented as the URL as written (`{kind: 'url', url}`): there is no page or
// file to describe, and the text to fix is what a writer needs. Identical targets (same relation,
// same resolved target, same anchor) linked from several pages form one item whose
// `locationReferences` lists each linking page once, in tree order; `stats.total` counts those items.
//
// ## Where the index comes from
// The links of each body as written are stored by (space, body hash) in PostgreSQL (link_extracts),
// by the `links.index` job after the content changed (`indexRevisionLinks`) or by a reader for what
// is not stored yet (`loadLinkIndex`): a body is parsed once. Resolving them against a revision is
// in memory and linear (map lookups per link), so a read of a stored revision parses nothing.
import { LRUCache } from 'lru-cache';
import type { Queryable } from '../db/pool.js';
import { pageLinks, slugify, type PageLink } from './markdown.js';
import { getObjects } from './objects.js';
import type { Snapshot, TreePage } from './snapshot.js';
import type { BodyNode, FileNode, Hash } from './types.js';
import { decodeOrKeep } from '../util/uri.js';
import { insertLinkExtracts, isRootIndexed, markRootIndexed, selectLinkExtracts, type StoredLinks } from '../db/repos/links.js';

type LinkRelation = 'link' | 'image';
export type LinkStatus = 'ok' | 'broken' | 'in-app';

/** A destination as written in a page body (see `pageLinks` in markdown/text.ts). */
export type ExtractedLink = PageLink;

/** What a destination resolves to in one revision. */
export type LinkTarget =
  | { kind: 'url'; url: string; inApp: boolean; /** An in-app URL naming a page of this space. */ page?: string }
  | { kind: 'page'; page: string; anchor?: string }
  | { kind: 'file'; file: string }
  | { kind: 'broken'; url: string };

function linkStatus(t: LinkTarget): LinkStatus {
  if (t.kind === 'broken') return 'broken';
  if (t.kind === 'url' && t.inApp) return 'in-app';
  return 'ok';
}

// ---- Extraction -----------------------------------------------------------------------------------

/** Links of a page body in document order (`{% file %}` blocks after the Markdown links). */
export const extractPageLinks = pageLinks;

// Bodies are immutable and addressed by the hash of their content (the same text has the same hash in
// every space), so extracted links are cached by body hash alone, without invalidation.
const extracted = new LRUCache<Hash, ExtractedLink[]>({ max: 100_000 });

// ---- Resolution ---------------------------------------------------------------------------------

type SnapshotLike = Pick<Snapshot, 'spaceId' | 'byId' | 'byPath' | 'ordered' | 'files' | 'filesById'>;
type File = FileNode & { hash?: Hash };

interface ResolverOptions {
  /** This platform's PUBLIC_URL: absolute URLs under it are `in-app`. */
  publicUrl: string;
}

export interface Resolver {
  resolve(url: string, from: TreePage): LinkTarget | null;
  /** The file of the space `url` names from page `from`, if it names one. */
  file(url: string, from: TreePage): File | undefined;
}

const SCHEME = /^[a-zA-Z][a-zA-Z0-9+.-]*:/;
const PAGE_REF = /^\/?pages\/([^/]+)\/?$/;
const FILE_REF = /^\/?files\/([^/]+)\/?$/;
const ASSETS = /(?:^|\/)\.gitbook\/assets\/(.+)$/;

/**
 * Where a root-absolute link (`/guide/setup.md`) of a git-synced page may point: GitBook resolves it
 * against the docs root (`.gitbook.yaml` `root`), and git paths are relative to the repository, so
 * the link is tried under each folder holding the page, outermost first (pages only exist under the
 * docs root, so the first folder where it names something is the docs root).
 */
function gitRootCandidates(fromGitPath: string, rootAbsolute: string): (string | null)[] {
  const dirs = dirname(fromGitPath).split('/').filter(Boolean);
  const out: (string | null)[] = [];
  for (let i = 0; i <= dirs.length; i++) out.push(joinRelative(dirs.slice(0, i).join('/'), rootAbsolute.replace(/^\/+/, '')));
  return out;
}

/** Join `rel` onto `baseDir` ('' = root); `/`-prefixed `rel` starts at the root. null above the root. */
export function joinRelative(baseDir: string, rel: string): string | null {
  const parts = rel.startsWith('/') || !baseDir ? [] : baseDir.split('/');
  for (const seg of rel.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (!parts.length) return null;
      parts.pop();
    } else parts.push(seg);
  }
  return parts.join('/');
}

function dirname(path: string): string {
  const cut = path.lastIndexOf('/');
  return cut < 0 ? '' : path.slice(0, cut);
}

/** `guide/README.md` → `guide`, `guide/setup.md` → `guide/setup`, others unchanged. */
function pagePath(path: string): string {
  const cut = path.lastIndexOf('/');
  const last = path.slice(cut + 1);
  if (/^readme\.md$/i.test(last)) return cut < 0 ? '' : path.slice(0, cut);
  return /\.md$/i.test(last) ? path.slice(0, -3) : path;
}

/** Directory a page's relative links start from: its own path when it has children, else its parent's. */
function linkBaseDir(page: TreePage): string {
  return page.children.length ? page.path : dirname(page.path);
}

/** Build a resolver for one revision (lookup tables are computed once, then every link is O(1)). */
export function createResolver(snap: SnapshotLike, opts: ResolverOptions): Resolver {
  const byGitPath = new Map<string, TreePage>();
  for (const p of snap.ordered) if (p.node.git?.path && !byGitPath.has(p.node.git.path)) byGitPath.set(p.node.git.path, p);
  const firstPage = snap.ordered.find((p) => p.node.type !== 'group');
  const filesByName = new Map<string, File>();
  const filesByGitPath = new Map<string, File>();
  for (const f of snap.files) {
    if (!filesByName.has(f.name)) filesByName.set(f.name, f);
    if (f.git?.path && !filesByGitPath.has(f.git.path)) filesByGitPath.set(f.git.path, f);
  }
  const base = new URL(opts.publicUrl);
  const basePath = base.pathname.replace(/\/+$/, '');
  const appPage = new RegExp(`^${escapeRe(basePath)}/app/s/([^/]+)/page/([^/?#]+)`);

  const absolute = (url: string): LinkTarget => {
    let parsed: URL | null = null;
    try {
      parsed = new URL(url.startsWith('//') ? `${base.protocol}${url}` : url);
    } catch {
      /* not parseable: an external URL as written */
    }
    const inApp = !!parsed && parsed.origin === base.origin && (parsed.pathname === basePath || parsed.pathname.startsWith(`${basePath}/`));
    const out: LinkTarget = { kind: 'url', url, inApp };
    if (inApp && parsed) {
      const m = appPage.exec(parsed.pathname);
      if (m && decodeOrKeep(m[1]) === snap.spaceId && snap.byId.has(decodeOrKeep(m[2]))) out.page = decodeOrKeep(m[2]);
    }
    return out;
  };

  const findPageBySlugPath = (path: string): TreePage | undefined => {
    if (path === '') return firstPage;
    return snap.byPath.get(path) ?? snap.byPath.get(path.split('/').map(slugify).join('/'));
  };

  const pageAtGitPath = (g: string | null): TreePage | undefined => {
    if (g === null) return undefined;
    const dir = g ? `${g}/` : '';
    return (g && (byGitPath.get(g) ?? byGitPath.get(`${g}.md`))) || byGitPath.get(`${dir}README.md`) || byGitPath.get(`${dir}readme.md`);
  };

  const findPage = (path: string, from: TreePage): TreePage | undefined => {
    const gitPath = from.node.git?.path;
    if (gitPath && byGitPath.size) {
      const hit = path.startsWith('/')
        ? gitRootCandidates(gitPath, path)
            .map(pageAtGitPath)
            .find((p) => p)
        : pageAtGitPath(joinRelative(dirname(gitPath), path));
      if (hit) return hit;
    }
    const joined = joinRelative(linkBaseDir(from), path);
    return joined === null ? undefined : findPageBySlugPath(pagePath(joined));
  };

  const findFile = (path: string, from: TreePage): File | undefined => {
    const candidates = [joinRelative(linkBaseDir(from), path)];
    const gitPath = from.node.git?.path;
    if (gitPath) candidates.unshift(...(path.startsWith('/') ? gitRootCandidates(gitPath, path) : [joinRelative(dirname(gitPath), path)]));
    for (const c of candidates) {
      const hit = c === null ? undefined : filesByGitPath.get(c);
      if (hit) return hit;
    }
    return filesByName.get(path.slice(path.lastIndexOf('/') + 1));
  };

  const resolver: Resolver = {
    file(url: string, from: TreePage) {
      const t = resolver.resolve(url, from);
      return t?.kind === 'file' ? snap.filesById.get(t.file) : undefined;
    },
    resolve(raw: string, from: TreePage): LinkTarget | null {
      const url = raw.trim();
      if (SCHEME.test(url) || url.startsWith('//')) return absolute(url);
      const hashAt = url.indexOf('#');
      const anchor = hashAt >= 0 ? decodeOrKeep(url.slice(hashAt + 1)) : '';
      let path = hashAt >= 0 ? url.slice(0, hashAt) : url;
      const queryAt = path.indexOf('?');
      if (queryAt >= 0) path = path.slice(0, queryAt);
      path = path.split('/').map(decodeOrKeep).join('/');
      if (path === '') return null; // `#anchor` or `?query`: the same page

      const broken: LinkTarget = { kind: 'broken', url };
      const withAnchor = (page: string): LinkTarget => (anchor ? { kind: 'page', page, anchor } : { kind: 'page', page });

      const assets = ASSETS.exec(path);
      if (assets) {
        const f = findFile(path, from) ?? filesByName.get(assets[1]);
        return f ? { kind: 'file', file: f.id } : broken;
      }
      const pageRef = PAGE_REF.exec(path);
      if (pageRef && snap.byId.has(pageRef[1])) return withAnchor(pageRef[1]);
      const fileRef = FILE_REF.exec(path);
      if (fileRef && snap.filesById.has(fileRef[1])) return { kind: 'file', file: fileRef[1] };

      const page = findPage(path, from);
      if (page) return withAnchor(page.node.id);
      const file = findFile(path, from);
      if (file) return { kind: 'file', file: file.id };
      return broken;
    },
  };
  return resolver;
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// ---- Index ----------------------------------------------------------------------------------------

interface LinkOccurrence {
  /** Id of the linking page. */
  source: string;
  relation: LinkRelation;
  target: LinkTarget;
}

/** One item of a link list: a target and every page that links to it that way. */
export interface LinkGroup {
  /** Identity: relation and resolved target (a broken target by its text). */
  key: string;
  /** Keyset order: target label (page path, file name or URL), relation, identity. */
  sortKey: [string, string, string];
  relation: LinkRelation;
  target: LinkTarget;
  status: LinkStatus;
  /** Linking page ids, each once, in tree order. */
  sources: string[];
}

export interface LinkIndex {
  spaceId: string;
  rootHash: Hash;
  /** Links of each page that has any, in document order (one entry per occurrence). */
  bySource: Map<string, LinkOccurrence[]>;
  /** Space-wide items. */
  groups: LinkGroup[];
  /** Page id → ids of the other pages linking to it (links, in-app URLs), tree order. */
  pageBacklinks: Map<string, string[]>;
  /** File id → ids of the pages linking to it or showing it, tree order. */
  fileBacklinks: Map<string, string[]>;
  /** Items of one page, computed on first request. */
  pageGroups(pageId: string): LinkGroup[];
}

function targetKey(t: LinkTarget): string {
  switch (t.kind) {
    case 'page':
      return t.anchor ? `page:${t.page}#${t.anchor}` : `page:${t.page}`;
    case 'file':
      return `file:${t.file}`;
    case 'url':
      return `url:${t.url}`;
    case 'broken':
      return `broken:${t.url}`;
  }
}

function targetLabel(t: LinkTarget, snap: SnapshotLike): string {
  switch (t.kind) {
    case 'page': {
      const p = snap.byId.get(t.page);
      return `${p?.path ?? ''}${t.anchor ? `#${t.anchor}` : ''}`;
    }
    case 'file':
      return snap.filesById.get(t.file)?.name ?? '';
    default:
      return t.url;
  }
}

/** Group occurrences into items (see the header); `order` gives each page's tree position. */
function groupLinks(occurrences: LinkOccurrence[], snap: SnapshotLike, order: Map<string, number>): LinkGroup[] {
  const groups = new Map<string, LinkGroup>();
  const seen = new Map<string, Set<string>>();
  for (const o of occurrences) {
    const key = `${o.relation}\n${targetKey(o.target)}`;
    let g = groups.get(key);
    let sources = seen.get(key);
    if (!g || !sources) {
      g = {
        key,
        sortKey: [targetLabel(o.target, snap), o.relation, key],
        relation: o.relation,
        target: o.target,
        status: linkStatus(o.target),
        sources: [],
      };
      groups.set(key, g);
      seen.set(key, (sources = new Set()));
    }
    if (!sources.has(o.source)) {
      sources.add(o.source);
      g.sources.push(o.source);
    }
  }
  const pos = (id: string) => order.get(id) ?? Number.MAX_SAFE_INTEGER;
  for (const g of groups.values()) g.sources.sort((a, b) => pos(a) - pos(b));
  return [...groups.values()];
}

/**
 * Resolve every link of a revision. `linksOf` returns a page's extracted links (cached by body hash
 * in `loadLinkIndex`); everything else is in memory, so this is pure.
 */
export function buildLinkIndex(
  snap: SnapshotLike & { rootHash: Hash },
  linksOf: (page: TreePage) => ExtractedLink[],
  opts: ResolverOptions,
): LinkIndex {
  const resolver = createResolver(snap, opts);
  const order = new Map(snap.ordered.map((p, i) => [p.node.id, i]));
  const bySource = new Map<string, LinkOccurrence[]>();
  const pageBacklinks = new Map<string, string[]>();
  const fileBacklinks = new Map<string, string[]>();
  const add = (map: Map<string, string[]>, target: string, source: string) => {
    const list = map.get(target);
    if (!list) map.set(target, [source]);
    else if (list[list.length - 1] !== source) list.push(source); // sources arrive in tree order
  };
  const all: LinkOccurrence[] = [];
  for (const page of snap.ordered) {
    if (!page.node.body) continue;
    const occ: LinkOccurrence[] = [];
    for (const l of linksOf(page)) {
      const target = resolver.resolve(l.url, page);
      if (!target) continue;
      occ.push({ source: page.node.id, relation: l.relation, target });
      const linked = target.kind === 'page' || target.kind === 'url' ? target.page : undefined;
      if (linked && linked !== page.node.id) add(pageBacklinks, linked, page.node.id);
      if (target.kind === 'file') add(fileBacklinks, target.file, page.node.id);
    }
    if (occ.length) {
      bySource.set(page.node.id, occ);
      all.push(...occ);
    }
  }
  const perPage = new Map<string, LinkGroup[]>();
  return {
    spaceId: snap.spaceId,
    rootHash: snap.rootHash,
    bySource,
    groups: groupLinks(all, snap, order),
    pageBacklinks,
    fileBacklinks,
    pageGroups(pageId) {
      let g = perPage.get(pageId);
      if (!g) perPage.set(pageId, (g = groupLinks(bySource.get(pageId) ?? [], snap, order)));
      return g;
    },
  };
}

export interface LinkStats {
  total: number;
  broken: { total: number; changeRequest: number };
}

/**
 * `stats` of a link list. `baseline` (the revision a change request started from) makes
 * `broken.changeRequest` count the broken items that a page links to in `groups` but did not in
 * the baseline; main content has no baseline, so 0.
 */
export function linkStats(groups: LinkGroup[], baseline?: LinkGroup[]): LinkStats {
  const broken = groups.filter((g) => g.status === 'broken');
  let changeRequest = 0;
  if (baseline) {
    const before = new Map(baseline.filter((g) => g.status === 'broken').map((g) => [g.key, new Set(g.sources)]));
    changeRequest = broken.filter((g) => {
      const had = before.get(g.key);
      return !had || g.sources.some((s) => !had.has(s));
    }).length;
  }
  return { total: groups.length, broken: { total: broken.length, changeRequest } };
}

// Snapshots are immutable, so an index depends only on (PUBLIC_URL, space, root hash): cached without
// invalidation. Concurrent first requests for one revision share one build.
const indexes = new LRUCache<string, LinkIndex>({ max: 32 });
const building = new Map<string, Promise<LinkIndex>>();

/**
 * Links of many bodies, one array per body in order, null for a body that ran out of time (the
 * Markdown pool's `linksOrTimedOut`, off the event loop): such a body counts as linking nowhere in
 * this build, but nothing is stored or cached for it, so a later build parses it again.
 */
type LinkExtractor = (markdowns: string[]) => Promise<(ExtractedLink[] | null)[]>;

/** Bodies parsed per step of a build; each step's links are stored before the next begins. */
const EXTRACT_CHUNK = 200;

const toStored = (links: ExtractedLink[]): StoredLinks => links.map((l) => [l.url, l.relation]);
const fromStored = (links: StoredLinks): ExtractedLink[] => links.map(([url, relation]) => ({ url, relation }));

/**
 * The links of every body of a revision, by body hash. Each body is parsed at most once per space:
 * its links are stored (link_extracts) as soon as its chunk is parsed, so a build that stops half-way
 * (a request that gave up, a worker that died) keeps what it did, and two builders of one revision
 * (the `links.index` job and a reader) share their work: before each chunk is parsed, the rows the
 * other stored meanwhile are read instead. Linear: one read of the stored rows, then one parse per
 * missing body.
 */
async function bodyLinks(
  db: Queryable,
  snap: Snapshot,
  extract: LinkExtractor,
): Promise<{ local: Map<Hash, ExtractedLink[]>; complete: boolean }> {
  // Taken out of the shared cache first: another build may evict entries while this one waits.
  const local = new Map<Hash, ExtractedLink[]>();
  const missing = new Set<Hash>();
  for (const p of snap.ordered) {
    const h = p.node.body;
    if (!h || local.has(h)) continue;
    const cached = extracted.get(h);
    if (cached) local.set(h, cached);
    else missing.add(h);
  }
  const take = (stored: Map<Hash, StoredLinks>) => {
    for (const [h, links] of stored) {
      const l = fromStored(links);
      local.set(h, l);
      extracted.set(h, l);
      missing.delete(h);
    }
  };
  if (missing.size) take(await selectLinkExtracts(db, snap.spaceId, [...missing]));
  const todo = [...missing];
  for (let i = 0; i < todo.length; i += EXTRACT_CHUNK) {
    let chunk = todo.slice(i, i + EXTRACT_CHUNK);
    if (i > 0) {
      take(await selectLinkExtracts(db, snap.spaceId, chunk));
      chunk = chunk.filter((h) => missing.has(h));
      if (!chunk.length) continue;
    }
    const objs = [...(await getObjects(db, snap.spaceId, chunk))];
    const links = await extract(objs.map(([, obj]) => (obj as BodyNode).markdown));
    const done: [Hash, StoredLinks][] = [];
    objs.forEach(([h], k) => {
      const l = links[k];
      local.set(h, l ?? []);
      if (!l) return; // ran out of time: parsed again by the next build
      extracted.set(h, l);
      missing.delete(h);
      done.push([h, toStored(l)]);
    });
    await insertLinkExtracts(db, snap.spaceId, done);
  }
  return { local, complete: missing.size === 0 };
}

/**
 * Store the links of every body of a revision (the `links.index` job) and mark its root indexed;
 * a root already marked is left as it is. Returns what the revision holds.
 */
export async function indexRevisionLinks(
  db: Queryable,
  snap: Snapshot,
  extract: LinkExtractor,
): Promise<{ bodies: number; links: number; already: boolean }> {
  if (await isRootIndexed(db, snap.spaceId, snap.rootHash)) {
    return { bodies: -1, links: -1, already: true };
  }
  const { local, complete } = await bodyLinks(db, snap, extract);
  // A body that ran out of time (a busy machine) fails the attempt: the job is retried later.
  if (!complete) throw new Error(`Some page bodies of revision root ${snap.rootHash} could not be parsed in time`);
  let links = 0;
  for (const p of snap.ordered) if (p.node.body) links += local.get(p.node.body)?.length ?? 0;
  await markRootIndexed(db, snap.spaceId, snap.rootHash, { bodies: local.size, links });
  return { bodies: local.size, links, already: false };
}

/**
 * The link index of a revision: the stored links of its bodies (built ahead by the `links.index`
 * job) resolved against the revision, in memory; bodies not stored yet are parsed here once (and
 * stored). A caller with a time bound races this promise: the build goes on after it gave up, so the
 * work is kept (src/services/links.ts).
 */
export async function loadLinkIndex(db: Queryable, snap: Snapshot, opts: ResolverOptions, extract: LinkExtractor): Promise<LinkIndex> {
  const key = `${opts.publicUrl}\n${snap.spaceId}:${snap.rootHash}`;
  const hit = indexes.get(key);
  if (hit) return hit;
  let pending = building.get(key);
  if (!pending) {
    pending = (async () => {
      const { local, complete } = await bodyLinks(db, snap, extract);
      const index = buildLinkIndex(snap, (p) => local.get(p.node.body!) ?? [], opts);
      if (complete) indexes.set(key, index); // else answered once, built again by the next read
      return index;
    })().finally(() => building.delete(key));
    building.set(key, pending);
  }
  return pending;
}

/** The in-memory index of a revision when this process holds it (no wait, no read). */
export function cachedLinkIndex(snap: Snapshot, opts: ResolverOptions): LinkIndex | undefined {
  return indexes.get(`${opts.publicUrl}\n${snap.spaceId}:${snap.rootHash}`);
}
