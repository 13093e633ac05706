// Code blocks as readers expect them: highlighted by language on the server (Shiki, the highlighter
// GitBook's renderer uses, with its TextMate grammars), so the reader site, the published view and
// the PDF show the same colors and no client script is needed.
//
// - Synchronous: the HTML renderer is (src/render/html.ts runs on the Markdown worker threads, or
//   inline). The highlighter is Shiki's synchronous core with its JavaScript regex engine (no WASM
//   to instantiate), made once per thread on the first code block; a language's grammar (data
//   only) is loaded the first time a block names it, by require of its ES module (Node >= 20.19).
// - No inline style: the reader's CSP has `style-src 'self'`, so a token's colors become classes
//   (`hl-<hex>` for the light theme, `hd-<hex>` for the dark one) and `highlightCss` gives the rules
//   for every color the two themes can produce: a static stylesheet, served with the site's.
// - Bounded: a block is highlighted up to MAX_BLOCK_CHARS (the rest of it stays plain), a page up to
//   MAX_PAGE_CHARS (a budget shared by its blocks), lines longer than MAX_LINE_CHARS stay plain, and
//   any error of a grammar gives plain text. Plain text is always escaped (hast text nodes). Time is
//   bounded by the thread's time limit (src/render/pool.ts: past it, the body is plain), not per
//   line: Shiki's per-line limit counts the grammar's first compilation too, so a cold thread cut
//   lines short and colored them otherwise than a warm one (the same body, two renderings).
// - Unknown language (or none): plain text, in the same lines and gutter.
// - Remembered: tokenizing costs about as much again as the rest of a page's render
//   (bench/code.ts), and a page is rendered again for each new revision and each audience, mostly
//   with the same code blocks: each thread keeps the highlighted lines (their HTML, far smaller
//   than Shiki's token objects) of the blocks it highlighted last, LINE_CACHE_CHARS in all, keyed
//   by language and text.
import { createRequire } from 'node:module';
import { LRUCache } from 'lru-cache';
import { toHtml } from 'hast-util-to-html';
import type { Element, ElementContent, Properties } from 'hast';
import { createHighlighterCoreSync } from 'shiki/core';
import type { HighlighterCore, LanguageRegistration, ThemeRegistrationRaw, ThemedTokenWithVariants } from 'shiki/core';
import { createJavaScriptRegexEngine } from 'shiki/engine/javascript';
import { bundledLanguagesInfo } from 'shiki/langs';

const require = createRequire(import.meta.url);

/** Characters of one block that are highlighted; the rest of the block is plain. */
export const MAX_BLOCK_CHARS = 20_000;
/** Characters highlighted per page (all its blocks); blocks past it are plain. */
export const MAX_PAGE_CHARS = 100_000;
/** Lines longer than this (minified code) are not tokenized. */
const MAX_LINE_CHARS = 2_000;
/** Characters of highlighted HTML a thread remembers (about four times the code it shows). */
const LINE_CACHE_CHARS = 8_000_000;

const LIGHT = 'github-light';
const DARK = 'github-dark';

/** Names GitBook writes that Shiki knows by another name, or that mean "no highlighting". */
const PLAIN = new Set(['', 'text', 'plain', 'plaintext', 'txt', 'none', 'nohighlight']);
const ALIASES: Record<string, string> = { 'c#': 'csharp', 'objective-c': 'objc', 'f#': 'fsharp', golang: 'go', shell: 'shellscript' };

interface LangInfo {
  id: string;
  aliases?: string[];
}

let highlighter: HighlighterCore | null = null;
let languageIds: Map<string, string> | null = null;
const failed = new Set<string>();

function themes(): ThemeRegistrationRaw[] {
  return [require(`@shikijs/themes/${LIGHT}`).default, require(`@shikijs/themes/${DARK}`).default];
}

/** Every name (id or alias, lower case) Shiki's bundle knows → the language's id. */
function languages(): Map<string, string> {
  if (!languageIds) {
    languageIds = new Map();
    for (const l of bundledLanguagesInfo as LangInfo[]) {
      languageIds.set(l.id.toLowerCase(), l.id);
      for (const a of l.aliases ?? []) languageIds.set(a.toLowerCase(), l.id);
    }
  }
  return languageIds;
}

/** The Shiki language id of a code block's syntax, or null to show it plain. */
export function languageId(syntax: string | null | undefined): string | null {
  const name = (syntax ?? '').trim().toLowerCase();
  if (PLAIN.has(name) || name.length > 64) return null;
  const known = languages();
  return known.get(ALIASES[name] ?? name) ?? null;
}

function getHighlighter(): HighlighterCore {
  if (!highlighter) {
    highlighter = createHighlighterCoreSync({ themes: themes(), langs: [], engine: createJavaScriptRegexEngine({ forgiving: true }) });
  }
  return highlighter;
}

/** The highlighter with `id`'s grammar loaded, or null when it cannot be (then: plain). */
function ready(id: string): HighlighterCore | null {
  if (failed.has(id)) return null;
  try {
    const h = getHighlighter();
    if (!h.getLoadedLanguages().includes(id)) {
      const grammars = require(`@shikijs/langs/${id}`).default as LanguageRegistration[];
      h.loadLanguageSync(grammars);
    }
    return h;
  } catch {
    failed.add(id);
    return null;
  }
}

