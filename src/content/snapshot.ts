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

/**
 * Load the page tree and file list of a revision root: one query per tree level for objects not
 * already cached, never touching page bodies or the revision history.
 */
export async function loadSnapshot(db: Queryable, spaceId: string, rootHash: Hash): Promise<Snapshot> {
  const key = `${spaceId}:${rootHash}`;
  const hit = snapshots.get(key);
  if (hit) return hit;
  const root = await getObject<RootNode>(db, spaceId, rootHash);
  const byId = new Map<string, TreePage>();
  const byPath = new Map<string, TreePage>();

  // Fetch level by level.
  const top: TreePage[] = [];
  let level: { hash: Hash; parent: TreePage | null; list: TreePage[] }[] = root.pages.map((hash) => ({ hash, parent: null, list: top }));
  while (level.length) {
    const objs = await getObjects(
      db,
      spaceId,
      level.map((l) => l.hash),
    );
    const next: typeof level = [];
    for (const l of level) {
      const node = objs.get(l.hash) as PageNode;
      const parentPath = l.parent ? (l.parent.node.type === 'group' ? groupBase(l.parent) : l.parent.path) : '';
      const page: TreePage = {
        node,
        hash: l.hash,
        parentId: l.parent?.node.id ?? null,
        path: joinPath(parentPath, node.slug),
        ancestors: l.parent ? [...l.parent.ancestors, l.parent.node.title] : [],
        children: [],
      };
      l.list.push(page);
      byId.set(node.id, page);
      if (node.type !== 'group' && !byPath.has(page.path)) byPath.set(page.path, page);
      for (const c of node.children) next.push({ hash: c, parent: page, list: page.children });
    }
    level = next;
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
  const snap: Snapshot = {
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
  snapshots.set(key, snap);
  return snap;
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
