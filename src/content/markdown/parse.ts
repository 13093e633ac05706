import type { Definition, Heading, Nodes, PhrasingContent, Root, RootContent } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown, gfmToMarkdown } from 'mdast-util-gfm';
import { toMarkdown } from 'mdast-util-to-markdown';
import { gfm } from 'micromark-extension-gfm';
import GithubSlugger from 'github-slugger';
import type { HintStyle } from './types.js';

/** Markdown → mdast with GFM (tables, strikethrough, task lists, autolink literals, footnotes). */
export function parseMarkdown(md: string): Root {
  return fromMarkdown(md, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
}

/** mdast → Markdown with GFM; the only serializer the module uses. */
export function serializeMdast(root: Root): string {
  return toMarkdown(root, { extensions: [gfmToMarkdown()], fences: true, bullet: '-', emphasis: '*', strong: '*', rule: '-' });
}

// ---- GitBook block tags -------------------------------------------------------------------------
// `{% hint style="…" %} … {% endhint %}` and `{% file src="…" %} [caption] {% endfile %}` are
// recognised when the tag lines start at column 0 outside code and HTML blocks. They are cut out of
// the source before parsing (a hint's body is parsed on its own), so the rest of the module sees them
// as two extra block nodes next to the mdast ones.

export interface HintNode {
  type: 'gitbookHint';
  style: HintStyle;
  children: RootContent[];
}

export interface FileNode {
  type: 'gitbookFile';
  src: string;
}

export type Block = RootContent | HintNode | FileNode;

interface ExtendedRoot {
  type: 'root';
  children: Block[];
}

interface Parsed {
  root: ExtendedRoot;
  /** The whole body parsed as GFM alone (GitBook block tags left as text). */
  full: Root;
  /** Link reference definitions by normalised identifier, first definition wins. */
  definitions: Map<string, Definition>;
}

const HINT_OPEN = /^\{%\s*hint\s+style\s*=\s*"([a-z]*)"\s*%\}\s*$/;
const HINT_CLOSE = /^\{%\s*endhint\s*%\}\s*$/;
const FILE_OPEN = /^\{%\s*file\s+src\s*=\s*"([^"]*)"\s*%\}\s*$/;
const FILE_CLOSE = /^\{%\s*endfile\s*%\}\s*$/;
const HINT_STYLES: readonly HintStyle[] = ['info', 'warning', 'danger', 'success'];

type Segment =
  { kind: 'md'; text: string } | { kind: 'hint'; style: HintStyle; text: string } | { kind: 'file'; src: string; caption: string };

/** Every node of a tree, iteratively (no recursion, whatever the nesting). */
function eachNode(root: Nodes, visit: (node: Nodes) => void): void {
  const todo: Nodes[] = [root];
  while (todo.length) {
    const node = todo.pop()!;
    visit(node);
    if ('children' in node) for (let i = node.children.length - 1; i >= 0; i--) todo.push(node.children[i]);
  }
}

function protectedLines(root: Root): Set<number> {
  const lines = new Set<number>();
  eachNode(root, (node) => {
    if ((node.type === 'code' || node.type === 'html') && node.position) {
      for (let l = node.position.start.line; l <= node.position.end.line; l++) lines.add(l - 1);
    }
  });
  return lines;
}

function segments(md: string, full: Root): Segment[] {
  if (!md.includes('{%')) return [{ kind: 'md', text: md }];
  const lines = md.split('\n');
  const locked = protectedLines(full);
  const isTag = (i: number, re: RegExp) => !locked.has(i) && re.test(lines[i]);
  const out: Segment[] = [];
  let buf: string[] = [];
  const flush = () => {
    if (buf.length) out.push({ kind: 'md', text: buf.join('\n') });
    buf = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const hint = isTag(i, HINT_OPEN) ? HINT_OPEN.exec(lines[i]) : null;
    if (hint) {
      let end = i + 1;
      while (end < lines.length && !isTag(end, HINT_CLOSE)) end++;
      if (end < lines.length) {
        flush();
        const style = (HINT_STYLES as readonly string[]).includes(hint[1]) ? (hint[1] as HintStyle) : 'info';
        out.push({ kind: 'hint', style, text: lines.slice(i + 1, end).join('\n') });
        i = end;
        continue;
      }
    }
    const file = isTag(i, FILE_OPEN) ? FILE_OPEN.exec(lines[i]) : null;
    if (file) {
      // The caption runs to `{% endfile %}` if that comes before the next blank line.
      let end = i + 1;
      while (end < lines.length && lines[end].trim() !== '' && !isTag(end, FILE_CLOSE)) end++;
      const closed = end < lines.length && isTag(end, FILE_CLOSE);
      flush();
      out.push({ kind: 'file', src: file[1], caption: closed ? lines.slice(i + 1, end).join('\n') : '' });
      if (closed) i = end;
      continue;
    }
    buf.push(lines[i]);
  }
  flush();
  return out;
}

