// PostgreSQL's tsquery and ts_rank, for the in-memory index (memory-index.ts).
//
// A query is compiled by PostgreSQL (websearch_to_tsquery under the space's configuration, so
// stemming and stop words stay PostgreSQL's); its text form is parsed here into a tree, matched
// against the lexemes of each section, and ranked with the arithmetic of PostgreSQL's ts_rank
// (src/backend/utils/adt/tsrank.c: calc_rank_or, calc_rank_and; float4 steps rounded as there), so
// that scores, and so the order and the ties broken by path, are the ones the SQL path gives.

export type TsQuery =
  | { op: 'val'; lexeme: string; prefix: boolean }
  | { op: 'not'; arg: TsQuery }
  | { op: 'and' | 'or'; left: TsQuery; right: TsQuery }
  | { op: 'phrase'; distance: number; left: TsQuery; right: TsQuery };

/** Rank weights {D, C, B, A} as float4, the order of ts_rank's weight array. */
export type Weights = readonly [number, number, number, number];
export const DEFAULT_WEIGHTS: Weights = [0.1, 0.2, 0.4, 1.0].map(Math.fround) as unknown as Weights;

/** A position entry as PostgreSQL stores it (WordEntryPos): position in the low 14 bits, weight (0 = D ... 3 = A) above. */
export const posOf = (wep: number) => wep & 0x3fff;
export const weightOf = (wep: number) => wep >> 14;

/** Parses the text form of a tsquery (as PostgreSQL prints it); null for what this module does not handle (weight restrictions). */
export function parseTsQuery(text: string): TsQuery | null {
  let i = 0;
  const s = text;
  const ws = () => {
    while (i < s.length && /\s/.test(s[i])) i++;
  };
  const fail = (): never => {
    throw new Error(`unexpected tsquery text at ${i}`);
  };
  const operand = (): TsQuery => {
    ws();
    if (s[i] === '!') {
      i++;
      return { op: 'not', arg: operand() };
    }
    if (s[i] === '(') {
      i++;
      const q = orExpr();
      ws();
      if (s[i] !== ')') fail();
      i++;
      return q;
    }
    if (s[i] !== "'") fail();
    i++;
    let lexeme = '';
    for (;;) {
      if (i >= s.length) fail();
      const c = s[i++];
      if (c === "'") {
        if (s[i] === "'") {
          lexeme += "'";
          i++;
          continue;
        }
        break;
      }
      if (c === '\\' && i < s.length) lexeme += s[i++];
      else lexeme += c;
    }
    let prefix = false;
    if (s[i] === ':') {
      i++;
      while (i < s.length && /[*a-dA-D]/.test(s[i])) {
        if (s[i] === '*') prefix = true;
        else throw new Unsupported();
        i++;
      }
    }
    return { op: 'val', lexeme, prefix };
  };
  const phraseExpr = (): TsQuery => {
    let left = operand();
    for (;;) {
      ws();
      const m = /^<(-|\d+)>/.exec(s.slice(i, i + 8));
      if (!m) return left;
      i += m[0].length;
      left = { op: 'phrase', distance: m[1] === '-' ? 1 : Number(m[1]), left, right: operand() };
    }
  };
  const andExpr = (): TsQuery => {
    let left = phraseExpr();
    for (;;) {
      ws();
      if (s[i] !== '&') return left;
      i++;
      left = { op: 'and', left, right: phraseExpr() };
    }
  };
  const orExpr = (): TsQuery => {
    let left = andExpr();
    for (;;) {
      ws();
      if (s[i] !== '|') return left;
      i++;
      left = { op: 'or', left, right: andExpr() };
    }
  };
  try {
    const q = orExpr();
    ws();
    if (i !== s.length) fail();
    return q;
  } catch (err) {
    if (err instanceof Unsupported) return null;
    throw err;
  }
}

class Unsupported extends Error {}

export function hasPhrase(q: TsQuery): boolean {
  switch (q.op) {
    case 'val':
      return false;
    case 'not':
      return hasPhrase(q.arg);
    case 'phrase':
      return true;
    default:
      return hasPhrase(q.left) || hasPhrase(q.right);
  }
}

