// The `body` of a section result: plain text (no HTML, no match markers), at most SNIPPET_MAX
// characters, taken around the first match in the section body. Latin matches are located by
// PostgreSQL's ts_headline (it knows the stemmer: "installing" marks "install"), CJK ones by the
// query's runs (or their first bigram) in the text. A section that matched only through its page's
// title or description shows its beginning.

export const SNIPPET_MAX = 200;
/** Marks ts_headline is asked to put around matches (private-use characters, never shown). */
export const MATCH_START = '\uE000';
export const MATCH_STOP = '\uE001';
/** Context kept before the match. */
const LEAD = 50;
/** How far a cut may move to land between words. */
const WORD_SLACK = 15;

const collapse = (s: string) => s.replace(/\s+/g, ' ').trim();

interface SnippetInput {
  body: string;
  /** ts_headline of (the beginning of) the body with every match between MATCH_START and MATCH_STOP, or null. */
  highlighted?: string | null;
  /** CJK runs of the query. */
  runs?: string[];
  /** Where the first match is in snippetText(body), when known without `highlighted` (-1: none). */
  at?: number;
}

/** The body as snippets read it (markers out, white space collapsed): what `at` counts in. */
export function snippetText(body: string): string {
  return collapse(body.replaceAll(MATCH_START, '').replaceAll(MATCH_STOP, ''));
}

export function snippet(input: SnippetInput, max = SNIPPET_MAX): string {
  const text = snippetText(input.body);
  let at = input.at ?? -1;
  if (input.highlighted) {
    const h = collapse(input.highlighted);
    const mark = h.indexOf(MATCH_START);
    if (mark >= 0) {
      // ts_headline drops what its parser calls tags (<b> in a code line), so the marked word sits
      // at or after the same offset in the body.
      const word = h.slice(mark + 1, h.indexOf(MATCH_STOP, mark));
      const found = word ? text.indexOf(word, mark) : -1;
      at = found >= 0 ? found : mark;
    }
  }
  for (const run of input.runs ?? []) {
    const i = findLoose(text, run);
    if (i >= 0 && (at < 0 || i < at)) at = i;
  }
  return cut(text, Math.max(at, 0), max);
}

/** The run itself, else its first bigram (the bigrams of a query need not be adjacent), else its first character. */
function findLoose(text: string, run: string): number {
  const norm = text.normalize('NFKC');
  if (norm.length !== text.length) return -1; // offsets would not map back; fall back to the beginning
  for (const needle of [run, [...run].slice(0, 2).join(''), [...run][0]]) {
    const i = norm.indexOf(needle);
    if (i >= 0) return i;
  }
  return -1;
}

/** A window of at most `max` characters of `text` starting a little before `at`, with … where cut. */
export function cut(text: string, at: number, max = SNIPPET_MAX): string {
  if (text.length <= max) return text;
  let start = Math.max(0, Math.min(at - LEAD, text.length - max));
  if (start > 0) {
    const space = text.indexOf(' ', start);
    if (space >= 0 && space - start <= WORD_SLACK && space < at) start = space + 1;
  }
  const head = start > 0 ? '…' : '';
  let end = start + max - head.length;
  let tail = '';
  if (end < text.length) {
    end -= 1; // room for the ellipsis
    const space = text.lastIndexOf(' ', end);
    if (space > start && end - space <= WORD_SLACK) end = space;
    tail = '…';
  }
  return head + text.slice(start, end).trim() + tail;
}
