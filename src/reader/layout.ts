// Server-rendered HTML of the reader site. Everything works without JavaScript (links, forms, a
// <details> variant menu); the one external script only remembers the theme toggle, per site. No inline
// script or style (the CSP forbids both): colors come from a per-site stylesheet.
import { escapeHtml as esc } from '../render/html.js';
import { iconSvg } from '../render/icons.js';
import type { NavLink, ReaderPage, TreeItem } from '../services/sites/reader.js';
import type { ReaderSearchHit } from '../services/sites/reader-lists.js';
import { script, stylesheet } from './assets.js';
import { answerHtml } from './answer-html.js';
import type { ReaderAnswer } from '../services/ask.js';
import { footerHtml, socialList, socialMeta } from './layout-footer.js';
import { externalLinksHtml, mobileMenuHtml, sectionTabsHtml, type LinkItem } from './layout-links.js';
import type { Alternate } from '../sites/alternates.js';
import { insightsHead, pageInsightsHtml } from './insights.js';

export interface Chrome {
  base: string;
  title: string;
  settings: Record<string, any>;
  /** Per-site stylesheet URL (colors, corners, fonts). */
  themeCss: string;
  noindex: boolean;
  canonical?: string;
  description?: string;
  lang?: string;
  sections?: ReaderPage['sections'];
  headerLinks?: ReaderPage['headerLinks'];
  /** The site's external links (header, their section group's tabs, mobile menu). */
  externalLinks?: LinkItem[];
  /** Visitor-auth sites: where readers sign out. */
  signOut?: string;
  /** og:image when the customization has no social preview (the page's cover). */
  ogImage?: string;
}

export { themeStylesheet } from './layout-theme.js';
import { hexColor } from './layout-theme.js';

function externalAttrs(href: string | null, settings: Record<string, any>, base: string): string {
  if (!href || href.startsWith(base)) return '';
  return settings.externalLinks?.target === 'blank' ? ' target="_blank" rel="noopener noreferrer"' : '';
}

/**
 * The favicon of the customization: an icon URL, or an emoji drawn as an SVG data URI; without one,
 * the title's initial on the primary color (so browsers never ask the origin for /favicon.ico).
 */
function favicon(c: Chrome): string {
  const f = c.settings.favicon ?? {};
  const svg = (inner: string) =>
    `<link rel="icon" href="data:image/svg+xml,${esc(encodeURIComponent(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">${inner}</svg>`))}">\n`;
  if (typeof f.icon?.light === 'string') return `<link rel="icon" href="${esc(f.icon.light)}">\n`;
  if (typeof f.emoji === 'string') return svg(`<text y=".9em" font-size="90">${esc(f.emoji)}</text>`);
  const initial = [...c.title.trim()][0]?.toUpperCase() ?? '';
  const fill = hexColor(c.settings.styling?.primaryColor?.light) ?? '#346ddb';
  return svg(
    `<rect width="100" height="100" rx="22" fill="${fill}"/><text x="50" y="72" font-size="64" font-family="system-ui,sans-serif" font-weight="700" text-anchor="middle" fill="#fff">${esc(initial)}</text>`,
  );
}

function ogImage(c: Chrome): string {
  const url = typeof c.settings.socialPreview?.url === 'string' ? c.settings.socialPreview.url : c.ogImage;
  return url ? `<meta property="og:image" content="${esc(url)}">\n<meta name="twitter:card" content="summary_large_image">\n` : '';
}

/** hreflang alternates of the page (src/sites/alternates.ts). */
function alternatesHtml(alternates: Alternate[] | undefined): string {
  return (alternates ?? []).map((a) => `<link rel="alternate" hreflang="${esc(a.hreflang)}" href="${esc(a.href)}">\n`).join('');
}

