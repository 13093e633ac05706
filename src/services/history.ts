// History (issue 28): any revision a space ever had, read as the current one is (a revision is the
// root of its content-addressed tree: reading an old one is reading its root), the semantic changes
// between a revision and its parent or of a change request, documents by id, reusable content and
// page meta links.
import type { AppContext } from '../context.js';
import type { Principal } from '../auth/principal.js';
import { notFound } from '../core/errors.js';
import { getRevision, type RevisionRow } from '../db/repos/revisions.js';
import { selectObjects } from '../db/repos/content-objects.js';
import { getChangeRequest } from '../db/repos/change-requests.js';
import { revisionSnapshot } from '../content/commit.js';
import { getObject } from '../content/objects.js';
import { fileDownloadUrl } from '../content/present.js';
import type { Snapshot, TreePage } from '../content/snapshot.js';
import { evaluateExpressions } from '../content/expressions.js';
import type { BodyNode, ReusableContent } from '../content/types.js';
import { requireSpace } from '../policies/spaces.js';
import { requireChangeRequest } from '../policies/change-requests.js';
import { toChangeRequest } from '../presenters/change-requests.js';
import type { ReadOptions } from '../presenters/content.js';
import { findPage, readPageJson, readRevisionJson as readRevisionParts, type ContentTarget, type PageReadOptions } from './content.js';

/** At most this many changes in one answer (`limit`); `more` counts the rest. */
export const MAX_CHANGES = 1000;

/** A revision of a space the caller may read: 404 for one the space never had. */
export async function revisionTarget(app: AppContext, p: Principal, spaceId: string, revisionId: string): Promise<ContentTarget> {
  const { space } = await requireSpace(app.db, p, spaceId, 'read');
  if (!(await getRevision(app.db, spaceId, revisionId))) throw notFound(`Revision "${revisionId}" not found`);
  return { spaceId, revisionId, organizationId: space.organization_id };
}

/**
 * A revision as JSON (in parts) as the content reads give it; a merge revision also names the
 * change request it merged (`mergedFrom`, which the description requires of a merge revision).
 * `mainRevision`: the space's current revision (for the change request's `outdated`).
 */
export async function revisionJson(app: AppContext, t: ContentTarget, o: ReadOptions, mainRevision: string): Promise<Buffer[]> {
  const parts = await readRevisionParts(app, t, o);
  const revision = await getRevision(app.db, t.spaceId, t.revisionId);
  if (revision?.type !== 'merge' || !revision.change_request_id) return parts;
  const cr = await getChangeRequest(app.db, t.spaceId, revision.change_request_id);
  if (!cr) return parts;
  // The parts are one JSON object: `{"mergedFrom":...,` takes the place of its opening brace.
  const head = Buffer.from(`{"mergedFrom":${JSON.stringify(toChangeRequest(app, cr, mainRevision))},`);
  return [head, parts[0].subarray(1), ...parts.slice(1)];
}

/** getRevisionById. */
export async function readRevisionJson(app: AppContext, p: Principal, spaceId: string, revisionId: string, o: ReadOptions) {
  const { space } = await requireSpace(app.db, p, spaceId, 'read');
  if (!(await getRevision(app.db, spaceId, revisionId))) throw notFound(`Revision "${revisionId}" not found`);
  return revisionJson(app, { spaceId, revisionId, organizationId: space.organization_id }, o, space.revision_id);
}

/** getCurrentRevision: the space's current revision. */
export async function readCurrentRevisionJson(app: AppContext, p: Principal, spaceId: string, o: ReadOptions) {
  const { space } = await requireSpace(app.db, p, spaceId, 'read');
  return revisionJson(app, { spaceId, revisionId: space.revision_id, organizationId: space.organization_id }, o, space.revision_id);
}

async function snapshotOf(app: AppContext, t: ContentTarget): Promise<{ revision: RevisionRow; snapshot: Snapshot }> {
  return revisionSnapshot(app.db, t.spaceId, t.revisionId);
}

/** A page by its path (`a/b/c`): documents first, then a group at that place. */
export function pageByPath(snapshot: Snapshot, pagePath: string): TreePage {
  const clean = pagePath.replace(/^\/+|\/+$/g, '');
  const page = snapshot.byPath.get(clean) ?? snapshot.ordered.find((p) => p.node.type === 'group' && p.path === clean);
  if (!page) throw notFound(`No page at path "${pagePath}"`);
  return page;
}

