// SUMMARY.md read in parts (src/git/format/summary-parts.ts) must give the tree the Markdown parser
// gives for the whole file: every cut is where the parser sees the same blocks on both sides. Each
// case is read with every cut it allows (parts of one character), line by line or parsed, and
// compared with one parse of the whole file.
import path from 'node:path';
import type { Heading, Root } from 'mdast';
import { toString } from 'mdast-util-to-string';
import { describe, expect, it } from 'vitest';
import { parseMarkdown } from '../../../src/content/markdown.js';
import { cleanTitle } from '../../../src/git/format/page-file.js';
import { STRUCTURE_LIMITS } from '../../../src/git/format/limits.js';
import { parseSummary } from '../../../src/git/format/summary.js';
import { cutPoints, readSummaryTree, summaryParts } from '../../../src/git/format/summary-parts.js';
import { GITBOOK_FIXTURES, TEST_FIXTURES, requireFixtures, summaryFiles } from '../../helpers/fixtures.js';

/** Shapes where a careless cut would change the tree (fences, HTML, lazy lines, references...). */
const SHAPES = [
  '* [A](a.md)\n```\n* [B](b.md)\n```\n* [C](c.md)\n',
  '* [A](a.md)\nstray\n  ```\n  code\n* [B](b.md)\n```\n* [C](c.md)\n```\n* [D](d.md)\n',
  '<!--\n* [A](a.md)\n-->\n* [B](b.md)\n',
  '<!-- one line --> \n* [A](a.md)\n',
  '* [A](a.md)\n<div>\n* [B](b.md)\n\n* [C](c.md)\n',
  '* [A](a.md)\n  ```yaml\n  x: 1\n* [B](b.md)\n  ```\n* [C](c.md)\n',
  '$$\n* [A](a.md)\n$$\n* [B](b.md)\n',
  '* [A][a]\n* [B](b.md)\n\n[a]: a.md\n',
  '* [A](a.md)\n2. [B](b.md)\n* [C](c.md)\n',
  '> * [A](a.md)\n* [B](b.md)\n>   * [C](c.md)\n',
  '* [A](a.md)\n---\n  * [B](b.md)\n',
  '* [A](a.md)\n\t* [B](b.md)\n* [C](c.md)\n',
  '* [A](a.md)\n<span>x</span>\n  * [B](b.md)\n\n  * [C](c.md)\n* [D](d.md)\n',
  '1. [A](a.md)\n1) [B](b.md)\n   ~~~\n* [C](c.md)\n   ~~~\n* [D](d.md)\n',
  '* [A](a.md)\n\n    code\n* [B](b.md)\n',
  'Text\n* [A](a.md)\n# H\n* [B](b.md)\n  # I\n',
  '*    [A](a.md)\n     * [B](b.md)\n* [C](c.md)\n',
  '* [A](a.md)\r\n```\r\n* [B](b.md)\r\n```\r\n* [C](c.md)\r\n',
  '| a |\n|---|\n* [A](a.md)\n| b |\n',
  '* [A](a.md)\n  <!--\n* [B](b.md)\n  -->\n* [C](c.md)\n',
  '* [A](a.md)\n  text\n<!--\n* [B](b.md)\n-->\n* [C](c.md)\n',
  '* [A](a.md)\nlazy\n   <!--\n* [B](b.md)\n-->\n* [C](c.md)\n',
  '* [A](a.md)\n*\n  * [B](b.md)\n* [C](c.md)\n',
  '- [A](a.md)\n  - [B](b.md)\n\n      indented code? no, paragraph\n- [C](c.md)\n',
  '* [A](a.md)\n<pre>\n* [B](b.md)\n</pre>\n* [C](c.md)\n',
  '* [A](a.md)\n* * *\n* [B](b.md)\n',
  'Title\n===\n* [A](a.md)\n## G\n- [B](b.md)\n+ [C](c.md)\n',
  '* [*A*](a.md) **bold\n* [B](b.md)** text\n',
  '* [A](a.md "T\n* [B](b.md)\n',
  '* ```yaml\n  type: builtin:openapi\n  ```\n* [B](b.md)\n',
  '  * [A](a.md)\n * [B](b.md)\n* [C](c.md)\n    * [D](d.md)\n',
];

/** Nodes whose line parseSummary reads (the line reader gives no position to the others). */
const BLOCKS = new Set(['listItem', 'list', 'heading', 'code', 'html', 'thematicBreak', 'table', 'blockquote', 'definition', 'math']);

