// An in-memory copy of one space's search index (the lexemes and positions of every section's
// tsvector, and its pages), to match and rank a query without ranking every match in PostgreSQL.
//
// It is derived data only: built from the rows the indexer wrote (search_pages, search_sections),
// for exactly one indexed root and text-search configuration (`key`), read in one snapshot. A
// search uses it only when that key is still the space's current index (checked by the freshness
// read every search makes); otherwise the SQL path answers. Matching and ranking follow PostgreSQL
// (tsquery.ts), so the answer is the one the SQL path gives.
import {
  compareLexemes,
  DEFAULT_WEIGHTS,
  hasPhrase,
  ranksAsAnd,
  addOrTerm,
  atLeastTiny,
  finishOr,
  orTerm,
  rankAnd,
  uniqueOperands,
  tsRank,
  type Weights,
  float4Value,
  type OperandEntries,
  type TsQuery,
} from './tsquery.js';

/** Pages an index may hold (the page's index takes the low 21 bits of a sort key, see ordered()). */
const PAGE_SLOTS = 2 ** 21;

export interface IndexPage {
  id: string;
  title: string;
  description: string;
  path: string;
  ancestors: string[];
}

interface Posting {
  /** Sections holding the lexeme, ascending. */
  sections: Int32Array;
  /** Where each section's positions start in `positions` (one more entry than sections). */
  starts: Int32Array;
  positions: Uint16Array;
  /** calc_rank_or's term of each entry under the default weights (computed on first use). */
  orTerms?: Float32Array;
}

export interface SectionHit {
  ord: number;
  /** ts_rank of the section, and counting only its own title and body. */
  r: number;
  own: number;
}

export interface RankedPage {
  page: IndexPage;
  score: number;
}

export class MemoryIndex {
  /** Lexemes in byte order, for prefix operands (built on first use). */
  private sorted: string[] | null = null;
  /** Page index by id (built on first use). */
  private byId: Map<string, number> | null = null;

  constructor(
    readonly key: string,
    /** Pages in the order PostgreSQL sorts their (path, id): the tie-break of equal scores. */
    readonly pages: IndexPage[],
    /** Page (index in `pages`) of each section. */
    private readonly sectionPage: Int32Array,
    /** Each section's `ord` (a page's sections are consecutive, in ord order). */
    private readonly sectionOrd: Int32Array,
    /** A page's first section (-1: none) and how many it has. */
    private readonly pageFirst: Int32Array,
    private readonly pageSections: Int32Array,
    private readonly lexemes: Map<string, Posting>,
    /** Approximate bytes held. */
    readonly bytes: number,
  ) {}

  /** Whether `query` can be answered here (phrases are left to PostgreSQL). */
  static supports(query: TsQuery): boolean {
    return !hasPhrase(query);
  }

