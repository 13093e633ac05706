// SUMMARY.md read in time linear in its size, whatever its length: cut into parts at the lines that
// surely start a top-level block (a top-level list item, a heading), each part read on its own
// (line by line when it has the common shape, see summary-lines.ts; by the Markdown parser
// otherwise), and the parts' trees put end to end. The Markdown parser's cost grows faster than its
// input for long nested lists (src/content/limits/markdown-scan.ts), so a 10,000-entry SUMMARY.md
// read whole was refused as too complex; in parts of at most STRUCTURE_LIMITS.summaryPartChars,
// each costs a bounded amount.
//
// A cut is made only where the parser would see the same tree on both sides: before a line that
// starts a list item with content (a bullet, or `1.`/`1)`, which may interrupt a paragraph) or an
// ATX heading, outside any top-level fenced code, math block or HTML block, and where no list item
// left open could hold it. When the reader is unsure (a line that may be a lazy continuation, then
// a fence or HTML indented by 1-3 spaces), it stops cutting: a larger part is slower, never wrong.
// A file with link reference definitions is not cut (a reference may be far from its use).
import type { Root, RootContent } from 'mdast';
import { parseMarkdown } from '../../content/markdown.js';
import { scanMarkdown } from '../../content/limits.js';
import { STRUCTURE_LIMITS } from './limits.js';
import { simpleSummaryTree } from './summary-lines.js';

/** A run of lines of the file: `from` is the index of its first line (0-based), `text` its lines. */
export interface SummaryPart {
  from: number;
  to: number;
  text: string;
  /** The cuts in it: its first line, each top-level entry's, then `to`. */
  pieces: number[];
}

const fmt = (n: number) => n.toLocaleString('en-US');

/** Column of the first non-blank character (tabs to multiples of 4) and its index; index = length when blank. */
function indentOf(line: string): { col: number; i: number } {
  let col = 0;
  let i = 0;
  for (; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c === 0x20) col++;
    else if (c === 0x09) col += 4 - (col % 4);
    else break;
  }
  return { col, i };
}

const isBlank = (line: string, i: number) => {
  for (let j = i; j < line.length; j++) {
    const c = line.charCodeAt(j);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d) return false;
  }
  return true;
};

/** A thematic break from i (`***`, `- - -`): three or more of one marker, spaces only. */
function isBreak(line: string, i: number): boolean {
  const m = line.charCodeAt(i);
  if (m !== 0x2a && m !== 0x2d && m !== 0x5f) return false;
  let n = 0;
  for (let j = i; j < line.length; j++) {
    const c = line.charCodeAt(j);
    if (c === m) n++;
    else if (c !== 0x20 && c !== 0x09 && c !== 0x0d) return false;
  }
  return n >= 3;
}

/**
 * A list item with content that may interrupt a paragraph (a bullet, or 1. / 1)) at i: the column
 * of its content relative to the marker's column, or 0.
 */
function itemContent(line: string, i: number): number {
  const c = line.charCodeAt(i);
  let w: number;
  if (c === 0x2a || c === 0x2b || c === 0x2d) w = 1;
  else if (c === 0x31 && (line.charCodeAt(i + 1) === 0x2e || line.charCodeAt(i + 1) === 0x29)) w = 2;
  else return 0;
  let spaces = 0;
  let j = i + w;
  for (; j < line.length; j++) {
    const d = line.charCodeAt(j);
    if (d === 0x20) spaces++;
    else if (d === 0x09) spaces += 4 - ((w + spaces) % 4);
    else break;
  }
  if (spaces === 0 || isBlank(line, j)) return 0; // no space after the marker, or an empty item
  if (w === 1 && isBreak(line, i)) return 0;
  return w + (spaces > 4 ? 1 : spaces);
}

function isHeading(line: string, i: number): boolean {
  let n = 0;
  while (n < 7 && line.charCodeAt(i + n) === 0x23) n++;
  if (n < 1 || n > 6) return false;
  const c = line.charCodeAt(i + n);
  return i + n === line.length || c === 0x20 || c === 0x09 || c === 0x0d;
}

