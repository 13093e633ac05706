// The parts of the reader's header that issue 29 adds: the site's external links (beside the
// header links), a mobile menu (a <details> shown only on narrow screens, holding the sections,
// header links and external links, so it works without JavaScript), and the `@font-face` rules of
// the custom fonts the customization uses. Their CSS goes into the per-site stylesheet.
import { escapeHtml as esc } from '../render/html.js';

export interface LinkItem {
  title: string;
  href: string | null;
}

export interface MenuParts {
  sections?: { title: string; href: string; current: boolean }[];
  headerLinks?: LinkItem[];
  externalLinks?: LinkItem[];
}

const li = (l: LinkItem, cls = '') =>
  `<li${cls ? ` class="${cls}"` : ''}>${l.href ? `<a href="${esc(l.href)}" rel="noopener">${esc(l.title)}</a>` : esc(l.title)}</li>`;

/** The site's external links in the header (hidden on narrow screens, where the menu holds them). */
export function externalLinksHtml(links: LinkItem[] | undefined): string {
  if (!links?.length) return '';
  return `<nav class="external-links" aria-label="External links"><ul>${links.map((l) => li(l)).join('')}</ul></nav>`;
}

/** The mobile menu: shown below 48rem, in place of the section tabs and header links. */
export function mobileMenuHtml(m: MenuParts): string {
  const sections = (m.sections ?? []).length > 1 ? m.sections! : [];
  const items = [
    ...sections.map((s) => `<li><a href="${esc(s.href)}"${s.current ? ' aria-current="page"' : ''}>${esc(s.title)}</a></li>`),
    ...(m.headerLinks ?? []).map((l) => li(l)),
    ...(m.externalLinks ?? []).map((l) => li(l, 'external')),
  ];
  if (!items.length) return '';
  return `<details class="mobile-menu"><summary aria-label="Menu">☰</summary><nav aria-label="Menu"><ul>${items.join('')}</ul></nav></details>`;
}

export const HEADER_EXTRA_CSS = [
  'header.site nav.external-links ul{display:flex;gap:1rem;list-style:none;margin:0;padding:0}header.site nav.external-links a{color:var(--fg);text-decoration:none}',
  '.mobile-menu{display:none;position:relative}.mobile-menu summary{list-style:none;cursor:pointer;padding:.3rem .6rem;border:1px solid var(--line);border-radius:var(--radius)}.mobile-menu summary::-webkit-details-marker{display:none}',
  '.mobile-menu nav{position:absolute;right:0;top:2.4rem;z-index:20;min-width:14rem;background:var(--bg);border:1px solid var(--line);border-radius:var(--radius);box-shadow:var(--shadow,none)}.mobile-menu ul{list-style:none;margin:0;padding:.5rem}.mobile-menu a{display:block;padding:.35rem .5rem;color:var(--fg);text-decoration:none}',
  '@media (max-width:48rem){.mobile-menu{display:block}header.site nav.external-links,header.site nav.links,nav.sections{display:none}}',
].join('\n');

const FALLBACK: Record<string, string> = {
  font: 'system-ui,-apple-system,"Segoe UI",Roboto,sans-serif',
  headingFont: 'system-ui,-apple-system,"Segoe UI",Roboto,sans-serif',
  monospaceFont: 'ui-monospace,SFMono-Regular,Menlo,Consolas,monospace',
};

/** A family name as a CSS string: only characters a family name needs. */
const family = (name: string) => `"${name.replace(/[^\p{L}\p{N} _-]/gu, '').slice(0, 50) || 'Custom'}"`;

/**
 * `@font-face` rules for the custom fonts of the customization (their files under the site's own
 * `~site/fonts/`, relative to the stylesheet at `~site/theme/…`), and the rules that use them.
 */
export function customFontCss(
  fonts: { role: 'font' | 'headingFont' | 'monospaceFont'; id: string; family: string; weights: number[] }[],
): string {
  const rules: string[] = [];
  for (const f of fonts) {
    const name = family(f.family);
    for (const w of f.weights)
      rules.push(
        `@font-face{font-family:${name};font-weight:${w};font-style:normal;font-display:swap;src:url(../fonts/${encodeURIComponent(f.id)}/${w})}`,
      );
    const stack = `${name},${FALLBACK[f.role]}`;
    if (f.role === 'font') rules.push(`:root{--font:${stack}}body{font-family:var(--font)}`);
    if (f.role === 'headingFont') rules.push(`h1,h2,h3,h4{font-family:${stack}}`);
    if (f.role === 'monospaceFont') rules.push(`:root{--mono:${stack}}code,pre{font-family:var(--mono)}`);
  }
  return rules.join('\n');
}
