// Code blocks as every renderer shows them (reader site, published view, PDF): tokens colored by
// language in classes (the reader's CSP forbids inline style), unknown languages and hostile text
// escaped, long input bounded, GitBook's options; hint and page icons.
import { describe, expect, it } from 'vitest';
import { toHtml as hastToHtml } from 'hast-util-to-html';
import type { Element } from 'hast';

// Highlighted lines are raw HTML nodes (made from escaped text): serialized as html.ts does.
const toHtml = (e: Element) => hastToHtml(e, { allowDangerousHtml: true });
import { BLOCK_CSS, pageBodyHtml } from '../../../src/render/html.js';
import {
  highlightCss,
  highlightedCode,
  languageId,
  MAX_BLOCK_CHARS,
  MAX_PAGE_CHARS,
  newBudget,
  renderCodeBlock,
} from '../../../src/render/highlight.js';
import { iconElement, iconSvg, knownIcon } from '../../../src/render/icons.js';
import { stylesheet } from '../../../src/reader/assets.js';

const render = (md: string) => pageBodyHtml(md, { anchor: '', images: new Map(), links: new Map(), files: new Map() });
const fence = (lang: string, code: string) => `\`\`\`${lang}\n${code}\n\`\`\`\n`;
/** The light color classes of the token whose text is `text`. */
const classesOf = (html: string, text: string) =>
  [...html.matchAll(/<span class="([^"]*)">([^<]*)<\/span>/g)].filter((m) => m[2].trim() === text).map((m) => m[1]);