function head(c: Chrome, pageTitle: string, alternates?: Alternate[]): string {
  const theme = ['light', 'dark', 'system'].includes(c.settings.themes?.default) ? c.settings.themes.default : 'light';
  const toggle = c.settings.themes?.toggeable !== false;
  return `<!doctype html>
<html lang="${esc(c.lang ?? c.settings.internationalization?.locale ?? 'en')}" data-theme="${theme}" data-toggle="${toggle ? '1' : '0'}" data-site="${esc(new URL(c.base).pathname)}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(pageTitle)}</title>
${c.noindex ? '<meta name="robots" content="noindex, nofollow">\n' : ''}${c.description ? `<meta name="description" content="${esc(c.description)}">\n` : ''}${c.canonical ? `<link rel="canonical" href="${esc(c.canonical)}">\n<meta property="og:url" content="${esc(c.canonical)}">\n` : ''}${alternatesHtml(alternates)}<meta property="og:type" content="website">
<meta property="og:title" content="${esc(pageTitle)}">
<meta property="og:site_name" content="${esc(c.title)}">
${c.description ? `<meta property="og:description" content="${esc(c.description)}">\n` : ''}${ogImage(c)}${socialMeta(c.settings)}${favicon(c)}<link rel="stylesheet" href="${esc(c.base)}/~site/static/${stylesheet.name}">
<link rel="stylesheet" href="${esc(c.themeCss)}">
<script src="${esc(c.base)}/~site/static/${script.name}"></script>
${insightsHead(c.base, c.settings.insights?.enabled !== false)}</head>`;
}

/**
 * Whether readers may ask questions: the customization's `ai.mode` (`search` or `assistant`; the
 * default `none`, as on GitBook, shows no Ask box). The MCP endpoint is served either way.
 */
export function askEnabled(settings: Chrome['settings']): boolean {
  const mode = (settings as { ai?: { mode?: unknown } }).ai?.mode;
  return mode === 'search' || mode === 'assistant';
}

/** The Ask box: a question answered from this site's pages (src/services/ask.ts); without JavaScript, the answer page. */
function askForm(c: Chrome, question = ''): string {
  if (!askEnabled(c.settings)) return '';
  const greeting = (c.settings as { ai?: { greeting?: unknown } }).ai?.greeting;
  const placeholder = typeof greeting === 'string' && greeting.trim() ? greeting.trim() : 'Ask a question…';
  return `<form class="ask" action="${esc(c.base)}/ask" method="get"><label class="skip" for="site-ask">Ask a question</label><input id="site-ask" type="text" name="q" value="${esc(question)}" placeholder="${esc(placeholder)}" maxlength="512" autocomplete="off"><button type="submit">Ask</button></form>`;
}

function header(c: Chrome, query = ''): string {
  const s = c.settings;
  const logos = s.header?.logo ?? {};
  const logo =
    typeof logos.light === 'string'
      ? typeof logos.dark === 'string' && logos.dark !== logos.light
        ? `<img class="logo-light" src="${esc(logos.light)}" alt=""><img class="logo-dark" src="${esc(logos.dark)}" alt="">`
        : `<img src="${esc(logos.light)}" alt="">`
      : '';
  const announcement =
    s.announcement?.enabled && s.announcement.message
      ? `<div class="banner banner-${esc(s.announcement.style ?? 'info')}" role="note">${esc(s.announcement.message)}${
          s.announcement.link?.to?.kind === 'url'
            ? ` <a href="${esc(s.announcement.link.to.url)}"${externalAttrs(s.announcement.link.to.url, s, c.base)}>${esc(s.announcement.link.title)}</a>`
            : ''
        }</div>`
      : '';
  const links = (c.headerLinks ?? []).length
    ? `<nav class="links" aria-label="Links"><ul>${c
        .headerLinks!.map(
          (l) => `<li>${l.href ? `<a href="${esc(l.href)}"${externalAttrs(l.href, s, c.base)}>${esc(l.title)}</a>` : esc(l.title)}</li>`,
        )
        .join('')}</ul></nav>`
    : '';
  const toggle =
    s.themes?.toggeable !== false ? '<button type="button" data-theme-toggle hidden aria-label="Toggle dark mode">◐</button>' : '';
  return `<a class="skip" href="#site-main">Skip to content</a>${announcement}
<header class="site"><a class="brand" href="${esc(c.base)}/">${logo}<span>${esc(c.title)}</span></a>${links}${externalLinksHtml(c.externalLinks, c.sections)}${mobileMenuHtml(c)}
<form role="search" action="${esc(c.base)}/search" method="get"><label class="skip" for="site-q">Search</label><input id="site-q" type="search" name="q" value="${esc(query)}" placeholder="Search…" maxlength="200"><button type="submit">Search</button></form>${askForm(c)}${socialList(c, 'header')}${toggle}${c.signOut ? `<a href="${esc(c.signOut)}">Sign out</a>` : ''}</header>
${sectionTabs(c)}`;
}