export async function readPageByPath(app: AppContext, t: ContentTarget, pagePath: string, o: PageReadOptions): Promise<string> {
  const { snapshot } = await snapshotOf(app, t);
  return readPageJson(app, t, pageByPath(snapshot, pagePath).node.id, o);
}

/** The JSON document of a body (by its document id, the body's hash); null when the space has no such body. */
export async function documentJson(app: AppContext, spaceId: string, documentId: string): Promise<string | null> {
  const [row] = await selectObjects<{ kind: string; markdown?: string }>(app.db, spaceId, [documentId]);
  if (!row || row.data.kind !== 'body') return null;
  return app.markdown.documentJson(row.data.markdown ?? '');
}

/** getDocumentById: any body the space has or had (documents are immutable, named by their content). */
export async function readDocument(app: AppContext, p: Principal, spaceId: string, documentId: string): Promise<string> {
  await requireSpace(app.db, p, spaceId, 'read');
  const json = await documentJson(app, spaceId, documentId);
  if (json === null) throw notFound(`Document "${documentId}" not found`);
  return json;
}

/** The document of a page of a revision, with the page read options applied. */
export async function readPageDocument(
  app: AppContext,
  t: ContentTarget,
  pageId: string,
  o: { evaluated: boolean; dereferenced: boolean },
) {
  const json = JSON.parse(
    await readPageJson(app, t, pageId, {
      format: 'document',
      evaluated: o.evaluated,
      dereferenced: o.dereferenced,
      metadata: false,
      computed: true,
    }),
  ) as { document?: unknown };
  if (!json.document) throw notFound(`Page "${pageId}" has no document (a group or a link)`);
  return json.document;
}

// ---- reusable content ----

/** GitBook writes reusable content to a synced repository as `.gitbook/includes/<name>.md`; imported, such a file is one. */
const INCLUDE_FILE = /(^|\/)\.gitbook\/includes\/[^/]+\.md$/i;
const MAX_INCLUDE_BYTES = 1024 * 1024;

interface Reusable {
  id: string;
  title: string;
  git?: ReusableContent['git'];
  /** Body hash (the document id) of stored reusable content. */
  body?: string;
  /** The Markdown file an imported one lives in. */
  file?: Snapshot['files'][number];
}

function findReusable(snapshot: Snapshot, id: string): Reusable {
  const stored = snapshot.root.reusableContents.find((x) => x.id === id);
  if (stored) return stored;
  const file = snapshot.filesById.get(id);
  if (file?.git?.path && INCLUDE_FILE.test(file.git.path)) {
    return { id: file.id, title: file.name.replace(/\.md$/i, ''), git: file.git, file };
  }
  throw notFound(`Reusable content "${id}" not found`);
}