/** A color of a theme as a class name part (`#D73A49` → `d73a49`), or null when it is not a hex color. */
function colorKey(color: string | undefined): string | null {
  const m = /^#([0-9a-f]{3,8})$/i.exec(color ?? '');
  return m ? m[1].toLowerCase() : null;
}

/** A theme's default foreground (tokens of this color get no class: they take the page's text color). */
function foreground(theme: ThemeRegistrationRaw): string | null {
  const t = theme as { fg?: string; colors?: Record<string, string> };
  return colorKey(t.colors?.['editor.foreground'] ?? t.fg);
}

/** Every foreground color a theme's rules can give a token. */
function themeColors(theme: ThemeRegistrationRaw): Set<string> {
  const out = new Set<string>();
  const t = theme as { tokenColors?: { settings?: { foreground?: string } }[]; settings?: { settings?: { foreground?: string } }[] };
  for (const rule of t.tokenColors ?? t.settings ?? []) {
    const key = colorKey(rule.settings?.foreground);
    if (key) out.add(key);
  }
  return out;
}

let css: { light: string; dark: string } | null = null;

/**
 * The rules of the token classes: `light` colors for every renderer (the PDF is printed light),
 * `dark` as a list of `selector{color}` pairs for the reader to put under its dark-mode selectors
 * (`dark('.x ')` prefixes each rule).
 */
export function highlightCss(): { light: string; dark: (prefix: string) => string } {
  if (!css) {
    const [light, dark] = themes();
    const lightFg = foreground(light);
    const darkFg = foreground(dark);
    const rules = (theme: ThemeRegistrationRaw, cls: string, fg: string | null) =>
      [...themeColors(theme)]
        .filter((c) => c !== fg)
        .sort()
        .map((c) => `.${cls}-${c}{color:#${c}}`);
    css = {
      light: [...rules(light, 'hl', lightFg), '.hl-i{font-style:italic}.hl-b{font-weight:bold}.hl-u{text-decoration:underline}'].join(''),
      dark: rules(dark, 'hd', darkFg).join('\n'),
    };
  }
  const { light, dark } = css;
  return {
    light,
    // A token the dark theme leaves in its default color drops its light color.
    dark: (prefix) => [`[class*="hl-"]{color:inherit}`, ...dark.split('\n')].map((r) => prefix + r).join(''),
  };
}

/** What a code block's options say (GitBook's `{% code %}` attributes, DocumentBlockCode's data). */
export interface CodeBlockOptions {
  /** The syntax (fence info string or `data.syntax`). */
  lang?: string | null;
  title?: string;
  lineNumbers?: boolean;
  overflow?: 'scroll' | 'wrap';
  fullWidth?: boolean;
  /** Shown collapsed to `collapsedLineCount` lines (default 10) with a toggle to show them all. */
  expandable?: boolean;
  collapsedLineCount?: number;
}

/** Characters a page may still highlight (one per render of a body; see MAX_PAGE_CHARS). */
export interface HighlightBudget {
  chars: number;
}

export const newBudget = (): HighlightBudget => ({ chars: MAX_PAGE_CHARS });

const FONT_CLASSES: [number, string][] = [
  [1, 'hl-i'],
  [2, 'hl-b'],
  [4, 'hl-u'],
];

/**
 * The highlighted lines of `code` (each line's inner HTML: its tokens as spans of classes), or null
 * when it is shown plain (then nothing was spent).
 */
function highlightedLines(code: string, id: string, budget: HighlightBudget): string[] | null {
  if (budget.chars <= 0) return null;
  const limit = Math.min(MAX_BLOCK_CHARS, budget.chars);
  let head = code;
  if (code.length > limit) {
    // Up to the last whole line within the limit; the rest is appended plain by the caller.
    const cut = code.lastIndexOf('\n', limit);
    head = cut > 0 ? code.slice(0, cut) : '';
    if (!head) return null;
  }
  const key = `${id}\n${head}`;
  let lines = lineCache.get(key);
  if (!lines) {
    const h = ready(id);
    if (!h) return null;
    try {
      const tokens = h.codeToTokensWithThemes(head, {
        lang: id,
        themes: { light: LIGHT, dark: DARK },
        tokenizeMaxLineLength: MAX_LINE_CHARS,
        tokenizeTimeLimit: 0, // none: see above
      });
      lines = tokens.map((l) => toHtml(l.map(tokenElement)));
    } catch {
      return null;
    }
    lineCache.set(key, lines);
  }
  // Spent whether remembered or not: a page renders the same however warm the thread is.
  budget.chars -= head.length;
  return lines;
}

/** Highlighted lines of recently highlighted blocks. */
const lineCache = new LRUCache<string, string[]>({
  maxSize: LINE_CACHE_CHARS,
  sizeCalculation: (lines, key) => Math.max(1, key.length + lines.reduce((n, l) => n + l.length, 0)),
});

