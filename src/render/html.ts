// Markdown -> print HTML for PDF exports. Pure: everything that needs the database or the
// BlobStore (images, where links go) is looked up beforehand by src/render/document.ts and passed
// in, so the conversion itself is synchronous and testable on its own.
//
// - Parsing is the content model's own (`parseExtended`: GFM plus the GitBook `{% hint %}` and
//   `{% file %}` blocks), converted with mdast-util-to-hast and serialized with hast-util-to-html.
// - Raw HTML inside Markdown is dropped (not rendered), as everywhere else in the platform.
// - A page's title is its `<h1>`; body headings move one level down (`#` -> `<h2>`, ... `######`
//   stays `<h6>`) and get ids unique across the whole export: `<page anchor>--<heading slug>`; a
//   body shown alone (a page of a site: anchor '') gets GitBook's bare `<heading slug>` ids, so
//   `page#heading` links written for GitBook land.
// - Images are embedded (data: URIs) or shown as a placeholder naming what could not be embedded;
//   the browser that prints the HTML loads nothing from the network.
import type { Definition, Heading, Image, ImageReference, Link, LinkReference, Nodes, Root } from 'mdast';
import type { Element, ElementContent, Properties } from 'hast';
import { toHast, defaultHandlers, type Handler, type Handlers, type State } from 'mdast-util-to-hast';
import { toHtml } from 'hast-util-to-html';
import katex from 'katex';
import { htmlTableHast } from './html-table.js';
import { highlightCss, newBudget, renderCodeBlock, type CodeBlockOptions } from './highlight.js';
import { HINT_ICONS, iconElement } from './icons.js';
import { PROMPT_CSS, promptElement } from './prompt.js';
import { parseHtmlTable, tableUrls } from '../content/markdown/html-table.js';
import {
  headingIds,
  parseExtended,
  type Block,
  type DetailsNode,
  type FileNode,
  type HintNode,
  type TagNode,
} from '../content/markdown/parse.js';

/** What an image source became: a data: URI, or the reason it is not shown. */
export type ImageSource = { src: string } | { placeholder: string };

/**
 * What rendering a body needs looked up first (plain data, so the lookups can happen on another
 * thread than the rendering): what each image shows, where each link goes, the name of each file.
 */
interface PageBodyOptions {
  /** Id of the page's section; heading ids and footnote ids are prefixed with it ('' for none). */
  anchor: string;
  /** Every image URL of the body (`renderPlan(...).images`) mapped to what to show. */
  images: ReadonlyMap<string, ImageSource>;
  /** Every link URL (`renderPlan(...).links`) mapped to where it goes (`#anchor` or an absolute URL), or null to keep the text only. */
  links: ReadonlyMap<string, string | null>;
  /**
   * Every `{% file src %}` (`renderPlan(...).files`) mapped to its display name and, where readers
   * can download it, its URL; null when it resolves to nothing.
   */
  files: ReadonlyMap<string, AttachmentRef | null>;
  /**
   * Every OpenAPI block (`renderPlan(...).operations`) mapped to the Markdown of the operation it
   * names, evaluated from the organization's spec; a block without an entry shows its method and path.
   */
  operations?: ReadonlyMap<string, string>;
}

/** The lookup key of an OpenAPI block: its spec (or `src`), path and method, one per line. */
/** A `{% file %}` block's file as readers see it. */
export interface AttachmentRef {
  name: string;
  href?: string;
}

export function operationKey(attrs: Record<string, string | undefined>): string {
  return [attrs.spec ?? attrs.src ?? '', attrs.path ?? '', (attrs.method ?? 'get').toLowerCase()].join('\n');
}

/** The URLs a body's rendering depends on, each once, in document order. */
export interface RenderPlan {
  /** Inline and reference-style images, hints included. */
  images: string[];
  /** Inline and reference-style links (as written; `#anchor` links included). */
  links: string[];
  /** `src` of `{% file %}` blocks. */
  files: string[];
  /** OpenAPI blocks (`{% openapi-operation %}`, `{% openapi %}`, `{% swagger %}`) as `operationKey`s. */
  operations: string[];
}

