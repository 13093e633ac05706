// SUMMARY.md, the table of contents, as GitBook accepts it:
//
//   # Table of contents            optional title (a first level-1 heading), ignored
//
//   * [Introduction](README.md)    a page: link text = title, target = its file
//   * [Guide](guide/README.md)
//     * [Install](guide/install.md "Setup")   nesting = child pages; a quoted link title is the
//                                              page's sidebar title (linkTitle)
//   * [Website](https://example.com)          a link page (the description's `link` page type)
//   * Parent                                  an unlinked parent: a page without a file of its own
//     * [Child](child.md)
//   * ```yaml                                 GitBook's OpenAPI reference block: a computed page
//     type: builtin:openapi
//     dependencies: { spec: { ref: { kind: openapi, spec: my-api } } }
//     ```
//
//   ## Reference                   any other heading starts a group (inline HTML anchors ignored)
//
//   * [API](reference/api.md)      pages of the group, until the next heading
//
//   ---                            a thematic break ends the group: pages after it are top-level
//
// Read in parts, line by line or by the markdown parser (summary-parts.ts), in time linear in the
// file, with limits of its own (limits.ts). Nothing in a SUMMARY.md aborts an import but its size: what cannot
// be a page (stray text, a link that leaves the docs root, a file linked twice, a link to a file
// that does not exist...) is a warning naming the line, and the entry is kept as well as it can be
// (a missing file is an empty page at that path, a second link to a file is a link page) or left
// out (its children then take its place); a part past the limits is ignored with a warning.
import type { Code, Heading, Link, List, ListItem, Paragraph, PhrasingContent, RootContent } from 'mdast';
import { toMarkdown } from 'mdast-util-to-markdown';
import { toString } from 'mdast-util-to-string';
import { parse as parseYaml } from 'yaml';
import { readSummaryTree } from './summary-parts.js';
import { STRUCTURE_LIMITS } from './limits.js';
import { RepoFormatError } from './errors.js';
import { hasScheme, isMarkdownPath, joinPath, relativePath, resolvePath } from './paths.js';
import { cleanTitle } from './page-file.js';
import { dumpYaml } from './yaml.js';
import type { ComputedSource } from './types.js';
import { decodeOrKeep } from '../../util/uri.js';

const fmt = (n: number) => n.toLocaleString('en-US');

/** The most a sidebar title may hold (the description's `linkTitle`). */
export const LINK_TITLE_MAX = 100;

interface EntryBase {
  title: string;
  line: number;
  children: SummaryEntry[];
}

export interface SummaryPage extends EntryBase {
  kind: 'page';
  /** Relative to the docs root. */
  path: string;
  /** The quoted link title (`[Title](page.md "Sidebar title")`). */
  linkTitle?: string;
  /** The file does not exist: the page is empty (a warning says so). */
  missing?: boolean;
}

export interface SummaryLink extends EntryBase {
  kind: 'link';
  href: string;
}

/** `* Parent` with nested entries: a page without a file. */
export interface SummaryParent extends EntryBase {
  kind: 'parent';
}

export interface SummaryComputed extends EntryBase {
  kind: 'computed';
  source: ComputedSource;
}

export type SummaryEntry = SummaryPage | SummaryLink | SummaryParent | SummaryComputed;

interface SummaryGroup {
  kind: 'group';
  title: string;
  line: number;
  children: SummaryEntry[];
}

export type SummaryNode = SummaryEntry | SummaryGroup;

interface SummaryContext {
  /** The SUMMARY file as named in messages (path in the project directory). */
  label: string;
  /** Folder of the SUMMARY file relative to the docs root: links are relative to it. */
  dir: string;
  /** Path of the SUMMARY file relative to the docs root. */
  path: string;
  /** Whether a file exists (path relative to the docs root), and its real spelling if only the case differs. */
  exists(path: string): boolean;
  caseInsensitiveMatch(path: string): string | undefined;
}

const FORMAT_HINT =
  "SUMMARY.md holds an optional '# Table of contents' title, '## Group' headings and lists of links such as '* [Title](page.md)'";

