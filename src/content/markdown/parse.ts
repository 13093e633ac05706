import type { Definition, Heading, Nodes, PhrasingContent, Root, RootContent } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown, gfmToMarkdown } from 'mdast-util-gfm';
import { toMarkdown } from 'mdast-util-to-markdown';
import { gfm } from 'micromark-extension-gfm';
import { math } from 'micromark-extension-math';
import { mathFromMarkdown, mathToMarkdown } from 'mdast-util-math';
import GithubSlugger from 'github-slugger';
import type { HintStyle } from './types.js';

/**
 * Markdown → mdast with GFM (tables, strikethrough, task lists, autolink literals, footnotes) and
 * GitBook's math: `$$…$$` inline and as a block (a single `$` is text, as in GitBook: prices stay prices).
 */
export function parseMarkdown(md: string): Root {
  return fromMarkdown(md, {
    extensions: [gfm(), math({ singleDollarTextMath: false })],
    mdastExtensions: [gfmFromMarkdown(), mathFromMarkdown()],
  });
}

/** mdast → Markdown with GFM; the only serializer the module uses. */
export function serializeMdast(root: Root): string {
  return toMarkdown(root, {
    extensions: [gfmToMarkdown(), mathToMarkdown({ singleDollarTextMath: false })],
    fences: true,
    bullet: '-',
    emphasis: '*',
    strong: '*',
    rule: '-',
  });
}

// ---- GitBook block tags -------------------------------------------------------------------------
// GitBook's blocks are written as Liquid-like tags on lines of their own, outside code blocks:
//
//   {% hint style="info" %} … {% endhint %}            {% tabs %} {% tab title="A" %} … {% endtab %} {% endtabs %}
//   {% stepper %} {% step %} … {% endstep %} {% endstepper %}      {% columns %} {% column %} … {% endcolumns %}
//   {% code title="a.js" overflow="wrap" lineNumbers="true" %} ```js … ``` {% endcode %}
//   {% embed url="…" %} [caption] [{% endembed %}]     {% content-ref url="page.md" %} … {% endcontent-ref %}
//   {% file src="…" %} [caption] [{% endfile %}]       {% include "../.gitbook/includes/x.md" %}
//   {% swagger src="…" path="…" method="…" %} … {% endswagger %}   {% openapi src path method %} … {% endopenapi %}
//   {% openapi-operation spec="…" path="…" method="…" %} … {% endopenapi-operation %}
//   {% updates format="full" %} {% update date="2024-01-31" %} … {% endupdate %} {% endupdates %}
//   {% if visitor.claims.unsigned.plan === "pro" %} … {% endif %}    (the whole tag text after `if` is
//   the condition; an `if` left open runs to the end of its text, so an unclosed one hides, never shows)
//   {% prompt description="…" icon="…" openInAIProviders="true" defaultExpanded="full" %} ```lang … ``` {% endprompt %}
//
// and `<details><summary>Title</summary> … </details>` for expandable blocks. They are cut out of the
// source before parsing, each body parsed on its own (nesting allowed up to MAX_TAG_DEPTH), so the
// rest of the module sees them as extra block nodes next to the mdast ones. The stored Markdown is
// never rewritten: these nodes only feed the document format and the renderers.

export interface HintNode {
  type: 'gitbookHint';
  style: HintStyle;
  children: Block[];
}

export interface FileNode {
  type: 'gitbookFile';
  src: string;
}

/** Any other GitBook block tag: its name (`tabs`, `tab`, `stepper`, `code`, …), attributes and body. */
export interface TagNode {
  type: 'gitbookTag';
  name: string;
  attrs: Record<string, string>;
  /** `{% include "x" %}`: the quoted argument. */
  arg?: string;
  children: Block[];
  /** The body as written. */
  raw: string;
  /** `{% if <expression> %}`: the expression as written (trimmed). */
  expression?: string;
}

/** `<details>`: an expandable block. */
export interface DetailsNode {
  type: 'gitbookDetails';
  /** The summary's text (inline HTML removed). */
  summary: string;
  open: boolean;
  children: Block[];
}

export type Block = RootContent | HintNode | FileNode | TagNode | DetailsNode;

interface ExtendedRoot {
  type: 'root';
  children: Block[];
}

