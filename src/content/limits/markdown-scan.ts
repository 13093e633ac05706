// The Markdown scan of src/content/limits.ts: one pass over the lines, no parsing, no recursion.
// Its work is linear in the body whatever the markers: every line costs steps in proportion to its
// length, and what a line may be asked once per marker is answered once per line (markdown-lines.ts).
// `stats.steps` counts that work (test/unit/content/limits-linear.test.ts shows it linear).
import { LIMITS, fmt, type LimitViolation } from './values.js';
import {
  Breaks,
  cellCount,
  fenceAt,
  htmlBlock,
  interrupts,
  isAtxHeading,
  isDelimiterRow,
  isWs,
  listMarker,
  startsContainer,
  type Counter,
} from './markdown-lines.js';

/** A block quote, or a list item whose content starts `indent` columns after its parent's content. */
type Container = { quote: true } | { quote: false; indent: number };

const SPACE = 0x20;
const TAB = 0x09;

// Limits and helpers bound once (under tsx each access to an imported binding is a getter call; the
// scan makes them per character).
const MAX_NODES = LIMITS.nodes;
const MAX_MARKERS = LIMITS.inlineMarkers;
const MAX_WORK = LIMITS.parseWork;
const lines = { cellCount, fenceAt, htmlBlock, interrupts, isAtxHeading, isDelimiterRow, isWs, listMarker, startsContainer };

const tooManyNodes = (): LimitViolation => ({ limit: 'nodes', message: `more than ${fmt(MAX_NODES)} nodes` });
const tooComplex = (line: number): LimitViolation => ({
  limit: 'work',
  message: `too complex to parse: too many nested lists and quotes ending, lazy continuation lines or emphasis and link markers for a page this long (line ${fmt(line)})`,
});

/** What a scan measured: its estimate of the parser's quadratic work, and its own steps. */
export interface ScanStats {
  closeWork: number;
  lazyWork: number;
  markerWork: number;
  nodes?: number;
  /** Steps the scan took (characters and positions examined): its own work, deterministic. */
  steps?: number;
}

/**
 * The first limit a Markdown body breaks, or null. `maxChars` is the size limit of the kind of
 * body (LIMITS.pageChars or LIMITS.commentChars). Linear in the length, no recursion.
 */
export function scanMarkdown(
  md: string,
  maxChars: number = LIMITS.pageChars,
  maxDepth: number = LIMITS.depth,
  stats?: ScanStats,
): LimitViolation | null {
  const count: Counter = { steps: 1 };
  const result = scan(md, maxChars, maxDepth, count, stats);
  if (stats) stats.steps = count.steps;
  return result;
}

