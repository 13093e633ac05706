import GithubSlugger from 'github-slugger';
import { collapse } from './parse.js';
import type { Section } from './text.js';

// splitSections without the parser, for the plainest bodies: the search index splits every page of
// a space into sections, and micromark (with GFM, math and GitBook's block tags) costs about a
// millisecond per KB, most of the time of indexing a space. A body qualifies only when every line
// is one of
//
//   - blank;
//   - an ATX heading `#`…`######`, one space, then text;
//   - a bullet item `- ` then text, in a block of such items (no other line before a blank one);
//   - paragraph text starting with a letter, a code span, a link or an image, in a block of such lines;
//   - a fenced code block after a blank line: a line of exactly three backticks and an optional
//     language (letters, digits, `_+.-`), then lines that do not look like a fence nor hold `{%`,
//     then a line of exactly three backticks (a code block that runs to the end is left to the parser);
//
// with no leading whitespace (nor trailing whitespace in a heading), no tab or carriage return, and text made of letters,
// digits, spaces, characters beyond ASCII and the ASCII punctuation that CommonMark, GFM and
// GitBook never read as markup anywhere in a line (`.,;:'"()?%/=+!-`), plus `code spans` with
// single backticks, inline links `[text](destination)` and images `![alt](destination)` (in paragraph
// and item lines, not headings) whose text is made of those letters and punctuation without
// parentheses and whose destination holds no space, parenthesis, quote, `<`, `>`, `&`, backslash
// or backtick. Nothing in such a body can be emphasis, another kind of link, an autolink literal
// (`www.`, `://` and `@` are excluded outside destinations), an entity, an escape, HTML, math, a
// table or a GitBook tag, so its parse is exactly the lines as written (a link or an image giving
// its text or alt, a code block its lines): the sections are computed from them with the same rules
// as splitSections (test/unit/content/simple-sections.test.ts checks the two agree on generated
// bodies). Any other body returns null and is parsed.

/** Larger bodies are parsed (so the parsed tree's size limits cannot matter here). */
export const SIMPLE_MAX_CHARS = 100_000;

/**
 * A simple body this short, whose code spans (the only place they may be) hold no `~[]\\` and no
 * `**` or `__`, is within every limit scanMarkdown checks, so the scan can be skipped: at most 2
 * nodes a line, one level of nesting, no lazy lines, emphasis runs of one character (at most one
 * per 2 characters: under 3,000 markers, their work under 3,000²/50), and its parse-work estimate
 * of lists ending (at most one per 8 characters, times at most 4 events a line) under L²/2 = 18M,
 * together under the 20M limit. test/unit/content/simple-sections.test.ts checks the worst cases
 * against the scan.
 */