export interface Parsed {
  root: ExtendedRoot;
  /** The whole body parsed as GFM alone (GitBook block tags left as text). */
  full: Root;
  /** Link reference definitions by normalised identifier, first definition wins. */
  definitions: Map<string, Definition>;
}

const TAG = /^\s*\{%\s*(end)?([a-z][a-z-]*)\b(.*?)%\}\s*$/;
const HINT_STYLES: readonly HintStyle[] = ['info', 'warning', 'danger', 'success'];
/** Tags with a body closed by `{% end<name> %}`. */
const CONTAINERS = new Set([
  'hint',
  'tabs',
  'tab',
  'stepper',
  'step',
  'code',
  'embed',
  'content-ref',
  'file',
  'swagger',
  'openapi',
  'openapi-operation',
  'columns',
  'column',
  'updates',
  'update',
  'swagger-description',
  'swagger-parameter',
  'swagger-response',
  'if',
  'prompt',
]);
/** Tags that may stand alone (no end tag): a caption may follow until a blank line. */
const STANDALONE = new Set(['embed', 'file', 'include', 'openapi', 'openapi-operation', 'swagger']);
const MAX_TAG_DEPTH = 12;
const DETAILS_OPEN = /^\s*<details(\s[^>]*)?>/i;
const DETAILS_CLOSE = /<\/details>\s*$/i;