function sectionTabs(c: Chrome): string {
  return sectionTabsHtml(c.sections, c.externalLinks);
}

const footer = (c: Chrome) => footerHtml(c);

function treeHtml(items: TreeItem[]): string {
  if (!items.length) return '';
  return `<ul>${items
    .map((t) => {
      if (t.group) return `<li><span class="group-title">${esc(t.title)}</span>${treeHtml(t.children)}</li>`;
      const a = t.href
        ? `<a href="${esc(t.href)}"${t.current ? ' aria-current="page"' : ''}>${iconSvg(t.icon)}${esc(t.title)}</a>`
        : `<span>${iconSvg(t.icon)}${esc(t.title)}</span>`;
      if (!t.children.length) return `<li>${a}</li>`;
      return `<li><details${t.open ? ' open' : ''}><summary>${a}</summary>${treeHtml(t.children)}</details></li>`;
    })
    .join('')}</ul>`;
}

function variantMenu(variants: NavLink[]): string {
  if (variants.length < 2) return '';
  const current = variants.find((v) => v.current);
  return `<details class="variant"><summary class="button">${esc(current?.title ?? 'Version')}</summary><ul>${variants
    .map((v) => `<li><a href="${esc(v.href)}"${v.current ? ' aria-current="true"' : ''}>${esc(v.title)}</a></li>`)
    .join('')}</ul></details>`;
}

/**
 * External links of the body open per `externalLinks.target`. The body comes from our own renderer
 * (hast-util-to-html: attributes always double-quoted), so the anchors are matched exactly.
 */
function bodyLinks(body: string, settings: Record<string, any>, base: string): string {
  if (settings.externalLinks?.target !== 'blank') return body;
  const origin = new URL(base).origin;
  return body.replace(/<a href="(https?:\/\/[^"]*)"/g, (whole, href: string) =>
    href.startsWith(`${origin}/`) ? whole : `${whole} target="_blank" rel="noopener noreferrer"`,
  );
}

/** The page's cover above its title: one image, or a light and a dark one the theme chooses between. */
function coverHtml(p: ReaderPage): string {
  const c = p.cover;
  if (!c) return '';
  const img = (src: string, cls: string) => `<img${cls ? ` class="${cls}"` : ''} src="${esc(src)}" alt="">`;
  return `<div class="cover cover-${c.size}">${c.dark ? img(c.light, 'cover-light') + img(c.dark, 'cover-dark') : img(c.light, '')}</div>`;
}