export function renderPlan(markdown: string): RenderPlan {
  const { root, definitions } = parseExtended(markdown);
  const images = new Set<string>();
  const links = new Set<string>();
  const files = new Set<string>();
  const operations = new Set<string>();
  const todo: (Block | Nodes)[] = [...root.children].reverse();
  while (todo.length) {
    const n = todo.pop()!;
    if (n.type === 'image') images.add(n.url);
    else if (n.type === 'imageReference') {
      const def = definitions.get(n.identifier);
      if (def) images.add(def.url);
    } else if (n.type === 'link') links.add(n.url);
    else if (n.type === 'linkReference') {
      const def = definitions.get(n.identifier);
      if (def) links.add(def.url);
    } else if (n.type === 'gitbookFile') files.add(n.src);
    else if (n.type === 'html') {
      const table = parseHtmlTable(n.value);
      if (table) {
        const urls = tableUrls(table);
        urls.images.forEach((u) => images.add(u));
        urls.links.forEach((u) => links.add(u));
      } else for (const img of figureImages(n.value)) images.add(img.src);
    } else if (n.type === 'gitbookTag') {
      if (n.name === 'content-ref' && n.attrs.url) links.add(n.attrs.url);
      if (n.name === 'embed' && n.attrs.url) links.add(n.attrs.url);
      if (OPENAPI_TAGS.has(n.name)) operations.add(operationKey(n.attrs));
    }
    if ('children' in n) for (let i = n.children.length - 1; i >= 0; i--) todo.push(n.children[i] as Nodes);
  }
  return { images: [...images], links: [...links], files: [...files], operations: [...operations] };
}

const OPENAPI_TAGS = new Set(['openapi-operation', 'openapi', 'swagger']);

function el(tagName: string, properties: Properties, children: ElementContent[]): Element {
  return { type: 'element', tagName, properties, children };
}

const text = (value: string): ElementContent => ({ type: 'text', value });

/** One page body as an HTML fragment. */
export function pageBodyHtml(markdown: string, o: PageBodyOptions): string {
  // The only raw nodes are KaTeX's MathML (mathElement); raw HTML of the Markdown never becomes one.
  return toHtml(bodyHast(markdown, o), { allowDangerousHtml: true });
}

/**
 * TeX as MathML, which browsers and the PDF's Chromium lay out natively (no fonts or scripts to
 * load). KaTeX runs untrusted (no \href, \url or HTML extensions), with bounded macro expansion
 * and sizes; TeX it cannot parse is shown as written, in code.
 */
function mathElement(tex: string, display: boolean): ElementContent {
  try {
    const value = katex.renderToString(tex, {
      output: 'mathml',
      displayMode: display,
      throwOnError: true,
      trust: false,
      strict: 'ignore',
      maxExpand: 200,
      maxSize: 50,
    });
    return { type: 'raw', value } as unknown as ElementContent;
  } catch {
    return el('code', {}, [text(tex)]);
  }
}