export const UNSCANNED_MAX_CHARS = 6_000;
const MARKERS = /[~[\]\\]|\*\*|__|```/;

/** Whether a body simpleSections accepted must still go through scanMarkdown (see UNSCANNED_MAX_CHARS). */
export function needsScan(md: string): boolean {
  return md.length > UNSCANNED_MAX_CHARS || MARKERS.test(md);
}

const LINE_TEXT = /^(?:[\p{L}\p{N} .,;:'"()?%/=+!\u0080-\u{10FFFF}-]|`[^`\\{}<>|$\r\t\n]+`(?!`))*$/u;
const LEADING = /^[\p{L}`]/u;
const HEADING = /^(#{1,6}) (.+)$/;
const ITEM = /^- (.+)$/;
const NOT_AUTOLINK = /www\.|:\/\/|@/i;
/** An inline link or image whose text and destination cannot hold markup (see the header). */
const LINK = /(!?)\[([\p{L}\p{N} .,;:'"?%/=+!\u0080-\u{10FFFF}-]*)\]\(([^\s()<>"'&\\`|{}]*)\)/gu;
const FENCE_OPEN = /^```[\w+.-]*$/;
const FENCE_LIKE = /^ {0,3}(?:`{3,}|~{3,})/;

/** A paragraph or item line's text with its links and images replaced by their text, then checked as inlineText. */
function lineText(line: string): string | null {
  // Spaces ending a paragraph or item line are a soft or hard line break, or nothing at the end of
  // the block: whitespace either way in the section's text (collapsed). Not in headings: their
  // text makes the anchor id.
  const s = line.endsWith(' ') ? line.replace(/ +$/, '') : line;
  if (!s.includes('](')) return inlineText(s);
  // A code span wins over a link that overlaps it: left to the parser.
  if (s.includes('`')) return null;
  // The line without its links must not hold brackets (what is left of one is not a simple link).
  const text = s.replace(LINK, (_m, _bang: string, label: string) => label);
  // A line reduced to nothing (an image without alt text alone) is a paragraph of no text.
  if (text === '') return '';
  return inlineText(text);
}

/** The text of one line's inline content (code spans' backticks removed), or null when it may hold markup. */
function inlineText(s: string): string | null {
  if (!LEADING.test(s) || s.startsWith('``') || s.endsWith(' ') || !LINE_TEXT.test(s)) return null;
  if (NOT_AUTOLINK.test(s)) return null;
  if (!s.includes('`')) return s;
  // Code spans: no space at either end of their content (CommonMark would strip one).
  let out = '';
  let i = 0;
  while (i < s.length) {
    const open = s.indexOf('`', i);
    if (open < 0) {
      out += s.slice(i);
      break;
    }
    const close = s.indexOf('`', open + 1);
    const code = s.slice(open + 1, close);
    if (code.startsWith(' ') || code.endsWith(' ')) return null;
    out += s.slice(i, open) + code;
    i = close + 1;
  }
  return out;
}

export function simpleSections(md: string): Section[] | null {
  if (md.length > SIMPLE_MAX_CHARS || /[\t\r\0]/.test(md)) return null;
  const slugger = new GithubSlugger();
  const sections: Section[] = [];
  let current: Section = { id: '', title: '', depth: 0, body: '' };
  let lines: string[] = [];
  let paragraph: string[] = [];
  /** What the previous line was: a blank line (or none), an item or paragraph text. */
  let prev: 'blank' | 'item' | 'text' = 'blank';
  /** Inside a fenced code block. */
  let fenced = false;
  const endParagraph = () => {
    const text = collapse(paragraph.join('\n'));
    if (text) lines.push(text);
    paragraph = [];
  };
  const close = () => {
    endParagraph();
    current.body = lines.join('\n');
    if (current.depth > 0 || current.body !== '') sections.push(current);
  };
  for (const line of md.split('\n')) {
    if (fenced) {
      if (line === '```') {
        fenced = false;
        prev = 'blank'; // a code block ends any block before it and starts none
      } else if (FENCE_LIKE.test(line) || line.includes('{%')) return null;
      else {
        const code = collapse(line);
        if (code) lines.push(code);
      }
      continue;
    }
    if (line.startsWith('```')) {
      if (prev !== 'blank' || !FENCE_OPEN.test(line)) return null;
      endParagraph();
      fenced = true;
      continue;
    }
    if (line === '') {
      endParagraph();
      prev = 'blank';
      continue;
    }
    if (line.startsWith('#')) {
      const h = HEADING.exec(line);
      const text = h ? inlineText(h[2]) : null;
      if (!h || text === null || text.endsWith('#')) return null;
      close();
      current = { id: slugger.slug(text), title: collapse(text), depth: h[1].length, body: '' };
      lines = [];
      prev = 'blank'; // a heading ends any block before it and starts none
      continue;
    }
    if (line.startsWith('-')) {
      const item = ITEM.exec(line);
      const text = item ? lineText(item[1]) : null;
      if (text === null || prev === 'text') return null;
      if (collapse(text)) lines.push(collapse(text));
      prev = 'item';
      continue;
    }
    const text = lineText(line);
    if (text === null || prev === 'item') return null;
    paragraph.push(text);
    prev = 'text';
  }
  if (fenced) return null;
  close();
  return sections;
}
