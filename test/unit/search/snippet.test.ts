import { describe, expect, it } from 'vitest';
import { cut, MATCH_START, MATCH_STOP, snippet, SNIPPET_MAX } from '../../../src/search/snippet.js';

describe('snippets', () => {
  const long = `${'lorem ipsum dolor sit amet '.repeat(20)}the install command is here ${'and more words follow it '.repeat(20)}`;

  it('returns a short body whole, whitespace collapsed', () => {
    expect(snippet({ body: 'First line\nsecond   line' })).toBe('First line second line');
  });

  it('cuts a window around the first Latin match marked by ts_headline', () => {
    const highlighted = long.replace('install', `${MATCH_START}install${MATCH_STOP}`);
    const s = snippet({ body: long, highlighted });
    expect(s.length).toBeLessThanOrEqual(SNIPPET_MAX);
    expect(s).toContain('the install command is here');
    expect(s.startsWith('…')).toBe(true);
    expect(s.endsWith('…')).toBe(true);
    expect(s).not.toContain(MATCH_START);
  });

  it('places a CJK match by the query run, else its first bigram', () => {
    const body = `${'前言'.repeat(150)}这是一个文档平台的介绍${'后记'.repeat(150)}`;
    const s = snippet({ body, runs: ['文档平台'] });
    expect(s.length).toBeLessThanOrEqual(SNIPPET_MAX);
    expect(s).toContain('文档平台的介绍');
    expect(snippet({ body, runs: ['文档介绍'] })).toContain('文档');
  });

  it('starts at the beginning without a match', () => {
    const s = snippet({ body: long });
    expect(s.startsWith('lorem ipsum')).toBe(true);
    expect(s.length).toBeLessThanOrEqual(SNIPPET_MAX);
  });

  it('never exceeds the limit, wherever the match is', () => {
    const text = 'x'.repeat(1000);
    for (const at of [0, 10, 500, 999]) expect(cut(text, at).length).toBeLessThanOrEqual(SNIPPET_MAX);
  });
});
