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
    '[x](y)',
    '<b>x</b>',
    'x &amp; y',
    '## Title #',
    '##Title',
    '- a\nb',
    'a\n- b',
    'a\n===',
    '1. one',
    '    code',
    '```\ncode\n```',
    'a `b',
    'a ` b` c',
    '{% hint %}\nx\n{% endhint %}',
    'line with trailing space ',
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