/** Byte order of UTF-8 strings (tsCompareString: memcmp, then the shorter first). */
export function compareLexemes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** The operands of a query, sorted and de-duplicated as SortAndUniqItems does (NOT operands included). */
export function uniqueOperands(q: TsQuery): { lexeme: string; prefix: boolean }[] {
  const out: { lexeme: string; prefix: boolean }[] = [];
  const walk = (n: TsQuery) => {
    if (n.op === 'val') out.push({ lexeme: n.lexeme, prefix: n.prefix });
    else if (n.op === 'not') walk(n.arg);
    else {
      walk(n.left);
      walk(n.right);
    }
  };
  walk(q);
  out.sort((a, b) => compareLexemes(a.lexeme, b.lexeme));
  // compareQueryOperand compares the strings only: the first of equal strings stays.
  return out.filter((o, k) => k === 0 || compareLexemes(o.lexeme, out[k - 1].lexeme) !== 0);
}

/** How a ranked query is ranked: calc_rank_and when its top operator is AND or PHRASE, else calc_rank_or. */
export function ranksAsAnd(q: TsQuery): boolean {
  return q.op === 'and' || q.op === 'phrase';
}

/** The positions (WordEntryPos values) of one lexeme entry of a section: `pos[start..end)`. */
export interface Entry {
  pos: Uint16Array;
  start: number;
  end: number;
}

/** The entries of each unique operand in one section (an operand absent from it has none). */
export type OperandEntries = Entry[];

const f = Math.fround;
const PI2_6 = 1.64493406685;

function wordDistance(w: number): number {
  if (w > 100) return f(1e-30);
  return f(1.0 / (1.005 + 0.05 * Math.exp(f(w) / 1.5 - 2)));
}

/** One entry's term of calc_rank_or, before its division by pi^2/6 (a float4). */
export function orTerm(w: Weights, pos: Uint16Array, start: number, end: number): number {
  let resj = f(0);
  let wjm = f(-1);
  let jm = 0;
  for (let j = 0; j < end - start; j++) {
    const wp = w[weightOf(pos[start + j])];
    resj = f(resj + f(wp / ((j + 1) * (j + 1))));
    if (wp > wjm) {
      wjm = wp;
      jm = j;
    }
  }
  return f(f(wjm + resj) - f(wjm / ((jm + 1) * (jm + 1))));
}

/** Adds one entry's term to calc_rank_or's running sum (as float4, as PostgreSQL does). */
export const addOrTerm = (res: number, term: number) => f(res + term / PI2_6);

/** calc_rank_or's final division by the number of unique operands. */
export const finishOr = (res: number, operands: number) => (operands > 0 ? f(res / operands) : res);

/** calc_rank_or: `entries[i]` holds the entries of the i-th unique operand (empty when absent). */
export function rankOr(w: Weights, entries: OperandEntries[]): number {
  let res = f(0);
  for (const list of entries) for (const e of list) res = addOrTerm(res, orTerm(w, e.pos, e.start, e.end));
  return finishOr(res, entries.length);
}

/** calc_rank_and (falls back to calc_rank_or under two unique operands, as PostgreSQL does). */
export function rankAnd(w: Weights, entries: OperandEntries[]): number {
  if (entries.length < 2) return rankOr(w, entries);
  let res = f(-1);
  const last: (Entry | null)[] = new Array(entries.length).fill(null);
  for (let i = 0; i < entries.length; i++) {
    for (const e of entries[i]) {
      last[i] = e;
      for (let k = 0; k < i; k++) {
        const ct = last[k];
        if (!ct) continue;
        for (let l = e.start; l < e.end; l++) {
          for (let p = ct.start; p < ct.end; p++) {
            const dist = Math.abs(posOf(e.pos[l]) - posOf(ct.pos[p]));
            if (dist) {
              const curw = f(Math.sqrt(w[weightOf(e.pos[l])] * w[weightOf(ct.pos[p])] * wordDistance(dist)));
              res = res < 0 ? curw : f(1.0 - (1.0 - res) * (1.0 - curw));
            }
          }
        }
      }
    }
  }
  return res;
}

/** ts_rank(weights, tsv, query) with normalization 0, from the section's entries of the query's unique operands. */
export function tsRank(w: Weights, asAnd: boolean, entries: OperandEntries[]): number {
  if (!entries.length) return 0;
  return atLeastTiny(asAnd ? rankAnd(w, entries) : rankOr(w, entries));
}

/** calc_rank: a negative rank (calc_rank_and found no pair) becomes 1e-20. */
export const atLeastTiny = (res: number) => (res < 0 ? f(1e-20) : res);

/** A float4 as PostgreSQL prints it (shortest text that reads back to the same float4). */
export function float4Value(x: number): number {
  if (!Number.isFinite(x) || x === 0) return x;
  for (let p = 1; p <= 9; p++) {
    const v = Number(x.toPrecision(p));
    if (f(v) === x) return v;
  }
  return x;
}