  /** Every matching page ranked (best first, ties in path order) with how many match; `limit` of them after `offset`. */
  search(query: TsQuery, offset: number, limit: number): { total: number; pages: RankedPage[] } {
    if (this.pages.length > PAGE_SLOTS) throw new Error('too many pages for the in-memory index');
    const matching = this.evaluate(query);
    const operands = uniqueOperands(query).map((o) => this.postingsOf(o));
    const best = new Float64Array(this.pages.length).fill(-1);
    // Matching sections ascend, as every posting list does: one cursor per list.
    const cursors = operands.map((lists) => lists.map(() => 0));
    const present = (k: number, j: number, s: number) => {
      const sections = operands[k][j].sections;
      let c = cursors[k][j];
      while (c < sections.length && sections[c] < s) c++;
      cursors[k][j] = c;
      return c < sections.length && sections[c] === s;
    };
    if (ranksAsAnd(query) && operands.length >= 2) {
      const entries: OperandEntries[] = operands.map(() => []);
      for (const s of matching) {
        for (let k = 0; k < operands.length; k++) {
          const list: OperandEntries = [];
          for (let j = 0; j < operands[k].length; j++) {
            if (!present(k, j, s)) continue;
            const p = operands[k][j];
            const c = cursors[k][j];
            list.push({ pos: p.positions, start: p.starts[c], end: p.starts[c + 1] });
          }
          entries[k] = list;
        }
        const r = atLeastTiny(rankAnd(DEFAULT_WEIGHTS, entries));
        const page = this.sectionPage[s];
        if (r > best[page]) best[page] = r;
      }
    } else if (operands.length === 1 && operands[0].length === 1 && matching === operands[0][0].sections) {
      // One lexeme: every entry of its list is a match.
      const p = operands[0][0];
      const terms = orTerms(p);
      for (let i = 0; i < p.sections.length; i++) {
        const r = atLeastTiny(finishOr(addOrTerm(0, terms[i]), 1));
        const page = this.sectionPage[p.sections[i]];
        if (r > best[page]) best[page] = r;
      }
    } else {
      for (const s of matching) {
        let r = 0;
        for (let k = 0; k < operands.length; k++) {
          for (let j = 0; j < operands[k].length; j++) {
            if (!present(k, j, s)) continue;
            const p = operands[k][j];
            const c = cursors[k][j];
            r = addOrTerm(r, orTerm(DEFAULT_WEIGHTS, p.positions, p.starts[c], p.starts[c + 1]));
          }
        }
        r = operands.length ? atLeastTiny(finishOr(r, operands.length)) : 0;
        const page = this.sectionPage[s];
        if (r > best[page]) best[page] = r;
      }
    }
    return this.ordered(best, offset, limit);
  }

  /**
   * The sections to show of the pages with these ids, as src/db/repos/search-query.ts
   * matchingSections picks them: matching sections, those matching through their own title or
   * body first (ts_rank with OWN_WEIGHTS > 0), then by rank, then ord; at most `perPage` of them,
   * only the first when none matches on its own.
   */
  sections(query: TsQuery, pageIds: string[], perPage: number, ownWeights: Weights): Map<string, SectionHit[]> {
    const matching = this.evaluate(query);
    const operands = uniqueOperands(query).map((o) => this.postingsOf(o));
    const asAnd = ranksAsAnd(query);
    const byId = (this.byId ??= new Map(this.pages.map((p, i) => [p.id, i])));
    const out = new Map<string, SectionHit[]>();
    for (const id of pageIds) {
      const page = byId.get(id);
      if (page === undefined || this.pageFirst[page] < 0) continue;
      const hits: SectionHit[] = [];
      for (let s = this.pageFirst[page]; s < this.pageFirst[page] + this.pageSections[page]; s++) {
        if (!contains(matching, s)) continue;
        const entries: OperandEntries[] = operands.map((lists) => {
          const list: OperandEntries = [];
          for (const p of lists) {
            const at = position(p.sections, s);
            if (at >= 0) list.push({ pos: p.positions, start: p.starts[at], end: p.starts[at + 1] });
          }
          return list;
        });
        hits.push({
          ord: this.sectionOrd[s],
          r: float4Value(tsRank(DEFAULT_WEIGHTS, asAnd, entries)),
          own: float4Value(tsRank(ownWeights, asAnd, entries)),
        });
      }
      hits.sort((a, b) => Number(b.own > 0) - Number(a.own > 0) || b.r - a.r || a.ord - b.ord);
      out.set(
        id,
        hits.slice(0, Math.max(1, perPage)).filter((h, n) => h.own > 0 || n === 0),
      );
    }
    return out;
  }

  /**
   * Pages with a score (>= 0 in `best`) by score descending, then page order (path, id): sorted as
   * one numeric key each (the float4 score's bits, inverted, above the page's index), `limit` of
   * them after `offset`, and how many there are.
   */
  private ordered(best: Float64Array, offset: number, limit: number): { total: number; pages: RankedPage[] } {
    const keys = new Float64Array(best.length);
    const score = new Float32Array(1);
    const bits = new Uint32Array(score.buffer);
    let n = 0;
    for (let p = 0; p < best.length; p++) {
      if (best[p] < 0) continue;
      score[0] = best[p];
      keys[n++] = (0x80000000 - bits[0]) * PAGE_SLOTS + p;
    }
    const sorted = keys.subarray(0, n).sort();
    const pages: RankedPage[] = [];
    for (let i = offset; i < Math.min(n, offset + limit); i++) {
      const p = sorted[i] % PAGE_SLOTS;
      pages.push({ page: this.pages[p], score: float4Value(best[p]) });
    }
    return { total: n, pages };
  }