function collectDefinitions(root: Root): Map<string, Definition> {
  const defs = new Map<string, Definition>();
  eachNode(root, (node) => {
    if (node.type === 'definition' && !defs.has(node.identifier)) defs.set(node.identifier, node);
  });
  return defs;
}

/** Parses with GFM plus the GitBook block tags; memoises the last input (every API re-parses). */
let last: { md: string; parsed: Parsed } | undefined;

export function parseExtended(md: string): Parsed {
  if (last && last.md === md) return last.parsed;
  const full = parseMarkdown(md);
  const definitions = collectDefinitions(full);
  const parts = segments(md, full);
  let root: ExtendedRoot = full;
  if (parts.length !== 1 || parts[0].kind !== 'md') {
    // Each part is parsed on its own, so references in one part need the definitions of all: they
    // are prepended (in source order, so the first definition still wins) and produce no content.
    const prelude = definitions.size ? `${serializeMdast({ type: 'root', children: [...definitions.values()] })}\n` : '';
    const parse = (text: string) => parseMarkdown(prelude + text).children.filter((n) => n.type !== 'definition');
    root = { type: 'root', children: [] };
    for (const part of parts) {
      if (part.kind === 'md') root.children.push(...parse(part.text));
      else if (part.kind === 'hint') root.children.push({ type: 'gitbookHint', style: part.style, children: parse(part.text) });
      else {
        root.children.push({ type: 'gitbookFile', src: part.src });
        root.children.push(...parse(part.caption));
      }
    }
  }
  const parsed = { root, full, definitions };
  last = { md, parsed };
  return parsed;
}

// ---- Text ----------------------------------------------------------------------------------------

const BR = /^<br\s*\/?>$/i;

/**
 * The text of phrasing content as the document model holds it: text and inline code as is, line
 * breaks and `<br>` as "\n", other inline HTML dropped, image alt text kept, footnote references as
 * `[^label]` (or dropped with `footnotes: false`).
 */
export function phrasingText(nodes: readonly PhrasingContent[], footnotes = true): string {
  let s = '';
  for (const node of nodes) {
    switch (node.type) {
      case 'text':
      case 'inlineCode':
        s += node.value;
        break;
      case 'break':
        s += '\n';
        break;
      case 'html':
        if (BR.test(node.value.trim())) s += '\n';
        break;
      case 'image':
      case 'imageReference':
        s += node.alt ?? '';
        break;
      case 'footnoteReference':
        if (footnotes) s += `[^${node.label ?? node.identifier}]`;
        break;
      default:
        if ('children' in node) s += phrasingText(node.children, footnotes);
    }
  }
  return s;
}

/** Visible text of a block of raw HTML: comments and tags removed. */
export function htmlText(html: string): string {
  return html
    .replace(/<!--[\s\S]*?(?:-->|$)/g, ' ')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/?[A-Za-z][^>]*>/g, ' ');
}

export function collapse(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/**
 * Anchor ids for every heading of a parse, in document order at any depth (github-slugger, so
 * duplicates become `setup`, `setup-1`, …). Shared by markdownToDocument, headings and splitSections.
 */
export function headingIds(root: ExtendedRoot): Map<Heading, string> {
  const slugger = new GithubSlugger();
  const ids = new Map<Heading, string>();
  const walk = (nodes: readonly (Block | Nodes)[]) => {
    for (const node of nodes) {
      if (node.type === 'heading') ids.set(node, slugger.slug(phrasingText(node.children)));
      else if ('children' in node && node.type !== 'paragraph' && node.type !== 'table') walk(node.children as Nodes[]);
    }
  };
  walk(root.children);
  return ids;
}