/** A page of the site. */
export function pageHtml(p: ReaderPage, c: Chrome): string {
  const node = p.location.page.node;
  const crumbs = p.breadcrumbs.length
    ? `<nav class="breadcrumbs" aria-label="Breadcrumbs"><ol>${p.breadcrumbs
        .map((b) => `<li>${b.href ? `<a href="${esc(b.href)}">${esc(b.title)}</a>` : esc(b.title)}</li>`)
        .join('')}</ol></nav>`
    : '';
  const pagination =
    p.settings.pagination?.enabled === false || (!p.previous && !p.next)
      ? ''
      : `<nav class="pagination" aria-label="Previous and next">${
          p.previous
            ? `<a class="previous" rel="prev" href="${esc(p.previous.href)}"><small>Previous</small>${esc(p.previous.title)}</a>`
            : '<span></span>'
        }${p.next ? `<a class="next" rel="next" href="${esc(p.next.href)}"><small>Next</small>${esc(p.next.title)}</a>` : ''}</nav>`;
  const outline = p.outline.length
    ? `<aside class="outline" aria-label="On this page"><strong>On this page</strong><ul>${p.outline
        .map((o) => `<li class="l${o.level}"><a href="#${esc(o.id)}">${esc(o.title)}</a></li>`)
        .join('')}</ul></aside>`
    : '<aside class="outline" aria-label="On this page"></aside>';
  const mdHref = `${p.base}/${p.location.path ? `${p.location.path}.md` : 'index.md'}`;
  const items: string[] = p.settings.pageActions?.items ?? [];
  const pdfHref = `${p.base}/~site/pdf?path=${encodeURIComponent(p.location.path)}`;
  const actions =
    (items.includes('markdown') ? `<a href="${esc(mdHref)}">View as Markdown</a>` : '') +
    (items.includes('pdf') && p.settings.pdf?.enabled ? `<a href="${esc(pdfHref)}" rel="nofollow">Export as PDF</a>` : '');
  const updated = p.lastUpdated
    ? `<span>Last updated <time datetime="${p.lastUpdated.toISOString()}">${p.lastUpdated.toISOString().slice(0, 10)}</time></span>`
    : '';
  return `${head(c, `${node.title} | ${p.title}`, p.alternates)}
<body class="corners-${esc(p.settings.styling?.corners ?? 'rounded')}">${header(c)}
<div class="layout"><nav class="tree" aria-label="Pages">${variantMenu(p.variants)}${treeHtml(p.tree)}</nav>
<main id="site-main">${coverHtml(p)}${crumbs}<h1>${iconSvg(node.icon, 'page-icon')}${esc(node.title)}</h1>${node.description ? `<p class="description">${esc(node.description)}</p>` : ''}
<div class="body">${bodyLinks(p.bodyHtml, p.settings, c.base)}</div>
<div class="meta">${updated}${actions}${p.editUrl ? `<a href="${esc(p.editUrl)}"${externalAttrs(p.editUrl, p.settings, p.base)}>Edit on Git</a>` : ''}</div>${pageInsightsHtml(p, p.settings.insights?.enabled !== false)}${pagination}</main>${outline}</div>
${footer(c)}</body></html>`;
}

/** The 404 page (with the site's header when the site is known). */
export function notFoundHtml(c: Chrome | null, message = 'This page does not exist.'): string {
  if (!c)
    return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex"><title>Not found</title></head><body><main><h1>Not found</h1><p>${esc(message)}</p></main></body></html>`;
  return `${head({ ...c, noindex: true }, `Not found | ${c.title}`)}<body>${header(c)}<div class="layout"><span></span><main id="site-main"><h1>Not found</h1><p>${esc(message)}</p><p><a href="${esc(c.base)}/">Go to the first page</a></p></main></div>${footer(c)}</body></html>`;
}

/** A bare page for access failures (no site details revealed). */
export function messageHtml(title: string, message: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex"><title>${esc(title)}</title></head><body><main><h1>${esc(title)}</h1><p>${esc(message)}</p></main></body></html>`;
}

/** The HTML search results page (works without JavaScript). */
export function searchHtml(c: Chrome, query: string, hits: ReaderSearchHit[]): string {
  const list = query
    ? hits.length
      ? `<ol class="results">${hits
          .map(
            (h) =>
              `<li><a href="${esc(h.url)}">${esc(h.title)}</a>${h.section ? `<span class="where">${esc(h.section)}</span>` : ''}${
                h.snippet ? `<p>${esc(h.snippet.slice(0, 300))}</p>` : ''
              }</li>`,
          )
          .join('')}</ol>`
      : `<p>No results for “${esc(query)}”.</p>`
    : '<p>Type a query in the search box.</p>';
  return `${head({ ...c, noindex: true }, `Search | ${c.title}`)}<body>${header(c, query)}<div class="layout"><span></span><main id="site-main"><h1>Search</h1>${list}</main></div>${footer(c)}</body></html>`;
}

/** The Ask page (the Ask box without JavaScript): the answer, then the pages it cites. */
export function askHtml(c: Chrome, question: string, answer: ReaderAnswer | null): string {
  const body = answer
    ? `<section class="ask-answer" aria-live="polite"><div class="answer">${answerHtml(answer.markdown)}</div></section>`
    : '<p>Type a question in the Ask box.</p>';
  return `${head({ ...c, noindex: true }, `Ask | ${c.title}`)}<body>${header(c)}<div class="layout"><span></span><main id="site-main"><h1>${question ? esc(question) : 'Ask'}</h1>${body}</main></div>${footer(c)}</body></html>`;
}
