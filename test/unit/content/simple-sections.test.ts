// The parser-free split of the plainest bodies (src/content/markdown/simple-sections.ts) must give
// exactly what splitSections gives after the full parse, and leave every other body to the parser.
import { describe, expect, it } from 'vitest';
import { splitSections } from '../../../src/content/markdown.js';
import { UNSCANNED_MAX_CHARS, needsScan, simpleSections } from '../../../src/content/markdown/simple-sections.js';
import { scanMarkdown } from '../../../src/content/limits.js';
import { runTask } from '../../../src/render/tasks.js';
import { prng } from '../../helpers/prng.js';

// Pieces of lines: mostly plain, some markup of every kind the fast path must leave to the parser.
const WORDS = ['setup', 'Install', 'the', 'café', '文档平台', 'x2', 'naïve', 'Ünïcode', 'über', 'élan'];
const PUNCT = ['.', ',', ';', ':', "'", '"', '(', ')', '?', '%', '/', '=', '+', '!', '-', ' ', '  ', '\u00a0', '—'];
const CODE = ['`max_connections`', '`a *b* c`', '`[x](y)`', '`#tag`', '`a  b`', '` a`', '`a `', '``', '`x', '``a``', '`&amp;`'];
const MARKUP = [
  '*em*',
  '_em_',
  '**strong**',
  '~~del~~',
  '[link](http://x)',
  '![img](x.png)',
  '<b>',
  '&amp;',
  '&#65;',
  '\\*',
  'www.example.com',
  'http://example.com',
  'a@b.co',
  '$$x$$',
  '[^1]',
  '{% hint style="info" %}',
  '|',
  '#',
  '\t',
  ' ',
  '#x',
  'a_b_c',
  '[the guide](guide.md)',
  '[Next page](../part_2/page-3.md#setup)',
  '![Diagram](../.gitbook/assets/img_1.png)',
  '![](i.png)',
  '[](e.md)',
  '[x](<y>)',
  '[a](b "t")',
  '[a](b)(c)',
  '[`c`](d)',
  '[a *b*](c)',
  '[a](b c)',
  '[a](http://x.y/z?q=1&r=2)',
  '[www.x.com](y)',
  '!',
  '[',
  '](',
];
const STARTS = [
  '',
  '',
  '',
  '',
  '# ',
  '## ',
  '### ',
  '###### ',
  '####### ',
  '- ',
  '- ',
  '* ',
  '+ ',
  '1. ',
  '> ',
  '    ',
  ' ',
  '#',
  '-',
  '```',
  '~~~',
  '=== ',
  '--- ',
  '| ',
];

function line(rnd: () => number): string {
  const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)];
  if (rnd() < 0.12) return '';
  let s = pick(STARTS);
  const n = 1 + Math.floor(rnd() * 6);
  for (let i = 0; i < n; i++) {
    const r = rnd();
    s += r < 0.55 ? pick(WORDS) : r < 0.8 ? pick(PUNCT) : r < 0.93 ? pick(CODE) : pick(MARKUP);
    if (rnd() < 0.6) s += ' ';
  }
  if (rnd() < 0.1) s += ' ';
  if (rnd() < 0.05) s += '  ';
  return s;
}