const text = (html: string) =>
  html
    .replace(/<[^>]*>/g, '')
    .replace(/&#x3C;/g, '<')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"');

describe('code highlighting', () => {
  it('colors the tokens of the common languages, light and dark, in classes the stylesheets define', () => {
    // The first highlight of a thread (grammar compiled cold) colors as every later one.
    const first = render(fence('javascript', "import WDK from 'x'"));
    expect(first).toContain(
      `<span class="line"><span class="hl-d73a49 hd-f97583">import</span> WDK <span class="hl-d73a49 hd-f97583">from</span> <span class="hl-032f62 hd-9ecbff">'x'</span></span>`,
    );
    expect(render(fence('javascript', "import WDK from 'x'"))).toBe(first);
    const samples: [string, string, string][] = [
      ['js', 'const answer = 42; // the answer', 'const'],
      ['javascript', 'function f(x) { return x }', 'function'],
      ['typescript', 'let n: number = 1;', 'let'],
      ['python', 'def main():\n    return "ok"', 'def'],
      ['bash', 'if [ -f x ]; then echo hi; fi', 'if'],
      ['sh', 'export A=1', 'export'],
      ['json', '{"name": "acme", "n": 1}', '"name"'],
      ['yaml', 'name: acme\nitems:\n  - 1', 'name'],
      ['go', 'package main\nfunc main() {}', 'package'],
      ['rust', 'fn main() { let x = 1; }', 'fn'],
      ['html', '<div class="x">hi</div>', 'div'],
      ['css', '.a { color: red; }', 'color'],
    ];
    for (const [lang, code, token] of samples) {
      const html = render(fence(lang, code));
      expect(html, lang).toContain('<pre class="code highlighted">');
      const classes = classesOf(html, token);
      expect(classes.length, `${lang}: ${token} in ${html}`).toBeGreaterThan(0);
      expect(classes[0], lang).toMatch(/hl-[0-9a-f]{6}/);
      expect(classes[0], lang).toMatch(/hd-[0-9a-f]{6}/);
      // Every class used has its rule: light ones for all renderers, dark ones in the reader's stylesheet.
      for (const c of classes[0].split(' ')) {
        if (c.startsWith('hl-')) expect(BLOCK_CSS, c).toContain(`.${c}{color:#`);
        if (c.startsWith('hd-')) expect(stylesheet.body, c).toContain(`:root[data-theme=dark] .body .${c}{color:#`);
      }
      // The text reads as written, and nothing is styled inline.
      expect(text(html), lang).toBe(code);
      expect(html, lang).not.toMatch(/style=/);
    }
    // Dark mode also follows the system preference, and drops light colors the dark theme does not have.
    expect(stylesheet.body).toContain('@media (prefers-color-scheme:dark){:root[data-theme=system] .body [class*="hl-"]{color:inherit}');
    expect(highlightCss().light).toContain('.hl-d73a49{color:#d73a49}');
  });

  it('GitBook language names and aliases', () => {
    expect(languageId('JavaScript')).toBe('javascript');
    expect(languageId('js')).toBe('javascript');
    expect(languageId('shell')).toBe('shellscript');
    expect(languageId('c#')).toBe('csharp');
    expect(languageId('golang')).toBe('go');
    expect(languageId('text')).toBeNull();
    expect(languageId('no-such-language')).toBeNull();
    expect(languageId(null)).toBeNull();
  });

  it('unknown or no language: plain text, escaped, in the same lines', () => {
    for (const lang of ['no-such-language', '', 'text']) {
      const html = render(fence(lang, 'a <b>bold</b> & "quote"\nsecond'));
      expect(html).toContain('<pre class="code">');
      expect(html).toContain('<span class="line">a &#x3C;b>bold&#x3C;/b> &#x26; "quote"</span>\n<span class="line">second</span>');
      expect(html).not.toContain('<b>');
    }
  });

  it('HTML in code is text, highlighted or not; a hostile language name stays an attribute value', () => {
    const hostile = '</code></pre><script>alert(1)</script><img src=x onerror=alert(1)>';
    for (const lang of ['html', 'js', 'unknown']) {
      const html = render(fence(lang, hostile));
      expect(html, lang).not.toMatch(/<script|<img/);
      expect(text(html), lang).toBe(hostile);
    }
    const html = toHtml(highlightedCode('x', '"><script>alert(1)</script>'));
    expect(html).not.toContain('<script');
    expect(html).toContain('<span class="line">x</span>');
  });

  it('bounds the work: a long block is highlighted up to its limit, then plain; a page shares one budget', () => {
    const line = 'const value = "some string"; // comment\n';
    const long = line.repeat(Math.ceil((MAX_BLOCK_CHARS * 2) / line.length));
    const html = toHtml(highlightedCode(long, 'js'));
    const lines = html.split('\n');
    expect(lines.length).toBe(long.split('\n').length - 1);
    expect(lines[0]).toContain('hl-');
    expect(lines.at(-1)).toBe(`<span class="line">${line.trim().replace(/"/g, '"')}</span></code></pre>`);
    expect(text(html)).toBe(long.replace(/\n$/, ''));

    // The page's budget: blocks past it are plain, and none is lost.
    const budget = newBudget();
    const block = line.repeat(Math.floor(MAX_BLOCK_CHARS / line.length));
    const pieces = Array.from({ length: Math.ceil(MAX_PAGE_CHARS / block.length) + 2 }, () => toHtml(highlightedCode(block, 'js', budget)));
    expect(pieces[0]).toContain('class="code highlighted"');
    expect(pieces.at(-1)).toContain('<pre class="code">');
    expect(budget.chars).toBeLessThan(line.length);

    // A block highlighted again (its lines remembered) renders the same and spends the same budget.
    const again = [newBudget(), newBudget()];
    const twice = again.map((b) => toHtml(highlightedCode(block, 'js', b)));
    expect(twice[1]).toBe(twice[0]);
    expect(again[1].chars).toBe(again[0].chars);

    // A minified line is not tokenized (kept as text).
    const minified = `var a=1;${'a=a+1;'.repeat(1000)}`;
    expect(text(toHtml(highlightedCode(minified, 'js')))).toBe(minified);
  });

  it('options: title, line numbers (a CSS gutter, not text), wrap, full width', () => {
    const html = render(
      '{% code title="app.js" overflow="wrap" lineNumbers="true" fullWidth="true" %}\n```js\nrun();\nstop();\n```\n{% endcode %}\n',
    );
    expect(html).toMatch(
      /^<figure class="code-block line-numbers wrap full-width"><figcaption class="code-title">app.js<\/figcaption><pre class="code highlighted">/,
    );
    expect(text(html)).toBe('app.jsrun();\nstop();');
    expect(BLOCK_CSS).toMatch(/\.code-block\.line-numbers \.line::before \{ counter-increment: line; content: counter\(line\)/);
    expect(BLOCK_CSS).toMatch(/\.code-block\.wrap pre\.code \{ white-space: pre-wrap;/);
    // Without options: scrolls, no gutter, no caption.
    expect(render(fence('js', 'run();'))).toMatch(/^<div class="code-block"><pre class="code highlighted">/);
    expect(render('{% code overflow="scroll" %}\n```js\nx\n```\n{% endcode %}\n')).toMatch(/^<div class="code-block"><pre/);
    // The function the other block renderers reuse.
    expect(toHtml(renderCodeBlock('echo hi', { lang: 'bash', title: 'Run', lineNumbers: true }))).toMatch(
      /^<figure class="code-block line-numbers"><figcaption class="code-title">Run<\/figcaption><pre class="code highlighted"><code class="language-bash">/,
    );
    // Expandable: past its collapsed lines (default 10), a CSS toggle; printed, every line.
    const twelve = Array.from({ length: 12 }, (_, i) => `echo ${i}`).join('\n');
    const expandable = render(`{% code expandable="true" %}\n\`\`\`bash\n${twelve}\n\`\`\`\n{% endcode %}\n`);
    expect(expandable).toMatch(/^<div class="code-block expandable collapsed-10"><pre class="code highlighted">/);
    expect(expandable).toMatch(
      /<\/pre><label class="code-expand"><input type="checkbox"><span class="more">Show all 12 lines<\/span><span class="less">Show less<\/span><\/label><\/div>$/,
    );
    expect(text(expandable)).toContain(twelve);
    expect(render(`{% code expandable="true" %}\n\`\`\`bash\necho short\n\`\`\`\n{% endcode %}\n`)).toMatch(
      /^<div class="code-block"><pre/,
    );
    expect(BLOCK_CSS).toContain(
      '.code-block.collapsed-10:not(:has(.code-expand input:checked)) pre.code { max-height: calc(10lh + 2rem); overflow-y: hidden; }',
    );
    expect(BLOCK_CSS).toMatch(/@media print \{[^}]*max-height: none !important;/);
    // The reader's copy button copies the code's text (its script); it is not in the rendered HTML.
    expect(html).not.toContain('<button');
    expect(stylesheet.body).toContain('.body .code-copy');
  });
});

describe('icons', () => {
  it('hints show their style icon', () => {
    for (const style of ['info', 'warning', 'danger', 'success']) {
      const html = render(`{% hint style="${style}" %}\nSay it.\n{% endhint %}\n`);
      expect(html, style).toMatch(
        new RegExp(
          `^<aside class="hint hint-${style}"><svg class="icon hint-icon" viewBox="0 0 \\d+ \\d+" fill="currentColor" aria-hidden="true" focusable="false"><path d="M[^"]+"></path></svg><div class="hint-body"><p>Say it.</p></div></aside>`,
        ),
      );
    }
  });

  it('Font Awesome names (and their aliases) become inline SVG; unknown names give nothing', () => {
    for (const name of ['book', 'rocket', 'gear', 'circle-info', 'info-circle', 'fa-book', 'Book']) {
      expect(knownIcon(name), name).toBe(true);
      expect(iconSvg(name), name).toMatch(
        /^<svg class="icon" viewBox="0 0 \d+ \d+" fill="currentColor" aria-hidden="true" focusable="false"><path d="[^"]+"\/><\/svg>$/,
      );
    }
    for (const name of ['no-such-icon', '', '"><script>', 'a'.repeat(200), null, 42]) {
      expect(knownIcon(name)).toBe(false);
      expect(iconSvg(name)).toBe('');
      expect(iconElement(name)).toBeNull();
    }
    expect(iconSvg('book', 'page-icon "x"')).toMatch(/^<svg class="icon page-icon x"/);
  });
});
