// GitBook writes some tables as raw HTML: its card grids (`<table data-view="cards">`, with hidden
// columns holding each card's cover image and target) and tables whose cells hold more than Markdown
// allows. Raw HTML is never passed to readers, so such a table is read here into plain data (cell
// text with bold, italics, code, links, images and line breaks; everything else flattened to its
// text) and rebuilt from that data alone: by the renderer (src/render/html-table.ts) and as the
// description's table block (`?format=document`). Bounded: rows, cells and nesting depth.
import { parse, NodeType, type HTMLElement, type Node as HtmlNode } from 'node-html-parser';

export type Inline =
  | { kind: 'text'; text: string }
  | { kind: 'strong' | 'em' | 'code'; children: Inline[] }
  | { kind: 'link'; href: string; children: Inline[] }
  | { kind: 'image'; src: string; alt: string }
  | { kind: 'br' };

export interface HtmlTableColumn {
  title: string;
  /** `data-hidden`: not shown as a column (a card's cover or target). */
  hidden: boolean;
  /** `data-card-cover`: the card's image (a link to it or an `<img>`). */
  cover: boolean;
  /** `data-card-target`: where the card leads (a link). */
  target: boolean;
}

export interface HtmlTable {
  cards: boolean;
  /** `data-card-size`: GitBook's `large` cards, else medium. */
  cardSize: 'medium' | 'large';
  columns: HtmlTableColumn[];
  rows: Inline[][][];
}

const MAX_ROWS = 500;
const MAX_CELLS = 50;
const MAX_DEPTH = 16;

/** The table a raw HTML block is, or null when it is not (only) a table. */
export function parseHtmlTable(html: string): HtmlTable | null {
  if (!/^\s*<table\b/i.test(html)) return null;
  const root = parse(html);
  const table = root.querySelector('table');
  if (!table) return null;
  const headRow = table.querySelector('thead tr');
  const columns: HtmlTableColumn[] = (headRow ? headRow.querySelectorAll('th, td') : []).slice(0, MAX_CELLS).map((th) => ({
    title: collapse(th.text),
    hidden: th.hasAttribute('data-hidden'),
    cover: th.hasAttribute('data-card-cover'),
    target: th.hasAttribute('data-card-target'),
  }));
  const rows = table
    .querySelectorAll('tr')
    .filter((tr) => tr !== headRow && tr.closest('thead') === null)
    .slice(0, MAX_ROWS)
    .map((tr) =>
      tr
        .querySelectorAll('td, th')
        .slice(0, MAX_CELLS)
        .map((td) => trimInlines(inlines(td, 0))),
    );
  return {
    cards: table.getAttribute('data-view') === 'cards',
    cardSize: table.getAttribute('data-card-size') === 'large' ? 'large' : 'medium',
    columns,
    rows,
  };
}

/** Every URL a table's rendering depends on: images (covers, `<img>`) and links (targets, `<a>`). */
export function tableUrls(t: HtmlTable): { images: string[]; links: string[] } {
  const images: string[] = [];
  const links: string[] = [];
  const walk = (list: Inline[], asImage: boolean) => {
    for (const n of list) {
      if (n.kind === 'image') images.push(n.src);
      else if (n.kind === 'link') {
        (asImage ? images : links).push(n.href);
        walk(n.children, false);
      } else if (n.kind === 'strong' || n.kind === 'em' || n.kind === 'code') walk(n.children, asImage);
    }
  };
  for (const row of t.rows) row.forEach((cell, i) => walk(cell, !!t.columns[i]?.cover));
  return { images, links };
}

function inlines(el: HTMLElement, depth: number): Inline[] {
  const out: Inline[] = [];
  for (const child of el.childNodes) out.push(...inline(child, depth + 1));
  return out;
}

function inline(node: HtmlNode, depth: number): Inline[] {
  if (node.nodeType === NodeType.TEXT_NODE) {
    const text = node.text.replace(/\s+/g, ' ');
    return text ? [{ kind: 'text', text }] : [];
  }
  if (node.nodeType !== NodeType.ELEMENT_NODE) return [];
  const el = node as HTMLElement;
  if (depth > MAX_DEPTH) return [{ kind: 'text', text: collapse(el.text) }];
  switch (el.tagName) {
    case 'STRONG':
    case 'B':
      return [{ kind: 'strong', children: inlines(el, depth) }];
    case 'EM':
      return [{ kind: 'em', children: inlines(el, depth) }];
    case 'CODE':
      return [{ kind: 'code', children: [{ kind: 'text', text: el.text }] }];
    case 'A': {
      const href = el.getAttribute('href');
      return href ? [{ kind: 'link', href, children: inlines(el, depth) }] : inlines(el, depth);
    }
    case 'IMG': {
      const src = el.getAttribute('src');
      return src ? [{ kind: 'image', src, alt: el.getAttribute('alt') ?? '' }] : [];
    }
    case 'BR':
      return [{ kind: 'br' }];
    case 'P':
    case 'DIV':
    case 'LI':
      return [...inlines(el, depth), { kind: 'br' }];
    case 'SCRIPT':
    case 'STYLE':
    case 'TEMPLATE':
      return [];
    default:
      return inlines(el, depth);
  }
}

/** Leading and trailing blanks and line breaks of a cell dropped. */
function trimInlines(list: Inline[]): Inline[] {
  const out = [...list];
  const blank = (n: Inline | undefined) => n && (n.kind === 'br' || (n.kind === 'text' && !n.text.trim()));
  while (blank(out[0])) out.shift();
  while (blank(out.at(-1))) out.pop();
  if (out[0]?.kind === 'text') out[0] = { kind: 'text', text: out[0].text.trimStart() };
  const last = out.at(-1);
  if (last?.kind === 'text') out[out.length - 1] = { kind: 'text', text: last.text.trimEnd() };
  return out;
}

function collapse(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}
