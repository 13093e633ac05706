// The common shape of a SUMMARY.md read line by line, without a Markdown parser: headings and
// nested bullet lists of `[Title](path.md)` links whose titles and paths hold nothing Markdown
// would read differently. It yields the mdast the parser would (what parseSummary reads of it);
// anything else (another indentation, escapes, HTML, a code block, a link title...) gives null and
// the file is parsed. A large repository's SUMMARY.md lists thousands of pages in this shape, and
// parsing it was most of an import's CPU.
import type { Heading, List, ListItem, Root } from 'mdast';

/** Characters that read as themselves in Markdown text (`&` only where it starts no entity). */
const PLAIN_CHARS = /^[A-Za-z0-9 ,.:;()'?/+=%@"&\u0080-\uFFFF-]*$/;
const plainText = (s: string) => PLAIN_CHARS.test(s) && !/&[A-Za-z0-9#]+;/.test(s);
/** `* [Title](path.md)` or `* [Title](path.md "Sidebar title")`; the path may escape punctuation (`a\_b.md`). */
const ITEM = /^( *)[*+-] \[([^\]\n]*)\]\(((?:[A-Za-z0-9._/%-]|\\[!-/:-@[-`{-~])+)(?: "([^"\\\n]*)")?\)[ \t]*$/;
/** `## Group`, optionally with GitBook's anchor (`<a href="#id" id="id"></a>`, not part of the title). */
const HEADING = /^(#{1,6})[ \t]+(.*?)(?:[ \t]*<a href="#[^"<>&]*" id="[^"<>&]*"><\/a>)?[ \t]*$/;

interface Open {
  markerIndent: number;
  contentOffset: number;
  item: ListItem;
}

const at = (line: number, column: number) => ({ start: { line, column, offset: undefined }, end: { line, column } });

/** Longest line read here (a longer one is parsed: the patterns stay linear on short lines). */
const MAX_LINE = 4096;

/**
 * The mdast of a SUMMARY.md in the simple shape, or null when it is not (parse it then), or when
 * entries nest deeper than `maxDepth`.
 */
export function simpleSummaryTree(source: string, maxDepth = Infinity): Root | null {
  const root: Root = { type: 'root', children: [] };
  let open: Open[] = [];
  let topList: List | null = null;
  const lines = source.split('\n');
  for (let i = 0; i < lines.length; i++) {
    // A line break of CR LF reads as LF (the parser's tree is the same).
    const line = lines[i].endsWith('\r') ? lines[i].slice(0, -1) : lines[i];
    const n = i + 1;
    if (line.length > MAX_LINE) return null;
    if (/^[ \t]*$/.test(line)) continue;
    const heading = HEADING.exec(line);
    if (heading) {
      const text = heading[2];
      if (!text || !plainText(text)) return null;
      const node: Heading = {
        type: 'heading',
        depth: heading[1].length as Heading['depth'],
        children: [{ type: 'text', value: text }],
        position: at(n, 1),
      };
      root.children.push(node);
      open = [];
      topList = null;
      continue;
    }
    const item = ITEM.exec(line);
    if (!item) return null;
    const [, spaces, title, escapedUrl, linkTitle] = item;
    if (!plainText(title) || (linkTitle !== undefined && !plainText(linkTitle))) return null;
    const url = escapedUrl.replace(/\\([!-/:-@[-`{-~])/g, '$1');
    const indent = spaces.length;
    const node: ListItem = {
      type: 'listItem',
      spread: false,
      checked: null,
      children: [
        {
          type: 'paragraph',
          children: [{ type: 'link', url, title: linkTitle ?? null, children: title ? [{ type: 'text', value: title }] : [] }],
        },
      ],
      position: at(n, indent + 1),
    };
    const entry: Open = { markerIndent: indent, contentOffset: indent + 2, item: node };
    // A child of the deepest open item whose content it is indented to (by at most 3 more spaces),
    // or a sibling of the open item at exactly its indentation; anything in between is parsed.
    let parent = -1;
    for (let k = open.length - 1; k >= 0; k--) {
      if (indent >= open[k].contentOffset) {
        parent = k;
        break;
      }
    }
    if (parent >= 0 && indent <= open[parent].contentOffset + 3) {
      const p = open[parent].item;
      let list = p.children.at(-1);
      if (list?.type !== 'list') {
        list = { type: 'list', ordered: false, spread: false, start: null, children: [], position: at(n, indent + 1) };
        p.children.push(list);
      }
      list.children.push(node);
      if (parent + 2 > maxDepth) return null;
      open.length = parent + 1;
      open.push(entry);
      continue;
    }
    const sibling = open.findIndex((o) => o.markerIndent === indent);
    if (sibling > 0) {
      const p = open[sibling - 1].item;
      (p.children.at(-1) as List).children.push(node);
      open.length = sibling;
      open.push(entry);
      continue;
    }
    if (sibling === 0) {
      topList!.children.push(node);
      open = [entry];
      continue;
    }
    if (open.length === 0 && indent <= 3) {
      topList = { type: 'list', ordered: false, spread: false, start: null, children: [node], position: at(n, indent + 1) };
      root.children.push(topList);
      open = [entry];
      continue;
    }
    return null;
  }
  return root;
}
