// Repository paths: '/'-separated, relative, normalised ('a/b.md', '' for the folder itself). Every
// path read from the repository (root, SUMMARY links, redirects, file names) goes through
// `resolvePath`, so nothing the format layer returns or writes can leave the directory it is
// relative to.
import { RepoFormatError } from './errors.js';

const SCHEME = /^[a-zA-Z][a-zA-Z0-9+.-]*:/;

/** The problem with a path as written, or null when it is an acceptable relative path. */
export function pathProblem(path: string): string | null {
  if (path.includes('\0')) return 'contains a NUL character';
  if (path.includes('\\')) return 'contains a backslash (use "/")';
  if (path.startsWith('/')) return 'is absolute';
  if (/^[a-zA-Z]:/.test(path)) return 'is absolute';
  return null;
}

/**
 * Resolves `path` (relative, '/'-separated, '.' and '..' allowed while they stay inside) against the
 * folder `base` ('' for the top). Throws a RepoFormatError naming `what` and the path when it is
 * absolute, contains a backslash or NUL, or climbs above the top.
 */
export function resolvePath(path: string, what: string, base = ''): string {
  const problem = pathProblem(path);
  if (problem) throw new RepoFormatError(`${what}: path '${printable(path)}' ${problem}`);
  const out = base ? base.split('/') : [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (out.length === 0) throw new RepoFormatError(`${what}: path '${printable(path)}' escapes the project directory`);
      out.pop();
    } else out.push(segment);
  }
  return out.join('/');
}

/** True for `scheme:` URLs (https:, mailto:, ...). */
export function hasScheme(url: string): boolean {
  return SCHEME.test(url) && !/^[a-zA-Z]:[\\/]/.test(url);
}

export function joinPath(dir: string, name: string): string {
  return dir ? (name ? `${dir}/${name}` : dir) : name;
}

export function dirname(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '' : path.slice(0, i);
}

export function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

export function extname(path: string): string {
  const name = basename(path);
  const i = name.lastIndexOf('.');
  return i <= 0 ? '' : name.slice(i).toLowerCase();
}

/** `to` written relative to the folder `fromDir` (both normalised): 'b.md', '../a/b.md'. */
export function relativePath(fromDir: string, to: string): string {
  const from = fromDir ? fromDir.split('/') : [];
  const target = to.split('/');
  let common = 0;
  while (common < from.length && common < target.length - 1 && from[common] === target[common]) common++;
  return [...from.slice(common).map(() => '..'), ...target.slice(common)].join('/');
}

export function isMarkdownPath(path: string): boolean {
  const ext = extname(path);
  return ext === '.md' || ext === '.markdown';
}

/** A path for messages: control characters made visible. */
function printable(path: string): string {
  return path.replace(/[\u0000-\u001f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}