  private postingsOf(o: { lexeme: string; prefix: boolean }): Posting[] {
    if (!o.prefix) {
      const p = this.lexemes.get(o.lexeme);
      return p ? [p] : [];
    }
    const sorted = (this.sorted ??= [...this.lexemes.keys()].sort(compareLexemes));
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compareLexemes(sorted[mid], o.lexeme) < 0) lo = mid + 1;
      else hi = mid;
    }
    const out: Posting[] = [];
    for (let i = lo; i < sorted.length && sorted[i].startsWith(o.lexeme); i++) out.push(this.lexemes.get(sorted[i])!);
    return out;
  }

  /** Sections matching the query, ascending (TS_execute without positions: phrases are not handled here). */
  private evaluate(q: TsQuery): Int32Array {
    switch (q.op) {
      case 'val': {
        const lists = this.postingsOf(q);
        if (lists.length === 1) return lists[0].sections;
        let acc: Int32Array = new Int32Array(0);
        for (const p of lists) acc = union(acc, p.sections);
        return acc;
      }
      case 'not':
        return difference(this.all(), this.evaluate(q.arg));
      case 'and':
        if (q.right.op === 'not') return difference(this.evaluate(q.left), this.evaluate(q.right.arg));
        if (q.left.op === 'not') return difference(this.evaluate(q.right), this.evaluate(q.left.arg));
        return intersect(this.evaluate(q.left), this.evaluate(q.right));
      case 'or':
        return union(this.evaluate(q.left), this.evaluate(q.right));
      default:
        throw new Error('phrase queries are answered by PostgreSQL');
    }
  }

  private all(): Int32Array {
    const out = new Int32Array(this.sectionPage.length);
    for (let i = 0; i < out.length; i++) out[i] = i;
    return out;
  }
}

function orTerms(p: Posting): Float32Array {
  if (!p.orTerms) {
    p.orTerms = new Float32Array(p.sections.length);
    for (let i = 0; i < p.sections.length; i++) p.orTerms[i] = orTerm(DEFAULT_WEIGHTS, p.positions, p.starts[i], p.starts[i + 1]);
  }
  return p.orTerms;
}

function position(a: Int32Array, x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (a[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo < a.length && a[lo] === x ? lo : -1;
}

const contains = (a: Int32Array, x: number) => position(a, x) >= 0;

function intersect(a: Int32Array, b: Int32Array): Int32Array {
  const out: number[] = [];
  for (let i = 0, j = 0; i < a.length && j < b.length;) {
    if (a[i] === b[j]) {
      out.push(a[i]);
      i++;
      j++;
    } else if (a[i] < b[j]) i++;
    else j++;
  }
  return Int32Array.from(out);
}

function union(a: Int32Array, b: Int32Array): Int32Array {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a[i] < b[j])) out.push(a[i++]);
    else if (i >= a.length || b[j] < a[i]) out.push(b[j++]);
    else {
      out.push(a[i]);
      i++;
      j++;
    }
  }
  return Int32Array.from(out);
}

function difference(a: Int32Array, b: Int32Array): Int32Array {
  const out: number[] = [];
  for (let i = 0, j = 0; i < a.length; i++) {
    while (j < b.length && b[j] < a[i]) j++;
    if (j >= b.length || b[j] !== a[i]) out.push(a[i]);
  }
  return Int32Array.from(out);
}

// ---------------------------------------------------------------------------------------------
// Building from the index rows
// ---------------------------------------------------------------------------------------------

const WEIGHT_BITS: Record<string, number> = { A: 3, B: 2, C: 1, D: 0 };

/** Collects sections (their tsvector's text form) into an index. */
export class MemoryIndexBuilder {
  private readonly pageIndex = new Map<string, number>();
  private readonly sectionPage: number[] = [];
  private readonly sectionOrd: number[] = [];
  private lastPage = -1;
  private readonly building = new Map<string, { sections: number[]; starts: number[]; positions: number[] }>();
  private positionCount = 0;
  private readonly seen = new Set<number>();

