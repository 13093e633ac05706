// The batch content-change operation of the public description (insert_page, update_page,
// delete_page, revert_page, insert_files), applied to a Draft: all of a batch or nothing.
import YAML from 'yaml';
import { newId } from '../util/ids.js';
import { Draft, DraftError, type PageFields } from './draft.js';
import { documentToMarkdown, type JSONDocument } from './markdown.js';
import { LIMITS, type LimitViolation } from './limits.js';
import { loadBody, type Snapshot } from './snapshot.js';
import type { Queryable } from '../db/pool.js';

type DocumentInput = { markdown: string } | { document: JSONDocument };

interface PageMeta {
  title?: string;
  slug?: string;
  emoji?: string;
  icon?: string;
  description?: string;
  hidden?: boolean;
  noIndex?: boolean;
  noRobotsIndex?: boolean;
}

export type ContentChange =
  | ({ operation: 'insert_page'; into?: string; at?: number; ref?: string; document: DocumentInput } & PageMeta)
  | ({ operation: 'update_page'; page: string; into?: string | null; at?: number; document?: DocumentInput } & PageMeta)
  | { operation: 'delete_page'; page: string }
  | { operation: 'revert_page'; page: string; revision?: string }
  | { operation: 'insert_files'; files: FileInput[] };

interface FileInput {
  ref?: string;
  name: string;
  contentType?: string;
  url?: string;
  base64?: string;
}

/** A file whose bytes are already stored (content-addressed) by the caller. */
export interface StoredFile {
  input: FileInput;
  contentType: string;
  blobKey: string;
  sha256: string;
  size: number;
  dimensions?: { width: number; height: number };
}

export class BatchError extends Error {
  constructor(
    readonly index: number,
    readonly field: string,
    message: string,
  ) {
    super(`Invalid request: body.changes[${index}]${field ? `.${field}` : ''}: ${message}`);
  }
}

type PageOutcome =
  { object: 'created_page'; id: string; ref?: string } | { object: 'updated_page'; id: string } | { object: 'deleted_page'; id: string };

/** What checking bodies against the content limits needs (the Markdown pool: off the event loop). */
interface BodyChecker {
  scan(md: string, maxChars: number): Promise<LimitViolation | null>;
  fromDocument(doc: unknown, maxChars: number): Promise<{ markdown: string } | { violation: LimitViolation }>;
}

/**
 * Every page body of a batch held to the content limits (src/content/limits.ts), JSON documents
 * converted to Markdown: the batch to apply, or a BatchError naming the change, the field and the
 * limit. Runs before the batch's transaction, so no lock waits on it.
 */
export async function checkBatchBodies(changes: ContentChange[], checker: BodyChecker): Promise<ContentChange[]> {
  const checked = await Promise.allSettled(
    changes.map(async (c, i): Promise<ContentChange> => {
      if ((c.operation !== 'insert_page' && c.operation !== 'update_page') || !c.document) return c;
      if ('markdown' in c.document) {
        const v = await checker.scan(c.document.markdown, LIMITS.pageChars);
        if (v) throw new BatchError(i, 'document.markdown', v.message);
        return c;
      }
      const out = await checker.fromDocument(c.document.document, LIMITS.pageChars);
      if ('violation' in out)
        throw new BatchError(i, `document.document${out.violation.path ? `.${out.violation.path}` : ''}`, out.violation.message);
      return { ...c, document: { markdown: out.markdown } } as ContentChange;
    }),
  );
  // The first failing change in batch order is the one named, whichever finished first.
  for (const r of checked) if (r.status === 'rejected') throw r.reason;
  return checked.map((r) => (r as PromiseFulfilledResult<ContentChange>).value);
}

/** Split YAML front matter and a leading `# Title` from markdown (as Git Sync reads pages). */
function readMarkdownPage(markdown: string): { body: string; meta: PageMeta & Record<string, unknown>; heading?: string } {
  let body = markdown.replace(/\r\n/g, '\n');
  let meta: Record<string, unknown> = {};
  const fm = /^---\n([\s\S]*?)\n---\n?/.exec(body);
  if (fm) {
    try {
      const parsed = YAML.parse(fm[1], { logLevel: 'error' });
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) meta = parsed;
    } catch {
      throw new DraftError('the front matter is not valid YAML');
    }
    body = body.slice(fm[0].length);
  }
  const h = /^\s*#\s+(.+?)\s*#*\s*(\n|$)/.exec(body);
  let heading: string | undefined;
  if (h) {
    heading = h[1].trim();
    body = body.slice(h[0].length).replace(/^\n+/, '');
  }
  return { body, meta, heading };
}

