// SUMMARY.md, the table of contents:
//
//   # Table of contents            optional title (a first level-1 heading), ignored
//
//   * [Introduction](README.md)    a page: link text = title, target = its file
//   * [Guide](guide/README.md)
//     * [Install](guide/install.md)   nesting = child pages
//
//   ## Reference                   any other heading starts a group
//
//   * [API](reference/api.md)      pages of the group, until the next heading
//
//   ---                            a thematic break ends the group: pages after it are top-level
//
// Parsed with the markdown parser (mdast). Anything else (paragraphs, list items that are not a
// single link, links to other things than existing markdown files of the docs root, a file linked
// twice) is a RepoFormatError naming the line.
import type { Heading, Link, List, ListItem, Paragraph, RootContent } from 'mdast';
import { toMarkdown } from 'mdast-util-to-markdown';
import { toString } from 'mdast-util-to-string';
import { parseMarkdown } from '../../content/markdown.js';
import { scanMarkdown } from '../../content/limits.js';
import { RepoFormatError } from './errors.js';
import { hasScheme, isMarkdownPath, joinPath, relativePath, resolvePath } from './paths.js';
import { cleanTitle } from './page-file.js';
import { decodeOrKeep } from '../../util/uri.js';

export interface SummaryPage {
  kind: 'page';
  title: string;
  /** Relative to the docs root. */
  path: string;
  line: number;
  children: SummaryPage[];
}

interface SummaryGroup {
  kind: 'group';
  title: string;
  line: number;
  children: SummaryPage[];
}

export type SummaryNode = SummaryPage | SummaryGroup;

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

export function parseSummary(source: string, ctx: SummaryContext): SummaryNode[] {
  const tooComplex = scanMarkdown(source);
  if (tooComplex) throw new RepoFormatError(`${ctx.label}: ${tooComplex.message}`);
  const root = parseMarkdown(source);
  const sourceLines = source.split('\n');
  const at = (line: number) => `${ctx.label} line ${line}`;
  const lineText = (line: number) => (sourceLines[line - 1] ?? '').trim();
  const lineOf = (node: { position?: { start: { line: number } } }) => node.position?.start.line ?? 0;
  const seen = new Map<string, number>();
  const out: SummaryNode[] = [];

  const target = (link: Link, line: number): string => {
    const url = link.url.trim();
    const where = at(line);
    if (!url) throw new RepoFormatError(`${where}: the link '${lineText(line)}' has no target`);
    if (hasScheme(url))
      throw new RepoFormatError(`${where}: '${url}' is an external link; only markdown files of the repository can be pages`);
    const candidates = [...new Set([url, decodeOrKeep(url)])];
    let first: string | undefined;
    for (const candidate of candidates) {
      let path = resolvePath(candidate, where, ctx.dir);
      const folderReadme = joinPath(path, 'README.md');
      if (candidate.endsWith('/') || !path || (!isMarkdownPath(path) && ctx.exists(folderReadme))) path = folderReadme;
      if (path === ctx.path) throw new RepoFormatError(`${where}: '${url}' links to the table of contents itself`);
      if (!isMarkdownPath(path)) continue;
      first ??= path;
      if (ctx.exists(path)) return path;
    }
    if (url.includes('#')) throw new RepoFormatError(`${where}: '${url}' links to an anchor; a page must link to a whole markdown file`);
    if (!first) throw new RepoFormatError(`${where}: '${url}' is not a markdown file (.md)`);
    const other = ctx.caseInsensitiveMatch(first);
    throw new RepoFormatError(
      `${where}: '${url}' links to a file that does not exist${other ? ` (did you mean '${relativePath(ctx.dir, other)}'? paths are case-sensitive)` : ''}`,
    );
  };

  const item = (node: ListItem): SummaryPage => {
    const line = lineOf(node);
    const [head, ...rest] = node.children;
    if (!head || head.type !== 'paragraph') {
      throw new RepoFormatError(`${at(line)}: the list item '${lineText(line)}' is not a link such as '* [Title](page.md)'`);
    }
    const inline = (head as Paragraph).children.filter((n) => !(n.type === 'text' && n.value.trim() === '') && n.type !== 'break');
    const links = inline.filter((n): n is Link => n.type === 'link');
    if (links.length > 1) {
      const second = lineOf(links[1]);
      throw new RepoFormatError(
        second !== line
          ? `${at(second)}: '${lineText(second)}' is not a list item of its own: check its indentation (a child is indented under its parent's text)`
          : `${at(line)}: the list item '${lineText(line)}' holds several links; it must be exactly one link such as '* [Title](page.md)'`,
      );
    }
    if (inline.length !== 1 || links.length !== 1) {
      throw new RepoFormatError(`${at(line)}: the list item '${lineText(line)}' is not a link such as '* [Title](page.md)'`);
    }
    const link = links[0];
    const path = target(link, line);
    const previous = seen.get(path);
    if (previous !== undefined)
      throw new RepoFormatError(`${at(line)}: '${path}' is already linked on line ${previous}; a file can be only one page`);
    seen.set(path, line);
    const children: SummaryPage[] = [];
    for (const child of rest) {
      if (child.type !== 'list') {
        const l = lineOf(child);
        throw new RepoFormatError(
          `${at(l)}: unexpected ${describe(child as RootContent)} inside a list item ('${lineText(l)}'); child pages are list items indented under their parent`,
        );
      }
      for (const sub of (child as List).children) children.push(item(sub));
    }
    return { kind: 'page', title: cleanTitle(toString(link)), path, line, children };
  };

  let group: SummaryGroup | null = null;
  let titled = false;
  root.children.forEach((node) => {
    const line = lineOf(node);
    if (node.type === 'heading') {
      if (!titled && node.depth === 1 && out.length === 0) {
        titled = true; // '# Table of contents'
        return;
      }
      const title = cleanTitle(toString(node));
      if (!title) throw new RepoFormatError(`${at(line)}: a group heading needs a title`);
      group = { kind: 'group', title, line, children: [] };
      out.push(group);
    } else if (node.type === 'list') {
      for (const li of node.children) {
        const page = item(li);
        if (group) group.children.push(page);
        else out.push(page);
      }
    } else if (node.type === 'thematicBreak') {
      group = null;
    } else if (node.type === 'html' && /^<!--[\s\S]*-->$/.test(node.value.trim())) {
      // comments are allowed
    } else if (node.type === 'definition') {
      // unused link reference definitions are harmless
    } else {
      throw new RepoFormatError(`${at(line)}: unexpected ${describe(node)} ('${lineText(line)}'); ${FORMAT_HINT}`);
    }
  });
  return out;
}