  constructor(
    private readonly key: string,
    private readonly pages: IndexPage[],
  ) {
    pages.forEach((p, i) => this.pageIndex.set(p.id, i));
  }

  /** Adds one section of `pageId` (ignored when the page is not among the index's pages); a page's sections come together, in `ord` order. */
  addSection(pageId: string, ord: number, tsvText: string) {
    const page = this.pageIndex.get(pageId);
    if (page === undefined) return;
    if (page !== this.lastPage && this.pageIndex.size && this.seen.has(page)) throw new Error('sections of a page must come together');
    this.seen.add(page);
    this.lastPage = page;
    const section = this.sectionPage.length;
    this.sectionPage.push(page);
    this.sectionOrd.push(ord);
    for (const [lexeme, positions] of parseTsvector(tsvText)) {
      let b = this.building.get(lexeme);
      if (!b) this.building.set(lexeme, (b = { sections: [], starts: [], positions: [] }));
      b.sections.push(section);
      b.starts.push(b.positions.length);
      for (const p of positions) b.positions.push(p);
      this.positionCount += positions.length;
    }
  }

  build(): MemoryIndex {
    const lexemes = new Map<string, Posting>();
    let bytes = this.sectionPage.length * 4;
    for (const [lexeme, b] of this.building) {
      const starts = new Int32Array(b.starts.length + 1);
      starts.set(b.starts);
      starts[b.starts.length] = b.positions.length;
      const p = { sections: Int32Array.from(b.sections), starts, positions: Uint16Array.from(b.positions) };
      lexemes.set(lexeme, p);
      bytes += 80 + lexeme.length * 2 + 2 * p.sections.byteLength + starts.byteLength + p.positions.byteLength; // orTerms counted
    }
    for (const p of this.pages)
      bytes += 120 + 2 * (p.id.length + p.title.length + p.description.length + p.path.length) + 40 * p.ancestors.length;
    this.building.clear();
    const pageFirst = new Int32Array(this.pages.length).fill(-1);
    const pageSections = new Int32Array(this.pages.length);
    this.sectionPage.forEach((page, s) => {
      if (pageFirst[page] < 0) pageFirst[page] = s;
      pageSections[page]++;
    });
    bytes += this.sectionPage.length * 4 + this.pages.length * 8;
    // An index of more pages than a sort key can number is never kept (memory.ts: too large).
    return new MemoryIndex(
      this.key,
      this.pages,
      Int32Array.from(this.sectionPage),
      Int32Array.from(this.sectionOrd),
      pageFirst,
      pageSections,
      lexemes,
      this.pages.length > PAGE_SLOTS ? Infinity : bytes,
    );
  }
}

/** The lexemes of a tsvector's text form with their positions (WordEntryPos: position, weight in the top bits). */
export function parseTsvector(text: string): [string, number[]][] {
  const out: [string, number[]][] = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    while (i < n && text[i] === ' ') i++;
    if (i >= n) break;
    if (text[i] !== "'") throw new Error(`unexpected tsvector text at ${i}`);
    i++;
    let lexeme = '';
    for (;;) {
      if (i >= n) throw new Error('unterminated tsvector lexeme');
      const c = text[i++];
      if (c === "'") {
        if (text[i] === "'") {
          lexeme += "'";
          i++;
          continue;
        }
        break;
      }
      if (c === '\\' && i < n) lexeme += text[i++];
      else lexeme += c;
    }
    const positions: number[] = [];
    if (text[i] === ':') {
      i++;
      for (;;) {
        let pos = 0;
        while (i < n && text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57) pos = pos * 10 + (text.charCodeAt(i++) - 48);
        let weight = 0;
        if (i < n && WEIGHT_BITS[text[i]] !== undefined) weight = WEIGHT_BITS[text[i++]];
        positions.push((weight << 14) | pos);
        if (text[i] === ',') i++;
        else break;
      }
    }
    out.push([lexeme, positions]);
  }
  return out;
}
