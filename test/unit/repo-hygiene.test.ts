// No source or test file names a folder of one machine (a home, a work tree, a temporary folder):
// such a path works where it was written and nowhere else, often silently (a test that skips when
// its folder is missing). Paths are computed from the file's own location (see
// test/helpers/fixtures.ts), os.tmpdir() or configuration. System paths (/usr/bin/chromium,
// /dev/null, /proc/...) are not machine folders and pass. A line that must name one anyway (a test
// of path handling, say) says so with the comment `hygiene: allow`.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SCANNED = ['src', 'jobs', 'workers', 'test', 'bench'];
/** Data, not code: copies of third-party repositories and descriptions. */
const SKIPPED = [path.join('test', 'fixtures')];
const CODE = /\.(?:ts|mts|cts|mjs|cjs|js)$/;

// Written as parts so that this file does not name them itself.
const MACHINE_FOLDERS = ['work', 'home', 'Users', 'root', 'tmp', 'mnt', 'media'];
/** A string (or file: URL) that starts with one of those folders, or with a Windows user folder. */
const ABSOLUTE = new RegExp(`(?:['"\`]|file://)(?:/(?:${MACHINE_FOLDERS.join('|')})/|[A-Za-z]:[\\\\/]+(?:Users|home)\\b)`);
const ALLOW = /hygiene: allow/;

/** 1-based numbers of the lines of `text` that name a machine folder. */
function offendingLines(text: string): number[] {
  const out: number[] = [];
  text.split('\n').forEach((line, i) => {
    if (ABSOLUTE.test(line) && !ALLOW.test(line)) out.push(i + 1);
  });
  return out;
}

function codeFiles(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'node_modules' && !SKIPPED.includes(rel)) codeFiles(rel, out);
    } else if (CODE.test(e.name)) out.push(rel);
  }
  return out;
}

describe('repository hygiene', () => {
  it('finds a machine folder where a file names one, and leaves system paths alone', () => {
    const shared = ['', 'work', 'shared', 'fixtures', 'gitbook'].join('/');
    expect(offendingLines(`const GITBOOK = process.env.GITBOOK_FIXTURES ?? '${shared}';`)).toEqual([1]);
    expect(offendingLines(`ok\nconst home = "${['', 'home', 'ada', 'docs'].join('/')}";`)).toEqual([2]);
    expect(offendingLines(`cp(\`${['', 'tmp', 'x'].join('/')}\`)`)).toEqual([1]);
    expect(offendingLines(`new URL('file://${['', 'Users', 'ada', 'x'].join('/')}')`)).toEqual([1]);
    expect(offendingLines(`const p = 'C:${['', 'Users', 'ada'].join('\\\\')}';`)).toEqual([1]);
    expect(offendingLines(`'${shared}'; // hygiene: allow`)).toEqual([]);
    for (const fine of [
      "const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';",
      "spawn('sh', ['-c', 'cat > /dev/null'])",
      "readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')",
      "t.api('GET', '/v1/orgs/x/home/page')",
      `const url = \`\${base}${['', 'work', 'items'].join('/')}\`;`,
      "path.join(tmpdir(), 'dp-blobs-')",
      '// see ../shared/fixtures beside the project root',
    ])
      expect(offendingLines(fine), fine).toEqual([]);
  });

  it('no source, test or benchmark file names a folder of one machine', () => {
    const files = SCANNED.flatMap((d) => codeFiles(d));
    expect(files.length).toBeGreaterThan(100);
    const found = files.flatMap((f) => {
      const lines = readFileSync(path.join(ROOT, f), 'utf8').split('\n');
      return offendingLines(lines.join('\n')).map((n) => `${f}:${n}: ${lines[n - 1].trim()}`);
    });
    expect(
      found,
      `absolute paths of one machine (compute them from import.meta.url, os.tmpdir() or configuration):\n${found.join('\n')}`,
    ).toEqual([]);
  });
});
