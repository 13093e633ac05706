// The Markdown scan of src/content/limits.ts: one pass over the lines, no parsing, no recursion.
import { LIMITS, fmt, type LimitViolation } from './values.js';

/** A block quote, or a list item whose content starts `indent` columns after its parent's content. */
type Container = { quote: true } | { quote: false; indent: number };

const SPACE = 0x20;
const TAB = 0x09;

function isWs(c: number): boolean {
  return c === SPACE || c === TAB;
}

/** A thematic break (`***`, `- - -`, `___`) from index i: three or more of one marker, spaces only. */
function isThematicBreak(line: string, i: number): boolean {
  const m = line.charCodeAt(i);
  if (m !== 0x2a && m !== 0x2d && m !== 0x5f) return false;
  let n = 0;
  for (let j = i; j < line.length; j++) {
    const c = line.charCodeAt(j);
    if (c === m) n++;
    else if (!isWs(c)) return false;
  }
  return n >= 3;
}

/** Cells of a table row: split on unescaped pipes, without the optional outer pipes. */
function cellCount(line: string, from: number): number {
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

const DELIMITER_ROW = /^\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/;

/**
 * The first limit a Markdown body breaks, or null. `maxChars` is the size limit of the kind of
 * body (LIMITS.pageChars or LIMITS.commentChars). Linear in the length, no recursion.
 */
export function scanMarkdown(
  md: string,
  maxChars: number = LIMITS.pageChars,
  maxDepth: number = LIMITS.depth,
  stats?: { closeWork: number; lazyWork: number; markerWork: number; nodes?: number },
): LimitViolation | null {
  if (md.length > maxChars) return { limit: 'size', message: `longer than ${fmt(maxChars)} characters (${fmt(md.length)})` };
  const stack: Container[] = [];
  let nodes = 0;
  let closeWork = 0;
  let lazyWork = 0;
  let markerWork = 0; // sum over paragraphs of markers², the cost of resolving emphasis and links
  let events = 0; // the parser's document-level events so far (about)
  let flowLines = 0; // lines since the containers last changed (the parser's current flow)
  let lineNo = 0;
  let prevBlank = true;
  let prevText = false; // the previous line was paragraph text (a later line may be lazy)
  let fence: { char: number; len: number; depth: number } | null = null;
  // Raw HTML block: its lines are neither containers nor fences nor inline content.
  let html: { end: RegExp | null; depth: number } | null = null;
  let inHint = false;
  // The current paragraph (or table row, or heading): markers and link depth.
  let markers = 0;
  let brackets = 0;
  let paraLines = 0;
  let paraStartCells = 0;
  let table = false;

  const tooManyNodes = (): LimitViolation => ({ limit: 'nodes', message: `more than ${fmt(LIMITS.nodes)} nodes` });
  const tooMuchWork = () => closeWork + lazyWork + markerWork / 50 > LIMITS.parseWork;
  const tooComplex = (line: number): LimitViolation => ({
    limit: 'work',
    message: `too complex to parse: too many nested lists and quotes ending, lazy continuation lines or emphasis and link markers for a page this long (line ${fmt(line)})`,
  });

  for (let start = 0; start <= md.length;) {
    let end = md.indexOf('\n', start);
    if (end < 0) end = md.length;
    const line = md.charCodeAt(end - 1) === 0x0d ? md.slice(start, end - 1) : md.slice(start, end);
    start = end + 1;
    lineNo++;
    const len = line.length;

    // GitBook hint blocks (cut out before parsing, see markdown/parse.ts) add one level.
    if (line.startsWith('{%')) {
      if (/^\{%\s*hint\s/.test(line)) inHint = true;
      else if (/^\{%\s*endhint\s*%\}/.test(line)) inHint = false;
    }

    let i = 0;
    let col = 0;
    const skipWs = () => {
      while (i < len) {
        const c = line.charCodeAt(i);
        if (c === SPACE) col++;
        else if (c === TAB) col += 4 - (col % 4);
        else break;
        i++;
      }
    };

    // 1. Continue the open containers.
    let base = 0; // content column of the innermost matched container
    let matched = 0;
    for (; matched < stack.length; matched++) {
      const e = stack[matched];
      const si = i;
      const sc = col;
      skipWs();
      if (e.quote) {
        if (col - base <= 3 && line.charCodeAt(i) === 0x3e) {
          i++;
          col++;
          if (isWs(line.charCodeAt(i))) {
            col += line.charCodeAt(i) === TAB ? 4 - (col % 4) : 1;
            i++;
          }
          base = col;
          continue;
        }
      } else if (i === len || col - base >= e.indent) {
        base += e.indent;
        continue;
      }
      i = si;
      col = sc;
      break;
    }
    skipWs();
    const blank = i === len;

    // 2. Inside fenced code: content until the closing fence, or until a container around it ends.
    if (fence) {
      if (matched >= fence.depth) {
        if (!blank && col - base < 4 && line.charCodeAt(i) === fence.char) {
          let n = 0;
          while (line.charCodeAt(i + n) === fence.char) n++;
          if (n >= fence.len && line.slice(i + n).trim() === '') fence = null;
        }
        prevBlank = blank;
        prevText = false;
        continue;
      }
      fence = null;
    }
    // Raw HTML hides fences and inline content; its lines still go through the container steps
    // (the parser sees no containers there: fewer, never more). It ends at its end condition or with
    // its container.
    let inHtml = false;
    if (html) {
      if (matched < html.depth || (html.end === null && blank)) html = null;
      else {
        inHtml = true;
        if (html.end && html.end.test(line)) html = null;
      }
    }

    // 3. Unmatched containers close, unless this is a lazy continuation of a paragraph.
    const containersBefore = stack.length;
    let closed = 0;
    let firstClosedIsItem = false;
    if (matched < stack.length) {
      const lazy = !blank && prevText && !startsContainer(line, i, col, base) && !interrupts(line, i);
      if (!lazy) {
        closed = stack.length - matched;
        firstClosedIsItem = !stack[matched].quote;
        stack.length = matched;
      } else lazyWork += flowLines;
    }

    // 4. Open new containers.
    let opened = 0;
    if (matched === stack.length) {
      for (;;) {
        skipWs();
        if (i >= len || col - base >= 4) break;
        const c = line.charCodeAt(i);
        if (c === 0x3e) {
          i++;
          col++;
          if (isWs(line.charCodeAt(i))) {
            col += line.charCodeAt(i) === TAB ? 4 - (col % 4) : 1;
            i++;
          }
          stack.push({ quote: true });
          base = col;
          opened++;
        } else {
          const width = listMarker(line, i);
          if (!width || isThematicBreak(line, i)) break;
          i += width;
          col += width;
          const mi = i;
          const mc = col;
          skipWs();
          // Content starts after 1-4 spaces; with more (or none before the end) one space belongs to the marker.
          if (i === len || col - mc > 4) {
            i = mi;
            col = mc;
            stack.push({ quote: false, indent: mc + 1 - base });
            base = mc + 1;
          } else {
            stack.push({ quote: false, indent: col - base });
            base = col;
          }
          opened++;
          nodes++; // the list around the item
        }
        nodes++;
      }
    }
    events += 2 + 2 * stack.length;
    flowLines = opened > 0 || closed > 0 ? 0 : flowLines + 1;
    if (closed > 0) {
      // The parser moves its whole event list for each line that ends containers, except when a
      // list item just makes way for the next one (or a new container starts): quadratic work.
      const sibling = opened > 0 && firstClosedIsItem && !stack[matched].quote;
      if (opened === 0 || (sibling && closed >= 2)) closeWork += events;
    }
    if (stats) {
      stats.closeWork = closeWork;
      stats.lazyWork = lazyWork;
      stats.markerWork = markerWork;
      stats.nodes = nodes;
    }
    if (tooMuchWork()) return tooComplex(lineNo);
    const depth = stack.length + (inHint ? 1 : 0);
    if (depth > maxDepth) return { limit: 'depth', message: `nesting deeper than ${maxDepth} levels (line ${fmt(lineNo)})` };

    // 5. The rest of the line: blank, fence, code, thematic break, heading, table row or paragraph text.
    skipWs();
    const rest = i;
    if (blank || opened > 0 || stack.length !== containersBefore || prevBlank) {
      markers = brackets = paraLines = 0;
      table = false;
    }
    if (blank) {
      prevBlank = true;
      prevText = false;
      continue;
    }
    prevBlank = false;
    if (inHtml || rest === len) {
      // HTML content, or container markers alone (`-`, `>`) where no paragraph goes on.
      if (opened === 0) nodes++;
      markers = brackets = paraLines = 0;
      prevText = false;
      continue;
    }
    const indent = col - base;
    const c: number = line.charCodeAt(rest);
    if (indent < 4 && (c === 0x60 || c === 0x7e)) {
      let n = 0;
      while (line.charCodeAt(rest + n) === c) n++;
      if (n >= 3 && (c === 0x7e || line.indexOf('`', rest + n) < 0)) {
        fence = { char: c, len: n, depth: stack.length };
        nodes++;
        markers = brackets = paraLines = 0;
        prevText = false;
        continue;
      }
    }
    if (indent >= 4 && !prevText) continue; // indented code
    const block: { end: RegExp | null } | undefined = indent < 4 && c === 0x3c ? htmlBlock(line, rest, prevText) : undefined;
    if (block) {
      if (!(block.end && block.end.test(line.slice(rest + 2)))) html = { end: block.end, depth: stack.length };
      nodes++;
      markers = brackets = paraLines = 0;
      prevText = false;
      continue;
    }
    if (indent < 4 && isThematicBreak(line, rest)) {
      nodes++;
      markers = brackets = paraLines = 0;
      prevText = false;
      continue;
    }
    const heading = indent < 4 && isAtxHeading(line, rest);
    if (heading) {
      markers = brackets = 0;
      nodes++;
    } else if (table) {
      markers = brackets = 0; // each row of a table is inline content of its own
      nodes += cellCount(line, rest) + 1;
    } else if (
      paraLines === 1 &&
      line.indexOf('|', rest) >= 0 &&
      DELIMITER_ROW.test(line.slice(rest)) &&
      cellCount(line, rest) === paraStartCells
    ) {
      table = true; // the previous line was the header row of a table
      markers = brackets = 0;
      nodes += paraStartCells;
      prevText = true;
      continue;
    } else {
      if (paraLines === 0) {
        nodes++;
        paraStartCells = line.indexOf('|', rest) >= 0 ? cellCount(line, rest) : 0;
      }
      paraLines++;
    }
    prevText = !heading;
    if (nodes > LIMITS.nodes) return tooManyNodes();

    // Inline markers: emphasis runs and link brackets.
    for (let j = rest; j < len; j++) {
      const ch = line.charCodeAt(j);
      if (ch === 0x5c) {
        j++; // an escaped character is text
      } else if (ch === 0x2a || ch === 0x5f || ch === 0x7e) {
        let n = 1;
        while (line.charCodeAt(j + n) === ch) n++;
        // A run can nest only if it may open or close (text on at least one side of it).
        const flanking = (j + n < len && !isWs(line.charCodeAt(j + n))) || (j > 0 && !isWs(line.charCodeAt(j - 1)));
        if (ch !== 0x7e && flanking && n > 2 * maxDepth) {
          return {
            limit: 'depth',
            message: `emphasis nested deeper than ${maxDepth} levels (a run of ${fmt(n)} '${String.fromCharCode(ch)}' on line ${fmt(lineNo)})`,
          };
        }
        j += n - 1;
        markerWork += 2 * markers++ + 1;
        nodes++;
      } else if (ch === 0x5b) {
        markerWork += 2 * markers++ + 1;
        nodes++;
        if (++brackets > maxDepth) return { limit: 'depth', message: `links nested deeper than ${maxDepth} levels (line ${fmt(lineNo)})` };
      } else if (ch === 0x5d) {
        markerWork += 2 * markers++ + 1;
        if (brackets > 0) brackets--;
      } else continue;
      if (markers > LIMITS.inlineMarkers) {
        return {
          limit: 'inline',
          message: `more than ${fmt(LIMITS.inlineMarkers)} emphasis and link markers in one paragraph (line ${fmt(lineNo)})`,
        };
      }
    }
    if (nodes > LIMITS.nodes) return tooManyNodes();
    if (heading) markers = brackets = paraLines = 0;
  }
  return tooMuchWork() ? tooComplex(lineNo) : null;
}

/** Width of a list marker at i (`-`, `+`, `*`, or 1-9 digits and `.`/`)`) followed by a space, a tab or the end; 0 if none. */
function listMarker(line: string, i: number): number {
  const c = line.charCodeAt(i);
  let w = 0;
  if (c === 0x2d || c === 0x2b || c === 0x2a) w = 1;
  else {
    while (w < 9 && line.charCodeAt(i + w) >= 0x30 && line.charCodeAt(i + w) <= 0x39) w++;
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
function startsContainer(line: string, i: number, col: number, base: number): boolean {
  if (col - base >= 4 || i >= line.length) return false;
  if (line.charCodeAt(i) === 0x3e) return true;
  const w = listMarker(line, i);
  if (!w || isThematicBreak(line, i)) return false;
  return true;
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
function htmlBlock(line: string, i: number, inParagraph: boolean): { end: RegExp | null } | undefined {
  if (line.charCodeAt(i) !== 0x3c) return undefined;
  const rest = line.slice(i);
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
function isAtxHeading(line: string, i: number): boolean {
  let n = 0;
  while (n < 7 && line.charCodeAt(i + n) === 0x23) n++;
  return n >= 1 && n <= 6 && (i + n === line.length || isWs(line.charCodeAt(i + n)));
}

/**
 * Lines that surely end a paragraph rather than continue it lazily: ATX headings, code fences,
 * thematic breaks. Anything else is taken as lazy, which keeps containers open: when unsure the scan
 * sees more nesting than the parser, never less.
 */
function interrupts(line: string, i: number): boolean {
  const c = line.charCodeAt(i);
  if (c === 0x60 || c === 0x7e) {
    let n = 0;
    while (line.charCodeAt(i + n) === c) n++;
    return n >= 3 && (c === 0x7e || line.indexOf('`', i + n) < 0);
  }
  return isAtxHeading(line, i) || isThematicBreak(line, i) || htmlBlock(line, i, true) !== undefined;
}