/** The tree without what parts may change and parseSummary does not read: list boundaries at the top, `spread`, end positions. */
function canonical(root: Root): unknown {
  const strip = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(strip);
    if (!node || typeof node !== 'object') return node;
    const out: Record<string, unknown> = {};
    const type = (node as { type: string }).type;
    // parseSummary reads a heading's text only, without inline HTML (anchors), trimmed.
    if (type === 'heading') {
      const h = node as Heading;
      return { type, depth: h.depth, line: h.position?.start.line, text: cleanTitle(toString(h, { includeHtml: false })) };
    }
    const block = BLOCKS.has(type);
    for (const [k, v] of Object.entries(node)) {
      if (k === 'spread') continue;
      if (k === 'position') {
        if (block) out.line = (v as { start: { line: number } }).start.line;
      } else out[k] = strip(v);
    }
    return out;
  };
  return root.children.flatMap((node) => (node.type === 'list' ? node.children.map(strip) : [strip(node)]));
}

const cases = (): [string, string][] => [
  ...[path.join(TEST_FIXTURES, 'git'), requireFixtures(GITBOOK_FIXTURES)].flatMap((r) => summaryFiles(r)),
  ...SHAPES.map((s, i): [string, string] => [`shape ${i}`, s]),
];

describe('SUMMARY.md read in parts', () => {
  it('gives the tree the parser gives for the whole file, with every cut it makes', () => {
    let cut = 0;
    for (const [name, source] of cases()) {
      const read = readSummaryTree(source, 'SUMMARY.md', 1);
      expect(read.warnings, name).toEqual([]);
      expect(canonical(read.root), name).toEqual(canonical(parseMarkdown(source)));
      cut += summaryParts(source, 1).length - 1;
    }
    // The cases are cut (the assertion above would hold trivially otherwise).
    expect(cut).toBeGreaterThan(200);
  });

  it('does not cut where the parser would see one block across the cut', () => {
    const lines = (s: string) => cutPoints(s.split('\n'));
    expect(lines('* [A](a.md)\n```\n* [B](b.md)\n```\n* [C](c.md)\n')).toEqual([0, 4]); // inside a fence
    expect(lines('<!--\n* [A](a.md)\n-->\n* [B](b.md)\n')).toEqual([0, 3]); // inside a comment
    expect(lines('* [A](a.md)\n2. [B](b.md)\n')).toEqual([0]); // a lazy line, not an item
    expect(lines('* [A](a.md)\nlazy\n   ```\n* [B](b.md)\n')).toEqual([0]); // lost track: no more cuts
    expect(lines('## G\n* [A](a.md)\n  * [B](b.md)\n* [C](c.md)\n')).toEqual([0, 1, 3]);
  });

  it('reads 50,000 entries in parts of bounded size, without warnings', () => {
    const lines = ['# Table of contents', ''];
    const exists = new Set<string>();
    for (let n = 0; n < 50_000; n++) {
      if (n % 100 === 0) lines.push('', `## Part ${n / 100}`, '');
      const p = `part-${Math.floor(n / 100)}/page-${n}.md`;
      exists.add(p);
      lines.push(`${'  '.repeat((n % 100) % 3)}* [Page ${n}](${p})`);
    }
    const source = `${lines.join('\n')}\n`;
    const parts = summaryParts(source);
    expect(parts.length).toBeGreaterThan(source.length / STRUCTURE_LIMITS.summaryPartChars / 2);
    for (const part of parts) expect(part.text.length).toBeLessThan(2 * STRUCTURE_LIMITS.summaryPartChars);
    const ctx = {
      label: 'SUMMARY.md',
      dir: '',
      path: 'SUMMARY.md',
      exists: (p: string) => exists.has(p),
      caseInsensitiveMatch: () => undefined,
    };
    const { nodes, warnings } = parseSummary(source, ctx);
    expect(warnings).toEqual([]);
    expect(nodes).toHaveLength(500);
    let count = 0;
    const walk = (n: { children: unknown[] }) => {
      for (const c of n.children as { children: unknown[] }[]) {
        count++;
        walk(c);
      }
    };
    nodes.forEach((g) => walk(g));
    expect(count).toBe(50_000);
  });

  it('past its limits: a part nested too deep is ignored with a warning; too many entries are cut; too long a file stops the import', () => {
    const ctx = { label: 'SUMMARY.md', dir: '', path: 'SUMMARY.md', exists: () => true, caseInsensitiveMatch: () => undefined };
    const deep = Array.from({ length: 40 }, (_, d) => `${'  '.repeat(d)}* [P${d}](p${d}.md)`).join('\n');
    const r = parseSummary(`* [A](a.md)\n${deep}\n* [B](b.md)\n`, ctx);
    expect(r.nodes.map((n) => n.title)).toEqual(['A', 'B']);
    expect(r.warnings).toEqual([
      expect.stringMatching(/^SUMMARY.md lines 2-41: nesting deeper than 32 levels \(line 34\); the entries there are ignored$/),
    ]);
    expect(() => parseSummary('x'.repeat(STRUCTURE_LIMITS.summaryChars + 1), ctx)).toThrow(/SUMMARY.md: longer than 16,000,000 characters/);
  });
});
