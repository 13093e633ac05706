// One export = one HTML document built from one immutable revision: the selected pages in tree
// order, their bodies, their images embedded from the BlobStore. src/render/html.ts does the
// Markdown -> HTML part; this module does every lookup (database, BlobStore, link resolution).
//
// What an export contains
// - `all`: every page of the revision. `page:<id>`: that page only. `section:<id>`: that page and
//   its descendants. Hidden pages are included (an export is an archive of the content, not of the
//   published site).
// - Document pages: title, description, body. Group pages: their title, as a divider above their
//   children. Link pages: their title and target. Computed pages (OpenAPI references): evaluated
//   at render time from the spec's latest processed version. Variable expressions are evaluated.
// - Images: a reference that resolves to a file of the revision (`/files/<id>`, a docs-as-code path,
//   `.gitbook/assets/<name>`, or this platform's own signed download URL) is embedded as a data:
//   URI. External images and references to nothing are shown as a placeholder naming the URL.
// - Links: to a page of the export -> an internal link to its section (or heading); to another
//   page of the space -> that page's app URL; external URLs stay as they are; the rest is text.
//
// When a page fails
// A page fails the whole export (PageRenderError, "page '<title>': <reason>") when its content
// cannot be rendered faithfully: an image whose file exists in the revision but whose bytes are
// missing from the BlobStore, or a computed page whose evaluation throws. A body beyond the content
// limits (or one whose rendering runs past MARKDOWN_TIMEOUT_MS on the Markdown pool) does not fail
// it: the page is printed as plain text after a notice saying why (src/render/plain.ts).
import pLimit from 'p-limit';
import type { AppContext } from '../context.js';
import { DomainError } from '../core/errors.js';
import { revisionSnapshot } from '../content/commit.js';
import { loadBodies, type Snapshot, type TreePage } from '../content/snapshot.js';
import { createResolver, type Resolver } from '../content/links.js';
import { evaluateComputedPage, evaluateOperationBlocks } from '../content/computed.js';
import { expandIncludes } from '../content/includes.js';
import { evaluateExpressions } from '../content/expressions.js';
import { filterConditionalMarkdown } from '../content/conditional-blocks.js';
import { pageAppUrl } from '../content/present.js';
import type { FileNode } from '../content/types.js';
import { exportDocumentHtml, escapeHtml, type ExportSection, type ImageSource } from './html.js';

/** A page of the export cannot be rendered faithfully: the export fails with this message (no retry). */
export class PageRenderError extends DomainError {
  constructor(
    readonly pageTitle: string,
    reason: string,
  ) {
    super('unprocessable', `page '${pageTitle}': ${reason}`);
    this.name = 'PageRenderError';
  }
}

export type Scope = { kind: 'all' } | { kind: 'page'; pageId: string } | { kind: 'section'; pageId: string };

/**
 * The look of the PDFs this version renders (code highlighting, icons, conditional blocks...):
 * part of each stored render's key, so a PDF stored by an older look is rendered again rather
 * than served as it was. Raise it when the rendering of a revision changes.
 */
export const PDF_LAYOUT_VERSION = 2;

export function scopeKey(s: Scope): string {
  return `${s.kind === 'all' ? 'all' : `${s.kind}:${s.pageId}`}#v${PDF_LAYOUT_VERSION}`;
}