function pickMeta(m: Record<string, unknown>): PageFields {
  const out: PageFields = {};
  if (typeof m.title === 'string' && m.title.trim()) out.title = m.title.trim();
  if (typeof m.description === 'string') out.description = m.description || null;
  if (typeof m.emoji === 'string') out.emoji = m.emoji || null;
  if (typeof m.icon === 'string') out.icon = m.icon || null;
  if (typeof m.slug === 'string') out.slug = m.slug;
  if (typeof m.hidden === 'boolean') out.hidden = m.hidden;
  if (typeof m.noIndex === 'boolean') out.noIndex = m.noIndex;
  if (typeof m.noRobotsIndex === 'boolean') out.noRobotsIndex = m.noRobotsIndex;
  if (m.layout && typeof m.layout === 'object') out.layout = m.layout as Record<string, unknown>;
  return out;
}

/** Replace batch-local refs in link destinations: `./<ref>.md` → `/pages/<id>`, `./<fileRef>` → `/files/<id>`. */
function resolveRefs(markdown: string, pageRefs: Map<string, string>, fileRefs: Map<string, string>): string {
  if (!pageRefs.size && !fileRefs.size) return markdown;
  return markdown.replace(
    /(\]\()(<?)(?:\.\/)?([^)\s#>]+?)(\.md)?(#[^)\s>]*)?(>?)(\s+"[^"]*")?\)/g,
    (whole, open, lt, name, md, hash, gt, title) => {
      const page = pageRefs.get(name);
      if (page) return `${open}${lt}/pages/${page}${hash ?? ''}${gt}${title ?? ''})`;
      const file = !md ? fileRefs.get(name) : undefined;
      if (file) return `${open}${lt}/files/${file}${gt}${title ?? ''})`;
      return whole;
    },
  );
}

/**
 * Apply a batch to a draft. Files must already be stored (`files[i]` for the i-th insert_files
 * entry, flattened in order). `base` is the change request's base revision (for revert_page).
 * Throws BatchError naming the change and field; the caller then commits nothing.
 */
export async function applyBatch(
  db: Queryable,
  spaceId: string,
  draft: Draft,
  changes: ContentChange[],
  files: StoredFile[],
  revertSource: (revision?: string) => Promise<Snapshot>,
): Promise<{ outcomes: PageOutcome[]; insertedFiles: string[] }> {
  // Allocate ids for every ref first, so a page may link to one inserted later in the batch.
  const pageRefs = new Map<string, string>();
  const fileRefs = new Map<string, string>();
  const insertIds = new Map<number, string>();
  let fileCursor = 0;
  const fileIds: string[] = [];
  changes.forEach((c, i) => {
    if (c.operation === 'insert_page') {
      const id = newId();
      insertIds.set(i, id);
      if (c.ref) {
        if (pageRefs.has(c.ref)) throw new BatchError(i, 'ref', `"${c.ref}" is used twice in this batch`);
        pageRefs.set(c.ref, id);
      }
    } else if (c.operation === 'insert_files') {
      c.files.forEach((f, j) => {
        const id = newId();
        fileIds.push(id);
        if (f.ref) {
          if (fileRefs.has(f.ref) || pageRefs.has(f.ref))
            throw new BatchError(i, `files[${j}].ref`, `"${f.ref}" is used twice in this batch`);
          fileRefs.set(f.ref, id);
        }
      });
    }
  });

  const outcomes = new Map<string, PageOutcome>();
  // One outcome per page, in first-touched order: created-then-updated stays "created"; a deletion wins.
  const record = (o: PageOutcome) => {
    if (!outcomes.has(o.id) || o.object === 'deleted_page') outcomes.set(o.id, o);
  };
  const toMarkdown = (d: DocumentInput) => ('markdown' in d ? d.markdown : documentToMarkdown(d.document));

  for (let i = 0; i < changes.length; i++) {
    const c = changes[i];
    try {
      switch (c.operation) {
        case 'insert_page': {
          const { body, meta, heading } = readMarkdownPage(resolveRefs(toMarkdown(c.document), pageRefs, fileRefs));
          const fromDoc = pickMeta(meta);
          const fields: PageFields & { title: string } = {
            ...stripUndefined(pickMeta(c as unknown as Record<string, unknown>)),
            ...fromDoc,
            title: fromDoc.title ?? heading ?? c.title ?? 'Untitled',
            markdown: body,
          };
          if (c.into && !draft.has(c.into)) throw new BatchError(i, 'into', `page "${c.into}" does not exist`);
          const id = draft.insertPage(c.into ?? null, { ...fields, id: insertIds.get(i) }, c.at);
          record({ object: 'created_page', id, ref: c.ref });
          break;
        }
        case 'update_page': {
          if (!draft.has(c.page)) throw new BatchError(i, 'page', `page "${c.page}" does not exist`);
          const fields: PageFields = stripUndefined(pickMeta(c as unknown as Record<string, unknown>));
          if (c.document) {
            const { body, meta, heading } = readMarkdownPage(resolveRefs(toMarkdown(c.document), pageRefs, fileRefs));
            Object.assign(fields, pickMeta(meta));
            if (!fields.title && heading) fields.title = heading;
            fields.markdown = body;
          }
          draft.updatePage(c.page, fields);
          if (c.into !== undefined || c.at !== undefined) {
            if (c.into && !draft.has(c.into)) throw new BatchError(i, 'into', `page "${c.into}" does not exist`);
            const parent = c.into === undefined ? (draft.parentOf(c.page) ?? null) : c.into;
            draft.movePage(c.page, parent, c.at);
          }
          record({ object: 'updated_page', id: c.page });
          break;
        }
        case 'delete_page': {
          if (!draft.has(c.page)) throw new BatchError(i, 'page', `page "${c.page}" does not exist`);
          for (const id of draft.deletePage(c.page)) record({ object: 'deleted_page', id });
          break;
        }
        case 'revert_page': {
          const source = await revertSource(c.revision);
          const original = source.byId.get(c.page);
          if (!original) {
            if (!draft.has(c.page)) throw new BatchError(i, 'page', `page "${c.page}" exists neither here nor in the revision`);
            for (const id of draft.deletePage(c.page)) record({ object: 'deleted_page', id });
            break;
          }
          const { children: _c, body: _b, kind: _k, id: _id, createdAt: _ca, updatedAt: _ua, ...rest } = original.node;
          const fields: PageFields = { ...nullsFor(rest), markdown: await loadBody(db, spaceId, original.node) };
          const parent = original.parentId && draft.has(original.parentId) ? original.parentId : null;
          if (draft.has(c.page)) {
            draft.updatePage(c.page, fields);
            record({ object: 'updated_page', id: c.page });
          } else {
            draft.insertPage(parent, { ...fields, id: c.page, title: original.node.title });
            record({ object: 'created_page', id: c.page });
          }
          break;
        }
        case 'insert_files': {
          for (let j = 0; j < c.files.length; j++) {
            const stored = files[fileCursor];
            const id = fileIds[fileCursor++];
            draft.insertFile({
              id,
              name: c.files[j].name,
              contentType: stored.contentType,
              size: stored.size,
              blobKey: stored.blobKey,
              sha256: stored.sha256,
              dimensions: stored.dimensions,
            });
          }
          break;
        }
      }
    } catch (err) {
      if (err instanceof BatchError) throw err;
      if (err instanceof DraftError) throw new BatchError(i, '', err.message);
      throw err;
    }
  }
  return { outcomes: [...outcomes.values()], insertedFiles: fileIds };
}

function stripUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/** Fields of a stored node as an update that also clears what the node does not have. */
function nullsFor(rest: Record<string, unknown>): PageFields {
  const keys = ['emoji', 'icon', 'description', 'layout', 'cover', 'variables', 'computed', 'computedSeed', 'target', 'href', 'git'];
  const out: Record<string, unknown> = { hidden: false, noIndex: false, noRobotsIndex: false };
  for (const k of keys) out[k] = null;
  return { ...out, ...rest } as PageFields;
}