const fgKeys: { light: string | null; dark: string | null } = { light: null, dark: null };
let fgKnown = false;

function tokenElement(t: ThemedTokenWithVariants): ElementContent {
  if (!fgKnown) {
    const [light, dark] = themes();
    fgKeys.light = foreground(light);
    fgKeys.dark = foreground(dark);
    fgKnown = true;
  }
  const text: ElementContent = { type: 'text', value: t.content };
  if (!t.content.trim()) return text;
  const classes: string[] = [];
  const l = t.variants.light;
  const d = t.variants.dark;
  const lk = colorKey(l?.color);
  const dk = colorKey(d?.color);
  if (lk && lk !== fgKeys.light) classes.push(`hl-${lk}`);
  if (dk && dk !== fgKeys.dark) classes.push(`hd-${dk}`);
  const style = l?.fontStyle ?? 0;
  for (const [bit, cls] of FONT_CLASSES) if (style > 0 && style & bit) classes.push(cls);
  return classes.length ? { type: 'element', tagName: 'span', properties: { className: classes }, children: [text] } : text;
}

const line = (children: ElementContent[]): Element => ({ type: 'element', tagName: 'span', properties: { className: ['line'] }, children });

/**
 * The `<pre><code>` of a code block: one `<span class="line">` per line, separated by newlines (so
 * the text copies as written; line numbers are CSS counters, never text), tokens in classes.
 */
export function highlightedCode(code: string, syntax: string | null | undefined, budget: HighlightBudget = newBudget()): Element {
  const id = languageId(syntax);
  const value = code.replace(/\r\n?/g, '\n').replace(/\n$/, '');
  const tokens = id ? highlightedLines(value, id, budget) : null;
  const lines: Element[] = [];
  if (tokens) {
    // Raw HTML made here from escaped text nodes and class names (html.ts serializes with raw allowed).
    for (const l of tokens) lines.push(line(l ? [{ type: 'raw', value: l } as unknown as ElementContent] : []));
    // The part past the block's limit, plain.
    const done = tokens.length;
    const all = value.split('\n');
    for (let i = done; i < all.length; i++) lines.push(line(all[i] ? [{ type: 'text', value: all[i] }] : []));
  } else for (const l of value.split('\n')) lines.push(line(l ? [{ type: 'text', value: l }] : []));
  const children: ElementContent[] = [];
  lines.forEach((l, i) => {
    if (i) children.push({ type: 'text', value: '\n' });
    children.push(l);
  });
  const codeProps: Properties = {};
  const lang = (syntax ?? '').trim();
  if (lang && lang.length <= 64) codeProps.className = [`language-${lang.replace(/[^\w#+.-]/g, '')}`];
  return {
    type: 'element',
    tagName: 'pre',
    properties: { className: tokens ? ['code', 'highlighted'] : ['code'] },
    children: [{ type: 'element', tagName: 'code', properties: codeProps, children }],
  };
}

/**
 * A whole code block as every renderer shows it (the `{% prompt %}` renderer reuses it too):
 * `<figure class="code-block …">` with its title as `<figcaption class="code-title">`, or a
 * `<div class="code-block …">` without one; classes say the options (`line-numbers`: a gutter the
 * stylesheet draws; `wrap`: long lines wrap, else they scroll; `full-width`; `expandable`: longer
 * than its collapsed lines, it shows those with a checkbox toggle (CSS only; printed, all lines)).
 * No copy button here: the reader's script adds one (the PDF and the published view have none).
 */
export function renderCodeBlock(code: string, o: CodeBlockOptions = {}, budget: HighlightBudget = newBudget()): Element {
  const classes = ['code-block'];
  if (o.lineNumbers) classes.push('line-numbers');
  if (o.overflow === 'wrap') classes.push('wrap');
  if (o.fullWidth) classes.push('full-width');
  const pre = highlightedCode(code, o.lang, budget);
  const children: ElementContent[] = [pre];
  const collapsed = Math.max(1, Math.min(1000, Math.floor(o.collapsedLineCount ?? 10) || 10));
  const lines = code.replace(/\r\n?/g, '\n').replace(/\n$/, '').split('\n').length;
  if (o.expandable && lines > collapsed) {
    classes.push('expandable', `collapsed-${Math.min(collapsed, 30)}`);
    const span = (cls: string, value: string): ElementContent => ({
      type: 'element',
      tagName: 'span',
      properties: { className: [cls] },
      children: [{ type: 'text', value }],
    });
    children.push({
      type: 'element',
      tagName: 'label',
      properties: { className: ['code-expand'] },
      children: [
        { type: 'element', tagName: 'input', properties: { type: 'checkbox' }, children: [] },
        span('more', `Show all ${lines} lines`),
        span('less', 'Show less'),
      ],
    });
  }
  const title = o.title?.trim();
  if (!title) return { type: 'element', tagName: 'div', properties: { className: classes }, children };
  return {
    type: 'element',
    tagName: 'figure',
    properties: { className: classes },
    children: [
      { type: 'element', tagName: 'figcaption', properties: { className: ['code-title'] }, children: [{ type: 'text', value: title }] },
      ...children,
    ],
  };
}
