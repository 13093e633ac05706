import { describe, expect, it } from 'vitest';
import { cjkTsquery, cjkTsvector, prepareQuery, runTokens, splitCjk } from '../../../src/search/cjk.js';

/** The lexemes of a tsvector literal built by cjkTsvector. */
const lexemes = (tsv: string) => [...tsv.matchAll(/'([^']+)':/g)].map((m) => m[1]);

describe('CJK tokenizer', () => {
  it('takes CJK runs (Han, Kana, Hangul) out of the text the parser reads', () => {
    expect(splitCjk('GitBook 文档平台の紹介 and 문서 plus ｶﾀｶﾅ。')).toEqual({
      latin: 'GitBook   and   plus   ',
      runs: ['文档平台の紹介', '문서', 'カタカナ'], // half-width Katakana folded by NFKC
    });
    expect(splitCjk('ｆｕｌｌ width').latin).toBe('full width');
    expect(splitCjk('plain English').runs).toEqual([]);
  });

  it('indexes overlapping bigrams plus the last character of each run', () => {
    expect(runTokens('文档平台')).toEqual(['文档', '档平', '平台', '台']);
    expect(runTokens('档')).toEqual(['档']);
    expect(runTokens('𠀋𠀌')).toEqual(['𠀋𠀌', '𠀌']); // astral characters are not split in halves
  });

  it('writes weighted tsvector literals, positions per token', () => {
    expect(cjkTsvector([])).toBe('');
    expect(cjkTsvector([{ text: 'no cjk here', weight: 'A' }])).toBe('');
    const tsv = cjkTsvector([
      { text: '文档', weight: 'A' },
      { text: '这是文档', weight: 'D' },
    ]);
    expect(tsv).toBe("'文档':1A,6 '档':2A,7 '这是':4 '是文':5");
  });

  it('turns query runs into ANDed bigrams, a single character into a prefix', () => {
    expect(cjkTsquery(['文档平台'])).toBe("'文档' & '档平' & '平台'");
    expect(cjkTsquery(['档'])).toBe("'档':*");
    expect(cjkTsquery(['文档', '文档'])).toBe("'文档'");
    expect(cjkTsquery([])).toBe('');
  });

  it('every query bigram of a phrase is among the indexed tokens of a text containing it, and not of an unrelated one', () => {
    const indexed = new Set(lexemes(cjkTsvector([{ text: '这是一个文档平台的介绍', weight: 'D' }])));
    const needed = (q: string) => [...cjkTsquery(splitCjk(q).runs).matchAll(/'([^']+)'/g)].map((m) => m[1]);
    expect(needed('文档平台').every((t) => indexed.has(t))).toBe(true);
    expect(needed('台的介').every((t) => indexed.has(t))).toBe(true);
    expect(needed('数据库').every((t) => indexed.has(t))).toBe(false);
    expect(needed('平文').every((t) => indexed.has(t))).toBe(false); // both characters occur, never in this order
  });

  it('prepares mixed queries; punctuation alone is no query', () => {
    expect(prepareQuery('install 文档')).toEqual({ latin: 'install', cjk: "'文档'", runs: ['文档'] });
    expect(prepareQuery('"文档平台"')).toEqual({ latin: '', cjk: "'文档' & '档平' & '平台'", runs: ['文档平台'] });
    expect(prepareQuery('?!')).toEqual({ latin: '', cjk: '', runs: [] });
  });
});
