// Page tree and space files → repository files, in GitBook's canonical layout:
//
//   SUMMARY.md                    '# Table of contents', '* [Title](path.md)' (2-space nesting), '## Group'
//   README.md                     the first page (unless it already has a file of its own)
//   <dir>/<slug>.md               a new page without children
//   <dir>/<slug>/README.md        a new page with children (its children live in <dir>/<slug>/)
//   <group slug>/...              the pages of a group live in a folder named after the group's slug
//   .gitbook/assets/<name>        a new file ('name (1).png' on a clash, as GitBook does)
//
// where <dir> is the folder of the parent's children: the folder of a README.md parent, the parent's
// path without '.md' otherwise, the group's folder for a group's pages, the docs root at the top.
// Pages and files keep the path they were imported from (`gitPath`) when it is still a valid,
// unclaimed path, so an unchanged import exports to the same files. Kept paths are compared as git
// compares them (case-sensitively: `DELETE.png` and `delete.png` are two files and stay so); a new
// path must differ from every taken path in any case (the clone may be on a case-insensitive file
// system), and a file never takes the name of a folder or the other way round.
//
// Link pages (`* [Title](https://...)`), computed pages (GitBook's OpenAPI reference block) and
// empty pages with children but no file (unlinked parents, `* Parent`) are SUMMARY.md entries only.
//
// Groups exist only at the top in SUMMARY.md; a group nested in a page or in another group is
// written as a page with an empty body. A group's own metadata (hidden...) has nowhere to go.
import { slugify } from '../../content/markdown.js';
import { resolveConfig } from './config.js';
import { ASSETS_DIR } from './import.js';
import { renderDocument } from './page-file.js';
import { basename, dirname, isMarkdownPath, joinPath, resolvePath } from './paths.js';
import { renderSummary, type RenderEntry, type RenderGroup } from './summary.js';
import type { ExportFile, ExportPage, GitBookConfig } from './types.js';

/**
 * The paths taken so far. Paths kept from the repository (`exact`) are compared as git compares
 * them, case-sensitively: `DELETE.png` and `delete.png` in one folder are two files of the
 * repository and both stay as they are. A new name (a page or file created on the platform) must
 * not clash with any taken path in any case, so that the clone works on a case-insensitive file
 * system too; a file never takes the name of a folder or the other way round.
 */
class PathRegistry {
  private files = new Set<string>();
  private dirs = new Set<string>();
  private filesFolded = new Set<string>();
  private dirsFolded = new Set<string>();

  free(path: string, exact = false): boolean {
    const [files, dirs, key] = exact ? [this.files, this.dirs, path] : [this.filesFolded, this.dirsFolded, path.toLowerCase()];
    if (files.has(key) || dirs.has(key)) return false;
    for (let d = dirname(key); d; d = dirname(d)) if (files.has(d)) return false;
    return true;
  }

  /** Whether new files can go in the folder `dir`: neither it nor a folder above it is a file (in any case). */
  dirOpen(dir: string): boolean {
    for (let d = dir.toLowerCase(); d; d = dirname(d)) if (this.filesFolded.has(d)) return false;
    return true;
  }

  /** `dir`, or the nearest folder above it that can hold files. */
  openDir(dir: string): string {
    let d = dir;
    while (d && !this.dirOpen(d)) d = dirname(d);
    return d;
  }

  add(path: string): void {
    this.files.add(path);
    for (let d = dirname(path); d; d = dirname(d)) this.dirs.add(d);
    const key = path.toLowerCase();
    this.filesFolded.add(key);
    for (let d = dirname(key); d; d = dirname(d)) this.dirsFolded.add(d);
  }
}

/** A stored gitPath, normalised, when it is usable as-is; undefined otherwise. */
function usableGitPath(gitPath: string | undefined, kind: 'page' | 'file', summary: string): string | undefined {
  if (!gitPath) return undefined;
  let path: string;
  try {
    path = resolvePath(gitPath, 'gitPath');
  } catch {
    return undefined;
  }
  if (!path || path === summary) return undefined;
  if (/[\u0000-\u001f]/.test(path)) return undefined;
  if (kind === 'page' && (!isMarkdownPath(path) || path.startsWith('.gitbook/'))) return undefined;
  if (kind === 'file' && `${ASSETS_DIR}/`.startsWith(`${path}/`)) return undefined; // would block the assets folder
  return path;
}

/**
 * A page written as a plain `* Title` entry of SUMMARY.md, without a file: an empty page with
 * children, no metadata and no file of its own (how an unlinked SUMMARY parent imports).
 */
function unlinkedParent(page: ExportPage, summary: string): boolean {
  return (
    page.type === 'document' &&
    page.children.length > 0 &&
    !usableGitPath(page.gitPath, 'page', summary) &&
    (page.markdown ?? '').trim() === '' &&
    !page.description &&
    !page.icon &&
    !page.emoji &&
    !page.hidden &&
    !page.layout
  );
}

/** One path segment from a slug: undefined when it is empty, hidden or not a plain name. */
function segment(slug: string | undefined): string | undefined {
  const s = (slug ?? '').trim();
  if (!s || s.startsWith('.') || /[/\\\u0000-\u001f]/.test(s)) return undefined;
  return s;
}