/** A fence opener at i (``` or ~~~, or $$ of a math block): its character and length. */
function fenceAt(line: string, i: number): { char: number; len: number } | null {
  const c = line.charCodeAt(i);
  if (c !== 0x60 && c !== 0x7e && c !== 0x24) return null;
  let n = 0;
  while (line.charCodeAt(i + n) === c) n++;
  if (n < (c === 0x24 ? 2 : 3)) return null;
  if (c !== 0x7e && line.indexOf(String.fromCharCode(c), i + n) >= 0) return null; // inline code or math, not a fence
  return { char: c, len: n };
}

/** The end of the HTML block a line starts at i: a pattern (kinds 1-5), 'blank' (6-7; any other `<` is taken so too). */
function htmlEnd(line: string, i: number): RegExp | 'blank' {
  const head = line.slice(i, i + 12);
  if (/^<(?:script|pre|style|textarea)(?:[ \t>\r]|$)/i.test(head)) return /<\/(?:script|pre|style|textarea)>/i;
  if (head.startsWith('<!--')) return /-->/;
  if (head.startsWith('<?')) return /\?>/;
  if (head.startsWith('<![CDATA[')) return /\]\]>/;
  if (/^<![A-Za-z]/.test(head)) return />/;
  return 'blank';
}

const DEFINITION = /^[ \t]{0,3}\[[^\]\n]*\]:/m;

/** Where SUMMARY.md may be cut: the first line of each part (0 first). Linear in the file. */
export function cutPoints(lines: string[]): number[] {
  const cuts = [0];
  let fence: { char: number; len: number } | null = null;
  let html: RegExp | 'blank' | null = null;
  let itemCol = -1; // content column of the open top-level list item; -1 when none
  let unsure = false; // a line may have been a lazy continuation: a list item may still be open
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n];
    const { col, i } = indentOf(line);
    const blank = isBlank(line, i);
    if (fence) {
      const f = !blank && col <= 3 ? fenceAt(line, i) : null;
      if (f && f.char === fence.char && f.len >= fence.len && isBlank(line, i + f.len)) fence = null;
      continue;
    }
    if (html) {
      if (html === 'blank' ? blank : html.test(line)) html = null;
      continue;
    }
    if (blank) continue;
    if (!unsure && itemCol >= 0 && col >= itemCol) continue; // inside the open item
    // A line at the top level, or one that may be (unsure).
    const topOnly = unsure ? col === 0 : col <= 3;
    const content = col <= 3 ? itemContent(line, i) : 0;
    if (topOnly && (content || isHeading(line, i))) {
      if (n > 0) cuts.push(n);
      itemCol = content ? col + content : -1;
      unsure = false;
      continue;
    }
    const f = col <= 3 ? fenceAt(line, i) : null;
    const tag = col <= 3 && line.charCodeAt(i) === 0x3c;
    if (f || tag) {
      // A line that may belong to the open item: whether it starts a block there is unknown.
      if (!topOnly) break; // the reader lost track: no more cuts
      if (f) fence = f;
      else {
        const end = htmlEnd(line, i);
        html = end === 'blank' || !end.test(line.slice(i + 2)) ? end : null;
        // Only kinds 1-5 surely interrupt a paragraph; any other tag may be a lazy line of the item.
        if (end === 'blank') {
          if (itemCol >= 0) unsure = true;
          continue;
        }
      }
      // Fences and HTML blocks of kinds 1-5 interrupt paragraphs: one outside the open item closes it.
      itemCol = -1;
      unsure = false;
      continue;
    }
    if (topOnly && isBreak(line, i)) {
      // A thematic break is never a lazy line: it closes the open item.
      itemCol = -1;
      unsure = false;
      continue;
    }
    // Anything else (text, a quote, a table...): maybe a lazy line of the open item.
    if (itemCol >= 0) unsure = true;
  }
  return cuts;
}