function body(rnd: () => number, plainOnly: boolean): string {
  const lines: string[] = [];
  const n = 1 + Math.floor(rnd() * 12);
  for (let i = 0; i < n; i++) {
    let l = line(rnd);
    if (plainOnly) {
      l = l
        .replace(/[*_~[\]<>&\\$|{}@\t]/g, '')
        .replace(/^[^\p{L}`#-]+/u, '')
        .trimEnd();
      if (rnd() < 0.5) lines.push('');
    }
    lines.push(l);
  }
  return lines.join(rnd() < 0.05 ? '\r\n' : '\n');
}

/** Bodies of headings, paragraphs with links and images, items and fenced code blocks, some of them broken. */
function structured(rnd: () => number): string {
  const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)];
  const text = () => {
    let t = pick(['Install', 'See', 'Café', 'The']);
    for (let i = Math.floor(rnd() * 5); i > 0; i--) t += ' ' + pick([...WORDS, ...WORDS, ...MARKUP.slice(-18), '`code`', '.']);
    return t + pick(['', '', '', ' ', '  ']);
  };
  const code = () =>
    pick([
      'npm install example',
      '  indented();',
      '',
      '# not a heading',
      '- not an item',
      '[x](y)',
      '*x*',
      '```js',
      '~~~',
      ' ```',
      '{% hint %}',
      'a | b',
      '<div>',
      '````',
    ]);
  const out: string[] = [];
  for (let b = 1 + Math.floor(rnd() * 8); b > 0; b--) {
    const r = rnd();
    if (r < 0.2) out.push(`${'#'.repeat(1 + Math.floor(rnd() * 3))} ${pick(WORDS)}`);
    else if (r < 0.5) for (let i = 1 + Math.floor(rnd() * 2); i > 0; i--) out.push(text());
    else if (r < 0.65) for (let i = 1 + Math.floor(rnd() * 3); i > 0; i--) out.push(`- ${text()}`);
    else {
      out.push(pick(['```', '```bash', '```js', '```c++', '``` js', '~~~', '````']));
      for (let i = Math.floor(rnd() * 4); i > 0; i--) out.push(code());
      if (rnd() < 0.9) out.push(pick(['```', '```', '```', '```  ', '````']));
    }
    if (rnd() < 0.85) out.push('');
  }
  return out.join('\n');
}

describe('simpleSections', () => {
  it('splits a plain page as the parser does', () => {
    const md = [
      'Intro text with `code` and (parentheses), 100% sure?',
      'A second line of the same paragraph.',
      '',
      '## Overview',
      'Right after the heading.',
      '',
      '- item one',
      '- `item_two`: with code',
      '',
      '- item three',
      '',
      '### Setup',
      '## Setup',
      '# Café 文档',
    ].join('\n');
    const simple = simpleSections(md);
    expect(simple).not.toBeNull();
    expect(simple).toEqual(splitSections(md));
    expect(simple!.map((s) => s.id)).toEqual(['', 'overview', 'setup', 'setup-1', 'café-文档']);
  });

  it.each([
    'a *b* c',
    'a _b_ c',
    'see www.example.com',
    'mail a@b.co',
    '[x](y z)',
    '[x](y',
    '`[x](y)`',
    '[a *b*](c)',
    '<b>x</b>',
    'x &amp; y',
    '## Title #',
    '##Title',
    '- a\nb',
    'a\n- b',
    'a\n===',
    '1. one',
    '    code',
    '```\ncode',
    'text\n```\ncode\n```',
    '```\n{% hint %}\n```',
    '```\n~~~\n```',
    '````\ncode\n````',
    'a `b',
    'a ` b` c',
    '{% hint %}\nx\n{% endhint %}',
    '## Heading with trailing space ',
    'tab\there',
    'x'.repeat(100_001),
  ])('leaves %j to the parser', (md) => {
    expect(simpleSections(md)).toBeNull();
  });

  it('agrees with splitSections on every body it accepts (generated bodies)', () => {
    const rnd = prng(14);
    let accepted = 0;
    for (let i = 0; i < 12_000; i++) {
      const md = body(rnd, i % 2 === 0);
      const simple = simpleSections(md);
      if (simple === null) continue;
      accepted++;
      expect(simple, JSON.stringify(md)).toEqual(splitSections(md));
      if (!needsScan(md)) expect(scanMarkdown(md)).toBeNull();
    }
    expect(accepted).toBeGreaterThan(400);
  });

  it('agrees with splitSections on bodies with links, images and fenced code (generated bodies)', () => {
    const rnd = prng(26);
    let accepted = 0;
    let withCode = 0;
    let withLinks = 0;
    for (let i = 0; i < 12_000; i++) {
      const md = structured(rnd);
      const simple = simpleSections(md);
      if (simple === null) continue;
      accepted++;
      if (md.includes('```')) withCode++;
      if (md.includes('](')) withLinks++;
      expect(simple, JSON.stringify(md)).toEqual(splitSections(md));
      if (!needsScan(md)) expect(scanMarkdown(md)).toBeNull();
    }
    expect(accepted).toBeGreaterThan(1_000);
    expect(withCode).toBeGreaterThan(150);
    expect(withLinks).toBeGreaterThan(150);
  });

  it('reads a page in the shape of a generated docs page (code, link, image) without the parser', () => {
    const md = [
      '# Page 7',
      '',
      'Installing and configuring component 7. Lorem ipsum dolor sit amet.',
      '',
      '## Usage',
      '',
      '```bash',
      'npm install example',
      '```',
      '',
      'See [the next page](page-8.md).',
      '',
      '![Diagram](../.gitbook/assets/img-1.png)',
    ].join('\n');
    const simple = simpleSections(md);
    expect(simple).toEqual(splitSections(md));
    expect(simple!.map((x) => x.body)).toEqual([
      'Installing and configuring component 7. Lorem ipsum dolor sit amet.',
      'npm install example\nSee the next page.\nDiagram',
    ]);
  });

  it('skips the limits scan only where the scan cannot refuse', () => {
    // The costliest shapes for the scan's parse-work estimate: lists ending as often as possible.
    for (const unit of ['- a\n# b\n', '- a\n\nb\n\n', '- a\n- b\n\nc\n\n']) {
      const md = unit.repeat(Math.floor(UNSCANNED_MAX_CHARS / unit.length));
      expect(simpleSections(md)).not.toBeNull();
      expect(needsScan(md)).toBe(false);
      expect(scanMarkdown(md)).toBeNull();
    }
    const markers = `x \`${'_ '.repeat(Math.floor((UNSCANNED_MAX_CHARS - 8) / 2))}_\` y`;
    expect(simpleSections(markers)).not.toBeNull();
    expect(needsScan(markers)).toBe(false);
    expect(scanMarkdown(markers)).toBeNull();
    expect(needsScan('a `b**c` d')).toBe(true);
    expect(needsScan('a `b[c` d')).toBe(true);
    expect(needsScan('a'.repeat(UNSCANNED_MAX_CHARS + 1))).toBe(true);
  });

  it('is what the sections task answers, limits included', () => {
    const md = '## A\n\n- one\n- two\n\nText.';
    expect(runTask({ op: 'sections', md })).toEqual({ value: splitSections(md) });
    expect(runTask({ op: 'sections', md: '' })).toEqual({ value: [] });
  });
});