// ---- Writing ----------------------------------------------------------------------------------

export interface RenderPage {
  kind: 'page';
  title: string;
  path: string;
  children: RenderPage[];
}

export interface RenderGroup {
  kind: 'group';
  title: string;
  children: RenderPage[];
}

/** A path as a link destination: '#' would start an anchor, so it is percent-encoded (with '%' then). */
function linkUrl(path: string): string {
  return path.includes('#') ? path.replace(/%/g, '%25').replace(/#/g, '%23') : path;
}

function linkMarkdown(title: string, url: string): string {
  const para: Paragraph = {
    type: 'paragraph',
    children: [{ type: 'link', url, children: [{ type: 'text', value: cleanTitle(title) || 'Untitled' }] }],
  };
  return toMarkdown(para).trimEnd();
}

function headingMarkdown(title: string, depth: 1 | 2): string {
  const heading: Heading = { type: 'heading', depth, children: [{ type: 'text', value: cleanTitle(title) || 'Untitled' }] };
  return toMarkdown(heading).trimEnd();
}

/** SUMMARY.md in GitBook's canonical style; `dir` is the SUMMARY's folder (links are relative to it). */
export function renderSummary(nodes: Array<RenderPage | RenderGroup>, dir: string): string {
  const blocks: string[][] = [['# Table of contents']];
  const list = (pages: RenderPage[]) => {
    const lines: string[] = [];
    const walk = (page: RenderPage, depth: number) => {
      lines.push(`${'  '.repeat(depth)}* ${linkMarkdown(page.title, linkUrl(relativePath(dir, page.path)))}`);
      for (const child of page.children) walk(child, depth + 1);
    };
    for (const page of pages) walk(page, 0);
    return lines;
  };
  let pending: RenderPage[] = [];
  let afterGroup = false;
  const flush = () => {
    if (!pending.length) return;
    if (afterGroup) blocks.push(['---']);
    blocks.push(list(pending));
    pending = [];
  };
  for (const node of nodes) {
    if (node.kind === 'page') {
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
