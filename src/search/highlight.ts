// Where a snippet starts when the in-memory index ranked the search (memory-index.ts): the first
// word of the section body whose lexemes, under the space's configuration, are operands of the
// query, as ts_headline would mark it, without running ts_headline over every body shown (it
// parses each whole body: 200 sections of a broad query cost more than the rest of the search).
// Words are split here and their lexemes asked of PostgreSQL (to_tsvector of the word alone), then
// kept per process. A body where no word matches (a token PostgreSQL's parser reads otherwise: a
// version number, a URL...) is left to ts_headline by the caller.
import type { AppContext } from '../context.js';
import { wordLexemes } from '../db/repos/search-query.js';

/** ts_headline reads this much of a body (search-query.ts HEADLINE_CHARS). */
const HEADLINE_CHARS = 20_000;
/** Words whose lexemes a process keeps (per configuration, first in first out). */
const CACHE_WORDS = 100_000;
const WORD = /[\p{L}\p{N}]+/gu;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

const caches = new WeakMap<AppContext, Map<string, string[]>>();

/**
 * For each text, the offset of its first word matching one of `operands` (a prefix operand: any
 * lexeme it starts), or -1 when none does within the part ts_headline reads.
 */
export async function firstMatches(
  app: AppContext,
  config: string,
  operands: { lexeme: string; prefix: boolean }[],
  texts: string[],
): Promise<number[]> {
  if (!operands.length) return texts.map(() => -1);
  let cache = caches.get(app);
  if (!cache) caches.set(app, (cache = new Map()));
  // Stemming changes endings: only words beginning like an operand are looked up.
  const heads = new Set(operands.map((o) => [...o.lexeme].slice(0, 2).join('')));
  const mayMatch = (w: string) => heads.has([...w].slice(0, 2).join('')) || heads.has([...w][0]);
  const words = texts.map((text) => {
    const out: { word: string; at: number }[] = [];
    for (const m of text.slice(0, HEADLINE_CHARS).matchAll(WORD)) {
      const word = m[0].normalize('NFKC').toLowerCase();
      if (!CJK.test(word) && mayMatch(word)) out.push({ word, at: m.index });
    }
    return out;
  });
  const key = (w: string) => `${config}\n${w}`;
  const unknown = [...new Set(words.flat().map((w) => w.word))].filter((w) => !cache.has(key(w)));
  if (unknown.length) {
    for (const [w, lexemes] of await wordLexemes(app.db, config, unknown)) {
      if (cache.size >= CACHE_WORDS) cache.delete(cache.keys().next().value!);
      cache.set(key(w), lexemes);
    }
  }
  const exact = new Set(operands.filter((o) => !o.prefix).map((o) => o.lexeme));
  const prefixes = operands.filter((o) => o.prefix).map((o) => o.lexeme);
  const matches = (lexemes: string[] | undefined) => !!lexemes?.some((l) => exact.has(l) || prefixes.some((p) => l.startsWith(p)));
  return words.map((list) => list.find((w) => matches(cache.get(key(w.word))))?.at ?? -1);
}