function bodyHast(markdown: string, o: PageBodyOptions) {
  const { root, definitions } = parseExtended(markdown);
  const ids = headingIds(root);
  // Code blocks: highlighted within one budget per body; a `{% code %}` tag's options apply to the fences it wraps.
  const budget = newBudget();
  let codeOptions: CodeBlockOptions = {};
  const def = (identifier: string): Definition | undefined => definitions.get(identifier);

  const imageElement = (url: string, alt: string | null | undefined, title: string | null | undefined): Element => {
    const source = o.images.get(url) ?? { placeholder: `image not embedded: ${url}` };
    if ('src' in source) {
      const props: Properties = { src: source.src, alt: alt ?? '' };
      if (title) props.title = title;
      return el('img', props, []);
    }
    return el('span', { className: ['image-placeholder'] }, [text(`[${alt ? `${alt}: ` : ''}${source.placeholder}]`)]);
  };
  const linkElement = (state: State, node: Link | LinkReference, url: string | undefined, title?: string | null): Element => {
    const href = url === undefined ? null : (o.links.get(url) ?? null);
    const children = state.all(node);
    if (!href) return el('span', { className: ['link'] }, children);
    const props: Properties = { href };
    if (title) props.title = title;
    return el('a', props, children);
  };

  // The two GitBook block nodes are not mdast types, hence the widened record.
  const handlers: Record<string, Handler> = {
    heading(state: State, node: Heading) {
      const out = defaultHandlers.heading(state, node);
      out.tagName = `h${Math.min(6, node.depth + 1)}`;
      const slug = ids.get(node);
      if (slug) out.properties = { ...out.properties, id: o.anchor ? `${o.anchor}--${slug}` : slug };
      return out;
    },
    image: (_state: State, node: Image) => imageElement(node.url, node.alt, node.title),
    imageReference(state: State, node: ImageReference) {
      const d = def(node.identifier);
      return d ? imageElement(d.url, node.alt, d.title) : defaultHandlers.imageReference(state, node);
    },
    link: (state: State, node: Link) => linkElement(state, node, node.url, node.title),
    linkReference(state: State, node: LinkReference) {
      const d = def(node.identifier);
      return d ? linkElement(state, node, d.url, d.title) : defaultHandlers.linkReference(state, node);
    },
    gitbookHint(state: State, node: HintNode) {
      const icon = iconElement(HINT_ICONS[node.style], 'hint-icon');
      const body = el('div', { className: ['hint-body'] }, state.all(node as unknown as Nodes));
      return el('aside', { className: ['hint', `hint-${node.style}`] }, icon ? [icon, body] : [body]);
    },
    code: (_state: State, node: { value: string; lang?: string | null }) =>
      renderCodeBlock(node.value, { ...codeOptions, lang: node.lang }, budget),
    gitbookFile(_state: State, node: FileNode) {
      const file = o.files.get(node.src) ?? null;
      if (!file) return el('p', { className: ['attachment', 'attachment-missing'] }, [text(`Attachment not found: ${node.src}`)]);
      const label = [text('Attachment: '), text(file.name)];
      if (!file.href) return el('p', { className: ['attachment'] }, label);
      return el('p', { className: ['attachment'] }, [el('a', { href: file.href, download: file.name }, label)]);
    },
    gitbookDetails(state: State, node: DetailsNode) {
      return el('details', { className: ['expandable'], ...(node.open ? { open: true } : {}) }, [
        el('summary', {}, [text(node.summary || 'Details')]),
        ...state.all(node as unknown as Nodes),
      ]);
    },
    gitbookTag(state: State, node: TagNode) {
      // An `{% if %}` still here was not evaluated for a reader (src/content/conditional-blocks.ts
      // filters bodies before they are rendered): it shows nothing, never its content.
      if (node.name === 'if') return undefined;
      if (node.name === 'prompt')
        return promptElement(node, state.all(node as unknown as Nodes), `${o.anchor || 'block'}-prompt-${++blockCount}`);
      if (node.name !== 'code') return renderTag(state, node, o, () => ++blockCount);
      const a = node.attrs;
      const outer = codeOptions;
      codeOptions = {
        title: a.title,
        lineNumbers: a.lineNumbers === 'true',
        overflow: a.overflow === 'wrap' ? 'wrap' : 'scroll',
        fullWidth: a.fullWidth === 'true',
        expandable: a.expandable === 'true',
        collapsedLineCount: a.collapsedLineCount ? Number(a.collapsedLineCount) : undefined,
      };
      const out = state.all(node as unknown as Nodes);
      codeOptions = outer;
      return out.length === 1 && out[0].type === 'element' ? out[0] : el('div', { className: ['gitbook-code'] }, out);
    },
    math: (_state: State, node: { value: string }) => el('div', { className: ['math'] }, [mathElement(node.value, true)]),
    inlineMath: (_state: State, node: { value: string }) => el('span', { className: ['math'] }, [mathElement(node.value, false)]),
    html(_state: State, node: { value: string }) {
      // Raw HTML is dropped, but for GitBook's tables (card grids included), figures and images:
      // rebuilt from their text, links and images alone.
      const table = parseHtmlTable(node.value);
      if (table)
        return htmlTableHast(table, {
          image: (url, alt) => imageElement(url, alt, null),
          href: (url) => o.links.get(url) ?? null,
        });
      const imgs = figureImages(node.value);
      if (!imgs.length) return undefined;
      const caption = /<figcaption[^>]*>([\s\S]*?)<\/figcaption>/i.exec(node.value);
      const captionText = caption
        ? caption[1]
            .replace(/<[^>]*>/g, ' ')
            .replace(/\s+/g, ' ')
            .trim()
        : '';
      const figure = el(
        'figure',
        {},
        imgs.map((img) => imageElement(img.src, img.alt, null)),
      );
      if (captionText) figure.children.push(el('figcaption', {}, [text(captionText)]));
      return figure;
    },
  };
  let blockCount = 0;
  return toHast(root as unknown as Root, {
    handlers: handlers as Handlers,
    clobberPrefix: o.anchor ? `${o.anchor}-` : 'fn-',
    footnoteLabel: 'Notes',
  });
}

