// Markdown -> print HTML for PDF exports. Pure: everything that needs the database or the
// BlobStore (images, where links go) is looked up beforehand by src/render/document.ts and passed
// in, so the conversion itself is synchronous and testable on its own.
//
// - Parsing is the content model's own (`parseExtended`: GFM plus the GitBook `{% hint %}` and
//   `{% file %}` blocks), converted with mdast-util-to-hast and serialized with hast-util-to-html.
// - Raw HTML inside Markdown is dropped (not rendered), as everywhere else in the platform.
// - A page's title is its `<h1>`; body headings move one level down (`#` -> `<h2>`, ... `######`
//   stays `<h6>`) and get ids unique across the whole export: `<page anchor>--<heading slug>`.
// - Images are embedded (data: URIs) or shown as a placeholder naming what could not be embedded;
//   the browser that prints the HTML loads nothing from the network.
import type { Definition, Heading, Image, ImageReference, Link, LinkReference, Nodes, Root } from 'mdast';
import type { Element, ElementContent, Properties } from 'hast';
import { toHast, defaultHandlers, type Handler, type Handlers, type State } from 'mdast-util-to-hast';
import { toHtml } from 'hast-util-to-html';
import { headingIds, parseExtended, type Block, type FileNode, type HintNode } from '../content/markdown/parse.js';

/** What an image source became: a data: URI, or the reason it is not shown. */
export type ImageSource = { src: string } | { placeholder: string };

/**
 * What rendering a body needs looked up first (plain data, so the lookups can happen on another
 * thread than the rendering): what each image shows, where each link goes, the name of each file.
 */
interface PageBodyOptions {
  /** Id of the page's section; heading ids and footnote ids are prefixed with it. */
  anchor: string;
  /** Every image URL of the body (`renderPlan(...).images`) mapped to what to show. */
  images: ReadonlyMap<string, ImageSource>;
  /** Every link URL (`renderPlan(...).links`) mapped to where it goes (`#anchor` or an absolute URL), or null to keep the text only. */
  links: ReadonlyMap<string, string | null>;
  /** Every `{% file src %}` (`renderPlan(...).files`) mapped to its display name, or null when it resolves to nothing. */
  files: ReadonlyMap<string, string | null>;
}

/** The URLs a body's rendering depends on, each once, in document order. */
export interface RenderPlan {
  /** Inline and reference-style images, hints included. */
  images: string[];
  /** Inline and reference-style links (as written; `#anchor` links included). */
  links: string[];
  /** `src` of `{% file %}` blocks. */
  files: string[];
}

export function renderPlan(markdown: string): RenderPlan {
  const { root, definitions } = parseExtended(markdown);
  const images = new Set<string>();
  const links = new Set<string>();
  const files = new Set<string>();
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
    if ('children' in n) for (let i = n.children.length - 1; i >= 0; i--) todo.push(n.children[i] as Nodes);
  }
  return { images: [...images], links: [...links], files: [...files] };
}

function el(tagName: string, properties: Properties, children: ElementContent[]): Element {
  return { type: 'element', tagName, properties, children };
}

const text = (value: string): ElementContent => ({ type: 'text', value });

/** One page body as an HTML fragment. */
export function pageBodyHtml(markdown: string, o: PageBodyOptions): string {
  const { root, definitions } = parseExtended(markdown);
  const ids = headingIds(root);
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
      if (slug) out.properties = { ...out.properties, id: `${o.anchor}--${slug}` };
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
      return el('aside', { className: ['hint', `hint-${node.style}`] }, state.all(node as unknown as Nodes));
    },
    gitbookFile(_state: State, node: FileNode) {
      const name = o.files.get(node.src) ?? null;
      return el('p', { className: ['attachment'] }, [text(`Attachment: ${name ?? node.src}`)]);
    },
  };
  const hast = toHast(root as unknown as Root, { handlers: handlers as Handlers, clobberPrefix: `${o.anchor}-`, footnoteLabel: 'Notes' });
  return toHtml(hast);
}

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
aside.hint { border-left: 4px solid #3b82f6; background: #eff5ff; padding: 6px 10px; border-radius: 3px; }
aside.hint-warning { border-color: #d97706; background: #fff7e8; }
aside.hint-danger { border-color: #dc2626; background: #fff0f0; }
aside.hint-success { border-color: #16a34a; background: #effaf2; }
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
  const sections = doc.sections
    .map(
      (s) =>
        `<section class="${s.kind}" id="${escapeHtml(s.anchor)}">\n<h1 class="title">${escapeHtml(s.title)}</h1>\n${s.bodyHtml}\n</section>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(doc.title)}</title><style>${CSS}</style></head>
<body>
<header class="cover"><h1>${escapeHtml(doc.title)}</h1>${doc.subtitle.map((l) => `<p>${escapeHtml(l)}</p>`).join('')}</header>
<nav class="toc"><h2>Contents</h2><ol>
${toc}
</ol></nav>
${sections}
</body></html>`;
}