/** Lines from..to of a file, as they are in it (with the line break after the last, unless it ends the file). */
const linesOf = (lines: string[], from: number, to: number) => lines.slice(from, to).join('\n') + (to < lines.length ? '\n' : '');

/** Parts of about `partChars` characters (whole ones larger), each with the cuts inside it. */
export function summaryParts(source: string, partChars: number = STRUCTURE_LIMITS.summaryPartChars): SummaryPart[] {
  const lines = source.split('\n');
  const cuts = DEFINITION.test(source) ? [0] : cutPoints(lines);
  cuts.push(lines.length);
  const parts: SummaryPart[] = [];
  let first = 0;
  let size = 0;
  for (let k = 1; k < cuts.length; k++) {
    for (let n = cuts[k - 1]; n < cuts[k]; n++) size += lines[n].length + 1;
    if (size >= partChars || k === cuts.length - 1) {
      const pieces = cuts.slice(first, k + 1);
      parts.push({ from: pieces[0], to: cuts[k], text: linesOf(lines, pieces[0], cuts[k]), pieces });
      first = k;
      size = 0;
    }
  }
  return parts;
}

/** Moves the positions of a part's nodes to the file's lines. */
function shift(nodes: RootContent[], by: number) {
  if (by === 0) return;
  const stack: Array<{ position?: { start: { line: number }; end: { line: number } }; children?: unknown }> = [...nodes];
  while (stack.length) {
    const node = stack.pop()!;
    if (node.position) {
      node.position.start.line += by;
      node.position.end.line += by;
    }
    if (Array.isArray(node.children)) for (const child of node.children) stack.push(child);
  }
}

/**
 * The mdast of a SUMMARY.md as the Markdown parser would read it, part by part, and the warnings of
 * the parts it could not read (each naming the file and the lines). A part past the limits is read
 * again entry by entry (its top-level entries), so only the entries at fault are ignored.
 */
export function readSummaryTree(
  source: string,
  label: string,
  partChars: number = STRUCTURE_LIMITS.summaryPartChars,
): { root: Root; warnings: string[] } {
  const root: Root = { type: 'root', children: [] };
  const warnings: string[] = [];
  let work = 0;
  const budget = Math.max(STRUCTURE_LIMITS.summaryParseWorkMin, STRUCTURE_LIMITS.summaryParseWorkPerChar * source.length);
  const read = (from: number, to: number, text: string, pieces: number[] | null) => {
    let tree = simpleSummaryTree(text, STRUCTURE_LIMITS.summaryDepth);
    if (!tree) {
      const stats = { closeWork: 0, lazyWork: 0, markerWork: 0 };
      const violation = scanMarkdown(text, LIMITS_PAGE_CHARS, STRUCTURE_LIMITS.summaryDepth, stats);
      work += stats.closeWork + stats.lazyWork + stats.markerWork / 50;
      const where = `${label} lines ${fmt(from + 1)}-${fmt(Math.max(from + 1, to))}`;
      if (violation && pieces && pieces.length > 2) {
        const lines = text.split('\n');
        for (let k = 1; k < pieces.length; k++) {
          read(pieces[k - 1], pieces[k], linesOf(lines, pieces[k - 1] - from, pieces[k] - from), null);
        }
        return;
      }
      if (violation) {
        // The scan's line numbers are the part's: moved to the file's.
        const message = violation.message.replace(
          /\(line ([\d,]+)\)/,
          (_, n: string) => `(line ${fmt(Number(n.replace(/,/g, '')) + from)})`,
        );
        warnings.push(`${where}: ${message}; the entries there are ignored`);
        return;
      }
      if (work > budget) {
        warnings.push(`${where}: the table of contents is too complex to read past this point; the entries there are ignored`);
        return;
      }
      tree = parseMarkdown(text);
    }
    shift(tree.children, from);
    for (const node of tree.children) root.children.push(node);
  };
  for (const part of summaryParts(source, partChars)) read(part.from, part.to, part.text, part.pieces);
  return { root, warnings };
}

/** A part read by the parser is held to the size of a page body at most. */
const LIMITS_PAGE_CHARS = 1_000_000;
