import type { AppContext } from '../context.js';
import type { Principal } from '../auth/principal.js';
import type { Queryable } from '../db/pool.js';
import { notFound } from '../core/errors.js';
import { LRUCache } from 'lru-cache';
import { pageInMemory } from '../core/pagination.js';
import { revisionSnapshot } from '../content/commit.js';
import { loadBody, type Snapshot, type TreePage } from '../content/snapshot.js';
import { toFile, toRevisionParts, toTreePage, treePagesParts, type ReadOptions } from '../presenters/content.js';
import { evaluateComputedPage } from '../content/computed.js';
import { evaluateExpressions } from '../content/expressions.js';
import { expandIncludes } from '../content/includes.js';
import { createResolver } from '../content/links.js';
import { requireSpace } from '../policies/spaces.js';

/** Where content is read from: the space's current revision, or a given one (change requests). */
export interface ContentTarget {
  spaceId: string;
  revisionId: string;
  organizationId: string;
}

export async function mainTarget(app: AppContext, p: Principal, spaceId: string): Promise<ContentTarget> {
  const { space } = await requireSpace(app.db, p, spaceId, 'read');
  return { spaceId, revisionId: space.revision_id, organizationId: space.organization_id };
}

export async function targetSnapshot(db: Queryable, t: ContentTarget) {
  return revisionSnapshot(db, t.spaceId, t.revisionId);
}

/** A revision as JSON (UTF-8, in parts), its pages tree made from cached subtrees. */
export async function readRevisionParts(app: AppContext, t: ContentTarget, o: ReadOptions): Promise<Buffer[]> {
  const { revision, snapshot } = await targetSnapshot(app.db, t);
  return toRevisionParts(app, t.spaceId, revision, snapshot, o);
}

/** The pages tree of a revision as JSON (`{"pages": [...]}`, UTF-8, in parts), made from cached subtrees. */
export async function readPagesParts(app: AppContext, t: ContentTarget, o: ReadOptions): Promise<Buffer[]> {
  const { snapshot } = await targetSnapshot(app.db, t);
  return treePagesParts(app, t.spaceId, snapshot.pages, o, '{"pages":', '}');
}

// A revision never changes, so its serialized tree (the costly part of a read of a large space)
// is cached by revision and flags, bounded by size; keyed by the public URL too, as the JSON holds
// URLs made from it (two apps in one process, as in tests, each get their own).
const serialized = new LRUCache<string, Buffer[]>({
  maxSize: 128 * 1024 * 1024,
  sizeCalculation: (parts) => parts.reduce((n, b) => n + b.length, 0) || 1,
});

async function cached(key: string, build: () => Promise<Buffer[]>): Promise<Buffer[]> {
  let json = serialized.get(key);
  if (json === undefined) {
    json = await build();
    serialized.set(key, json);
  }
  return json;
}

/** A revision as JSON bytes in parts (what the response writes as they are). */
export function readRevisionJson(app: AppContext, t: ContentTarget, o: ReadOptions): Promise<Buffer[]> {
  return cached(`rev:${app.config.publicUrl}:${t.spaceId}:${t.revisionId}:${o.metadata}:${o.computed}`, () => readRevisionParts(app, t, o));
}

/** The pages tree as JSON bytes in parts (what the response writes as they are). */
export function readPagesJson(app: AppContext, t: ContentTarget, o: ReadOptions): Promise<Buffer[]> {
  return cached(`pages:${app.config.publicUrl}:${t.spaceId}:${t.revisionId}:${o.metadata}:${o.computed}`, () => readPagesParts(app, t, o));
}

/** Files ordered by (name, id); the cursor is that key, so it survives files added in between. */
export async function listFiles(app: AppContext, t: ContentTarget, q: { page?: string; limit?: number } & ReadOptions) {
  const { snapshot } = await targetSnapshot(app.db, t);
  return pageInMemory(
    snapshot.files,
    q,
    (f) => [f.name, f.id],
    (f) => toFile(app, f, q),
  );
}

export async function readFile(app: AppContext, t: ContentTarget, fileId: string, o: ReadOptions) {
  const { snapshot } = await targetSnapshot(app.db, t);
  const f = snapshot.filesById.get(fileId);
  if (!f) throw notFound(`File "${fileId}" not found`);
  return toFile(app, f, o);
}

export function findPage(snapshot: Snapshot, pageId: string): TreePage {
  const page = snapshot.byId.get(pageId);
  if (!page) throw notFound(`Page "${pageId}" not found`);
  return page;
}

export interface PageReadOptions extends ReadOptions {
  format: 'markdown' | 'document';
  /** Variables substituted (`true` and `deterministic-only` alike: variables are deterministic). */
  evaluated: boolean;
  /** Reusable content (`{% include %}` of the space's Markdown files) expanded in place. */
  dereferenced?: boolean;
}

/**
 * One page with its body, as markdown (default) or as a JSON document, as the JSON text of the
 * response: a document is made on the Markdown pool (off the event loop) as JSON text and spliced
 * in, never turned into objects here. A computed page is evaluated here, on request only;
 * `evaluated` substitutes variable expressions.
 */
export async function readPageJson(app: AppContext, t: ContentTarget, pageId: string, o: PageReadOptions): Promise<string> {
  const { snapshot } = await targetSnapshot(app.db, t);
  const tp = findPage(snapshot, pageId);
  const out = toTreePage(app, t.spaceId, tp, o);
  if (tp.node.type === 'group' || tp.node.type === 'link' || (tp.node.type === 'computed' && !o.computed)) return JSON.stringify(out);
  let markdown =
    tp.node.type === 'computed' ? await evaluateComputedPage(app, t.organizationId, tp.node) : await loadBody(app.db, t.spaceId, tp.node);
  if (o.dereferenced && tp.node.type !== 'computed') {
    markdown = await expandIncludes(app, snapshot, createResolver(snapshot, { publicUrl: app.config.publicUrl }), tp, markdown);
  }
  if (o.evaluated) markdown = evaluateExpressions(markdown, { space: snapshot.root.variables, page: tp.node.variables ?? {} });
  delete out.documentId;
  if (o.format !== 'document') return JSON.stringify({ ...out, markdown });
  // A body beyond the content limits comes back as plain text (src/render/plain.ts).
  const document = await app.markdown.documentJson(markdown);
  const head = JSON.stringify(out);
  return `${head.slice(0, -1)}${head.length > 2 ? ',' : ''}"document":${document}}`;
}