/** `<img>` tags of a raw HTML block (GitBook's `<figure>`s): their src and alt, entities decoded. */
export function figureImages(html: string): { src: string; alt: string }[] {
  if (!/<img\b/i.test(html)) return [];
  const out: { src: string; alt: string }[] = [];
  for (const m of html.matchAll(/<img\b([^>]*)>/gi)) {
    const attr = (name: string) => {
      const a = new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`, 'i').exec(m[1]);
      return a ? decodeEntities(a[1] ?? a[2] ?? '') : '';
    };
    const src = attr('src');
    if (src) out.push({ src, alt: attr('alt') });
  }
  return out;
}

function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (m, e: string) => {
    const k = e.toLowerCase();
    const code = k.startsWith('#x') ? parseInt(k.slice(2), 16) : k.startsWith('#') ? parseInt(k.slice(1), 10) : -1;
    if (code >= 0) return code <= 0x10ffff ? String.fromCodePoint(code) : m;
    return ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" } as Record<string, string>)[k] ?? m;
  });
}

/**
 * GitBook block tags as HTML a reader expects, without scripts (the published view allows none):
 * tabs are radio buttons and labels switched by CSS (all panels shown, titled, in print), steppers
 * a numbered list, columns a flex row, updates dated sections, embeds and
 * content references links, OpenAPI blocks the operation they name.
 */
function renderTag(state: State, node: TagNode, o: PageBodyOptions, nextId: () => number): Element {
  const a = node.attrs;
  const children = () => state.all(node as unknown as Nodes);
  const items = (name: string) => node.children.filter((c): c is TagNode => c.type === 'gitbookTag' && c.name === name);
  const inner = (t: TagNode) => state.all(t as unknown as Nodes);
  const link = (url: string, label: string) => {
    const href = o.links.get(url) ?? null;
    return href ? el('a', { href }, [text(label)]) : el('span', { className: ['link'] }, [text(label)]);
  };
  switch (node.name) {
    case 'tabs': {
      const group = `${o.anchor || 'block'}-tabs-${nextId()}`;
      const tabs = items('tab');
      const controls: ElementContent[] = [];
      const panels: ElementContent[] = [];
      tabs.forEach((t, i) => {
        const id = `${group}-${i}`;
        const title = t.attrs.title || `Tab ${i + 1}`;
        controls.push(el('input', { type: 'radio', name: group, id, className: ['tab-radio'], ...(i === 0 ? { checked: true } : {}) }, []));
        controls.push(el('label', { htmlFor: [id], className: ['tab-label'] }, [text(title)]));
        panels.push(el('div', { className: ['tab-panel'] }, [el('p', { className: ['tab-title'] }, [text(title)]), ...inner(t)]));
      });
      return el('div', { className: ['tabs', `tabs-${Math.min(tabs.length, 12)}`] }, [...controls, ...panels]);
    }
    case 'stepper':
      return el(
        'ol',
        { className: ['stepper'] },
        items('step').map((t) => el('li', { className: ['step'] }, inner(t))),
      );
    case 'columns':
      return el(
        'div',
        { className: ['columns'] },
        items('column').map((t) => el('div', { className: ['column'] }, inner(t))),
      );
    case 'updates':
      return el(
        'div',
        { className: ['updates'] },
        items('update').map((t) =>
          el('section', { className: ['update'] }, [el('p', { className: ['update-date'] }, [text(t.attrs.date ?? '')]), ...inner(t)]),
        ),
      );
    case 'embed':
      return el('div', { className: ['embed'] }, [el('p', {}, [text('Embedded: '), link(a.url ?? '', a.url ?? '')]), ...children()]);
    case 'content-ref':
      return el('p', { className: ['content-ref'] }, [
        link(a.url ?? '', (a.url ?? '').replace(/^.*\//, '').replace(/\.md$/i, '') || (a.url ?? '')),
      ]);
    case 'include':
      return el('p', { className: ['reusable-content'] }, [text(`Reusable content: ${node.arg ?? a.src ?? ''}`)]);
    case 'swagger':
    case 'openapi':
    case 'openapi-operation': {
      // The operation as the spec describes it (parameters, bodies, responses), rendered here
      // without further lookups, so an operation cannot pull in another; else method and path.
      const evaluated = o.operations?.get(operationKey(a));
      const operation =
        evaluated === undefined
          ? []
          : ((
              bodyHast(evaluated, {
                anchor: `${o.anchor || 'block'}-op${nextId()}`,
                images: new Map(),
                links: new Map(),
                files: new Map(),
              }) as { children?: ElementContent[] }
            ).children ?? []);
      return el('div', { className: ['openapi-operation'] }, [
        el('p', { className: ['openapi-title'] }, [
          el('span', { className: ['method', `method-${(a.method ?? 'get').toLowerCase()}`] }, [text((a.method ?? 'get').toUpperCase())]),
          text(' '),
          el('code', {}, [text(a.path ?? '')]),
          ...(a.summary ? [text(` ${a.summary}`)] : []),
        ]),
        ...children(),
        ...operation,
      ]);
    }
    default:
      return el('div', { className: [`gitbook-${node.name}`] }, children());
  }
}

/** CSS of GitBook's blocks, shared by the published view and the PDF. */
export const BLOCK_CSS = `${PROMPT_CSS}
aside.hint { border-left: 4px solid #3b82f6; background: #eff5ff; padding: 6px 10px; border-radius: 3px; }
aside.hint-warning { border-color: #d97706; background: #fff7e8; }
aside.hint-danger { border-color: #dc2626; background: #fff0f0; }
aside.hint-success { border-color: #16a34a; background: #effaf2; }
.tabs { border: 1px solid #d9dce1; border-radius: 4px; padding: 0 10px 6px; margin: 0 0 0.8em; }
.tab-radio { position: absolute; opacity: 0; width: 1px; height: 1px; }
.tab-label { display: inline-block; padding: 6px 10px; cursor: pointer; border-bottom: 2px solid transparent; color: #555; }
.tab-radio:checked + .tab-label { border-bottom-color: #1a56b0; color: #1a56b0; font-weight: 600; }
.tab-radio:focus-visible + .tab-label { outline: 2px solid #1a56b0; }
.tab-panel { display: none; padding-top: 6px; }
.tab-title { display: none; font-weight: bold; }
${Array.from({ length: 12 }, (_, i) => `.tab-radio:nth-of-type(${i + 1}):checked ~ .tab-panel:nth-of-type(${i + 1})`).join(',\n')} { display: block; }
ol.stepper { list-style: none; counter-reset: step; padding-left: 0; }
ol.stepper > li.step { counter-increment: step; position: relative; padding-left: 2.4em; margin-bottom: 0.8em; }
ol.stepper > li.step::before { content: counter(step); position: absolute; left: 0; top: 0; width: 1.6em; height: 1.6em; border-radius: 50%;
  background: #1a56b0; color: #fff; text-align: center; line-height: 1.6em; font-size: 0.9em; font-weight: bold; }
.columns { display: flex; gap: 1.2em; } .column { flex: 1 1 0; min-width: 0; }
figure { margin: 0 0 0.8em; } figcaption { font-size: 0.9em; color: #555; text-align: center; }
figure.code-block figcaption.code-title { text-align: left; font-family: monospace; background: #eceef1; padding: 2px 8px; }
.code-block { margin: 0 0 0.8em; } .code-block pre.code { margin: 0; white-space: pre; overflow-x: auto; }
.code-block.wrap pre.code { white-space: pre-wrap; overflow-wrap: anywhere; }
.code-block pre.code code { counter-reset: line; }
.code-block.line-numbers .line::before { counter-increment: line; content: counter(line); display: inline-block; min-width: 2em;
  margin-right: 1em; text-align: right; color: #8b949e; -webkit-user-select: none; user-select: none; }
${highlightCss().light}
.code-expand { display: inline-flex; gap: 0.4em; align-items: center; margin-top: 0.3em; font-size: 0.85em; cursor: pointer; }
.code-expand input { margin: 0; } .code-expand .less, .code-block:has(.code-expand input:checked) .code-expand .more { display: none; }
.code-block:has(.code-expand input:checked) .code-expand .less { display: inline; }
${Array.from({ length: 30 }, (_, i) => `.code-block.collapsed-${i + 1}:not(:has(.code-expand input:checked)) pre.code { max-height: calc(${i + 1}lh + 2rem); overflow-y: hidden; }`).join('\n')}
svg.icon { width: 1em; height: 1em; vertical-align: -0.125em; flex: none; }
aside.hint { display: flex; gap: 0.6em; align-items: flex-start; } aside.hint .hint-icon { margin-top: 0.25em; color: #3b82f6; }
aside.hint .hint-body { flex: 1; min-width: 0; } aside.hint .hint-body > :first-child { margin-top: 0; } aside.hint .hint-body > :last-child { margin-bottom: 0; }
aside.hint-warning .hint-icon { color: #d97706; } aside.hint-danger .hint-icon { color: #dc2626; } aside.hint-success .hint-icon { color: #16a34a; }
details.expandable { border: 1px solid #d9dce1; border-radius: 4px; padding: 4px 10px; margin: 0 0 0.8em; }
details.expandable > summary { cursor: pointer; font-weight: 600; }
.update { border-left: 3px solid #c5c9cf; padding-left: 10px; } .update-date { color: #555; font-weight: bold; }
.openapi-operation { border: 1px solid #d9dce1; border-radius: 4px; padding: 4px 10px; margin: 0 0 0.8em; }
.openapi-operation .method { font-weight: bold; text-transform: uppercase; }
.embed, .content-ref, .reusable-content { border: 1px solid #d9dce1; border-radius: 4px; padding: 4px 10px; }
.math { font-family: "DejaVu Serif", serif; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(14em, 1fr)); gap: 0.8em; margin: 0 0 0.8em; }
.card { border: 1px solid #d9dce1; border-radius: 6px; padding: 0 10px 8px; overflow: hidden; break-inside: avoid; }
.card > img { display: block; width: calc(100% + 20px); margin: 0 -10px 6px; max-height: 12em; object-fit: cover; }
.card-title { font-weight: 600; margin: 8px 0 4px; } .card-text { margin: 0 0 4px; color: #444; }
@media print {
  .code-block pre.code { white-space: pre-wrap; overflow-wrap: anywhere; max-height: none !important; }
  .code-expand { display: none; }
  .tab-label { display: none; }
  .tab-panel { display: block !important; }
  .tab-title { display: block; }
}
`;

// ---- The whole document ---------------------------------------------------------------------------

export interface ExportSection {
  anchor: string;
  title: string;
  /** Depth in the exported tree (0 = top level): indents the table of contents. */
  depth: number;
  kind: 'page' | 'group' | 'link';
  /** HTML fragment of the body (pages) or of the link line (link pages). */
  bodyHtml: string;
}

interface ExportDocument {
  /** Cover title (the space's). */
  title: string;
  /** Cover lines under the title (change request subject and number, revision, ...). */
  subtitle: string[];
  sections: ExportSection[];
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const CSS = `
@page { size: A4; margin: 18mm 16mm 20mm 16mm; }
html { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
body { font-family: "DejaVu Sans", "Liberation Sans", Arial, sans-serif; font-size: 10.5pt; line-height: 1.45; color: #1b1b1b; margin: 0; }
h1, h2, h3, h4, h5, h6 { line-height: 1.25; margin: 1.1em 0 0.45em; break-after: avoid; page-break-after: avoid; }
h1 { font-size: 20pt; } h2 { font-size: 15pt; } h3 { font-size: 12.5pt; } h4, h5, h6 { font-size: 11pt; }
p, ul, ol, blockquote, table, pre, aside { margin: 0 0 0.8em; }
a { color: #1a56b0; text-decoration: none; }
img { max-width: 100%; height: auto; break-inside: avoid; }
.image-placeholder { display: inline-block; padding: 2px 6px; border: 1px dashed #999; color: #555; font-size: 9pt; }
pre { font-family: "DejaVu Sans Mono", "Liberation Mono", monospace; font-size: 8.8pt; line-height: 1.4; background: #f4f5f7;
      border: 1px solid #d9dce1; border-radius: 4px; padding: 8px 10px; white-space: pre-wrap; overflow-wrap: anywhere; word-break: break-word; }
code { font-family: "DejaVu Sans Mono", "Liberation Mono", monospace; font-size: 0.9em; background: #f4f5f7; padding: 0 2px; border-radius: 2px; }
pre code { background: none; padding: 0; font-size: inherit; }
table { border-collapse: collapse; max-width: 100%; font-size: 9.5pt; }
th, td { border: 1px solid #9aa0a8; padding: 4px 7px; vertical-align: top; overflow-wrap: anywhere; }
th { background: #eceef1; font-weight: bold; }
tr { break-inside: avoid; }
blockquote { border-left: 3px solid #c5c9cf; margin-left: 0; padding-left: 10px; color: #444; }
.attachment { font-style: italic; }
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
.cover { padding-top: 30mm; }
.cover h1 { font-size: 28pt; margin: 0 0 8mm; }
.cover p { font-size: 12pt; color: #444; margin: 0 0 2mm; }
nav.toc { break-after: page; page-break-after: always; margin-top: 16mm; }
nav.toc h2 { font-size: 16pt; }
nav.toc ol { list-style: none; padding-left: 0; margin: 0; }
nav.toc li { margin: 0.25em 0; }
section.page, section.group, section.link { break-before: page; page-break-before: always; }
section.group + section, section.link + section.link { break-before: auto; page-break-before: auto; }
section > h1.title { margin-top: 0; border-bottom: 1px solid #d9dce1; padding-bottom: 4px; }
section.group > h1.title { border-bottom: none; color: #555; }
`;

/** The complete HTML document: cover, table of contents, then every section in tree order. */
export function exportDocumentHtml(doc: ExportDocument): string {
  const toc = doc.sections
    .map((s) => `<li style="padding-left:${s.depth * 14}pt"><a href="#${escapeHtml(s.anchor)}">${escapeHtml(s.title)}</a></li>`)
    .join('\n');
  // Printed, an expandable block shows its content: every <details> (only ours: raw HTML is dropped) opens.
  const sections = doc.sections
    .map(
      (s) =>
        `<section class="${s.kind}" id="${escapeHtml(s.anchor)}">\n<h1 class="title">${escapeHtml(s.title)}</h1>\n${s.bodyHtml.replace(/<details(?![^>]*\sopen)/g, '<details open')}\n</section>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(doc.title)}</title><style>${CSS}${BLOCK_CSS}</style></head>
<body>
<header class="cover"><h1>${escapeHtml(doc.title)}</h1>${doc.subtitle.map((l) => `<p>${escapeHtml(l)}</p>`).join('')}</header>
<nav class="toc"><h2>Contents</h2><ol>
${toc}
</ol></nav>
${sections}
</body></html>`;
}
