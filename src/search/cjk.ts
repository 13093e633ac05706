// Text preparation for PostgreSQL full-text search, with Chinese, Japanese and Korean made findable.
//
// PostgreSQL's parsers do not segment CJK text: a run such as 这是一个文档平台的介绍 becomes one
// token, so a search for 文档平台 would never match it. Every run of CJK characters is therefore
// taken out of the text given to the configured parser and indexed separately as overlapping
// character bigrams (文档 档平 平台 ...) plus the run's last character, written directly as a
// tsvector literal (no parser involved, so the result does not depend on the server's locale).
// A query run is turned into the AND of its bigrams; a one-character query run becomes a prefix
// search (档:*), which finds that character anywhere, because every character of an indexed run
// starts a bigram or is the run's indexed last character.

/** Han (with 々〆〇), Hiragana, Katakana (with ー and the half-width forms NFKC folds), Hangul. */
const CJK = '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}\\u3005-\\u3007\\u30fc';
const CJK_RUNS = new RegExp(`[${CJK}]+`, 'gu');
/** CJK punctuation (。、「」...): a separator, never a word. */
const CJK_PUNCTUATION = /[\u3000-\u3004\u3008-\u303f]/g;
const HAS_WORD = /[\p{L}\p{N}]/u;

/** Positions past this are clamped by PostgreSQL anyway; a lexeme keeps at most this many. */
const MAX_POSITION = 16383;
const MAX_POSITIONS_PER_LEXEME = 32;

type Weight = 'A' | 'B' | 'C' | 'D';

/** Compatibility-normalizes (full-width Latin, half-width Katakana, ligatures) as both sides of a search must. */
function normalize(text: string): string {
  return text.normalize('NFKC');
}

/** Splits normalized text into what the configured parser reads (CJK runs blanked out) and the CJK runs. */
export function splitCjk(text: string): { latin: string; runs: string[] } {
  const runs: string[] = [];
  const latin = normalize(text).replace(CJK_RUNS, (run) => {
    runs.push(run);
    return ' ';
  });
  return { latin: latin.replace(CJK_PUNCTUATION, ' '), runs };
}

/** Index tokens of one CJK run, in order: overlapping bigrams, then the last character. */
export function runTokens(run: string): string[] {
  const chars = [...run];
  const out: string[] = [];
  for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i] + chars[i + 1]);
  if (chars.length) out.push(chars[chars.length - 1]);
  return out;
}

/**
 * A tsvector literal holding the CJK tokens of `parts`, each carrying its part's weight; '' when
 * there is no CJK text. Lexemes are CJK characters only, so they never need quoting beyond '...'.
 */
export function cjkTsvector(parts: { text: string; weight: Weight }[]): string {
  return runsTsvector(parts.map((p) => ({ runs: splitCjk(p.text).runs, weight: p.weight })));
}

/** As cjkTsvector, from runs already split out by splitCjk. */
export function runsTsvector(parts: { runs: string[]; weight: Weight }[]): string {
  const lexemes = new Map<string, string[]>();
  let pos = 0;
  for (const part of parts) {
    for (const run of part.runs) {
      for (const token of runTokens(run)) {
        pos = Math.min(pos + 1, MAX_POSITION);
        let list = lexemes.get(token);
        if (!list) lexemes.set(token, (list = []));
        if (list.length < MAX_POSITIONS_PER_LEXEME) list.push(`${pos}${part.weight === 'D' ? '' : part.weight}`);
      }
      pos = Math.min(pos + 1, MAX_POSITION); // runs are not adjacent
    }
  }
  return [...lexemes].map(([lexeme, positions]) => `'${lexeme}':${positions.join(',')}`).join(' ');
}

/** The CJK part of a query as a tsquery literal: every run's bigrams ANDed; '' when there is none. */
export function cjkTsquery(runs: string[]): string {
  const terms: string[] = [];
  for (const run of runs) {
    const chars = [...run];
    if (chars.length === 1) terms.push(`'${run}':*`);
    else for (let i = 0; i + 1 < chars.length; i++) terms.push(`'${chars[i]}${chars[i + 1]}'`);
  }
  return [...new Set(terms)].join(' & ');
}

export interface PreparedQuery {
  /** Text for websearch_to_tsquery under the space's configuration ('' when there are no words outside CJK runs). */
  latin: string;
  /** tsquery literal of the CJK runs ('' when none). */
  cjk: string;
  /** The CJK runs as typed (normalized), to place snippets. */
  runs: string[];
}

export function prepareQuery(query: string): PreparedQuery {
  const { latin, runs } = splitCjk(query);
  return { latin: HAS_WORD.test(latin) ? latin.trim() : '', cjk: cjkTsquery(runs), runs };
}
