// The body of one page of a revision as HTML: links resolved against the revision (pages of the
// same space go through `pageUrl`), images and attachments looked up, the Markdown rendered off the
// event loop (src/render/pool.ts). Shared by the per-space published view and the reader site.
import type { AppContext } from '../context.js';
import type { Snapshot, TreePage } from '../content/snapshot.js';
import { loadBody } from '../content/snapshot.js';
import { createResolver, type Resolver } from '../content/links.js';
import { expandIncludes } from '../content/includes.js';
import { evaluateExpressions } from '../content/expressions.js';
import { fileDownloadUrl, imageProxyUrl } from '../content/present.js';
import { evaluateComputedPage, evaluateOperationBlocks } from '../content/computed.js';
import type { AttachmentRef, ImageSource } from '../render/html.js';
import { filterConditionalMarkdown } from '../content/conditional-blocks.js';
import type { ConditionContext } from '../sites/conditions.js';

export interface PageBody {
  markdown: string;
  html: string;
}

/** The Markdown of a page (computed pages evaluated). */
async function pageMarkdown(app: AppContext, orgId: string, spaceId: string, page: TreePage): Promise<string> {
  return page.node.type === 'computed' ? await evaluateComputedPage(app, orgId, page.node) : await loadBody(app.db, spaceId, page.node);
}

/**
 * The Markdown readers get: pageMarkdown with GitBook's reusable content (`{% include %}`) in place,
 * the `{% if %}` blocks the reader's context `ctx` hides taken out (and every if tag), and the
 * space's and page's variables (`{{ space.vars.x }}`, `{{ page.vars.x }}`) evaluated. A reader with
 * no visitor (the per-space published view, the PDF) has empty claims.
 */
export async function readerBodyMarkdown(
  app: AppContext,
  orgId: string,
  snapshot: Snapshot,
  page: TreePage,
  ctx: ConditionContext,
  resolver: Resolver = createResolver(snapshot, { publicUrl: app.config.publicUrl }),
): Promise<string> {
  const markdown = await pageMarkdown(app, orgId, snapshot.spaceId, page);
  if (page.node.type === 'computed') return markdown;
  const expanded = await expandIncludes(app, snapshot, resolver, page, markdown);
  const shown = filterConditionalMarkdown(expanded, conditionalContext(ctx, snapshot, page));
  return evaluateExpressions(shown, { space: snapshot.root.variables ?? {}, page: page.node.variables ?? {} });
}

/** What a page's `{% if %}` expressions read: the reader's claims, the space's and the page's variables. */
export function conditionalContext(ctx: ConditionContext, snapshot: Snapshot, page: TreePage): ConditionContext {
  return {
    visitor: { claims: ctx.visitor?.claims ?? {} },
    space: { vars: snapshot.root.variables ?? {} },
    page: { vars: page.node.variables ?? {} },
  };
}

export async function renderPageBody(
  app: AppContext,
  orgId: string,
  snapshot: Snapshot,
  page: TreePage,
  pageUrl: (p: TreePage, anchor?: string) => string,
  ctx: ConditionContext,
): Promise<PageBody> {
  const resolver = createResolver(snapshot, { publicUrl: app.config.publicUrl });
  const markdown = await readerBodyMarkdown(app, orgId, snapshot, page, ctx, resolver);
  const { plan, parsed } = await app.markdown.planParsed(markdown);
  const images: [string, ImageSource][] = plan.images.map((url) => {
    const t = resolver.resolve(url, page);
    if (t?.kind === 'file') return [url, { src: fileDownloadUrl(app, snapshot.filesById.get(t.file)!) }];
    // Another origin's image comes through this server (readers' browsers talk to no third party).
    if (t?.kind === 'url' && /^https?:/i.test(t.url)) return [url, { src: t.inApp ? t.url : imageProxyUrl(app, t.url) }];
    return [url, { placeholder: `Image not found: ${url}` }];
  });
  const link = (url: string): string | null => {
    if (url.startsWith('#')) return url;
    const t = resolver.resolve(url, page);
    if (!t || t.kind === 'broken') return null;
    if (t.kind === 'page') {
      const target = snapshot.byId.get(t.page);
      return target ? pageUrl(target, t.anchor) : null;
    }
    if (t.kind === 'file') return fileDownloadUrl(app, snapshot.filesById.get(t.file)!);
    return t.url;
  };
  const attachment = (src: string): AttachmentRef | null => {
    const f = resolver.file(src, page);
    return f ? { name: f.name, href: fileDownloadUrl(app, f) } : null;
  };
  const html = await app.markdown.html(
    markdown,
    {
      anchor: '',
      images,
      links: plan.links.map((url) => [url, link(url)]),
      files: plan.files.map((src) => [src, attachment(src)]),
      operations: await evaluateOperationBlocks(app, orgId, plan.operations, (src) => resolver.file(src, page) ?? null),
    },
    parsed,
  );
  return { markdown, html };
}
