// GitBook's icons (a page's `icon` front matter, hint styles) as inline SVG. GitBook names them with
// Font Awesome names (`book`, `rocket`, `gear`, `circle-info`, or an older alias such as
// `info-circle`); the free regular set is used where it has the icon (GitBook's default style is the
// regular one), else the free solid set. An unknown name gives no icon, never an error.
//
// The SVG carries no style attribute (the reader's CSP forbids inline style): its size comes from
// the stylesheet (`svg.icon`), its color from `currentColor`. The icon sets are loaded on first use.
import { createRequire } from 'node:module';
import type { Element } from 'hast';

const require = createRequire(import.meta.url);

/** An icon: its view box and its path. */
interface Glyph {
  width: number;
  height: number;
  path: string;
}

interface FaIcon {
  iconName: string;
  icon: [number, number, (string | number)[], string, string | string[]];
}

let glyphs: Map<string, Glyph> | null = null;

function table(): Map<string, Glyph> {
  if (glyphs) return glyphs;
  const map = new Map<string, Glyph>();
  // Solid first, regular over it: a name both sets have is drawn regular.
  for (const [pkg, pack] of [
    ['@fortawesome/free-solid-svg-icons', 'fas'],
    ['@fortawesome/free-regular-svg-icons', 'far'],
  ] as const) {
    const icons = Object.values((require(pkg) as Record<string, Record<string, FaIcon>>)[pack] ?? {});
    for (const def of icons) {
      const [width, height, aliases, , data] = def.icon;
      const glyph = { width, height, path: Array.isArray(data) ? data.join(' ') : data };
      map.set(def.iconName, glyph);
      for (const a of aliases) if (typeof a === 'string' && !map.has(a)) map.set(a, glyph);
    }
  }
  glyphs = map;
  return map;
}

/** A GitBook icon name as the set names it: `fa-book`, `fas fa-book`, ` Book ` → `book`. */
function normalize(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/^(?:fa[srlbd]?\s+|fa-(?:solid|regular|light|brands|duotone)\s+)/, '')
    .replace(/^fa-/, '');
}

function glyph(name: unknown): Glyph | null {
  if (typeof name !== 'string' || name.length > 100) return null;
  const key = normalize(name);
  if (!/^[a-z0-9-]+$/.test(key)) return null;
  return table().get(key) ?? null;
}

/** Whether a name is an icon this renderer can draw. */
export function knownIcon(name: unknown): boolean {
  return glyph(name) !== null;
}

/** The icon as a hast `<svg class="icon …">` (decorative: hidden from assistive technology), or null. */
export function iconElement(name: unknown, className = ''): Element | null {
  const g = glyph(name);
  if (!g) return null;
  return {
    type: 'element',
    tagName: 'svg',
    properties: {
      className: ['icon', ...className.split(' ').filter(Boolean)],
      viewBox: `0 0 ${g.width} ${g.height}`,
      fill: 'currentColor',
      ariaHidden: 'true',
      focusable: 'false',
    },
    children: [{ type: 'element', tagName: 'path', properties: { d: g.path }, children: [] }],
  };
}

/** The icon as an HTML string (for the reader's layout), or '' when the name is not an icon. */
export function iconSvg(name: unknown, className = ''): string {
  const g = glyph(name);
  if (!g) return '';
  const cls = ['icon', ...className.split(' ').filter(Boolean)].join(' ').replace(/[^\w -]/g, '');
  return `<svg class="${cls}" viewBox="0 0 ${g.width} ${g.height}" fill="currentColor" aria-hidden="true" focusable="false"><path d="${g.path.replace(/[^\w .,-]/g, '')}"/></svg>`;
}

/** The icon of each hint style, as GitBook shows them. */
export const HINT_ICONS: Record<string, string> = {
  info: 'circle-info',
  warning: 'triangle-exclamation',
  danger: 'circle-exclamation',
  success: 'circle-check',
};
