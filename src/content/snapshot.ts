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
  const siblings = new SiblingLookup();

  // Fetch level by level, reusing what the previous snapshot has in the same place: `was` is the
  // list of the previous snapshot at that place (the children of the previous version of the parent).
  const top: TreePage[] = [];
  type Entry = { hash: Hash; parent: TreePage | null; list: TreePage[]; was: TreePage[] | undefined };
  const was = previous && previous.spaceId === spaceId ? previous.pages : undefined;
  let level: Entry[] = root.pages.map((hash) => ({ hash, parent: null, list: top, was }));
  while (level.length) {
    const reused = level.map((l) => (l.was ? reusable(siblings.byHash(l.was).get(l.hash), l.parent) : undefined));
    const missing = level.filter((_, i) => !reused[i]).map((l) => l.hash);
    const objs = missing.length ? await getObjects(db, spaceId, missing) : new Map();
    const next: Entry[] = [];
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
      // The previous version of this page, where it was (a moved page is built anew).
      const before = l.was ? siblings.byId(l.was).get(node.id)?.children : undefined;
      for (const c of node.children) next.push({ hash: c, parent: page, list: page.children, was: before });
    });
    level = next;
  }
  const fileObjs = root.files.length ? await getObjects(db, spaceId, root.files) : new Map();
  const files = root.files.map((h) => ({ ...(fileObjs.get(h) as FileNode), hash: h }));
  return new TreeSnapshot(spaceId, rootHash, root, top, files);
}

/**
 * A snapshot whose indexes are made on first use: a tree read after a new revision only needs
 * the tree, a merge or an edit only some of them.
 */
class TreeSnapshot implements Snapshot {
  readonly filesById: Map<string, FileNode & { hash: Hash }>;
  private ids?: Map<string, TreePage>;
  private paths?: Map<string, TreePage>;
  private inOrder?: TreePage[];

  constructor(
    readonly spaceId: string,
    readonly rootHash: Hash,
    readonly root: RootNode,
    readonly pages: TreePage[],
    readonly files: (FileNode & { hash: Hash })[],
  ) {
    this.filesById = new Map(files.map((f) => [f.id, f]));
  }

  get byId(): Map<string, TreePage> {
    if (!this.ids) {
      const byId = new Map<string, TreePage>();
      this.levels((page) => byId.set(page.node.id, page));
      this.ids = byId;
    }
    return this.ids;
  }

  /** On equal paths, the page nearest the top wins. */
  get byPath(): Map<string, TreePage> {
    if (!this.paths) {
      const byPath = new Map<string, TreePage>();
      this.levels((page) => {
        if (page.node.type !== 'group' && !byPath.has(page.path)) byPath.set(page.path, page);
      });
      this.paths = byPath;
    }
    return this.paths;
  }

  /** Every page in tree order (depth first). */
  get ordered(): TreePage[] {
    if (!this.inOrder) {
      const ordered: TreePage[] = [];
      const walk = (list: TreePage[]) => {
        for (const p of list) {
          ordered.push(p);
          walk(p.children);
        }
      };
      walk(this.pages);
      this.inOrder = ordered;
    }
    return this.inOrder;
  }

  /** Every page in the order a level-by-level walk meets them (the order the indexes are filled in). */
  private levels(visit: (page: TreePage) => void) {
    for (let lvl = this.pages; lvl.length;) {
      const below: TreePage[] = [];
      for (const page of lvl) {
        visit(page);
        for (const c of page.children) below.push(c);
      }
      lvl = below;
    }
  }
}

/** Pages of sibling lists by hash and by id, made once per list for one build. */
class SiblingLookup {
  private readonly hashes = new Map<TreePage[], Map<Hash, TreePage>>();
  private readonly ids = new Map<TreePage[], Map<string, TreePage>>();

  byHash(list: TreePage[]): Map<Hash, TreePage> {
    let m = this.hashes.get(list);
    if (!m) this.hashes.set(list, (m = new Map(list.map((p) => [p.hash, p]))));
    return m;
  }

  byId(list: TreePage[]): Map<string, TreePage> {
    let m = this.ids.get(list);
    if (!m) this.ids.set(list, (m = new Map(list.map((p) => [p.node.id, p]))));
    return m;
  }
}

/**
 * Whether a page of the previous snapshot, found with the same hash (node, body and children) in
 * the same list, can stand for the page under `parent` (null: top level) in a new snapshot: same
 * parent, path and ancestors' titles, so that everything it and its subtree hold is what a fresh
 * build gives.
 */
function reusable(p: TreePage | undefined, parent: TreePage | null): TreePage | undefined {
  if (!p || p.parentId !== (parent?.node.id ?? null) || p.path !== joinPath(childBase(parent), p.node.slug)) return undefined;
  const depth = parent ? parent.ancestors.length + 1 : 0;
  if (p.ancestors.length !== depth) return undefined;
  for (let i = 0; i < depth - 1; i++) if (p.ancestors[i] !== parent!.ancestors[i]) return undefined;
  if (parent && p.ancestors[depth - 1] !== parent.node.title) return undefined;
  return p;
}

/** Where the children of a page (null: the top level) have their paths. */
function childBase(parent: TreePage | null): string {
  return parent ? (parent.node.type === 'group' ? groupBase(parent) : parent.path) : '';
}

/** The snapshot of a revision root when this process has it at hand (nothing is read). */
export function cachedSnapshot(spaceId: string, rootHash: Hash): Snapshot | undefined {
  return snapshots.get(`${spaceId}:${rootHash}`);
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
