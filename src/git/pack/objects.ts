// Tree and commit objects parsed the way isomorphic-git's readTree / readCommit give them (same
// entry order, modes, unsafe-name refusal and message), for objects read through ObjectStore.

export interface TreeEntry {
  mode: string;
  path: string;
  oid: string;
  type: 'blob' | 'tree' | 'commit';
}

export class UnsafeTreeEntryError extends Error {}

function modeType(mode: string): TreeEntry['type'] {
  switch (mode) {
    case '040000':
      return 'tree';
    case '100644':
    case '100755':
    case '120000':
      return 'blob';
    case '160000':
      return 'commit';
  }
  throw new UnsafeTreeEntryError(`Unexpected tree entry mode: ${mode}`);
}

/** Names git refuses in a tree (verify_path): separators, `.`, `..`, `.git` and its NTFS/HFS aliases. */
function unsafeName(name: string): boolean {
  const hfsClean = name.replace(/[\u200C-\u200F\u202A-\u202E\u206A-\u206F\uFEFF]/g, '');
  const normalized = hfsClean
    .split(':')[0]!
    .toLowerCase()
    .replace(/[. ]+$/, '');
  return (
    name.includes('\\') ||
    name.includes('/') ||
    hfsClean === '.' ||
    hfsClean === '..' ||
    normalized === '.git' ||
    /^\.?git~[1-9]$/.test(normalized)
  );
}

const NEEDS_CODE_POINT_ORDER = /[\uD800-\uDFFF]/;

function compareStrings(a: string, b: string): number {
  if (!NEEDS_CODE_POINT_ORDER.test(a) && !NEEDS_CODE_POINT_ORDER.test(b)) return a < b ? -1 : a > b ? 1 : 0;
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
    if (d) return d;
  }
  return x.length - y.length;
}

export function parseTree(buf: Buffer): TreeEntry[] {
  const entries: TreeEntry[] = [];
  let cursor = 0;
  while (cursor < buf.length) {
    const space = buf.indexOf(32, cursor);
    const nul = buf.indexOf(0, cursor);
    if (space === -1 || nul === -1 || nul + 21 > buf.length) throw new UnsafeTreeEntryError('malformed tree object');
    let mode = buf.toString('utf8', cursor, space);
    if (mode === '40000') mode = '040000';
    const type = modeType(mode);
    const name = buf.toString('utf8', space + 1, nul);
    if (unsafeName(name)) throw new UnsafeTreeEntryError(`The tree has an unsafe file name: ${JSON.stringify(name)}`);
    entries.push({ mode, path: name, oid: buf.toString('hex', nul + 1, nul + 21), type });
    cursor = nul + 21;
  }
  return entries.sort((a, b) => compareStrings(a.path, b.path));
}

/** An entry to write into a tree object: its name, mode (`040000` or `40000` for a tree) and id. */
export interface NewTreeEntry {
  name: string;
  mode: string;
  oid: string;
}

/**
 * A tree object's bytes as git writes them: entries in git's order (names compared as UTF-8 bytes,
 * a tree's as if it ended with `/`), each `<mode> <name>\0<20-byte id>`, modes without a leading zero.
 */
export function treeObject(entries: NewTreeEntry[]): Buffer {
  const items = entries.map((e) => {
    const mode = e.mode.replace(/^0+/, '');
    const name = Buffer.from(e.name, 'utf8');
    return { key: mode === '40000' ? Buffer.concat([name, Buffer.from('/')]) : name, mode, name, oid: e.oid };
  });
  items.sort((a, b) => Buffer.compare(a.key, b.key));
  return Buffer.concat(items.flatMap((e) => [Buffer.from(`${e.mode} `, 'latin1'), e.name, Buffer.from([0]), Buffer.from(e.oid, 'hex')]));
}

export interface CommitHeaders {
  message: string;
  tree: string;
  parents: string[];
}

/** The tree, the parents (the run of `parent` lines right after `tree`, as git reads them) and the message. */
export function parseCommit(buf: Buffer): CommitHeaders {
  const text = buf.toString('utf8');
  const split = text.indexOf('\n\n');
  const headers = text.slice(0, split).split('\n');
  const lines: string[] = [];
  for (const h of headers) {
    if (h[0] === ' ') lines[lines.length - 1] += `\n${h.slice(1)}`;
    else lines.push(h);
  }
  const key = (h: string) => h.slice(0, h.indexOf(' '));
  const value = (h: string) => h.slice(h.indexOf(' ') + 1);
  if (!lines.length || key(lines[0]!) !== 'tree') throw new UnsafeTreeEntryError('malformed commit object');
  const parents: string[] = [];
  for (let i = 1; i < lines.length && key(lines[i]!) === 'parent'; i++) parents.push(value(lines[i]!));
  return {
    tree: value(lines[0]!),
    parents,
    message: `${text
      .slice(split + 2)
      .replace(/\r/g, '')
      .replace(/^\n+/, '')
      .replace(/\n+$/, '')}\n`,
  };
}