/** The Markdown of an imported reusable content file, its front matter split off (its `title` read). */
async function includeMarkdown(app: AppContext, file: NonNullable<Reusable['file']>): Promise<{ title?: string; markdown: string }> {
  if (file.size > MAX_INCLUDE_BYTES) throw notFound(`Reusable content "${file.id}" is too large to read (over 1 MB)`);
  const text = (await app.blobs.get(file.blobKey))?.toString('utf8') ?? '';
  const m = /^---[ \t]*\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/.exec(text);
  if (!m) return { markdown: text.trim() };
  const title = /^title:[ \t]*["']?(.*?)["']?[ \t]*$/m.exec(m[1])?.[1];
  return { title: title || undefined, markdown: text.slice(m[0].length).trim() };
}

export async function readReusableContent(app: AppContext, t: ContentTarget, id: string, o: ReadOptions) {
  const { snapshot } = await snapshotOf(app, t);
  const r = findReusable(snapshot, id);
  const title = r.file ? ((await includeMarkdown(app, r.file)).title ?? r.title) : r.title;
  return { id: r.id, title, ...(o.metadata && r.git ? { git: r.git } : {}), ...(r.body ? { document: r.body } : {}) };
}

export async function readReusableContentDocument(app: AppContext, t: ContentTarget, id: string, o: { evaluated: boolean }) {
  const { snapshot } = await snapshotOf(app, t);
  const r = findReusable(snapshot, id);
  let markdown = r.file
    ? (await includeMarkdown(app, r.file)).markdown
    : r.body
      ? (await getObject<BodyNode>(app.db, t.spaceId, r.body)).markdown
      : '';
  if (o.evaluated) markdown = evaluateExpressions(markdown, { space: snapshot.root.variables ?? {}, page: {} });
  return app.markdown.documentJson(markdown);
}

// ---- meta links ----

/**
 * A page's meta links (canonical and alternates). Pages carry no canonical URL nor alternates on
 * this platform: an existing page answers an empty object.
 */
export async function readPageMetaLinks(app: AppContext, t: ContentTarget, pageId: string) {
  const { snapshot } = await snapshotOf(app, t);
  findPage(snapshot, pageId);
  return { alternates: [] as unknown[] };
}

// ---- semantic changes ----

type Change = Record<string, unknown> & { type: string };

function changedPage(p: TreePage) {
  return { id: p.node.id, type: p.node.type, title: p.node.title, ...(p.node.type !== 'link' ? { path: p.path } : {}) };
}

const str = (v: unknown): string | undefined => (v === undefined || v === null ? undefined : typeof v === 'string' ? v : JSON.stringify(v));

/** The attributes that differ between two versions of a page, in the description's shapes. */
function pageAttributes(a: TreePage, b: TreePage): Record<string, unknown> {
  const x = a.node;
  const y = b.node;
  const out: Record<string, unknown> = {};
  const s = (key: string, before: unknown, after: unknown) => {
    if (str(before) !== str(after))
      out[key] = {
        ...(str(before) !== undefined ? { before: str(before) } : {}),
        ...(str(after) !== undefined ? { after: str(after) } : {}),
      };
  };
  s('title', x.title, y.title);
  s('emoji', x.emoji, y.emoji);
  if (y.type === 'link') {
    if (JSON.stringify(x.target ?? x.href) !== JSON.stringify(y.target ?? y.href)) {
      out.target = { ...(x.target ? { before: x.target } : {}), ...(y.target ? { after: y.target } : {}) };
    }
    return out;
  }
  s('slug', x.slug, y.slug);
  if (y.type === 'group') return out;
  s('description', x.description, y.description);
  s('document', x.body, y.body);
  if (JSON.stringify(x.layout ?? {}) !== JSON.stringify(y.layout ?? {})) out.layout = { before: x.layout ?? {}, after: y.layout ?? {} };
  if (JSON.stringify(x.cover ?? null) !== JSON.stringify(y.cover ?? null)) {
    out.cover = { ...(x.cover ? { before: x.cover } : {}), ...(y.cover ? { after: y.cover } : {}) };
  }
  if (JSON.stringify(x.variables ?? {}) !== JSON.stringify(y.variables ?? {})) {
    out.variables = variableChanges(x.variables ?? {}, y.variables ?? {});
  }
  return out;
}

function variableChanges(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, { before?: unknown; after?: unknown }> {
  const out: Record<string, { before?: unknown; after?: unknown }> = {};
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (JSON.stringify(a[k]) !== JSON.stringify(b[k])) out[k] = { ...(k in a ? { before: a[k] } : {}), ...(k in b ? { after: b[k] } : {}) };
  }
  return out;
}

/**
 * What changed from `before` (null: nothing) to `after`: pages created, edited, moved (to another
 * parent) and deleted, files created, edited and deleted, variables and reusable content. In the
 * order of `after`'s tree, then deletions in `before`'s.
 */
export function semanticChanges(app: AppContext, before: Snapshot | null, after: Snapshot): Change[] {
  const out: Change[] = [];
  const old = before?.byId ?? new Map<string, TreePage>();
  for (const p of after.ordered) {
    const was = old.get(p.node.id);
    if (!was) {
      out.push({ type: 'page_created', page: changedPage(p) });
      continue;
    }
    if (was.hash === p.hash && was.parentId === p.parentId) continue;
    if (was.parentId !== p.parentId) {
      const parentBefore = was.parentId ? old.get(was.parentId) : undefined;
      const parentAfter = p.parentId ? after.byId.get(p.parentId) : undefined;
      out.push({
        type: 'page_moved',
        page: changedPage(p),
        parent: {
          ...(parentBefore ? { before: changedPage(parentBefore) } : {}),
          ...(parentAfter ? { after: changedPage(parentAfter) } : {}),
        },
      });
    }
    const attributes = pageAttributes(was, p);
    if (Object.keys(attributes).length) out.push({ type: 'page_edited', page: changedPage(p), attributes });
  }
  for (const p of before?.ordered ?? []) if (!after.byId.has(p.node.id)) out.push({ type: 'page_deleted', page: changedPage(p) });

  const file = (f: Snapshot['files'][number]) => ({
    id: f.id,
    name: f.name,
    contentType: f.contentType,
    downloadURL: fileDownloadUrl(app, f),
  });
  const oldFiles = before?.filesById ?? new Map<string, Snapshot['files'][number]>();
  for (const f of after.files) {
    const was = oldFiles.get(f.id);
    if (!was) out.push({ type: 'file_created', file: file(f) });
    else if (was.hash !== f.hash) {
      const attributes: Record<string, unknown> = {};
      if (was.name !== f.name) attributes.name = { before: was.name, after: f.name };
      if (was.contentType !== f.contentType) attributes.contentType = { before: was.contentType, after: f.contentType };
      if (was.size !== f.size) attributes.size = { before: was.size, after: f.size };
      if (was.sha256 !== f.sha256) attributes.downloadURL = { before: fileDownloadUrl(app, was), after: fileDownloadUrl(app, f) };
      if (JSON.stringify(was.dimensions) !== JSON.stringify(f.dimensions)) {
        attributes.dimensions = { ...(was.dimensions ? { before: was.dimensions } : {}), ...(f.dimensions ? { after: f.dimensions } : {}) };
      }
      if (Object.keys(attributes).length) out.push({ type: 'file_edited', file: file(f), attributes });
    }
  }
  for (const f of before?.files ?? []) if (!after.filesById.has(f.id)) out.push({ type: 'file_deleted', file: file(f) });

  const vars = variableChanges(before?.root.variables ?? {}, after.root.variables ?? {});
  if (Object.keys(vars).length) out.push({ type: 'variables_edited', variables: vars });

  const reusable = (r: ReusableContent) => ({ id: r.id, title: r.title, ...(r.body ? { document: r.body } : {}) });
  const oldReusable = new Map((before?.root.reusableContents ?? []).map((r) => [r.id, r]));
  const newReusable = new Map(after.root.reusableContents.map((r) => [r.id, r]));
  for (const r of after.root.reusableContents) {
    const was = oldReusable.get(r.id);
    if (!was) out.push({ type: 'reusable_content_created', reusableContent: reusable(r) });
    else {
      const attributes: Record<string, unknown> = {};
      if (was.title !== r.title) attributes.title = { before: was.title, after: r.title };
      if (was.body !== r.body) attributes.document = { ...(was.body ? { before: was.body } : {}), ...(r.body ? { after: r.body } : {}) };
      if (Object.keys(attributes).length) out.push({ type: 'reusable_content_edited', reusableContent: reusable(r), attributes });
    }
  }
  for (const r of before?.root.reusableContents ?? []) {
    if (!newReusable.has(r.id)) out.push({ type: 'reusable_content_deleted', reusableContent: reusable(r) });
  }
  return out;
}

function bounded(changes: Change[], limit: number | undefined) {
  const n = Math.min(Math.max(0, Math.floor(limit ?? 10)), MAX_CHANGES);
  return { changes: changes.slice(0, n), ...(changes.length > n ? { more: changes.length - n } : {}) };
}

/** getRevisionSemanticChanges: what a revision changed from its first parent; a merge names its change request. */
export async function revisionChanges(app: AppContext, p: Principal, spaceId: string, revisionId: string, q: { limit?: number }) {
  const t = await revisionTarget(app, p, spaceId, revisionId);
  const { revision, snapshot } = await snapshotOf(app, t);
  const parent = revision.parents[0] ? (await revisionSnapshot(app.db, spaceId, revision.parents[0])).snapshot : null;
  const out = bounded(semanticChanges(app, parent, snapshot), q.limit);
  if (revision.type === 'merge' && revision.change_request_id) {
    const cr = await getChangeRequest(app.db, spaceId, revision.change_request_id);
    const { space } = await requireSpace(app.db, p, spaceId, 'read');
    if (cr) return { mergedFrom: toChangeRequest(app, cr, space.revision_id), ...out };
  }
  return out;
}

/** getChangeRequestChanges: what a change request changes, from the main revision it is based on to its latest. */
export async function changeRequestChanges(app: AppContext, p: Principal, spaceId: string, ref: string, q: { limit?: number }) {
  const { cr } = await requireChangeRequest(app, p, spaceId, ref, 'read');
  const base = await revisionSnapshot(app.db, spaceId, cr.revision_merged_ancestor ?? cr.revision_initial);
  const head = await revisionSnapshot(app.db, spaceId, cr.revision);
  return bounded(semanticChanges(app, base.snapshot, head.snapshot), q.limit);
}