function attributes(text: string): { attrs: Record<string, string>; arg?: string } {
  const attrs: Record<string, string> = {};
  for (const m of text.matchAll(/([A-Za-z][\w-]*)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"']+))/g)) attrs[m[1]] = m[2] ?? m[3] ?? m[4] ?? '';
  const arg = /^\s*(?:"([^"]*)"|'([^']*)')/.exec(text);
  return { attrs, ...(arg ? { arg: arg[1] ?? arg[2] } : {}) };
}

/** Every node of a tree, iteratively (no recursion, whatever the nesting). */
function eachNode(root: Nodes, visit: (node: Nodes) => void): void {
  const todo: Nodes[] = [root];
  while (todo.length) {
    const node = todo.pop()!;
    visit(node);
    if ('children' in node) for (let i = node.children.length - 1; i >= 0; i--) todo.push(node.children[i]);
  }
}

/** Lines inside fenced or indented code (0-based): tags there are text. */
export function codeLines(root: Root): Set<number> {
  const lines = new Set<number>();
  eachNode(root, (node) => {
    if (node.type === 'code' && node.position) {
      for (let l = node.position.start.line; l <= node.position.end.line; l++) lines.add(l - 1);
    }
  });
  return lines;
}

const stripHtml = (s: string) =>
  s
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

/**
 * Blocks of a Markdown text with GitBook tags. `parse` parses plain Markdown parts; `depth` bounds
 * the nesting (deeper tags stay text).
 */
function tagBlocks(md: string, parse: (text: string) => RootContent[], depth: number, code?: Set<number>): Block[] {
  if (!md.includes('{%') && !/<details/i.test(md)) return parse(md);
  const lines = md.split('\n');
  // Code lines: given for the whole text (its parse) and for a tag's body (the same lines of the
  // enclosing text), parsed here only for a text that is not a run of lines of its parent.
  const locked = code ?? codeLines(parseMarkdown(md));
  const tagAt = (i: number) => (locked.has(i) ? null : TAG.exec(lines[i]));
  const out: Block[] = [];
  let buf: string[] = [];
  const flush = () => {
    if (buf.length) out.push(...parse(buf.join('\n')));
    buf = [];
  };
  const inner = (text: string, from?: number, to?: number) => {
    if (depth >= MAX_TAG_DEPTH) return parse(text);
    if (from === undefined || to === undefined) return tagBlocks(text, parse, depth + 1);
    const sub = new Set<number>();
    for (const l of locked) if (l >= from && l < to) sub.add(l - from);
    return tagBlocks(text, parse, depth + 1, sub);
  };
  for (let i = 0; i < lines.length; i++) {
    const details = !locked.has(i) && depth < MAX_TAG_DEPTH ? DETAILS_OPEN.exec(lines[i]) : null;
    if (details) {
      // The matching </details>, counting nested ones.
      let level = 0;
      let end = -1;
      for (let j = i; j < lines.length; j++) {
        if (locked.has(j)) continue;
        level += (lines[j].match(/<details[\s>]/gi) ?? []).length;
        level -= (lines[j].match(/<\/details>/gi) ?? []).length;
        if (level <= 0) {
          end = j;
          break;
        }
      }
      if (end >= 0 && DETAILS_CLOSE.test(lines[end])) {
        flush();
        const text = lines.slice(i, end + 1).join('\n');
        const m = /^\s*<details(\s[^>]*)?>\s*(?:<summary[^>]*>([\s\S]*?)<\/summary>)?([\s\S]*)<\/details>\s*$/i.exec(text);
        if (m) {
          out.push({
            type: 'gitbookDetails',
            summary: stripHtml(m[2] ?? ''),
            open: /\bopen\b/i.test(m[1] ?? ''),
            children: inner(m[3].replace(/^\n+/, '')),
          });
          i = end;
          continue;
        }
      }
    }
    const tag = tagAt(i);
    // `{% if a %} text {% endif %}` on one line is text here (conditional-blocks.ts evaluates it inline).
    if (!tag || tag[1] || (!CONTAINERS.has(tag[2]) && tag[2] !== 'include') || (tag[2] === 'if' && tag[3].includes('%'))) {
      buf.push(lines[i]);
      continue;
    }
    const name = tag[2];
    const { attrs, arg } = attributes(tag[3]);
    // The matching end tag, counting nested tags of the same name.
    let end = -1;
    if (CONTAINERS.has(name)) {
      let level = 0;
      for (let j = i + 1; j < lines.length; j++) {
        const t = tagAt(j);
        if (!t || t[2] !== name) continue;
        if (!t[1]) level++;
        else if (level === 0) {
          end = j;
          break;
        } else level--;
      }
    }
    // An `if` left open runs to the end of its text (src/content/conditional-blocks.ts does the same).
    if (end < 0 && name === 'if') end = lines.length;
    if (end < 0 && !STANDALONE.has(name)) {
      buf.push(lines[i]);
      continue;
    }
    flush();
    let body: string;
    const from = i + 1;
    let to: number;
    if (end >= 0) {
      body = lines.slice(from, end).join('\n');
      to = end;
      i = end;
    } else {
      // A standalone tag: a caption may follow up to the next blank line (or tag).
      let j = i + 1;
      while (name !== 'include' && j < lines.length && lines[j].trim() !== '' && !tagAt(j)) j++;
      body = lines.slice(from, j).join('\n');
      to = j;
      i = j - 1;
    }
    if (name === 'hint') {
      const style = (HINT_STYLES as readonly string[]).includes(attrs.style ?? '') ? (attrs.style as HintStyle) : 'info';
      out.push({ type: 'gitbookHint', style, children: inner(body, from, to) });
    } else if (name === 'file') {
      out.push({ type: 'gitbookFile', src: attrs.src ?? '' });
      out.push(...parse(body));
    } else {
      const children = inner(body, from, to);
      const expression = name === 'if' ? { expression: tag[3].trim() } : {};
      out.push({ type: 'gitbookTag', name, attrs, ...(arg !== undefined ? { arg } : {}), ...expression, children, raw: body });
    }
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

/**
 * Take `parsed` as what parseExtended gives for `md` (the parse another thread made of the same
 * text, src/render/tasks.ts): the next calls on `md` use it instead of parsing again.
 */
export function knowParsed(md: string, parsed: Parsed): void {
  last = { md, parsed };
}

export function parseExtended(md: string): Parsed {
  if (last && last.md === md) return last.parsed;
  const full = parseMarkdown(md);
  const definitions = collectDefinitions(full);
  let root: ExtendedRoot = full;
  if (md.includes('{%') || /<details/i.test(md)) {
    // Each part is parsed on its own, so references in one part need the definitions of all: they
    // are prepended (in source order, so the first definition still wins) and produce no content.
    const prelude = definitions.size ? `${serializeMdast({ type: 'root', children: [...definitions.values()] })}\n` : '';
    const parse = (text: string) => parseMarkdown(prelude + text).children.filter((n) => n.type !== 'definition');
    root = { type: 'root', children: tagBlocks(md, parse, 0, codeLines(full)) };
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
