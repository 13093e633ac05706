import type { Queryable } from '../db/pool.js';
import { newId } from '../util/ids.js';
import { bodyJson, canonicalJson, hashJson, putObjects } from './objects.js';
import type { Snapshot, TreePage } from './snapshot.js';
import type { ContentObject, FileNode, Hash, PageNode, PageType, ReusableContent, RootNode } from './types.js';
import { slugify } from './markdown.js';

/** Editable fields of a page (everything but its place in the tree and its children). */
export interface PageFields {
  title?: string;
  linkTitle?: string | null;
  type?: PageType;
  slug?: string;
  emoji?: string | null;
  icon?: string | null;
  description?: string | null;
  hidden?: boolean;
  noIndex?: boolean;
  noRobotsIndex?: boolean;
  layout?: Record<string, unknown> | null;
  cover?: Record<string, unknown> | null;
  variables?: Record<string, string> | null;
  computed?: PageNode['computed'] | null;
  computedSeed?: string | null;
  target?: PageNode['target'] | null;
  href?: string | null;
  git?: PageNode['git'] | null;
  /** New body; '' empties the page. */
  markdown?: string;
}

/** Page fields set by `assign` (slug has its own uniqueness rules; markdown becomes the body). */
export const ASSIGNABLE_FIELDS = [
  'title',
  'linkTitle',
  'type',
  'emoji',
  'icon',
  'description',
  'hidden',
  'noIndex',
  'noRobotsIndex',
  'layout',
  'cover',
  'variables',
  'computed',
  'computedSeed',
  'target',
  'href',
  'git',
] as const satisfies readonly (keyof PageNode & keyof PageFields)[];

interface MPage {
  /**
   * The page's fields. While `shared`, the very node of the source page (its `children` hashes
   * included, which nothing reads here): made pages are mostly the unchanged siblings of a changed
   * one, so they are copied only when written (`writable`).
   */
  node: Omit<PageNode, 'children'>;
  shared?: boolean;
  /** New body text not yet hashed. */
  markdown?: string;
  /** Subpages; null until first needed, then made from `tree`'s (see `kids`). */
  children: MPage[] | null;
  /** The page of the source revision this one was made from. */
  tree?: TreePage;
  parent: MPage | null;
  /** Hash of the unchanged stored node; undefined once the page or its subtree changed. */
  hash?: Hash;
}

