// API shapes of content (Revision, pages, File) from stored objects, per the public description.
import { LRUCache } from 'lru-cache';
import type { AppContext } from '../context.js';
import type { RevisionRow } from '../db/repos/revisions.js';
import type { Snapshot, TreePage } from '../content/snapshot.js';
import type { FileNode } from '../content/types.js';
import { fileDownloadUrl, pageAppUrl } from '../content/present.js';
import { ByteParts } from '../util/byte-parts.js';

export interface ReadOptions {
  /** false omits mutable git metadata. */
  metadata: boolean;
  /** false returns computed pages as their source instead of their result. */
  computed: boolean;
}

const LAYOUT_DEFAULTS = {
  width: 'default',
  cover: false,
  coverSize: 'full',
  coverMask: 'none',
  title: true,
  description: true,
  tableOfContents: true,
  outline: true,
  pagination: true,
  metadata: true,
  tags: true,
  actions: true,
  anchors: true,
};

/** A page of a tree listing (no body: `documentId` names it); `kids` shapes its subpages. */
export function toTreePage(
  app: AppContext,
  spaceId: string,
  tp: TreePage,
  o: ReadOptions,
  kids: () => unknown[] = () => tp.children.map((c) => toTreePage(app, spaceId, c, o)),
): Record<string, unknown> {
  const n = tp.node;
  const base: Record<string, unknown> = { id: n.id, title: n.title };
  if (n.linkTitle) base.linkTitle = n.linkTitle;
  if (n.emoji) base.emoji = n.emoji;
  if (n.icon) base.icon = n.icon;
  base.createdAt = n.createdAt;
  base.updatedAt = n.updatedAt;
  if (n.type === 'group') {
    return { ...base, kind: 'group', type: 'group', slug: n.slug, path: tp.path, ...(n.hidden ? { hidden: true } : {}), pages: kids() };
  }
  if (n.type === 'link') {
    return {
      ...base,
      kind: 'link',
      type: 'link',
      target: n.target ?? { kind: 'url', url: n.href ?? '' },
      ...(n.href ? { href: n.href } : {}),
      ...(n.hidden ? { hidden: true } : {}),
    };
  }
  if (n.type === 'computed' && !o.computed) {
    return { ...base, type: 'computed', computed: n.computed, ...(n.computedSeed ? { computedSeed: n.computedSeed } : {}) };
  }
  const page: Record<string, unknown> = {
    ...base,
    kind: 'sheet',
    type: 'document',
    urls: { app: pageAppUrl(app, spaceId, n) },
    slug: n.slug,
    path: tp.path,
    ...(n.description ? { description: n.description } : {}),
    pages: kids(),
    layout: { ...LAYOUT_DEFAULTS, ...(n.layout ?? {}) },
    tags: [],
    ...(n.cover ? { cover: n.cover } : {}),
    ...(n.variables ? { variables: n.variables } : {}),
    ...(n.hidden ? { hidden: true } : {}),
    ...(n.noIndex ? { noIndex: true } : {}),
    ...(n.noRobotsIndex ? { noRobotsIndex: true } : {}),
    ...(o.metadata && n.git ? { git: n.git } : {}),
  };
  if (n.type === 'computed') {
    page.computed = n.computed;
    page.computedSeed = n.computedSeed ?? n.id;
  } else if (n.body) {
    page.documentId = n.body;
  }
  return page;
}

// The JSON of a page with its subtree depends only on the space, the server's public URL, the
// options, the page's path (its subpages' paths follow from it) and its hash (its node, body and
// subpages' hashes): cached under those, so that the tree of a new revision is serialized anew only
// along the paths that changed, the rest being spliced from the previous revisions' subtrees.
// Subpages are cached as text (their parent's text joins them); the pages of the top level as
// UTF-8 bytes, what a response is made of (outside the JavaScript heap). Both bounded by size.
const subtreeJson = new LRUCache<string, string>({ maxSize: 64 * 1024 * 1024, sizeCalculation: (json, key) => json.length + key.length });
const topBytes = new LRUCache<string, Buffer>({ maxSize: 128 * 1024 * 1024, sizeCalculation: (bytes, key) => bytes.length + key.length });

function subtreeKey(app: AppContext, spaceId: string, o: ReadOptions): (tp: TreePage) => string {
  const prefix = `${app.config.publicUrl}\n${spaceId}\n${o.metadata ? 1 : 0}${o.computed ? 1 : 0}\n`;
  return (tp) => `${prefix}${tp.path}\n${tp.hash}`;
}

