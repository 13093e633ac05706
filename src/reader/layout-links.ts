// The parts of the reader's header that issue 29 adds: the site's external links (beside the
// header links), a mobile menu (a <details> shown only on narrow screens, holding the sections,
// header links and external links, so it works without JavaScript), and the `@font-face` rules of
// the custom fonts the customization uses. Their CSS goes into the per-site stylesheet. A link
// whose parent is a section group shows inside that group's menu of the section tabs (and under the
// group in the mobile menu), as on GitBook; root links, and links of a group the tabs do not show
// (the reader sees none of its sections, or the site shows no tabs), stay in the header.
import { escapeHtml as esc } from '../render/html.js';

export interface LinkItem {
  title: string;
  href: string | null;
  /** The section group the link belongs to (null or absent: a root link). */
  parent?: string | null;
}

/** A section tab as the layout gets it: `group`/`groupId` name its section group. */
export interface TabItem {
  title: string;
  href: string;
  current: boolean;
  group?: string | null;
  groupId?: string | null;
}

export interface MenuParts {
  sections?: TabItem[];
  headerLinks?: LinkItem[];
  externalLinks?: LinkItem[];
}

const li = (l: LinkItem, cls = '') =>
  `<li${cls ? ` class="${cls}"` : ''}>${l.href ? `<a href="${esc(l.href)}" rel="noopener">${esc(l.title)}</a>` : esc(l.title)}</li>`;

const tabLi = (s: TabItem) => `<li><a href="${esc(s.href)}"${s.current ? ' aria-current="page"' : ''}>${esc(s.title)}</a></li>`;

/** The tabs shown: none for a site of fewer than two sections. */
const shownTabs = (sections: TabItem[] | undefined) => ((sections ?? []).length > 1 ? sections! : []);

/**
 * The section tabs in runs of one group (a group's sections are consecutive in reading order, but
 * a nested group may split them), each run with the external links of its group after its
 * sections (in the group's last run); and the external links left for the header.
 */
export function tabRuns(
  sections: TabItem[] | undefined,
  links: LinkItem[] | undefined,
): { runs: { group: string | null; sections: TabItem[]; links: LinkItem[] }[]; rootLinks: LinkItem[] } {
  const tabs = shownTabs(sections);
  const runs: { group: string | null; groupId: string | null; sections: TabItem[]; links: LinkItem[] }[] = [];
  for (const s of tabs) {
    const last = runs.at(-1);
    const groupId = s.groupId ?? null;
    if (last && last.groupId === groupId && (groupId !== null || last.group === (s.group ?? null))) last.sections.push(s);
    else runs.push({ group: s.group ?? null, groupId, sections: [s], links: [] });
  }
  const lastRun = new Map<string, (typeof runs)[number]>();
  for (const r of runs) if (r.groupId && r.group) lastRun.set(r.groupId, r);
  const rootLinks: LinkItem[] = [];
  for (const l of links ?? []) {
    const run = l.parent ? lastRun.get(l.parent) : undefined;
    if (run) run.links.push(l);
    else rootLinks.push(l);
  }
  return { runs: runs.map(({ group, sections: s, links: ls }) => ({ group, sections: s, links: ls })), rootLinks };
}

/** The site's external links in the header (hidden on narrow screens, where the menu holds them). */
export function externalLinksHtml(links: LinkItem[] | undefined, sections?: TabItem[]): string {
  const { rootLinks } = tabRuns(sections, links);
  if (!rootLinks.length) return '';
  return `<nav class="external-links" aria-label="External links"><ul>${rootLinks.map((l) => li(l)).join('')}</ul></nav>`;
}

/** The section tabs: groups label their sections, and hold their external links. */
export function sectionTabsHtml(sections: TabItem[] | undefined, links: LinkItem[] | undefined): string {
  const { runs } = tabRuns(sections, links);
  if (!runs.length) return '';
  const items = runs.map((r) => {
    const lis = r.sections.map(tabLi).join('') + r.links.map((l) => li(l, 'external')).join('');
    return r.group ? `<li class="group"><span>${esc(r.group)}</span><ul>${lis}</ul></li>` : lis;
  });
  return `<nav class="sections" aria-label="Sections"><ul>${items.join('')}</ul></nav>`;
}

/** The mobile menu: shown below 48rem, in place of the section tabs and header links. */
export function mobileMenuHtml(m: MenuParts): string {
  const { runs, rootLinks } = tabRuns(m.sections, m.externalLinks);
  const items = [
    ...runs.map((r) => {
      const lis = r.sections.map(tabLi).join('') + r.links.map((l) => li(l, 'external')).join('');
      return r.group ? `<li class="group"><span>${esc(r.group)}</span><ul>${lis}</ul></li>` : lis;
    }),
    ...(m.headerLinks ?? []).map((l) => li(l)),
    ...rootLinks.map((l) => li(l, 'external')),
  ].filter(Boolean);
  if (!items.length) return '';
  return `<details class="mobile-menu"><summary aria-label="Menu">☰</summary><nav aria-label="Menu"><ul>${items.join('')}</ul></nav></details>`;
}

export const HEADER_EXTRA_CSS = [
  'header.site nav.external-links ul{display:flex;gap:1rem;list-style:none;margin:0;padding:0}header.site nav.external-links a{color:var(--fg);text-decoration:none}',
  '.mobile-menu{display:none;position:relative}.mobile-menu summary{list-style:none;cursor:pointer;padding:.3rem .6rem;border:1px solid var(--line);border-radius:var(--radius)}.mobile-menu summary::-webkit-details-marker{display:none}',
  '.mobile-menu nav{position:absolute;right:0;top:2.4rem;z-index:20;min-width:14rem;background:var(--bg);border:1px solid var(--line);border-radius:var(--radius);box-shadow:var(--shadow,none)}.mobile-menu ul{list-style:none;margin:0;padding:.5rem}.mobile-menu a{display:block;padding:.35rem .5rem;color:var(--fg);text-decoration:none}',
  '.mobile-menu li.group>span{display:block;padding:.35rem .5rem 0;font-size:.8rem;color:var(--muted,var(--fg));text-transform:uppercase;letter-spacing:.03em}.mobile-menu li.group>ul{padding:0 0 0 .5rem}',
  'nav.sections li.external a::after{content:" ↗";font-size:.8em}',
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
