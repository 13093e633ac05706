// The per-site stylesheet (`~site/theme/…`): what the customization decides about colors and
// shapes, as CSS custom properties and a few rules, so that pages carry no inline style (the CSP
// forbids it). Every color is checked to be a hex color before it reaches CSS; anything else falls
// back to the default. Mixed colors (tinted backgrounds, hint backgrounds) are computed here, in
// sRGB, so the stylesheet works in any browser.

type Rgb = [number, number, number];

const HEX = /^#(?:[0-9a-fA-F]{3}){1,2}$/;

/** A hex color of the customization, or null when it is not one. */
export function hexColor(c: unknown): string | null {
  return typeof c === 'string' && HEX.test(c) ? c.toLowerCase() : null;
}

function rgb(hex: string): Rgb {
  const h = hex.slice(1);
  const full = h.length === 3 ? [...h].map((x) => x + x).join('') : h;
  return [0, 2, 4].map((i) => parseInt(full.slice(i, i + 2), 16)) as Rgb;
}

const toHex = (c: Rgb) =>
  `#${c
    .map((x) =>
      Math.round(Math.min(255, Math.max(0, x)))
        .toString(16)
        .padStart(2, '0'),
    )
    .join('')}`;

/** `amount` (0..1) of `color` laid over `base`. */
export function mix(color: string, base: string, amount: number): string {
  const a = rgb(color);
  const b = rgb(base);
  return toHex([0, 1, 2].map((i) => a[i] * amount + b[i] * (1 - amount)) as Rgb);
}

/** WCAG relative luminance. */
function luminance(hex: string): number {
  const [r, g, b] = rgb(hex).map((v) => {
    const s = v / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG contrast ratio of two colors (1..21). */
export function contrast(a: string, b: string): number {
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
}

/**
 * `color` if it reads on `background` (contrast at least `min`: WCAG AA is 4.5 for text, 3 for
 * borders), else `color` moved towards `toward` until it does: a customer's dark primary color
 * stays legible as link text in dark mode.
 */
export function readable(color: string, background: string, toward: string, min = 3): string {
  for (let step = 0; step <= 20; step++) {
    const c = mix(toward, color, step / 20);
    if (contrast(c, background) >= min) return c;
  }
  return toward;
}

/** The neutral palette of each theme (the site stylesheet's defaults, assets.ts). */
const LIGHT = { bg: '#ffffff', fg: '#1d1d1f', soft: '#f5f6f8', line: '#e5e5e8' };
const DARK = { bg: '#15161a', fg: '#e8e8ea', soft: '#1f2026', line: '#2c2d33' };

const SEMANTIC = ['info', 'success', 'warning', 'danger'] as const;
const SEMANTIC_DEFAULTS: Record<(typeof SEMANTIC)[number], string> = {
  info: '#346ddb',
  success: '#16a34a',
  warning: '#d97706',
  danger: '#dc2626',
};

const FONT_STACKS: Record<string, string> = {
  serif: 'Georgia,"Times New Roman",serif',
  sans: 'system-ui,-apple-system,"Segoe UI",Roboto,sans-serif',
};
const SERIF = new Set(['RobotoSlab', 'Merriweather', 'IBMPlexSerif']);

type Palette = typeof LIGHT;

/** The custom properties of one theme (light or dark). */
function themeVars(s: Record<string, any>, mode: 'light' | 'dark', base: Palette): string[] {
  const pick = (c: any) => hexColor(c?.[mode]) ?? (mode === 'dark' ? hexColor(c?.light) : null);
  const vars: string[] = [];
  const tint = pick(s.tint?.color);
  let palette = base;
  if (tint) {
    // The tint colors the neutral surfaces: page background (a touch), soft surfaces and lines.
    palette = {
      bg: mix(tint, base.bg, s.background === 'match' ? 0.06 : 0.025),
      fg: base.fg,
      soft: mix(tint, base.bg, mode === 'dark' ? 0.14 : 0.08),
      line: mix(tint, base.bg, mode === 'dark' ? 0.3 : 0.22),
    };
    vars.push(`--bg:${palette.bg}`, `--soft:${palette.soft}`, `--line:${palette.line}`, `--tint:${tint}`);
  }
  const primary = pick(s.primaryColor) ?? '#346ddb';
  const onPrimary = contrast(primary, '#ffffff') >= contrast(primary, '#111111') ? '#ffffff' : '#111111';
  vars.push(`--primary:${primary}`, `--on-primary:${onPrimary}`, `--link:${readable(primary, palette.bg, base.fg, 4.5)}`);
  for (const name of SEMANTIC) {
    const color = pick(s[`${name}Color`]) ?? SEMANTIC_DEFAULTS[name];
    vars.push(`--${name}:${readable(color, palette.bg, base.fg)}`, `--${name}-bg:${mix(color, palette.bg, mode === 'dark' ? 0.16 : 0.1)}`);
  }
  return vars;
}

/** The per-site stylesheet: colors (primary, tint, semantic), corners, depth, sidebar, fonts. */
export function themeStylesheet(settings: Record<string, any>): string {
  const s = settings.styling ?? {};
  const font = typeof s.font === 'string' && SERIF.has(s.font) ? FONT_STACKS.serif : FONT_STACKS.sans;
  const radius = s.corners === 'straight' ? '0' : s.corners === 'circular' ? '16px' : '8px';
  const shadow = s.depth === 'flat' ? 'none' : '0 1px 2px rgba(0,0,0,.06),0 2px 8px rgba(0,0,0,.04)';
  const light = themeVars(s, 'light', LIGHT).join(';');
  const dark = themeVars(s, 'dark', DARK).join(';');
  const rules = [
    `:root{--radius:${radius};--font:${font};--shadow:${shadow};${light}}`,
    `:root[data-theme=dark]{${dark}}`,
    `@media (prefers-color-scheme:dark){:root[data-theme=system]{${dark}}}`,
  ];
  const sidebar = s.sidebar ?? {};
  if (sidebar.background === 'filled') rules.push('nav.tree{background:var(--soft);padding:1.25rem .75rem;border-radius:var(--radius)}');
  if (sidebar.list === 'pill')
    rules.push('nav.tree a[aria-current]{background:var(--primary);color:var(--on-primary);border-radius:999px}');
  if (sidebar.list === 'line')
    rules.push(
      'nav.tree ul ul{border-left:1px solid var(--line)}nav.tree a{border-radius:0}nav.tree a[aria-current]{background:none;box-shadow:inset 2px 0 0 var(--primary)}',
    );
  return `${rules.join('\n')}\n`;
}