function describe(node: RootContent): string {
  switch (node.type) {
    case 'paragraph':
      return 'text outside a list';
    case 'code':
      return 'a code block (a list indented by 4 spaces or more?)';
    case 'blockquote':
      return 'a quote';
    case 'table':
      return 'a table';
    default:
      return `a ${node.type}`;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Text of headings and link labels: inline HTML (anchors such as `<a id="x"></a>`) left out. */
const plain = (node: Parameters<typeof toString>[0]) => cleanTitle(toString(node, { includeHtml: false }));

/** The title of an OpenAPI reference: the spec it is computed from. */
function computedTitle(source: ComputedSource): string {
  const ref = (source.dependencies?.spec as { ref?: { spec?: unknown } } | undefined)?.ref;
  const props = source.props ?? {};
  if (typeof props.title === 'string' && props.title.trim()) return cleanTitle(props.title);
  return typeof ref?.spec === 'string' && ref.spec.trim() ? cleanTitle(ref.spec) : 'API reference';
}

type Target = { path: string; missing?: boolean } | { link: string; warning?: string } | { skip: string };

/**
 * Parses a SUMMARY.md. Returns the entries and the warnings (each naming the file and line). Throws
 * only when the file is longer than STRUCTURE_LIMITS.summaryChars.
 */
export function parseSummary(source: string, ctx: SummaryContext): { nodes: SummaryNode[]; warnings: string[] } {
  if (source.length > STRUCTURE_LIMITS.summaryChars) {
    throw new RepoFormatError(
      `${ctx.label}: longer than ${fmt(STRUCTURE_LIMITS.summaryChars)} characters (${fmt(source.length)}), the most a table of contents may hold`,
    );
  }
  const { root, warnings } = readSummaryTree(source, ctx.label);
  const sourceLines = source.split('\n');
  const at = (line: number) => `${ctx.label} line ${line}`;
  const lineText = (line: number) => (sourceLines[line - 1] ?? '').trim().slice(0, 200);
  const lineOf = (node: { position?: { start: { line: number } } }) => node.position?.start.line ?? 0;
  const seen = new Map<string, number>();
  let entries = 0;
  const warn = (line: number, message: string) => warnings.push(`${at(line)}: ${message}`);
  const out: SummaryNode[] = [];

  const target = (link: Link, line: number): Target => {
    const url = link.url.trim();
    if (!url) return { skip: `the link '${lineText(line)}' has no target` };
    if (hasScheme(url) || url.startsWith('//')) return { link: url };
    const candidates = [...new Set([url, decodeOrKeep(url)])];
    let first: string | undefined;
    for (const candidate of candidates) {
      let path: string;
      try {
        // Root-absolute links ('/guide/a.md') are relative to the docs root, as GitBook reads them.
        path =
          candidate.startsWith('/') && !candidate.startsWith('//')
            ? resolvePath(candidate.replace(/^\/+/, ''), at(line))
            : resolvePath(candidate, at(line), ctx.dir);
      } catch (err) {
        return { skip: (err as Error).message.replace(`${at(line)}: `, '') };
      }
      const folderReadme = joinPath(path, 'README.md');
      if (candidate.endsWith('/') || !path || (!isMarkdownPath(path) && ctx.exists(folderReadme))) path = folderReadme;
      if (path === ctx.path) return { skip: `'${url}' links to the table of contents itself` };
      if (!isMarkdownPath(path)) continue;
      first ??= path;
      if (ctx.exists(path)) return { path };
    }
    if (url.includes('#')) return { link: url, warning: `'${url}' links to an anchor; it is kept as a link page` };
    if (!first) return { link: url, warning: `'${url}' is not a markdown file (.md); it is kept as a link page` };
    const other = ctx.caseInsensitiveMatch(first);
    warnings.push(
      `${at(line)}: '${url}' links to a file that does not exist${other ? ` (did you mean '${relativePath(ctx.dir, other)}'? paths are case-sensitive)` : ''}; the page is imported empty`,
    );
    return { path: first, missing: true };
  };

  const childrenOf = (rest: RootContent[]): SummaryEntry[] => {
    const children: SummaryEntry[] = [];
    for (const child of rest) {
      if (child.type !== 'list') {
        const l = lineOf(child);
        warn(
          l,
          `unexpected ${describe(child)} inside a list item ('${lineText(l)}') is ignored; child pages are list items indented under their parent`,
        );
        continue;
      }
      for (const sub of (child as List).children) children.push(...item(sub));
    }
    return children;
  };

  const computed = (code: Code, line: number): SummaryComputed | null => {
    let data: unknown;
    try {
      data = parseYaml(code.value);
    } catch {
      data = undefined;
    }
    if (!isObject(data) || typeof data.type !== 'string' || !/openapi/i.test(data.type)) {
      warn(line, `the code block in the list is not an OpenAPI reference block (type: builtin:openapi) and is ignored`);
      return null;
    }
    const source: ComputedSource = { type: data.type };
    if (isObject(data.props)) source.props = data.props;
    if (isObject(data.dependencies)) source.dependencies = data.dependencies;
    return { kind: 'computed', title: computedTitle(source), source, line, children: [] };
  };

  /** One list item: usually one entry; none (its children in its place) when it cannot be kept. */
  const item = (node: ListItem): SummaryEntry[] => {
    const line = lineOf(node);
    if (++entries > STRUCTURE_LIMITS.summaryEntries) {
      if (entries === STRUCTURE_LIMITS.summaryEntries + 1) {
        warn(
          line,
          `more than ${fmt(STRUCTURE_LIMITS.summaryEntries)} entries, the most a table of contents may hold; this entry and the ones after it are ignored`,
        );
      }
      return [];
    }
    const [head, ...rest] = node.children;
    if (head?.type === 'code') {
      const c = computed(head, line);
      const children = childrenOf(rest);
      return c ? [c] : children;
    }
    if (!head || head.type !== 'paragraph') {
      warn(line, `the list item '${lineText(line)}' is not a link such as '* [Title](page.md)' and is ignored`);
      return childrenOf(head ? node.children : rest);
    }
    const inline = (head as Paragraph).children.filter((n) => !(n.type === 'text' && n.value.trim() === '') && n.type !== 'break');
    const links = inline.filter((n): n is Link => n.type === 'link');
    if (links.length === 0) {
      const title = plain(head);
      const children = childrenOf(rest);
      if (!title) {
        warn(line, `the list item '${lineText(line)}' has no title and is ignored`);
        return children;
      }
      return [{ kind: 'parent', title, line, children }];
    }
    if (links.length > 1) {
      const second = lineOf(links[1]);
      warn(
        second,
        second !== line
          ? `'${lineText(second)}' is not a list item of its own (check its indentation: a child is indented under its parent's text); it is ignored`
          : `the list item '${lineText(line)}' holds several links; only the first is used`,
      );
    }
    const link = links[0];
    const title = plain({ type: 'paragraph', children: link.children as PhrasingContent[] }) || lineText(line);
    const t = target(link, line);
    if ('skip' in t) {
      warn(line, `${t.skip}; the entry is ignored`);
      return childrenOf(rest);
    }
    if ('link' in t) {
      if (t.warning) warn(line, t.warning);
      return [{ kind: 'link', title, href: t.link, line, children: childrenOf(rest) }];
    }
    const previous = seen.get(t.path);
    if (previous !== undefined) {
      warn(line, `'${t.path}' is already linked on line ${previous}; a file can be only one page, so this entry is a link page`);
      return [{ kind: 'link', title, href: link.url.trim(), line, children: childrenOf(rest) }];
    }
    seen.set(t.path, line);
    const page: SummaryPage = { kind: 'page', title, path: t.path, line, children: [] };
    const linkTitle = link.title ? cleanTitle(link.title) : '';
    if (linkTitle) page.linkTitle = linkTitle.slice(0, LINK_TITLE_MAX);
    if (t.missing) page.missing = true;
    page.children = childrenOf(rest);
    return [page];
  };

  let group: SummaryGroup | null = null;
  let titled = false;
  const push = (entries: SummaryEntry[]) => {
    if (group) group.children.push(...entries);
    else out.push(...entries);
  };
  root.children.forEach((node) => {
    const line = lineOf(node);
    if (node.type === 'heading') {
      if (!titled && node.depth === 1 && out.length === 0) {
        titled = true; // '# Table of contents'
        return;
      }
      const title = plain(node);
      if (!title) {
        warn(line, 'a group heading without a title is ignored');
        return;
      }
      group = { kind: 'group', title, line, children: [] };
      out.push(group);
    } else if (node.type === 'list') {
      for (const li of node.children) push(item(li));
    } else if (node.type === 'thematicBreak') {
      group = null;
    } else if (node.type === 'html' && /^<!--[\s\S]*-->$/.test(node.value.trim())) {
      // comments are allowed
    } else if (node.type === 'definition') {
      // unused link reference definitions are harmless
    } else {
      warn(line, `unexpected ${describe(node)} ('${lineText(line)}') is ignored; ${FORMAT_HINT}`);
    }
  });
  return { nodes: out, warnings };
}

// ---- Writing ----------------------------------------------------------------------------------

export interface RenderPage {
  kind: 'page';
  title: string;
  /** The file of the page; '' for a page without one (an unlinked parent). */
  path: string;
  linkTitle?: string;
  children: RenderEntry[];
}

export interface RenderLink {
  kind: 'link';
  title: string;
  href: string;
  children: RenderEntry[];
}

export interface RenderComputed {
  kind: 'computed';
  title: string;
  source: ComputedSource;
  children: RenderEntry[];
}

export type RenderEntry = RenderPage | RenderLink | RenderComputed;

export interface RenderGroup {
  kind: 'group';
  title: string;
  children: RenderEntry[];
}

/** A path as a link destination: '#' would start an anchor, so it is percent-encoded (with '%' then). */
function linkUrl(path: string): string {
  return path.includes('#') ? path.replace(/%/g, '%25').replace(/#/g, '%23') : path;
}

/**
 * Link text and destinations toMarkdown writes as they are (test/unit/git/format-fast-paths.test.ts
 * checks it): a large SUMMARY.md is mostly such entries, written without building a tree for each.
 */
export const PLAIN_LINK_TEXT = /^[A-Za-z0-9',.?-]+(?: [A-Za-z0-9',.?-]+)*$/;
export const PLAIN_DESTINATION = /^[A-Za-z0-9._-][A-Za-z0-9._/-]*$/;

export function linkMarkdown(title: string, url: string, linkTitle?: string): string {
  const text = cleanTitle(title) || 'Untitled';
  if (!linkTitle && PLAIN_LINK_TEXT.test(text) && PLAIN_DESTINATION.test(url)) return `[${text}](${url})`;
  const para: Paragraph = {
    type: 'paragraph',
    children: [{ type: 'link', url, title: linkTitle || null, children: [{ type: 'text', value: text }] }],
  };
  return toMarkdown(para).trimEnd();
}

function textMarkdown(title: string): string {
  const para: Paragraph = { type: 'paragraph', children: [{ type: 'text', value: cleanTitle(title) || 'Untitled' }] };
  return toMarkdown(para).trimEnd();
}

function headingMarkdown(title: string, depth: 1 | 2): string {
  const heading: Heading = { type: 'heading', depth, children: [{ type: 'text', value: cleanTitle(title) || 'Untitled' }] };
  return toMarkdown(heading).trimEnd();
}

/** SUMMARY.md in GitBook's canonical style; `dir` is the SUMMARY's folder (links are relative to it). */
export function renderSummary(nodes: Array<RenderEntry | RenderGroup>, dir: string): string {
  const blocks: string[][] = [['# Table of contents']];
  const list = (entries: RenderEntry[]) => {
    const lines: string[] = [];
    const walk = (entry: RenderEntry, depth: number) => {
      const indent = '  '.repeat(depth);
      if (entry.kind === 'computed') {
        const yaml = dumpYaml({
          ...(entry.source.props ? { props: entry.source.props } : {}),
          type: entry.source.type,
          ...(entry.source.dependencies ? { dependencies: entry.source.dependencies } : {}),
        });
        lines.push(`${indent}* \`\`\`yaml`);
        for (const l of yaml.replace(/\n$/, '').split('\n')) lines.push(`${indent}  ${l}`);
        lines.push(`${indent}  \`\`\``);
      } else if (entry.kind === 'link') lines.push(`${indent}* ${linkMarkdown(entry.title, entry.href)}`);
      else if (!entry.path) lines.push(`${indent}* ${textMarkdown(entry.title)}`);
      else lines.push(`${indent}* ${linkMarkdown(entry.title, linkUrl(relativePath(dir, entry.path)), entry.linkTitle)}`);
      for (const child of entry.children) walk(child, depth + 1);
    };
    for (const entry of entries) walk(entry, 0);
    return lines;
  };
  let pending: RenderEntry[] = [];
  let afterGroup = false;
  const flush = () => {
    if (!pending.length) return;
    if (afterGroup) blocks.push(['---']);
    blocks.push(list(pending));
    pending = [];
  };
  for (const node of nodes) {
    if (node.kind !== 'group') {
      pending.push(node);
      continue;
    }
    flush();
    blocks.push([headingMarkdown(node.title, 2)]);
    if (node.children.length) blocks.push(list(node.children));
    afterGroup = true;
  }
  flush();
  return `${blocks.map((b) => b.join('\n')).join('\n\n')}\n`;
}