export class DraftError extends Error {
  constructor(
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

/**
 * A mutable view of a revision. Edits mark the page and its ancestors dirty; `commit` hashes only
 * those, so a change to one page of a large space writes a handful of objects and shares the rest.
 * The editable tree is made lazily from the source revision: the top level, then a page's
 * subpages when something reaches them, so an edit of a large space costs what it touches.
 */
export class Draft {
  private top: MPage[] = [];
  /** The pages made so far (a page of the source not here, nor in `gone`, is where the source has it). */
  private readonly byId = new Map<string, MPage>();
  /** Pages of the source deleted by this draft. */
  private readonly gone = new Set<string>();
  private files: (FileNode & { hash?: Hash })[] = [];
  private reusableContents: ReusableContent[] = [];
  private variables: Record<string, string> = {};
  private redirects: Record<string, string> = {};
  private rootDirty = false;
  /** The revision content the draft starts from: `base`, unless `reset` replaced it. */
  private source: Snapshot | null;
  /**
   * Whether the editable tree of `source` is built. It is built on first use, so a draft committed
   * as it is (a fast-forward, a write that changes nothing) never pays for a large space's tree.
   */
  private built = false;
  private readonly now = new Date().toISOString();
  /** Pages touched by this draft (inserted, updated, moved or deleted): for incremental indexing. */
  readonly touched = new Set<string>();

  /** `baseRevisionId`: the revision `base` was loaded from, the new revision's parent. */
  constructor(
    readonly base: Snapshot | null,
    readonly baseRevisionId?: string,
  ) {
    this.source = base;
  }

  private ensureBuilt() {
    if (this.built) return;
    this.built = true;
    const from = this.source;
    this.top = from ? from.pages.map((p) => this.make(p, null)) : [];
    this.files = from ? from.files.map((f) => ({ ...f })) : [];
    this.reusableContents = from ? [...from.root.reusableContents] : [];
    this.variables = from ? { ...from.root.variables } : {};
    this.redirects = from ? { ...(from.root.redirects ?? {}) } : {};
  }

  /** The editable page of a source page (its subpages are made when needed). */
  private make(p: TreePage, parent: MPage | null): MPage {
    const m: MPage = { node: p.node, shared: true, children: null, tree: p, parent, hash: p.hash };
    this.byId.set(p.node.id, m);
    return m;
  }

  /** The page's own node, to change: a copy of the source's on first write (see MPage.shared). */
  private writable(m: MPage): Omit<PageNode, 'children'> {
    if (m.shared) {
      const { children: _c, ...node } = m.node as PageNode;
      m.node = node;
      m.shared = false;
    }
    return m.node;
  }

  /**
   * Body objects committed already (objects.ts ObjectsAhead), by markdown: a page whose body
   * is among them names it without writing it again when the draft is committed.
   */
  knowStoredBodies(bodies: ReadonlyMap<string, Hash>): void {
    this.storedBodies = bodies;
  }

  private storedBodies: ReadonlyMap<string, Hash> | null = null;

  /**
   * The objects of the pages as they are now (page nodes, and bodies not stored already), for the
   * caller to store ahead of the commit (objects.ts ObjectsAhead): the pages keep these hashes, so
   * `writeObjects` writes only what changes after this call, the files and the root.
   */
  pageObjectsNow(): Map<Hash, string> {
    this.ensureBuilt();
    const out = new Map<Hash, string>();
    this.finalizePages(out);
    return out;
  }

  /** Each top page's hash; the objects of pages changed since they last had one go into `out`. */
  private finalizePages(out: Map<Hash, string>): Hash[] {
    const add = objectAdder(out);
    // A page keeps its hash only while nothing in its subtree changed (`dirty` clears the hashes of
    // a changed page's ancestors): only the changed paths are walked.
    const finalize = (m: MPage): Hash => {
      if (m.hash) return m.hash;
      // Subpages never made are as in the source.
      const childHashes = m.children ? m.children.map(finalize) : m.tree!.node.children;
      if (m.markdown !== undefined) {
        const node = this.writable(m);
        if (m.markdown === '') delete (node as Partial<PageNode>).body;
        else node.body = this.storedBodies?.get(m.markdown) ?? add.json(bodyJson(m.markdown));
        m.markdown = undefined;
      }
      m.hash = add({ ...m.node, children: childHashes } as PageNode);
      return m.hash;
    };
    return this.top.map(finalize);
  }

  /**
   * A page of the source snapshot the caller has at hand (a merge walking it): the draft finds it,
   * and the pages above it made known the same way, without indexing every page of the source (a
   * new revision's index of a large space costs milliseconds and garbage).
   */
  knowSourcePage(p: TreePage): void {
    this.known.set(p.node.id, p);
  }

  private readonly known = new Map<string, TreePage>();

  /** The subpages of a page, made from its source page on first use. */
  private kids(m: MPage): MPage[] {
    if (!m.children) m.children = m.tree ? m.tree.children.map((c) => this.make(c, m)) : [];
    return m.children;
  }

  /** A page of the draft by id: made, with the lists on its way down, when not made yet. */
  private find(pageId: string): MPage | undefined {
    this.ensureBuilt();
    const m = this.byId.get(pageId);
    if (m || this.gone.has(pageId)) return m;
    const p = this.known.get(pageId) ?? this.source?.byId.get(pageId);
    // Not made yet, so not moved: it is under its source parent (the top level is made at once).
    if (!p || p.parentId === null) return undefined;
    const parent = this.find(p.parentId);
    if (!parent || parent.children) return undefined;
    this.kids(parent);
    return this.byId.get(pageId);
  }

  /**
   * Start over from another revision's content taken as it is (a fast-forward merge: committing
   * then writes no object and reuses that revision's root), or from nothing (an import that
   * rebuilds the whole tree). The new revision's parent stays `baseRevisionId`.
   */
  reset(to: Snapshot | null): void {
    // Every page the draft had: those made (inserted ones among them) and the source's (the
    // deleted ones are touched already).
    for (const id of this.byId.keys()) this.touched.add(id);
    for (const id of this.source?.byId.keys() ?? []) this.touched.add(id);
    for (const id of to?.byId.keys() ?? []) this.touched.add(id);
    this.source = to;
    this.built = false;
    this.byId.clear();
    this.gone.clear();
    this.rootDirty = false;
  }

  has(pageId: string): boolean {
    return !!this.find(pageId);
  }

  page(pageId: string): Readonly<Omit<PageNode, 'children'>> | undefined {
    return this.find(pageId)?.node;
  }

  /** The parent of a page (null at the top level), undefined when the page does not exist. */
  parentOf(pageId: string): string | null | undefined {
    const m = this.find(pageId);
    return m ? (m.parent?.node.id ?? null) : undefined;
  }

  childIds(parentId: string | null): string[] {
    return this.siblings(parentId).map((p) => p.node.id);
  }

  private siblings(parentId: string | null): MPage[] {
    this.ensureBuilt();
    if (parentId === null) return this.top;
    const parent = this.find(parentId);
    if (!parent) throw new DraftError(`Parent page "${parentId}" does not exist`, 404);
    return this.kids(parent);
  }

  private dirty(p: MPage | null) {
    this.rootDirty = true;
    for (let x = p; x; x = x.parent) x.hash = undefined;
  }

  private uniqueSlug(list: MPage[], wanted: string, self?: MPage): string {
    const base = wanted || 'page';
    const taken = new Set(list.filter((p) => p !== self).map((p) => p.node.slug));
    if (!taken.has(base)) return base;
    for (let i = 2; ; i++) if (!taken.has(`${base}-${i}`)) return `${base}-${i}`;
  }

  /** Insert a page under `parentId` (null: top level) at `index` (default: last). Returns its id. */
  insertPage(parentId: string | null, fields: PageFields & { id?: string; title: string }, index?: number): string {
    this.ensureBuilt();
    const list = this.siblings(parentId);
    const parent = parentId === null ? null : this.find(parentId)!;
    const id = fields.id ?? newId();
    if (this.find(id)) throw new DraftError(`Page "${id}" already exists`, 409);
    const m: MPage = {
      node: { kind: 'page', id, type: fields.type ?? 'document', title: fields.title, slug: '', createdAt: this.now, updatedAt: this.now },
      children: [],
      parent,
    };
    this.assign(m, fields);
    m.node.slug = this.uniqueSlug(list, fields.slug ?? slugify(fields.title));
    list.splice(index === undefined ? list.length : clamp(index, 0, list.length), 0, m);
    this.byId.set(id, m);
    this.gone.delete(id);
    this.touched.add(id);
    this.dirty(m);
    return id;
  }

  updatePage(pageId: string, fields: PageFields): void {
    const m = this.find(pageId);
    if (!m) throw new DraftError(`Page "${pageId}" does not exist`, 404);
    this.assign(m, fields);
    // A page keeps its slug when renamed (links and URLs stay valid) unless a slug is given.
    const node = this.writable(m);
    if (fields.slug !== undefined) node.slug = this.uniqueSlug(m.parent ? this.kids(m.parent) : this.top, fields.slug, m);
    node.updatedAt = this.now;
    this.touched.add(pageId);
    this.dirty(m);
  }

  private assign(m: MPage, f: PageFields) {
    const n = this.writable(m) as unknown as Record<string, unknown>;
    for (const key of ASSIGNABLE_FIELDS) {
      const v = f[key];
      if (v === undefined) continue;
      if (v === null || (v === false && (key === 'hidden' || key === 'noIndex' || key === 'noRobotsIndex'))) delete n[key];
      else n[key] = v;
    }
    if (f.markdown !== undefined) {
      m.markdown = f.markdown;
      delete n.body;
    }
  }

  /** Move a page (with its subtree) under another parent, at `index` among its new siblings. */
  movePage(pageId: string, parentId: string | null, index?: number): void {
    const m = this.find(pageId);
    if (!m) throw new DraftError(`Page "${pageId}" does not exist`, 404);
    for (let p = parentId === null ? null : this.find(parentId); p; p = p.parent) {
      if (p === m) throw new DraftError('A page cannot be moved inside itself', 400);
    }
    // The destination first: a missing parent throws before anything changed.
    const to = this.siblings(parentId);
    const from = m.parent ? this.kids(m.parent) : this.top;
    this.dirty(m.parent);
    from.splice(from.indexOf(m), 1);
    m.parent = parentId === null ? null : this.find(parentId)!;
    this.writable(m).slug = this.uniqueSlug(to, m.node.slug, m);
    to.splice(index === undefined ? to.length : clamp(index, 0, to.length), 0, m);
    this.touched.add(pageId);
    this.dirty(m);
  }

  /** Delete a page and its subtree; returns the ids removed. */
  deletePage(pageId: string): string[] {
    const m = this.find(pageId);
    if (!m) throw new DraftError(`Page "${pageId}" does not exist`, 404);
    const list = m.parent ? this.kids(m.parent) : this.top;
    list.splice(list.indexOf(m), 1);
    this.dirty(m.parent);
    this.rootDirty = true;
    const removed: string[] = [];
    const drop = (p: MPage) => {
      removed.push(p.node.id);
      this.byId.delete(p.node.id);
      this.gone.add(p.node.id);
      this.touched.add(p.node.id);
      this.kids(p).forEach(drop);
    };
    drop(m);
    return removed;
  }

  insertFile(file: Omit<FileNode, 'kind' | 'createdAt' | 'id'> & { id?: string }): string {
    this.ensureBuilt();
    const id = file.id ?? newId();
    if (this.files.some((f) => f.id === id)) throw new DraftError(`File "${id}" already exists`, 409);
    this.files.push({ ...file, kind: 'file', id, createdAt: this.now });
    this.rootDirty = true;
    return id;
  }

  hasFile(fileId: string): boolean {
    this.ensureBuilt();
    return this.files.some((f) => f.id === fileId);
  }

  deleteFile(fileId: string): void {
    this.ensureBuilt();
    const i = this.files.findIndex((f) => f.id === fileId);
    if (i < 0) throw new DraftError(`File "${fileId}" does not exist`, 404);
    this.files.splice(i, 1);
    this.rootDirty = true;
  }

  /** The space's redirects (git sync's `.gitbook.yaml`); an empty map removes them. */
  setRedirects(redirects: Record<string, string>): void {
    this.ensureBuilt();
    const same = JSON.stringify(Object.entries(redirects)) === JSON.stringify(Object.entries(this.redirects));
    this.redirects = { ...redirects };
    if (!same) this.rootDirty = true;
  }

  setVariables(vars: Record<string, string>): void {
    this.ensureBuilt();
    this.variables = { ...vars };
    this.rootDirty = true;
  }

  /** True when nothing differs from the base revision. */
  get unchanged(): boolean {
    return !!this.base && !this.rootDirty && this.source?.rootHash === this.base.rootHash;
  }

  /** Hash what changed and write the new objects; returns the new root hash. */
  async writeObjects(db: Queryable, spaceId: string): Promise<Hash> {
    if (this.source && !this.rootDirty) return this.source.rootHash;
    this.ensureBuilt();
    const out = new Map<Hash, string>();
    const add = objectAdder(out);
    const pages = this.finalizePages(out);
    const files = this.files.map((f) => {
      if (f.hash) return f.hash;
      const { hash: _h, ...node } = f;
      f.hash = add(node as FileNode);
      return f.hash;
    });
    const root: RootNode = { kind: 'root', pages, files, reusableContents: this.reusableContents, variables: this.variables };
    if (Object.keys(this.redirects).length) root.redirects = this.redirects;
    const rootHash = add(root);
    await putObjects(db, spaceId, out);
    return rootHash;
  }
}

/** Adds objects to `out`, each serialized once: its hash and its stored row come from the same JSON. */
function objectAdder(out: Map<Hash, string>) {
  const json = (text: string) => {
    const h = hashJson(text);
    out.set(h, text);
    return h;
  };
  return Object.assign((o: ContentObject) => json(canonicalJson(o)), { json });
}

function clamp(n: number, lo: number, hi: number) {
  return Math.max(lo, Math.min(hi, n));
}
