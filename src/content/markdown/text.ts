import type { Definition, Heading, Nodes, Root } from 'mdast';
import { type Block, collapse, headingIds, htmlText, parseExtended, parseMarkdown, phrasingText } from './parse.js';

export interface Section {
  /** Anchor slug of the heading (as markdownToDocument's heading ids); '' for the text before the first heading. */
  id: string;
  /** Heading text; '' for the text before the first heading. */
  title: string;
  /** Heading level 1–6 as written (not clamped to 3 like the document); 0 before the first heading. */
  depth: number;
  /** Plain text up to the next heading: one line per block (per row for tables, per line for code). */
  body: string;
}

export interface HeadingInfo {
  id: string;
  title: string;
  depth: number;
}

export interface MarkdownLink {
  url: string;
  text: string;
  kind: 'link' | 'image';
}

/** Plain-text lines of a block: whitespace collapsed, markup, HTML tags and footnote markers removed. */
function blockLines(node: Block, out: string[]): void {
  const push = (s: string) => {
    const line = collapse(s);
    if (line) out.push(line);
  };
  switch (node.type) {
    case 'paragraph':
    case 'heading':
      push(phrasingText(node.children, false));
      break;
    case 'code':
      for (const line of node.value.split('\n')) push(line);
      break;
    case 'html':
      push(htmlText(node.value));
      break;
    case 'table':
      for (const row of node.children) push(row.children.map((cell) => phrasingText(cell.children, false)).join(' '));
      break;
    case 'gitbookTag':
      // A prompt's description is its title: searched like a heading's text.
      if (node.name === 'prompt' && node.attrs.description) push(node.attrs.description);
      for (const child of node.children) blockLines(child, out);
      break;
    case 'gitbookFile':
    case 'definition':
    case 'thematicBreak':
      break;
    default:
      // blockquote, list, listItem, footnoteDefinition, gitbookHint: their blocks in order
      if ('children' in node) for (const child of node.children) blockLines(child as Block, out);
  }
}

/** The whole page as plain text, one line per block (hint tags removed, code included). */
export function plainText(md: string): string {
  const out: string[] = [];
  for (const node of parseExtended(md).root.children) blockLines(node, out);
  return out.join('\n');
}

/** Every heading at any depth, in document order, with the anchor id markdownToDocument gives it. */
export function headings(md: string): HeadingInfo[] {
  const { root } = parseExtended(md);
  const ids = headingIds(root);
  return [...ids].map(([node, id]) => ({ id, title: collapse(phrasingText(node.children, false)), depth: node.depth }));
}

/**
 * Splits a page at its outline headings (top level, or directly inside a top-level hint); headings
 * nested in lists or quotes keep their id but stay in the body. The text before the first heading is
 * a section with id '' and title '' only when it has text.
 */
export function splitSections(md: string): Section[] {
  const { root } = parseExtended(md);
  const ids = headingIds(root);
  const sections: Section[] = [];
  let current: Section = { id: '', title: '', depth: 0, body: '' };
  let lines: string[] = [];
  const close = () => {
    current.body = lines.join('\n');
    if (current.depth > 0 || current.body !== '') sections.push(current);
  };
  const visit = (nodes: readonly Block[]) => {
    for (const node of nodes) {
      if (node.type === 'gitbookHint') visit(node.children);
      else if (node.type === 'heading') {
        close();
        current = { id: ids.get(node as Heading) ?? '', title: collapse(phrasingText(node.children, false)), depth: node.depth, body: '' };
        lines = [];
      } else blockLines(node, lines);
    }
  };
  visit(root.children);
  close();
  return sections;
}

/**
 * Every link and image destination in document order: inline links, autolinks (GFM literals such as
 * `www.x.com` come back as `http://www.x.com`), reference links and images resolved through their
 * definitions. `#anchor` links are included. Destinations inside raw HTML and `{% file %}` tags are not.
 */
export function extractLinks(md: string, root: Root = parseMarkdown(md)): MarkdownLink[] {
  // Links do not depend on GitBook's block tags (their contents are Markdown as written): the plain
  // parse is enough, without the per-block re-parsing of parseExtended.
  const definitions = new Map<string, Definition>();
  const collect = (node: Nodes) => {
    if (node.type === 'definition' && !definitions.has(node.identifier)) definitions.set(node.identifier, node);
    if ('children' in node) for (const child of node.children) collect(child);
  };
  collect(root);
  const out: MarkdownLink[] = [];
  const walk = (node: Nodes) => {
    if (node.type === 'link') out.push({ url: node.url, text: collapse(phrasingText(node.children, false)), kind: 'link' });
    else if (node.type === 'image') out.push({ url: node.url, text: node.alt ?? '', kind: 'image' });
    else if (node.type === 'linkReference' || node.type === 'imageReference') {
      const def = definitions.get(node.identifier);
      if (def && node.type === 'linkReference')
        out.push({ url: def.url, text: collapse(phrasingText(node.children, false)), kind: 'link' });
      if (def && node.type === 'imageReference') out.push({ url: def.url, text: node.alt ?? '', kind: 'image' });
    }
    if ('children' in node) for (const child of node.children) walk(child);
  };
  walk(root);
  return out;
}

export interface PageLink {
  url: string;
  relation: 'link' | 'image';
}

// Text without any of these cannot hold a link, an autolink (`<…>`, `www.`, `://`, e-mail), a
// reference definition or a file block: skipped without parsing.
const MAY_LINK = /\]\(|\]:|<|www\.|:\/\/|@|\{%/i;

/** Links of a page body in document order: Markdown links and images, then `{% file %}` blocks. */
export function pageLinks(md: string): PageLink[] {
  if (!MAY_LINK.test(md)) return [];
  const extended = /\{%\s*file\s/.test(md) ? parseExtended(md) : null;
  const out: PageLink[] = extractLinks(md, extended?.full).map((l) => ({ url: l.url, relation: l.kind }));
  if (extended) {
    for (const n of extended.root.children) {
      if (n.type === 'gitbookFile') out.push({ url: n.src, relation: 'link' });
      else if (n.type === 'gitbookHint')
        for (const c of n.children as Block[]) if (c.type === 'gitbookFile') out.push({ url: c.src, relation: 'link' });
    }
  }
  return out;
}
