// What the Markdown scan (markdown-scan.ts) asks of one line: list markers, thematic breaks, HTML
// blocks, headings, table cells. Each answer costs a bounded number of steps or one pass over the
// rest of the line, and the answers a line may need once per marker (is the rest a thematic
// break?) are computed once per line (Breaks): so a line of 50,000 markers costs 50,000 steps, not
// 50,000 passes over the line. Steps are counted in a Counter, the scan's deterministic measure of
// its own work.

/** Steps taken: characters and positions examined (a pattern over a string counts its length). */
export interface Counter {
  steps: number;
}

const SPACE = 0x20;
const TAB = 0x09;

export function isWs(c: number): boolean {
  return c === SPACE || c === TAB;
}

/**
 * Whether the rest of a line from i is a thematic break (`***`, `- - -`, `___`: three or more of one
 * marker, spaces only). The line's answer for every i is found in one pass from its end, the first
 * time it is asked; later questions on the same line cost one step.
 */
export class Breaks {
  private line = -1;
  /** The marker of the break the line ends with (0: none). */
  private marker = 0;
  /** The first index from which the line holds only that marker and spaces. */
  private start = 0;
  /** The last index from which three markers are left. */
  private third = -1;

  constructor(private readonly count: Counter) {}

  at(text: string, lineNo: number, i: number): boolean {
    this.count.steps++;
    const m = text.charCodeAt(i);
    if (m !== 0x2a && m !== 0x2d && m !== 0x5f) return false;
    if (this.line !== lineNo) this.measure(text, lineNo);
    return m === this.marker && i >= this.start && i <= this.third;
  }

  private measure(text: string, lineNo: number) {
    this.line = lineNo;
    this.marker = 0;
    this.start = 0;
    this.third = -1;
    let seen = 0;
    let j = text.length - 1;
    for (; j >= 0; j--) {
      this.count.steps++;
      const c = text.charCodeAt(j);
      if (isWs(c)) continue;
      if (this.marker === 0) {
        if (c !== 0x2a && c !== 0x2d && c !== 0x5f) return;
        this.marker = c;
      }
      if (c !== this.marker) break;
      if (++seen === 3) this.third = j;
    }
    this.start = j + 1;
  }
}

/** Width of a list marker at i (`-`, `+`, `*`, or 1-9 digits and `.`/`)`) followed by a space, a tab or the end; 0 if none. */
export function listMarker(line: string, i: number, count: Counter): number {
  count.steps++;
  const c = line.charCodeAt(i);
  let w = 0;
  if (c === 0x2d || c === 0x2b || c === 0x2a) w = 1;
  else {
    while (w < 9 && line.charCodeAt(i + w) >= 0x30 && line.charCodeAt(i + w) <= 0x39) w++;
    count.steps += w;
    if (w === 0) return 0;
    const d = line.charCodeAt(i + w);
    if (d !== 0x2e && d !== 0x29) return 0;
    w++;
  }
  const after = i + w;
  return after === line.length || isWs(line.charCodeAt(after)) ? w : 0;
}

/**
 * Whether a line that continues no open container surely starts one instead of being a lazy
 * paragraph line: a quote, or a list item with content (`1.`/`1)` for ordered ones), as CommonMark
 * lets them interrupt a paragraph.
 */
export function startsContainer(
  line: string,
  lineNo: number,
  i: number,
  col: number,
  base: number,
  breaks: Breaks,
  count: Counter,
): boolean {
  if (col - base >= 4 || i >= line.length) return false;
  if (line.charCodeAt(i) === 0x3e) return true;
  const w = listMarker(line, i, count);
  return w > 0 && !breaks.at(line, lineNo, i);
}

/** Cells of a table row: split on unescaped pipes, without the optional outer pipes. */
export function cellCount(line: string, from: number, count: Counter): number {
  count.steps += line.length - from;
  let end = line.length;
  while (end > from && isWs(line.charCodeAt(end - 1))) end--;
  let start = from;
  if (line.charCodeAt(start) === 0x7c) start++;
  if (end > start && line.charCodeAt(end - 1) === 0x7c && line.charCodeAt(end - 2) !== 0x5c) end--;
  let cells = 1;
  for (let j = start; j < end; j++) {
    const c = line.charCodeAt(j);
    if (c === 0x5c) j++;
    else if (c === 0x7c) cells++;
  }
  return cells;
}

/**
 * Whether the line from `from` is a table's delimiter row (`| --- | :-: |`): cells of dashes with
 * optional colons, between optional pipes and spaces. One pass (the regular expression it replaces
 * went back over runs of spaces).
 */