/** The JSON text of `toTreePage(app, spaceId, tp, o)`, its subpages from the cache; cached itself when `keep`. */
function subtreeText(app: AppContext, spaceId: string, tp: TreePage, o: ReadOptions, key: (tp: TreePage) => string, keep: boolean): string {
  const k = key(tp);
  let json = subtreeJson.get(k);
  if (json === undefined) {
    json = JSON.stringify(toTreePage(app, spaceId, tp, o, () => []));
    // Every value before `pages` is a string (quotes escaped) or an object of strings, so the
    // first `"pages":[]` is the key itself.
    const at = json.indexOf(EMPTY_PAGES);
    if (at >= 0 && tp.children.length) {
      const close = at + EMPTY_PAGES.length - 1;
      const kids = tp.children.map((c) => subtreeText(app, spaceId, c, o, key, true));
      json = `${json.slice(0, close)}${kids.join(',')}${json.slice(close)}`;
    }
    if (keep) subtreeJson.set(k, json);
  }
  return json;
}
const EMPTY_PAGES = '"pages":[]';

/**
 * The JSON of `pages.map((p) => toTreePage(app, spaceId, p, o))` as UTF-8 bytes, between `head`
 * and `tail`, as the parts a response writes one after the other: the cached pages of the top level by reference, not copied into one buffer (see
 * src/util/byte-parts.ts), small ones joined.
 */
export function treePagesParts(app: AppContext, spaceId: string, pages: TreePage[], o: ReadOptions, head: string, tail: string): Buffer[] {
  const key = subtreeKey(app, spaceId, o);
  const parts = new ByteParts().push(Buffer.from(`${head}[`));
  pages.forEach((tp, i) => {
    const k = key(tp);
    let bytes = topBytes.get(k);
    if (!bytes) {
      bytes = Buffer.from(subtreeText(app, spaceId, tp, o, key, false));
      topBytes.set(k, bytes);
    }
    if (i) parts.push(COMMA);
    parts.push(bytes);
  });
  return parts.push(Buffer.from(`]${tail}`)).done();
}
const COMMA = Buffer.from(',');

export function toFile(app: AppContext, f: FileNode, o: ReadOptions) {
  return {
    id: f.id,
    name: f.name,
    contentType: f.contentType,
    downloadURL: fileDownloadUrl(app, f),
    size: f.size,
    ...(f.dimensions ? { dimensions: f.dimensions } : {}),
    ...(o.metadata && f.git ? { git: f.git } : {}),
  };
}

export function toRevision(app: AppContext, spaceId: string, rev: RevisionRow, snap: Snapshot, o: ReadOptions, pages?: unknown[]) {
  return {
    object: 'revision',
    id: rev.id,
    type: rev.type,
    parents: rev.parents,
    pages: pages ?? snap.pages.map((p) => toTreePage(app, spaceId, p, o)),
    files: snap.files.map((f) => toFile(app, f, o)),
    reusableContents: snap.root.reusableContents.map((r) => ({ id: r.id, title: r.title, ...(o.metadata && r.git ? { git: r.git } : {}) })),
    tags: [],
    variables: snap.root.variables,
    createdAt: rev.created_at.toISOString(),
    // 0.202.0's GitSyncCommit requires createdByGitBook (revisions from before it say nothing: false).
    ...(o.metadata && rev.git ? { git: { createdByGitBook: false, ...rev.git } } : {}),
    urls: { app: `${app.config.publicUrl}/app/s/${spaceId}/revisions/${rev.id}` },
  };
}

/** The JSON of `toRevision` as UTF-8 bytes in parts (its `pages` the cached subtrees: see treePagesParts). */
export function toRevisionParts(app: AppContext, spaceId: string, rev: RevisionRow, snap: Snapshot, o: ReadOptions): Buffer[] {
  const json = JSON.stringify(toRevision(app, spaceId, rev, snap, o, []));
  // `pages` follows object, id, type and parents (strings): the first `"pages":[]` is it.
  const at = json.indexOf(EMPTY_PAGES);
  return treePagesParts(app, spaceId, snap.pages, o, `${json.slice(0, at)}"pages":`, json.slice(at + EMPTY_PAGES.length));
}