function scan(md: string, maxChars: number, maxDepth: number, count: Counter, stats: ScanStats | undefined): LimitViolation | null {
  if (md.length > maxChars) return { limit: 'size', message: `longer than ${fmt(maxChars)} characters (${fmt(md.length)})` };
  const breaks = new Breaks(count);
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

  // The current line and the position in it (scan-wide, so that no closure is made per line).
  let line = '';
  let len = 0;
  let i = 0;
  let col = 0;
  const skipWs = () => {
    while (i < len) {
      count.steps++;
      const c = line.charCodeAt(i);
      if (c === SPACE) col++;
      else if (c === TAB) col += 4 - (col % 4);
      else break;
      i++;
    }
  };

  for (let start = 0; start <= md.length;) {
    let end = md.indexOf('\n', start);
    if (end < 0) end = md.length;
    line = md.charCodeAt(end - 1) === 0x0d ? md.slice(start, end - 1) : md.slice(start, end);
    start = end + 1;
    lineNo++;
    len = line.length;
    count.steps += 2 * len + 1; // finding the line's end, and its copy

    // GitBook hint blocks (cut out before parsing, see markdown/parse.ts) add one level.
    if (line.startsWith('{%')) {
      count.steps += len;
      if (/^\{%\s*hint\s/.test(line)) inHint = true;
      else if (/^\{%\s*endhint\s*%\}/.test(line)) inHint = false;
    }

    i = 0;
    col = 0;

    // 1. Continue the open containers.
    let base = 0; // content column of the innermost matched container
    let matched = 0;
    for (; matched < stack.length; matched++) {
      count.steps++;
      const e = stack[matched];
      const si = i;
      const sc = col;
      skipWs();
      if (e.quote) {
        if (col - base <= 3 && line.charCodeAt(i) === 0x3e) {
          i++;
          col++;
          if (lines.isWs(line.charCodeAt(i))) {
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
          count.steps += len;
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
        count.steps += len;
        if (html.end && html.end.test(line)) html = null;
      }
    }

    // 3. Unmatched containers close, unless this is a lazy continuation of a paragraph.
    const containersBefore = stack.length;
    let closed = 0;
    let firstClosedIsItem = false;
    if (matched < stack.length) {
      const lazy =
        !blank &&
        prevText &&
        !lines.startsContainer(line, lineNo, i, col, base, breaks, count) &&
        !lines.interrupts(line, lineNo, i, breaks, count);
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
        // Past the depth limit nothing more needs counting (the check below refuses the line).
        if (i >= len || col - base >= 4 || stack.length + (inHint ? 1 : 0) > maxDepth) break;
        count.steps++;
        const c = line.charCodeAt(i);
        if (c === 0x3e) {
          i++;
          col++;
          if (lines.isWs(line.charCodeAt(i))) {
            col += line.charCodeAt(i) === TAB ? 4 - (col % 4) : 1;
            i++;
          }
          stack.push({ quote: true });
          base = col;
          opened++;
        } else {
          const width = lines.listMarker(line, i, count);
          if (!width || breaks.at(line, lineNo, i)) break;
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
    if (closeWork + lazyWork + markerWork / 50 > MAX_WORK) return tooComplex(lineNo);
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
      const n = lines.fenceAt(line, rest, count);
      if (n) {
        fence = { char: c, len: n, depth: stack.length };
        nodes++;
        markers = brackets = paraLines = 0;
        prevText = false;
        continue;
      }
    }
    if (indent >= 4 && !prevText) continue; // indented code
    const block: { end: RegExp | null } | undefined = indent < 4 && c === 0x3c ? lines.htmlBlock(line, rest, prevText, count) : undefined;
    if (block) {
      count.steps += len;
      if (!(block.end && block.end.test(line.slice(rest + 2)))) html = { end: block.end, depth: stack.length };
      nodes++;
      markers = brackets = paraLines = 0;
      prevText = false;
      continue;
    }
    if (indent < 4 && breaks.at(line, lineNo, rest)) {
      nodes++;
      markers = brackets = paraLines = 0;
      prevText = false;
      continue;
    }
    const heading = indent < 4 && lines.isAtxHeading(line, rest, count);
    count.steps += 2 * len; // looking for a table's pipes
    if (heading) {
      markers = brackets = 0;
      nodes++;
    } else if (table) {
      markers = brackets = 0; // each row of a table is inline content of its own
      nodes += lines.cellCount(line, rest, count) + 1;
    } else if (
      paraLines === 1 &&
      line.indexOf('|', rest) >= 0 &&
      lines.isDelimiterRow(line, rest, count) &&
      lines.cellCount(line, rest, count) === paraStartCells
    ) {
      table = true; // the previous line was the header row of a table
      markers = brackets = 0;
      nodes += paraStartCells;
      prevText = true;
      continue;
    } else {
      if (paraLines === 0) {
        nodes++;
        paraStartCells = line.indexOf('|', rest) >= 0 ? lines.cellCount(line, rest, count) : 0;
      }
      paraLines++;
    }
    prevText = !heading;
    if (nodes > MAX_NODES) return tooManyNodes();

    // Inline markers: emphasis runs and link brackets.
    for (let j = rest; j < len; j++) {
      count.steps++;
      const ch = line.charCodeAt(j);
      if (ch === 0x5c) {
        j++; // an escaped character is text
      } else if (ch === 0x2a || ch === 0x5f || ch === 0x7e) {
        let n = 1;
        while (line.charCodeAt(j + n) === ch) n++;
        count.steps += n;
        // A run can nest only if it may open or close (text on at least one side of it).
        const flanking = (j + n < len && !lines.isWs(line.charCodeAt(j + n))) || (j > 0 && !lines.isWs(line.charCodeAt(j - 1)));
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
      if (markers > MAX_MARKERS) {
        return {
          limit: 'inline',
          message: `more than ${fmt(LIMITS.inlineMarkers)} emphasis and link markers in one paragraph (line ${fmt(lineNo)})`,
        };
      }
    }
    if (nodes > MAX_NODES) return tooManyNodes();
    if (heading) markers = brackets = paraLines = 0;
  }
  return closeWork + lazyWork + markerWork / 50 > MAX_WORK ? tooComplex(lineNo) : null;
}