export function parseScope(stored: string): Scope {
  const key = stored.replace(/#v\d+$/, '');
  if (key === 'all') return { kind: 'all' };
  const m = /^(page|section):(.+)$/.exec(key);
  if (!m) throw new Error(`Invalid PDF scope "${key}"`);
  return { kind: m[1] as 'page' | 'section', pageId: m[2] };
}

/** The pages of an export in tree order, each with its depth relative to the export's top. */
function selectPages(snapshot: Snapshot, scope: Scope): { page: TreePage; depth: number }[] {
  const out: { page: TreePage; depth: number }[] = [];
  const walk = (list: TreePage[], depth: number) => {
    for (const p of list) {
      out.push({ page: p, depth });
      walk(p.children, depth + 1);
    }
  };
  if (scope.kind === 'all') walk(snapshot.pages, 0);
  else {
    const root = snapshot.byId.get(scope.pageId);
    if (!root) throw new Error(`Page ${scope.pageId} is not in this revision`);
    if (scope.kind === 'page') out.push({ page: root, depth: 0 });
    else walk([root], 0);
  }
  return out;
}

interface ExportInput {
  spaceId: string;
  revisionId: string;
  organizationId: string;
  scope: Scope;
  /** Cover title and lines. */
  title: string;
  subtitle: string[];
}

interface BuiltExport {
  html: string;
  /** Sections in the document (pages, groups, link pages). */
  pages: number;
}

const anchorOf = (pageId: string) => `page-${pageId}`;
/** Pages of an export rendered at once. */
const PAGES_AT_ONCE = 4;
const SIGNED_FILE = /\/files\/([0-9a-f]{64})(?:[?#]|$)/;

/** Build the export's HTML. Throws PageRenderError when a page cannot be rendered. */
export async function buildExport(
  app: AppContext,
  input: ExportInput,
  onProgress?: (fraction: number) => Promise<void>,
): Promise<BuiltExport> {
  const { snapshot } = await revisionSnapshot(app.db, input.spaceId, input.revisionId);
  const selected = selectPages(snapshot, input.scope);
  const inExport = new Set(selected.map((s) => s.page.node.id));
  const bodies = await loadBodies(
    app.db,
    input.spaceId,
    selected.filter((s) => s.page.node.type === 'document').map((s) => s.page.node),
  );
  const resolver = createResolver(snapshot, { publicUrl: app.config.publicUrl });
  const filesBySha = new Map(snapshot.files.map((f) => [f.sha256, f]));
  const bytesCache = new Map<string, Promise<Buffer | null>>();
  const bytesOf = (f: FileNode) => {
    let p = bytesCache.get(f.blobKey);
    if (!p) bytesCache.set(f.blobKey, (p = app.blobs.get(f.blobKey)));
    return p;
  };

  let done = 0;
  const section = async ({ page, depth }: (typeof selected)[number]): Promise<ExportSection> => {
    const n = page.node;
    const anchor = anchorOf(n.id);
    if (n.type === 'group') {
      return { anchor, title: n.title, depth, kind: 'group', bodyHtml: '' };
    }
    if (n.type === 'link') {
      const href = linkPageHref(app, snapshot, inExport, n.href, n.target);
      const shown = escapeHtml(n.href ?? href ?? '');
      const bodyHtml = href ? `<p>Link: <a href="${escapeHtml(href)}">${shown}</a></p>` : '<p>Link</p>';
      return { anchor, title: n.title, depth, kind: 'link', bodyHtml };
    }
    let markdown: string;
    if (n.type === 'computed') {
      try {
        markdown = await evaluateComputedPage(app, input.organizationId, n);
      } catch (err) {
        throw new PageRenderError(n.title, `the computed content could not be evaluated: ${(err as Error).message}`);
      }
    } else {
      markdown = await expandIncludes(app, snapshot, resolver, page, bodies.get(n.id) ?? '');
      // A PDF has no visitor: `{% if %}` blocks are evaluated with empty claims (src/content/conditional-blocks.ts).
      markdown = filterConditionalMarkdown(markdown, {
        visitor: { claims: {} },
        space: { vars: snapshot.root.variables ?? {} },
        page: { vars: n.variables ?? {} },
      });
    }
    markdown = evaluateExpressions(markdown, { space: snapshot.root.variables ?? {}, page: n.variables ?? {} });

    // Parsing and rendering run on the Markdown pool; a body beyond the content limits (or too
    // slow to parse) is printed as plain text with a notice, never a failed export.
    const { plan, parsed } = await app.markdown.planParsed(markdown);
    const images: [string, ImageSource][] = [];
    for (const url of plan.images) {
      const file = imageFile(resolver, filesBySha, snapshot, url, page);
      if (!file) {
        images.push([
          url,
          { placeholder: /^[a-z][a-z0-9+.-]*:|^\/\//i.test(url) ? `external image not embedded: ${url}` : `image not found: ${url}` },
        ]);
        continue;
      }
      const bytes = await bytesOf(file);
      if (!bytes) throw new PageRenderError(n.title, `image file ${file.id} is missing`);
      images.push([url, { src: `data:${file.contentType || 'application/octet-stream'};base64,${bytes.toString('base64')}` }]);
    }

    let bodyHtml: string;
    try {
      bodyHtml = await app.markdown.html(
        markdown,
        {
          anchor,
          images,
          links: plan.links.map((url) => [url, linkHref(app, resolver, snapshot, inExport, url, page, anchor)]),
          files: plan.files.map((src) => {
            const f = resolver.file(src, page);
            return [src, f ? { name: f.name } : null];
          }),
          operations: await evaluateOperationBlocks(app, input.organizationId, plan.operations, (src) => resolver.file(src, page) ?? null),
        },
        parsed,
      );
    } catch (err) {
      throw new PageRenderError(n.title, (err as Error).message);
    }
    if (n.description) bodyHtml = `<p class="description"><em>${escapeHtml(n.description)}</em></p>\n${bodyHtml}`;
    done++;
    if (onProgress && done % 10 === 0) await onProgress(done / selected.length);
    return { anchor, title: n.title, depth, kind: 'page', bodyHtml };
  };
  // A few pages at a time (the Markdown pool's threads work in parallel; images are read meanwhile),
  // in the document's order; when pages fail, the first of them in that order is the reason.
  const limit = pLimit(PAGES_AT_ONCE);
  const settled = await Promise.allSettled(selected.map((s) => limit(() => section(s))));
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  const sections = settled.map((r) => (r as PromiseFulfilledResult<ExportSection>).value);
  return { html: exportDocumentHtml({ title: input.title, subtitle: input.subtitle, sections }), pages: sections.length };
}

/** The revision file an image URL points at, if any. */
function imageFile(
  resolver: Resolver,
  filesBySha: Map<string, FileNode>,
  snapshot: Snapshot,
  url: string,
  from: TreePage,
): FileNode | undefined {
  const target = resolver.resolve(url, from);
  if (target?.kind === 'file') return snapshot.filesById.get(target.file);
  if (target?.kind === 'url' && target.inApp) {
    // This platform's own signed download URL (files' downloadURL): the file with those bytes.
    const m = SIGNED_FILE.exec(url);
    if (m) return filesBySha.get(m[1]);
  }
  return undefined;
}

function pageHref(app: AppContext, snapshot: Snapshot, inExport: Set<string>, pageId: string, anchor?: string): string {
  if (inExport.has(pageId)) return `#${anchorOf(pageId)}${anchor ? `--${anchor}` : ''}`;
  return `${pageAppUrl(app, snapshot.spaceId, { id: pageId })}${anchor ? `#${encodeURIComponent(anchor)}` : ''}`;
}

function linkHref(
  app: AppContext,
  resolver: Resolver,
  snapshot: Snapshot,
  inExport: Set<string>,
  url: string,
  from: TreePage,
  anchor: string,
): string | null {
  const trimmed = url.trim();
  if (trimmed.startsWith('#') && trimmed.length > 1) return `#${anchor}--${trimmed.slice(1)}`;
  const t = resolver.resolve(trimmed, from);
  if (!t) return null;
  switch (t.kind) {
    case 'url':
      return t.page ? pageHref(app, snapshot, inExport, t.page) : /^(https?|mailto|tel):/i.test(t.url) ? t.url : null;
    case 'page':
      return pageHref(app, snapshot, inExport, t.page, t.anchor);
    default:
      return null; // files and broken links: the text only
  }
}

function linkPageHref(
  app: AppContext,
  snapshot: Snapshot,
  inExport: Set<string>,
  href: string | undefined,
  target: { kind: string; [k: string]: unknown } | undefined,
): string | null {
  if (target?.kind === 'page' && typeof target.page === 'string' && snapshot.byId.has(target.page)) {
    return pageHref(app, snapshot, inExport, target.page);
  }
  const url = href ?? (target?.kind === 'url' && typeof target.url === 'string' ? target.url : undefined);
  return url && /^(https?|mailto|tel):/i.test(url) ? url : null;
}
