// Repository files → page tree and space files.
//
// With a SUMMARY.md (structure.summary) the tree is the SUMMARY's and markdown files it does not
// link are not pages; the readme (structure.readme) is the first page even when the SUMMARY omits
// it. Without one, the tree follows the folders (see fromFolders). A page's title is its SUMMARY
// link text; else its file's leading `# Heading`; else a title made from the file name
// ('Introduction' for the readme). The leading heading is removed from the stored body when it is
// the title (a different heading stays in the body, so nothing written is lost).
import { extractLinks } from '../../content/markdown.js';
import { scanMarkdown } from '../../content/limits.js';
import { conditionalBlockWarnings } from '../../content/conditional-blocks.js';
import { CONFIG_FILE, parseConfig, resolveConfig } from './config.js';
import { contentTypeFor } from './content-type.js';
import { RepoFormatError } from './errors.js';
import { decodeText, parsePageFile } from './page-file.js';
import { basename, dirname, hasScheme, isMarkdownPath, joinPath, pathProblem, resolvePath } from './paths.js';
import { LINK_TITLE_MAX, parseSummary, type SummaryEntry, type SummaryNode } from './summary.js';
import type { ImportedFile, ImportedPage, ParsedRepository } from './types.js';
import { decodeOrKeep } from '../../util/uri.js';

export const ASSETS_DIR = '.gitbook/assets';

const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