function fileName(name: string): string {
  const s = name.replace(/[/\\\u0000-\u001f]/g, '-').trim();
  return s && s !== '.' && s !== '..' ? s : 'file';
}

interface Planned {
  page: ExportPage;
  /** False for a group written as a page (nested groups). */
  group: boolean;
  /** Link and computed pages, and pages without a file (unlinked SUMMARY parents): SUMMARY.md only. */
  fileless: boolean;
  path?: string;
  children: Planned[];
}

/** Folder holding the children of the page at `path`. */
function childrenDir(path: string): string {
  return basename(path).toLowerCase() === 'readme.md' ? dirname(path) : path.replace(/\.(md|markdown)$/i, '');
}

/**
 * The files (paths relative to the project directory) that represent the tree: SUMMARY.md, one
 * file per page, the space files. `config` (from the existing .gitbook.yaml) places them; the
 * `.gitbook.yaml` itself is never part of the result, the existing one stays as the user wrote it.
 */
export function generateRepository<C = Buffer>(
  pages: ExportPage[],
  files: ExportFile<C>[],
  config?: GitBookConfig,
): Map<string, Buffer | C> {
  const { rootDir, readme, summary } = resolveConfig(config);
  const used = new PathRegistry();
  used.add(summary);

  const plan = (page: ExportPage, top: boolean): Planned => ({
    page,
    group: top && page.type === 'group',
    fileless: page.type === 'link' || page.type === 'computed' || unlinkedParent(page, summary),
    children: page.children.map((c) => plan(c, false)),
  });
  const tree = pages.map((p) => plan(p, true));
  // The first page a reader sees is the readme, a file even when empty.
  const first = tree.map((n) => (n.group ? n.children[0] : n)).find((n) => n !== undefined);
  if (first?.page.type === 'document') first.fileless = false;
  const documents: Planned[] = [];
  const collect = (n: Planned) => {
    if (!n.group && !n.fileless) documents.push(n);
    n.children.forEach(collect);
  };
  tree.forEach(collect);

  // 1. Kept paths.
  for (const doc of documents) {
    const path = usableGitPath(doc.page.gitPath, 'page', summary);
    if (path && used.free(path, true)) {
      doc.path = path;
      used.add(path);
    }
  }
  // ... and kept file paths.
  const filePaths: Array<string | undefined> = files.map((f) => {
    const path = usableGitPath(f.gitPath, 'file', summary);
    if (path && used.free(path, true)) {
      used.add(path);
      return path;
    }
    return undefined;
  });
  // 2. The first page a reader sees is the readme.
  if (first && !first.fileless && !first.path && used.free(readme)) {
    first.path = readme;
    used.add(readme);
  }
  // 3. New paths, parents before children (`dir` is always open, so a free name is always found).
  const place = (n: Planned, dir: string) => {
    if (n.group) {
      const groupDir = used.openDir(segment(n.page.slug) ?? slugify(n.page.title || 'group'));
      for (const c of n.children) place(c, groupDir);
      return;
    }
    if (n.fileless) {
      for (const c of n.children) place(c, dir);
      return;
    }
    if (!n.path) {
      const base = segment(n.page.slug) ?? slugify(n.page.title || 'page');
      for (let i = 1; ; i++) {
        const name = i === 1 ? base : `${base}-${i}`;
        const candidate = n.children.length ? joinPath(dir, `${name}/README.md`) : joinPath(dir, `${name}.md`);
        if (used.free(candidate)) {
          n.path = candidate;
          used.add(candidate);
          break;
        }
      }
    }
    for (const c of n.children) place(c, used.openDir(childrenDir(n.path!)));
  };
  tree.forEach((n) => place(n, ''));

  // 4. New files.
  files.forEach((f, i) => {
    if (filePaths[i]) return;
    const name = fileName(f.name);
    const dot = name.lastIndexOf('.');
    const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
    for (let n = 0; ; n++) {
      const candidate = `${ASSETS_DIR}/${n === 0 ? name : `${stem} (${n})${ext}`}`;
      if (used.free(candidate)) {
        used.add(candidate);
        filePaths[i] = candidate;
        break;
      }
    }
  });

  const out = new Map<string, Buffer | C>();
  const toEntry = (n: Planned): RenderEntry => {
    const children = n.children.map(toEntry);
    const { title } = n.page;
    if (n.page.type === 'link') return { kind: 'link', title, href: n.page.href || '#', children };
    if (n.page.type === 'computed') return { kind: 'computed', title, source: n.page.computed ?? { type: 'builtin:openapi' }, children };
    return { kind: 'page', title, path: n.path ?? '', ...(n.page.linkTitle ? { linkTitle: n.page.linkTitle } : {}), children };
  };
  const toRender = (n: Planned): RenderEntry | RenderGroup =>
    n.group ? { kind: 'group', title: n.page.title, children: n.children.map(toEntry) } : toEntry(n);
  out.set(joinPath(rootDir, summary), Buffer.from(renderSummary(tree.map(toRender), dirname(summary)), 'utf8'));
  for (const doc of documents) out.set(joinPath(rootDir, doc.path!), Buffer.from(renderDocument(doc.page), 'utf8'));
  files.forEach((f, i) => out.set(joinPath(rootDir, filePaths[i]!), f.content));
  return out;
}