export function isDelimiterRow(line: string, from: number, count: Counter): boolean {
  count.steps += line.length - from;
  let j = from;
  const n = line.length;
  const spaces = () => {
    while (j < n && isWs(line.charCodeAt(j))) j++;
  };
  if (line.charCodeAt(j) === 0x7c) j++;
  let cells = 0;
  for (;;) {
    spaces();
    if (j === n) return cells > 0;
    if (line.charCodeAt(j) === 0x3a) j++;
    const dashes = j;
    while (j < n && line.charCodeAt(j) === 0x2d) j++;
    if (j === dashes) return false;
    if (line.charCodeAt(j) === 0x3a) j++;
    cells++;
    spaces();
    if (j === n) return true;
    if (line.charCodeAt(j) !== 0x7c) return false;
    j++;
  }
}

const HTML_BLOCK_NAMES = new Set(
  (
    'address article aside base basefont blockquote body caption center col colgroup dd details dialog dir div dl dt fieldset ' +
    'figcaption figure footer form frame frameset h1 h2 h3 h4 h5 h6 head header hr html iframe legend li link main menu ' +
    'menuitem nav noframes ol optgroup option p param search section summary table tbody td tfoot th thead title tr track ul'
  ).split(' '),
);
const HTML_RAW = /^<(?:script|pre|style|textarea)(?:[ \t>]|$)/i;
const HTML_NAMED = /^<\/?([A-Za-z][A-Za-z0-9]*)(?:[ \t>]|\/>|$)/;
const ATTRIBUTE = `(?:[ \\t]+[A-Za-z_:][A-Za-z0-9_.:-]*(?:[ \\t]*=[ \\t]*(?:[^ \\t"'=<>\`]+|'[^']*'|"[^"]*"))?)`;
const HTML_COMPLETE_TAG = new RegExp(`^(?:<[A-Za-z][A-Za-z0-9-]*${ATTRIBUTE}*[ \\t]*\\/?>|<\\/[A-Za-z][A-Za-z0-9-]*[ \\t]*>)[ \\t]*$`);

/**
 * The HTML block a line starts at i, as CommonMark's seven kinds: its end (a RegExp for the kinds
 * that end at a marker: `</pre>`, `-->`, `?>`, `>`, `]]>`; null for those ending at a blank line),
 * whether it may interrupt a paragraph (all but the 7th); undefined when the line starts none.
 */
export function htmlBlock(line: string, i: number, inParagraph: boolean, count: Counter): { end: RegExp | null } | undefined {
  count.steps++;
  if (line.charCodeAt(i) !== 0x3c) return undefined;
  const rest = line.slice(i);
  count.steps += 3 * rest.length;
  if (HTML_RAW.test(rest)) return { end: /<\/(?:script|pre|style|textarea)>/i };
  if (rest.startsWith('<!--')) return { end: /-->/ };
  if (rest.startsWith('<?')) return { end: /\?>/ };
  if (rest.startsWith('<![CDATA[')) return { end: /\]\]>/ };
  if (/^<![A-Za-z]/.test(rest)) return { end: />/ };
  const named = HTML_NAMED.exec(rest);
  if (named && HTML_BLOCK_NAMES.has(named[1].toLowerCase())) return { end: null };
  if (!inParagraph && HTML_COMPLETE_TAG.test(rest)) return { end: null };
  return undefined;
}

/** `#` to `######` followed by a space, a tab or the end of the line. */
export function isAtxHeading(line: string, i: number, count: Counter): boolean {
  let n = 0;
  while (n < 7 && line.charCodeAt(i + n) === 0x23) n++;
  count.steps += n + 1;
  return n >= 1 && n <= 6 && (i + n === line.length || isWs(line.charCodeAt(i + n)));
}

/** A code fence at i (three or more backticks, with none after them, or tildes): its length, else 0. */
export function fenceAt(line: string, i: number, count: Counter): number {
  const c = line.charCodeAt(i);
  if (c !== 0x60 && c !== 0x7e) return 0;
  let n = 0;
  while (line.charCodeAt(i + n) === c) n++;
  count.steps += n;
  if (n < 3) return 0;
  if (c === 0x60) {
    count.steps += line.length - i - n;
    if (line.indexOf('`', i + n) >= 0) return 0;
  }
  return n;
}

/**
 * Lines that surely end a paragraph rather than continue it lazily: ATX headings, code fences,
 * thematic breaks. Anything else is taken as lazy, which keeps containers open: when unsure the scan
 * sees more nesting than the parser, never less.
 */
export function interrupts(line: string, lineNo: number, i: number, breaks: Breaks, count: Counter): boolean {
  if (fenceAt(line, i, count)) return true;
  return isAtxHeading(line, i, count) || breaks.at(line, lineNo, i) || htmlBlock(line, i, true, count) !== undefined;
}
