// The built-in back-end: no model. The passages' sentences that share the most words with the
// question are quoted as they are, each with a link to its page; the best pages come first. It is
// deterministic, costs nothing and cannot invent: the default, and what runs offline.
import type { Answer, AnswerBackend, Passage } from './types.js';

const STOP = new Set(
  'a an and are as at be by can do does for from how i in is it my of on or the to what when where which who why with you your'.split(' '),
);

export function terms(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length > 1 && !STOP.has(w));
}

function sentences(text: string): string[] {
  return text
    .replace(/\s+/g, ' ')
    .split(/(?<=[.!?])\s+(?=[\p{Lu}\p{N}`"'(])/u)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

const QUOTES_PER_PAGE = 2;
const MAX_QUOTES = 4;
const MAX_QUOTE_CHARS = 400;

/** Markdown inside a link text: the brackets escaped. */
export const linkText = (s: string) => s.replace(/([[\]\\])/g, '\\$1');

export function extractiveBackend(): AnswerBackend {
  return {
    name: 'extractive',
    async answer(question: string, passages: Passage[], o): Promise<Answer> {
      const wanted = new Set(terms(question));
      const scored: { i: number; s: string; score: number }[] = [];
      passages.forEach((p, i) => {
        for (const s of sentences(p.text)) {
          const words = new Set(terms(s));
          let score = 0;
          for (const w of wanted) if (words.has(w)) score++;
          // Earlier (better ranked) passages win ties.
          if (score > 0) scored.push({ i, s, score: score - i * 0.01 });
        }
      });
      scored.sort((a, b) => b.score - a.score);
      const perPage = new Map<number, string[]>();
      let count = 0;
      for (const x of scored) {
        if (count >= MAX_QUOTES) break;
        const list = perPage.get(x.i) ?? [];
        if (list.length >= QUOTES_PER_PAGE || list.includes(x.s)) continue;
        list.push(x.s.length > MAX_QUOTE_CHARS ? `${x.s.slice(0, MAX_QUOTE_CHARS - 1)}…` : x.s);
        perPage.set(x.i, list);
        count++;
      }
      // Nothing shares a word with the question: the best result's opening, if any.
      if (!perPage.size && passages.length && passages[0].text.trim())
        perPage.set(0, [sentences(passages[0].text)[0]?.slice(0, MAX_QUOTE_CHARS) ?? '']);
      if (!perPage.size) {
        const markdown = 'No page of this documentation answers that question.';
        o.onText?.(markdown);
        return { markdown, used: [] };
      }
      const used = [...perPage.keys()].sort((a, b) => a - b);
      const parts: string[] = ['From the documentation:'];
      used.forEach((i, n) => {
        const p = passages[i];
        const quote = perPage
          .get(i)!
          .map((s) => `> ${s}`)
          .join('\n>\n');
        parts.push(`${quote}\n\n— [${linkText(p.title)}](${p.url}) [${n + 1}]`);
        o.onText?.(parts.join('\n\n'));
      });
      parts.push(`Sources:\n${used.map((i, n) => `${n + 1}. [${linkText(passages[i].title)}](${passages[i].url})`).join('\n')}`);
      const markdown = parts.join('\n\n');
      o.onText?.(markdown);
      return { markdown, used };
    },
  };
}
