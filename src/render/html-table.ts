// The reader's HTML of GitBook's raw HTML tables (read by src/content/markdown/html-table.ts): a card
// grid for `data-view="cards"`, a plain table otherwise, built from the table's data alone.
import type { Element, ElementContent, Properties } from 'hast';
import type { HtmlTable, Inline } from '../content/markdown/html-table.js';

interface TableLookups {
  /** The `<img>` (or placeholder) for an image URL. */
  image(url: string, alt: string): Element;
  /** Where a link URL goes, or null to keep its text only. */
  href(url: string): string | null;
}

const h = (tagName: string, properties: Properties, children: ElementContent[]): Element => ({
  type: 'element',
  tagName,
  properties,
  children,
});

function inlineHast(list: Inline[], o: TableLookups): ElementContent[] {
  return list.map((n): ElementContent => {
    switch (n.kind) {
      case 'text':
        return { type: 'text', value: n.text };
      case 'strong':
        return h('strong', {}, inlineHast(n.children, o));
      case 'em':
        return h('em', {}, inlineHast(n.children, o));
      case 'code':
        return h('code', {}, inlineHast(n.children, o));
      case 'br':
        return h('br', {}, []);
      case 'image':
        return o.image(n.src, n.alt);
      case 'link': {
        const href = o.href(n.href);
        return href ? h('a', { href }, inlineHast(n.children, o)) : h('span', { className: ['link'] }, inlineHast(n.children, o));
      }
    }
  });
}

/** The first link or image URL of a cell (a card's cover or target). */
function firstUrl(cell: Inline[] | undefined): { url: string; image: boolean } | null {
  for (const n of cell ?? []) {
    if (n.kind === 'image') return { url: n.src, image: true };
    if (n.kind === 'link') return { url: n.href, image: false };
    if (n.kind === 'strong' || n.kind === 'em') {
      const inner = firstUrl(n.children);
      if (inner) return inner;
    }
  }
  return null;
}

/** A card grid (`data-view="cards"`): each row a card with its cover, its visible cells and its target. */
function cardsHast(t: HtmlTable, o: TableLookups): Element {
  const cover = t.columns.findIndex((c) => c.cover);
  const target = t.columns.findIndex((c) => c.target);
  const cards = t.rows.map((row) => {
    const children: ElementContent[] = [];
    const coverUrl = cover >= 0 ? firstUrl(row[cover]) : null;
    if (coverUrl) children.push(o.image(coverUrl.url, ''));
    const targetUrl = target >= 0 ? firstUrl(row[target]) : null;
    const href = targetUrl ? o.href(targetUrl.url) : null;
    let first = true;
    row.forEach((cell, i) => {
      const col = t.columns[i];
      if (col?.hidden || col?.cover || col?.target || !cell.length) return;
      const content = inlineHast(cell, o);
      // The card's title leads to its target (unless the title holds links of its own).
      const linked = first && href && !cell.some((n) => n.kind === 'link') ? [h('a', { href }, content)] : content;
      children.push(h('p', { className: [first ? 'card-title' : 'card-text'] }, linked));
      first = false;
    });
    return h('div', { className: ['card'] }, children);
  });
  return h('div', { className: ['cards'] }, cards);
}

/** A plain table: its header and rows, hidden columns left out. */
function tableHast(t: HtmlTable, o: TableLookups): Element {
  const shown = (i: number) => !t.columns[i]?.hidden;
  const head = t.columns.some((c, i) => shown(i) && c.title)
    ? [
        h('thead', {}, [
          h(
            'tr',
            {},
            t.columns.flatMap((c, i) => (shown(i) ? [h('th', {}, [{ type: 'text', value: c.title }])] : [])),
          ),
        ]),
      ]
    : [];
  const body = h(
    'tbody',
    {},
    t.rows.map((row) =>
      h(
        'tr',
        {},
        row.flatMap((cell, i) => (shown(i) ? [h('td', {}, inlineHast(cell, o))] : [])),
      ),
    ),
  );
  return h('table', {}, [...head, body]);
}

/** The reader's HTML of a table read by parseHtmlTable. */
export function htmlTableHast(t: HtmlTable, o: TableLookups): Element {
  return t.cards ? cardsHast(t, o) : tableHast(t, o);
}