/** Title from a file or folder name: extension and ordering prefix ('01-') dropped, separators as spaces. */
function titleFromName(name: string): string {
  const stem = name.replace(/\.(md|markdown)$/i, '');
  const words = stem
    .replace(/^\d+[-_. ]+(?=\S)/, '')
    .replace(/[-_]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return words ? words[0].toUpperCase() + words.slice(1) : stem || name;
}

/** Folders that are not content in the folder layout: dot folders (.git, .github, .gitbook) and node_modules. */
function ignoredInFolders(path: string): boolean {
  return path.split('/').some((s) => s.startsWith('.') || s === 'node_modules');
}

/**
 * URLs of a page body that may point at repository files: markdown links and images, `{% file src %}`,
 * HTML src/href. A body beyond the content limits (src/content/limits.ts) is not parsed: it is
 * imported as written, and only its `{% file %}` and HTML references are followed.
 */
function referencedUrls(markdown: string, overLimit: boolean, mayLinkFile: (markdown: string) => boolean): string[] {
  const urls = overLimit || !mayLinkFile(markdown) ? [] : extractLinks(markdown).map((l) => l.url);
  for (const m of markdown.matchAll(/\{%\s*file\s+src\s*=\s*"([^"]*)"/g)) urls.push(m[1]);
  for (const m of markdown.matchAll(/\s(?:src|href)\s*=\s*"([^"]*)"/g)) urls.push(m[1]);
  return urls;
}

/** `{% include "path" %}` of GitBook's reusable content (the path relative to the page). */
const INCLUDE_TAG = /\{%[ \t]*include[ \t]+(?:src[ \t]*=[ \t]*)?"([^"\n]{1,1024})"[ \t]*%\}/g;

interface Context {
  docs: Map<string, Buffer>;
  rootDir: string;
  readme: string;
  summary: string;
  /** What the import could not use as written (SUMMARY entries...), each naming the file and line. */
  warnings: string[];
  /** Pages (by path) whose body breaks a content limit: kept as written, never parsed here. */
  overLimit: Set<string>;
}

/**
 * A page body past a content limit (src/content/limits.ts) does not stop the import: it is kept as
 * written (readers get it as plain text, never parsed) and a warning names the file and the limit.
 */
function checkBody(ctx: Context, path: string, markdown: string) {
  const violation = scanMarkdown(markdown);
  if (!violation) {
    // `{% if %}` conditions that cannot be read hide their block from every reader: said on import.
    for (const w of conditionalBlockWarnings(markdown)) ctx.warnings.push(`${label(ctx, path)}: ${w}`);
    return;
  }
  ctx.overLimit.add(path);
  // The scan counts lines of the body (front matter and title taken off): moved to the file's lines.
  const text = decodeText(ctx.docs.get(path)!);
  const before = text.endsWith(markdown) ? text.slice(0, text.length - markdown.length).split('\n').length - 1 : 0;
  const message = violation.message.replace(
    /\(line ([\d,]+)\)/,
    (_, n: string) => `(line ${(Number(n.replace(/,/g, '')) + before).toLocaleString('en-US')})`,
  );
  ctx.warnings.push(
    `${label(ctx, path)}: ${message} (the '${violation.limit}' limit of a page body); the page is imported as written and shown as plain text`,
  );
}

function label(ctx: Context, path: string): string {
  return joinPath(ctx.rootDir, path);
}

function loadPage(ctx: Context, path: string, fallbackTitle: string, summaryTitle?: string, linkTitle?: string): ImportedPage {
  let parsed: ReturnType<typeof parsePageFile>;
  try {
    parsed = parsePageFile(ctx.docs.get(path)!, label(ctx, path));
  } catch (err) {
    if (!(err instanceof RepoFormatError)) throw err;
    // A page whose front matter cannot be read is imported as written, with a warning.
    ctx.warnings.push(`${err.message}; the file is imported without its front matter`);
    const page: ImportedPage = {
      path,
      type: 'document',
      title: summaryTitle || fallbackTitle,
      markdown: decodeText(ctx.docs.get(path)!),
      children: [],
    };
    if (linkTitle) page.linkTitle = linkTitle;
    checkBody(ctx, path, page.markdown);
    return page;
  }
  let title: string;
  let markdown: string;
  let sidebar = linkTitle;
  if (parsed.heading) {
    // The file's heading is the page title; a different SUMMARY text is the sidebar title (so an
    // export writes it back to SUMMARY.md and never adds a second heading to the file).
    title = parsed.heading;
    markdown = parsed.bodyAfterHeading;
    if (!sidebar && summaryTitle && summaryTitle !== parsed.heading) sidebar = summaryTitle.slice(0, LINK_TITLE_MAX);
  } else {
    title = summaryTitle || fallbackTitle;
    markdown = parsed.body;
  }
  const page: ImportedPage = { path, type: 'document', title, ...parsed.meta, markdown, children: [] };
  checkBody(ctx, path, markdown);
  if (sidebar && sidebar !== title) page.linkTitle = sidebar;
  if (parsed.extra) {
    page.extraFrontMatter = parsed.extra;
    page.frontMatterOrder = parsed.order;
    const cover = coverOf(ctx, path, parsed.extra.cover);
    if (cover) {
      page.cover = cover;
      // GitBook shows a page's cover unless its layout hides it.
      if (page.layout?.cover === undefined) page.layout = { ...page.layout, cover: true };
    }
  }
  return page;
}

/** GitBook's `cover:` front matter of the page at `path`: an image file of the docs root (relative to the page, or root-absolute) or an http(s) URL. */
function coverOf(ctx: Context, path: string, value: unknown): ImportedPage['cover'] {
  if (typeof value !== 'string' || !value.trim() || value.length > 2048) return undefined;
  const raw = value.trim();
  if (/^https?:\/\//i.test(raw)) return { url: raw };
  if (hasScheme(raw) || pathProblem(raw.replace(/^\/+/, ''))) return undefined;
  const absolute = raw.startsWith('/') && !raw.startsWith('//');
  for (const candidate of new Set([raw.replace(/^\/+/, ''), decodeOrKeep(raw.replace(/^\/+/, ''))])) {
    try {
      const file = resolvePath(candidate, 'link', absolute ? '' : dirname(path));
      if (ctx.docs.has(file) && !isMarkdownPath(file)) return { path: file };
    } catch {
      /* not a path inside the docs root */
    }
  }
  return undefined;
}

/** Title of a page whose file has no heading (and no SUMMARY title). */
function defaultTitle(ctx: Context, path: string): string {
  if (path === ctx.readme) return 'Introduction';
  if (basename(path).toLowerCase() === 'readme.md' && dirname(path)) return titleFromName(basename(dirname(path)));
  return titleFromName(basename(path));
}

// ---- With a SUMMARY.md ------------------------------------------------------------------------

function fromSummary(ctx: Context): ImportedPage[] {
  const lower = new Map<string, string>();
  for (const p of ctx.docs.keys()) lower.set(p.toLowerCase(), p);
  const { nodes, warnings } = parseSummary(decodeText(ctx.docs.get(ctx.summary)!), {
    label: label(ctx, ctx.summary),
    dir: dirname(ctx.summary),
    path: ctx.summary,
    exists: (p) => ctx.docs.has(p),
    caseInsensitiveMatch: (p) => lower.get(p.toLowerCase()),
  });
  ctx.warnings.push(...warnings);
  const linked = new Set<string>();
  const entry = (node: SummaryEntry): ImportedPage => {
    const children = node.children.map(entry);
    switch (node.kind) {
      case 'link':
        return { path: '', type: 'link', title: node.title, href: node.href, markdown: '', children };
      case 'computed':
        return { path: '', type: 'computed', title: node.title, computed: node.source, markdown: '', children };
      case 'parent':
        return { path: '', type: 'document', title: node.title, markdown: '', children };
      case 'page': {
        linked.add(node.path);
        if (node.missing) {
          const p: ImportedPage = { path: node.path, type: 'document', title: node.title, markdown: '', missing: true, children };
          if (node.linkTitle) p.linkTitle = node.linkTitle;
          return p;
        }
        const p = loadPage(ctx, node.path, defaultTitle(ctx, node.path), node.title || undefined, node.linkTitle);
        p.children = children;
        return p;
      }
    }
  };
  const pages = nodes.map((node: SummaryNode): ImportedPage => {
    if (node.kind !== 'group') return entry(node);
    return { path: '', type: 'group', title: node.title, markdown: '', children: node.children.map(entry) };
  });
  // The readme is the first page even when SUMMARY.md does not list it.
  if (ctx.docs.has(ctx.readme) && !linked.has(ctx.readme)) pages.unshift(loadPage(ctx, ctx.readme, defaultTitle(ctx, ctx.readme)));
  return pages;
}

// ---- Without: the folder layout ---------------------------------------------------------------

interface Folder {
  path: string;
  files: string[];
  folders: Map<string, Folder>;
}

/**
 * The tree from the folders: the readme first, then each folder's markdown files and subfolders
 * sorted by name (numbers in names compare as numbers: 2-x before 10-x). A folder's README.md is
 * its page and its other files and folders are the page's children. A folder without a README.md is
 * a group when it is at the top (groups exist only there) and an empty page titled from the folder
 * name below; that page's path is the README.md it would have, which the next export writes.
 */
function fromFolders(ctx: Context): ImportedPage[] {
  const top: Folder = { path: '', files: [], folders: new Map() };
  for (const path of ctx.docs.keys()) {
    if (!isMarkdownPath(path) || ignoredInFolders(path) || path === ctx.readme) continue;
    let folder = top;
    for (const segment of path.split('/').slice(0, -1)) {
      let next = folder.folders.get(segment);
      if (!next) folder.folders.set(segment, (next = { path: joinPath(folder.path, segment), files: [], folders: new Map() }));
      folder = next;
    }
    folder.files.push(path);
  }
  const entries = (folder: Folder, exclude?: string): ImportedPage[] => {
    type Entry = { name: string; file?: string; folder?: Folder };
    const list: Entry[] = [
      ...folder.files.filter((f) => f !== exclude).map((f) => ({ name: basename(f).replace(/\.(md|markdown)$/i, ''), file: f })),
      ...[...folder.folders.entries()].map(([name, f]) => ({ name, folder: f })),
    ];
    list.sort(
      (a, b) => collator.compare(a.name, b.name) || (a.file ? 0 : 1) - (b.file ? 0 : 1) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
    );
    return list.map((e) => (e.file ? loadPage(ctx, e.file, defaultTitle(ctx, e.file)) : folderPage(e.folder!)));
  };
  const folderPage = (folder: Folder): ImportedPage => {
    const name = basename(folder.path);
    const readme = folder.files.find((f) => basename(f).toLowerCase() === 'readme.md');
    const children = entries(folder, readme);
    if (readme) return { ...loadPage(ctx, readme, titleFromName(name)), children };
    if (!dirname(folder.path)) return { path: '', type: 'group', title: titleFromName(name), markdown: '', children };
    return { path: joinPath(folder.path, 'README.md'), type: 'document', title: titleFromName(name), markdown: '', children };
  };
  const pages = entries(top);
  if (ctx.docs.has(ctx.readme)) pages.unshift(loadPage(ctx, ctx.readme, defaultTitle(ctx, ctx.readme)));
  return pages;
}

// ---- Files ------------------------------------------------------------------------------------

/**
 * The space's files: everything under `.gitbook/assets/` (dot files excepted), plus any other
 * non-markdown file of the docs root that a page links to or embeds by relative path.
 */
/**
 * Whether a page's Markdown links could name a file the import does not keep already (the assets
 * folder is kept whole): only then are its links parsed. A link naming a file ends with the last
 * run of letters or digits of its name (`png` of `img-1.png`, `license` of `LICENSE`), which
 * escapes and percent-encoding leave as they are in practice; a page without any of them names
 * none. So a repository keeping its images in `.gitbook/assets`, as GitBook writes it, parses no
 * links at all, and others parse only the pages that may link a file.
 */
function linkFilter(ctx: Context, kept: Set<string>): (markdown: string) => boolean {
  const needles = new Set<string>();
  for (const path of ctx.docs.keys()) {
    if (kept.has(path) || isMarkdownPath(path)) continue;
    const runs = basename(path)
      .toLowerCase()
      .match(/[a-z0-9]+/g);
    if (!runs) return () => true;
    needles.add(runs[runs.length - 1]);
    if (needles.size > 64) return () => true;
  }
  if (!needles.size) return () => false;
  const list = [...needles];
  return (markdown) => {
    const lower = markdown.toLowerCase();
    return list.some((n) => lower.includes(n));
  };
}

function collectFiles(ctx: Context, pages: ImportedPage[]): ImportedFile[] {
  const paths = new Set<string>();
  for (const path of ctx.docs.keys()) {
    if (path.startsWith(`${ASSETS_DIR}/`) && !basename(path).startsWith('.')) paths.add(path);
  }
  const mayLinkFile = linkFilter(ctx, paths);
  const visit = (page: ImportedPage) => {
    if (page.type === 'document') {
      for (const raw of referencedUrls(page.markdown, ctx.overLimit.has(page.path), mayLinkFile)) {
        const trimmed = raw.trim().replace(/[?#].*$/, '');
        // A root-absolute path ('/images/a.png') is relative to the docs root, as GitBook resolves it.
        const absolute = trimmed.startsWith('/') && !trimmed.startsWith('//');
        const url = absolute ? trimmed.replace(/^\/+/, '') : trimmed;
        if (!url || hasScheme(url) || pathProblem(url)) continue;
        for (const candidate of new Set([url, decodeOrKeep(url)])) {
          let path: string;
          try {
            path = resolvePath(candidate, 'link', absolute ? '' : dirname(page.path));
          } catch {
            continue;
          }
          if (ctx.docs.has(path) && !isMarkdownPath(path)) {
            paths.add(path);
            break;
          }
        }
      }
      // A cover image outside the assets folder is a file of the space too.
      if (page.cover && 'path' in page.cover) paths.add(page.cover.path);
      // Reusable content (`{% include "../.gitbook/includes/x.md" %}`): the Markdown file it names is
      // kept as a file of the space, which the published view and the PDF put in the tag's place.
      for (const m of page.markdown.matchAll(INCLUDE_TAG)) {
        let path: string;
        try {
          path = resolvePath(m[1], 'link', dirname(page.path));
        } catch {
          continue;
        }
        if (path && ctx.docs.has(path) && isMarkdownPath(path)) paths.add(path);
      }
    }
    page.children.forEach(visit);
  };
  pages.forEach(visit);
  return [...paths]
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((path) => ({ path, name: basename(path), contentType: contentTypeFor(path), content: ctx.docs.get(path)! }));
}

/**
 * Reads a docs-as-code repository. `files`: every file under the project directory, keyed by path
 * relative to it. With a SUMMARY.md the tree is the SUMMARY's; without, it follows the folders.
 */
export function parseRepository(files: Map<string, Buffer>): ParsedRepository {
  const all = new Map<string, Buffer>();
  for (const [key, content] of files) {
    const path = resolvePath(key, 'repository file');
    if (!path) throw new RepoFormatError(`repository file: '${key}' is not a file path`);
    all.set(path, content);
  }
  const configFile = all.get(CONFIG_FILE);
  const warnings: string[] = [];
  const config = parseConfig(configFile ? decodeText(configFile) : undefined, warnings);
  const { rootDir, readme, summary } = resolveConfig(config);
  const docs = new Map<string, Buffer>();
  const prefix = rootDir ? `${rootDir}/` : '';
  for (const [path, content] of all) if (path.startsWith(prefix)) docs.set(path.slice(prefix.length), content);
  if (rootDir && docs.size === 0) throw new RepoFormatError(`${CONFIG_FILE} root: the folder '${rootDir}' holds no files`);
  const ctx: Context = { docs, rootDir, readme, summary, warnings, overLimit: new Set() };
  const pages = docs.has(summary) ? fromSummary(ctx) : fromFolders(ctx);
  return { config, pages, files: collectFiles(ctx, pages), warnings: ctx.warnings };
}
