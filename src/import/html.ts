// One crawled HTML page: its title, its links, its content without the site's chrome, and that
// content as Markdown with links and images pointing at the imported pages and files.
import { parse, type HTMLElement } from 'node-html-parser';
import TurndownService from 'turndown';
import { resolveUrl } from './scope.js';
import { decodeOrKeep } from '../util/uri.js';
import { addStructureRules, keepTabTitles } from './structure.js';

export interface ParsedPage {
  title: string;
  /** Every link of the page (its navigation included: a sidebar lists the site), resolved, in document order. */
  links: URL[];
  /** The page's content: `<main>` (else `<body>`) without navigation, header, footer, scripts, styles, forms. */
  content: HTMLElement;
  /** What relative URLs resolve against (the page's final URL, or its `<base href>`). */
  base: URL;
}

/** Site chrome and things with no place in a document. */
const DROP = [
  'nav',
  'header',
  'footer',
  'script',
  'style',
  'noscript',
  'template',
  'iframe',
  'object',
  'embed',
  'form',
  'button',
  'svg',
  'link',
  'meta',
  '[role=navigation]',
  '[role=banner]',
  '[role=contentinfo]',
  '[role=search]',
].join(', ');

/** Permalink markers sites put inside headings (`<a href="#x">#</a>`). */
const ANCHOR_MARKER = /^[\s#¶§🔗]*$/u;

const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

/** Deepest element nesting a page may have: the HTML parser and the Markdown converter recurse on it. */
export const MAX_HTML_DEPTH = 512;

const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr']);

/**
 * Whether a page's elements nest deeper than MAX_HTML_DEPTH, without parsing it: one pass counting
 * open and close tags (comments, scripts and styles skipped; unclosed elements count as open, so it
 * errs on the deep side). Linear (every search starts past the last one), no recursion.
 */
export function htmlTooDeep(html: string): boolean {
  let depth = 0;
  let i = html.indexOf('<');
  while (i >= 0) {
    if (html.startsWith('<!--', i)) {
      const end = html.indexOf('-->', i + 4);
      if (end < 0) return false;
      i = html.indexOf('<', end + 3);
      continue;
    }
    const closing = html.charCodeAt(i + 1) === 0x2f;
    const m = /^[A-Za-z][A-Za-z0-9-]*/.exec(html.slice(i + (closing ? 2 : 1), i + 66));
    if (!m) {
      i = html.indexOf('<', i + 1);
      continue;
    }
    const end = html.indexOf('>', i);
    if (end < 0) return false;
    const name = m[0].toLowerCase();
    if (closing) depth = Math.max(0, depth - 1);
    else if (name === 'script' || name === 'style') {
      const close = new RegExp(`</${name}`, 'ig');
      close.lastIndex = end;
      const found = close.exec(html);
      if (!found) return false;
      i = html.indexOf('<', found.index + 2);
      continue;
    } else if (html.charCodeAt(end - 1) !== 0x2f && !VOID.has(name) && ++depth > MAX_HTML_DEPTH) return true;
    i = html.indexOf('<', end + 1);
  }
  return false;
}

export function parsePage(html: string, url: URL): ParsedPage {
  const root = parse(html, { comment: false });
  const baseHref = root.querySelector('head base[href]')?.getAttribute('href');
  const base = (baseHref && resolveUrl(baseHref, url)) || url;

  const links: URL[] = [];
  for (const a of root.querySelectorAll('a[href]')) {
    const u = resolveUrl(a.getAttribute('href') ?? '', base);
    if (u) links.push(u);
  }

  for (const h of root.querySelectorAll('h1, h2, h3, h4, h5, h6')) {
    for (const a of h.querySelectorAll('a')) if (ANCHOR_MARKER.test(a.text) && !a.querySelector('img')) a.remove();
  }
  const titleTag = squash(root.querySelector('title')?.text ?? '');
  const anyH1 = squash(root.querySelector('h1')?.text ?? '');
  for (const el of root.querySelectorAll('head, title')) el.remove(); // a page without <body> keeps them at its root

  const body = root.querySelector('body') ?? root;
  keepTabTitles(body);
  for (const el of body.querySelectorAll(DROP)) el.remove();
  const content = body.querySelector('main') ?? body.querySelector('[role=main]') ?? body;
  // The content's own h1 beats one in the site header (`<header><h1>Acme</h1>`).
  const h1 = content.querySelector('h1');
  const title = pickTitle(titleTag, h1 ? squash(h1.text) : anyH1, url);
  // The title is the page's title: a first h1 repeating it would show twice.
  if (h1 && squash(h1.text) === title) h1.remove();
  return { title, links, content, base };
}

/**
 * `<title>` is usually "Page | Site": when it contains the first `<h1>`, the h1 is the better
 * title. Otherwise `<title>`, else the h1, else the URL's last segment, else the host.
 */
function pickTitle(titleTag: string, h1: string, url: URL): string {
  if (h1 && (!titleTag || titleTag.includes(h1))) return h1.slice(0, 500);
  if (titleTag) return titleTag.slice(0, 500);
  const last = decodeOrKeep(url.pathname.replace(/\/+$/, '').split('/').pop() ?? '')
    .replace(/\.html?$/i, '')
    .replace(/[-_]+/g, ' ')
    .trim();
  return (last ? last[0].toUpperCase() + last.slice(1) : url.host).slice(0, 500);
}

/** The `src` of an image, looking past lazy-loading placeholders. */
function imageSource(img: HTMLElement): string | undefined {
  const src = img.getAttribute('src');
  const lazy = img.getAttribute('data-src') ?? img.getAttribute('data-original');
  if ((!src || src.startsWith('data:')) && lazy) return lazy;
  return src ?? undefined;
}

/** Images of the content served by `origin`, resolved, without fragments, first occurrence first. */
export function sameOriginImages(page: ParsedPage, origin: string): URL[] {
  const out = new Map<string, URL>();
  for (const img of page.content.querySelectorAll('img')) {
    const raw = imageSource(img);
    const u = raw ? resolveUrl(raw, page.base) : null;
    if (!u || u.origin !== origin) continue;
    u.hash = '';
    if (!out.has(u.href)) out.set(u.href, u);
  }
  return [...out.values()];
}

interface LinkTargets {
  /** `/pages/<id>` for a URL naming an imported page (without its fragment), else null. */
  page(u: URL): string | null;
  /** `/files/<id>` for an imported image (URL without fragment), else null. */
  image(u: URL): string | null;
}

/**
 * Point links and images of the content at what the import created; everything else becomes an
 * absolute URL (a relative link to a page that was not imported still works from the space).
 * Links inside the page (`#anchor`) and non-http links (`mailto:`) are kept as written.
 */
export function rewriteContent(page: ParsedPage, targets: LinkTargets): void {
  for (const a of page.content.querySelectorAll('a[href]')) {
    const raw = (a.getAttribute('href') ?? '').trim();
    if (!raw || raw.startsWith('#')) continue;
    const u = resolveUrl(raw, page.base);
    if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:')) continue;
    const hash = u.hash;
    const bare = new URL(u.href);
    bare.hash = '';
    const ref = targets.page(bare);
    a.setAttribute('href', ref ? `${ref}${hash}` : u.href);
  }
  for (const img of page.content.querySelectorAll('img')) {
    const raw = imageSource(img);
    img.removeAttribute('srcset');
    const u = raw ? resolveUrl(raw, page.base) : null;
    if (!u) {
      img.remove();
      continue;
    }
    if (u.protocol === 'data:') continue;
    u.hash = '';
    img.setAttribute('src', targets.image(u) ?? u.href);
  }
}

// ---- HTML -> Markdown ----------------------------------------------------------------------------

let service: TurndownService | undefined;

/** Markdown (CommonMark + GFM tables) of an HTML fragment. */
export function htmlToMarkdown(html: string): string {
  service ??= createTurndown();
  return service
    .turndown(html)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function createTurndown(): TurndownService {
  const td = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
    emDelimiter: '_',
    strongDelimiter: '**',
    hr: '---',
  });
  // `{%` opens a GitBook block in our Markdown: text that happens to contain it stays text.
  const escape = td.escape.bind(td);
  td.escape = (text: string) => escape(text).replace(/\{%/g, '{\\%');

  // List items with a single space after the marker and continuation lines indented to match.
  td.addRule('listItem', {
    filter: 'li',
    replacement: (content, node, options) => {
      const parent = node.parentNode as unknown as {
        nodeName: string;
        getAttribute(n: string): string | null;
        children: ArrayLike<unknown>;
      } | null;
      let prefix = `${options.bulletListMarker} `;
      if (parent?.nodeName === 'OL') {
        const start = Number(parent.getAttribute('start') ?? '1');
        const index = Array.prototype.indexOf.call(parent.children, node);
        prefix = `${(Number.isFinite(start) ? start : 1) + index}. `;
      }
      const body = content
        .replace(/^\n+/, '')
        .replace(/\n+$/, '\n')
        .replace(/\n/gm, `\n${' '.repeat(prefix.length)}`);
      return prefix + body + (node.nextSibling && !/\n$/.test(body) ? '\n' : '');
    },
  });

  td.addRule('strikethrough', {
    filter: ['del', 's'],
    replacement: (content) => (content.trim() ? `~~${content}~~` : ''),
  });

  // Tables as GFM pipe tables; the first row is the header.
  td.addRule('table', {
    filter: 'table',
    replacement: (_content, node) => {
      const rows = Array.from((node as unknown as Element).querySelectorAll('tr')).filter(
        (tr) => tr.closest('table') === (node as unknown as Element),
      );
      const cells = rows.map((tr) =>
        Array.from(tr.children)
          .filter((c) => c.nodeName === 'TH' || c.nodeName === 'TD')
          .map((c) =>
            td
              .turndown(c.innerHTML)
              .replace(/\s*\n+\s*/g, ' ')
              .replace(/\|/g, '\\|')
              .trim(),
          ),
      );
      const width = Math.max(0, ...cells.map((r) => r.length));
      if (!width) return '';
      const line = (r: string[]) => `| ${Array.from({ length: width }, (_, i) => r[i] ?? '').join(' | ')} |`;
      const [head, ...rest] = cells;
      return `\n\n${[line(head), `| ${Array(width).fill('---').join(' | ')} |`, ...rest.map(line)].join('\n')}\n\n`;
    },
  });
  // Code blocks with their languages and titles, admonitions as hints, tab sets as tabs. Added
  // last: turndown tries the rules added last first (a line-number table is no table).
  addStructureRules(td);
  return td;
}
