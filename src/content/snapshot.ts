import { LRUCache } from 'lru-cache';
import type { Queryable } from '../db/pool.js';
import { getObjects, getObject } from './objects.js';
import type { BodyNode, FileNode, Hash, PageNode, RootNode } from './types.js';

/** A page of a loaded revision: its stored node plus where it sits. Bodies are not loaded. */
export interface TreePage {
  node: PageNode;
  hash: Hash;
  parentId: string | null;
  /** Slash-joined slugs of the document ancestors and this page (groups add no segment). */
  path: string;
  /** Titles of the ancestors, top-level first. */
  ancestors: string[];
  children: TreePage[];
}

export interface Snapshot {
  spaceId: string;
  rootHash: Hash;
  root: RootNode;
  pages: TreePage[];
  byId: Map<string, TreePage>;
  byPath: Map<string, TreePage>;
  /** Every page in tree order (depth first). */
  ordered: TreePage[];
  files: (FileNode & { hash: Hash })[];
  filesById: Map<string, FileNode & { hash: Hash }>;
}

// A snapshot depends only on (space, root hash): immutable, so cached without invalidation.
const snapshots = new LRUCache<string, Snapshot>({ max: 64 });
// The snapshot of each space read last: a new revision's snapshot is built from it, sharing every
// subtree that did not change (same page hash in the same place), so that only the changed paths
// are loaded and built. Bounded like the snapshots (they are mostly the same objects).
const latest = new LRUCache<string, Snapshot>({ max: 64 });

/**
 * Load the page tree and file list of a revision root: one query per tree level for objects not
 * already cached, never touching page bodies or the revision history. The TreePage of a subtree
 * that the space's previously read snapshot has in the same place (same page hash, same parent,
 * same path and ancestors: then every page below is the same too) is that snapshot's own object,
 * shared: TreePages are never modified once built.
 */
export async function loadSnapshot(db: Queryable, spaceId: string, rootHash: Hash): Promise<Snapshot> {
  const key = `${spaceId}:${rootHash}`;
  let snap = snapshots.get(key);
  if (!snap) {
    snap = await buildSnapshot(db, spaceId, rootHash, latest.get(spaceId));
    snapshots.set(key, snap);
  }
  latest.set(spaceId, snap);
  return snap;
}

/** Build the snapshot of a revision root (no snapshot cache), sharing the unchanged subtrees of `previous`. */
export async function buildSnapshot(db: Queryable, spaceId: string, rootHash: Hash, previous?: Snapshot): Promise<Snapshot> {
  const root = await getObject<RootNode>(db, spaceId, rootHash);
  const reusable = previous && previous.spaceId === spaceId ? reuseFrom(previous) : () => undefined;

  // Fetch level by level, reusing what the previous snapshot has in the same place.
  const top: TreePage[] = [];
  let level: { hash: Hash; parent: TreePage | null; list: TreePage[] }[] = root.pages.map((hash) => ({ hash, parent: null, list: top }));
  while (level.length) {
    const reused = level.map((l) => reusable(l.hash, l.parent));
    const missing = level.filter((_, i) => !reused[i]).map((l) => l.hash);
    const objs = missing.length ? await getObjects(db, spaceId, missing) : new Map();
    const next: typeof level = [];
    level.forEach((l, i) => {
      const shared = reused[i];
      if (shared) {
        l.list.push(shared);
        return;
      }
      const node = objs.get(l.hash) as PageNode;
      const page: TreePage = {
        node,
        hash: l.hash,
        parentId: l.parent?.node.id ?? null,
        path: joinPath(childBase(l.parent), node.slug),
        ancestors: l.parent ? [...l.parent.ancestors, l.parent.node.title] : [],
        children: [],
      };
      l.list.push(page);
      for (const c of node.children) next.push({ hash: c, parent: page, list: page.children });
    });
    level = next;
  }
  // The indexes, in the order a level-by-level walk meets the pages (on equal paths, the page
  // nearest the top wins), and every page in tree order.
  const byId = new Map<string, TreePage>();
  const byPath = new Map<string, TreePage>();
  for (let lvl = top; lvl.length;) {
    const below: TreePage[] = [];
    for (const page of lvl) {
      byId.set(page.node.id, page);
      if (page.node.type !== 'group' && !byPath.has(page.path)) byPath.set(page.path, page);
      for (const c of page.children) below.push(c);
    }
    lvl = below;
  }
  const fileObjs = root.files.length ? await getObjects(db, spaceId, root.files) : new Map();
  const files = root.files.map((h) => ({ ...(fileObjs.get(h) as FileNode), hash: h }));
  const ordered: TreePage[] = [];
  const walk = (list: TreePage[]) => {
    for (const p of list) {
      ordered.push(p);
      walk(p.children);
    }
  };
  walk(top);
  return {
    spaceId,
    rootHash,
    root,
    pages: top,
    byId,
    byPath,
    ordered,
    files,
    filesById: new Map(files.map((f) => [f.id, f])),
  };
}

/**
 * The previous snapshot's TreePage that can stand for the page of hash `hash` under `parent` (null:
 * top level) in a new snapshot, if any: one of the children of the previous version of that
 * parent (a moved page is built anew) with the same hash (node, body and children), parent, path
 * and ancestors' titles, so that everything it and its subtree hold is what a fresh build gives.
 */
function reuseFrom(previous: Snapshot): (hash: Hash, parent: TreePage | null) => TreePage | undefined {
  const byParent = new Map<TreePage[], Map<Hash, TreePage>>();
  return (hash, parent) => {
    const siblings = parent ? previous.byId.get(parent.node.id)?.children : previous.pages;
    if (!siblings?.length) return undefined;
    let byHash = byParent.get(siblings);
    if (!byHash) {
      byHash = new Map(siblings.map((p) => [p.hash, p]));
      byParent.set(siblings, byHash);
    }
    const p = byHash.get(hash);
    if (!p || p.parentId !== (parent?.node.id ?? null) || p.path !== joinPath(childBase(parent), p.node.slug)) return undefined;
    const ancestors = parent ? parent.ancestors.length + 1 : 0;
    if (p.ancestors.length !== ancestors) return undefined;
    for (let i = 0; i < ancestors - 1; i++) if (p.ancestors[i] !== parent!.ancestors[i]) return undefined;
    if (parent && p.ancestors[ancestors - 1] !== parent.node.title) return undefined;
    return p;
  };
}

/** Where the children of a page (null: the top level) have their paths. */
function childBase(parent: TreePage | null): string {
  return parent ? (parent.node.type === 'group' ? groupBase(parent) : parent.path) : '';
}

/** Children of a group sit at the group's parent's path. */
function groupBase(group: TreePage): string {
  const cut = group.path.lastIndexOf('/');
  return cut < 0 ? '' : group.path.slice(0, cut);
}

function joinPath(parent: string, slug: string): string {
  return parent ? `${parent}/${slug}` : slug;
}

export async function loadBody(db: Queryable, spaceId: string, page: PageNode): Promise<string> {
  if (!page.body) return '';
  return (await getObject<BodyNode>(db, spaceId, page.body)).markdown;
}

/** Bodies of many pages at once (search indexing, PDF, export). */
export async function loadBodies(db: Queryable, spaceId: string, pages: PageNode[]): Promise<Map<string, string>> {
  const hashes = pages.map((p) => p.body).filter((h): h is Hash => !!h);
  const objs = hashes.length ? await getObjects(db, spaceId, hashes) : new Map();
  return new Map(pages.map((p) => [p.id, p.body ? (objs.get(p.body) as BodyNode).markdown : '']));
}
