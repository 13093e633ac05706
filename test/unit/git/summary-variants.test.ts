// SUMMARY.md as GitBook accepts it: every construct imports (none aborts) and exports back.
import { describe, expect, it } from 'vitest';
import { generateRepository, parseRepository, type ExportPage, type ImportedPage } from '../../../src/git/format.js';

const files = (entries: Record<string, string>) => new Map(Object.entries(entries).map(([k, v]) => [k, Buffer.from(v)]));

function toExport(pages: ImportedPage[]): ExportPage[] {
  return pages.map((p, i) => {
    const { path: gitPath, children, ...rest } = p;
    return {
      ...rest,
      id: `${i}-${p.title}`,
      slug: p.title.toLowerCase().replace(/[^a-z0-9]+/g, '-'),
      ...(gitPath ? { gitPath } : {}),
      children: toExport(children),
    };
  });
}

/** Type, title, sidebar title, target of every entry, nested. */
const shape = (pages: ImportedPage[]): unknown[] =>
  pages.map((p) => [p.type, p.title, p.linkTitle ?? '', p.href ?? p.path, ...(p.children.length ? [shape(p.children)] : [])]);

function roundTrip(repo: Map<string, Buffer>) {
  const first = parseRepository(repo);
  const out = generateRepository(toExport(first.pages), [], first.config);
  const again = parseRepository(out);
  expect(shape(again.pages)).toEqual(shape(first.pages));
  return { first, summary: out.get('SUMMARY.md')!.toString() };
}

describe('SUMMARY.md variants', () => {
  it('external links are link pages, written back as links', () => {
    const { first, summary } = roundTrip(
      files({
        'README.md': '# Home\n',
        'SUMMARY.md':
          '* [Home](README.md)\n\n## Elsewhere\n\n* [Other space](https://app.gitbook.com/s/abc/)\n* [Site](https://example.com)\n',
      }),
    );
    expect(first.warnings).toEqual([]);
    expect(first.pages[1].children.map((p) => [p.type, p.title, p.href])).toEqual([
      ['link', 'Other space', 'https://app.gitbook.com/s/abc/'],
      ['link', 'Site', 'https://example.com'],
    ]);
    expect(summary).toContain('* [Other space](https://app.gitbook.com/s/abc/)');
  });

  it('unlinked parents with children are pages without a file, written back as plain entries', () => {
    const { first, summary } = roundTrip(
      files({ 'README.md': '# Home\n', 'a.md': '# A\n', 'SUMMARY.md': '* [Home](README.md)\n* Parent\n  * [A](a.md)\n' }),
    );
    expect(first.pages[1]).toMatchObject({ type: 'document', title: 'Parent', path: '', markdown: '' });
    expect(summary).toContain('* Parent\n  * [A](a.md)\n');
  });

  it('link titles are sidebar titles and are written back; a SUMMARY text differing from the heading becomes one', () => {
    const { first, summary } = roundTrip(
      files({
        'README.md': '# Home\n',
        'mining.md': '# How Are Blocks Mined?\n\nBody.\n',
        'other.md': '# The real heading\n\nText.\n',
        'SUMMARY.md': '* [Home](README.md)\n* [How Are Blocks Mined?](mining.md "Mining")\n* [Short](other.md)\n',
      }),
    );
    expect(first.pages[1]).toMatchObject({ title: 'How Are Blocks Mined?', linkTitle: 'Mining', markdown: 'Body.\n' });
    expect(first.pages[2]).toMatchObject({ title: 'The real heading', linkTitle: 'Short', markdown: 'Text.\n' });
    expect(summary).toContain('* [How Are Blocks Mined?](mining.md "Mining")');
  });

  it('group headings with HTML anchors, backslash escapes, comments and deep nesting', () => {
    const { first } = roundTrip(
      files({
        'README.md': '# Home\n',
        'cli/pace_apply.md': '# Apply\n',
        'a/b/c/d/e.md': '# E\n',
        'a/b/c/d.md': '# D\n',
        'a/b/c.md': '# C\n',
        'a/b.md': '# B\n',
        'a.md': '# A\n',
        'SUMMARY.md': [
          '# Table of contents',
          '',
          '* [Home](README.md)',
          '',
          '## About <a href="#about" id="about"></a>',
          '',
          '<!-- * [Gone](gone.md) -->',
          '* [Apply](cli/pace\\_apply.md)',
          '* [A](a.md)',
          '  * [B](a/b.md)',
          '    * [C](a/b/c.md)',
          '      * [D](a/b/c/d.md)',
          '        * [E](a/b/c/d/e.md)',
          '',
        ].join('\n'),
      }),
    );
    expect(first.warnings).toEqual([]);
    expect(first.pages[1]).toMatchObject({ type: 'group', title: 'About' });
    expect(shape(first.pages[1].children)).toEqual([
      ['document', 'Apply', '', 'cli/pace_apply.md'],
      [
        'document',
        'A',
        '',
        'a.md',
        [
          [
            'document',
            'B',
            '',
            'a/b.md',
            [['document', 'C', '', 'a/b/c.md', [['document', 'D', '', 'a/b/c/d.md', [['document', 'E', '', 'a/b/c/d/e.md']]]]]],
          ],
        ],
      ],
    ]);
  });

  it("GitBook's OpenAPI reference block becomes a computed page, written back as the block", () => {
    const block = [
      '  * ```yaml',
      '    props:',
      '      models: true',
      '      downloadLink: false',
      '    type: builtin:openapi',
      '    dependencies:',
      '      spec:',
      '        ref:',
      '          kind: openapi',
      '          spec: stacks-node-rpc',
      '    ```',
    ].join('\n');
    const { first, summary } = roundTrip(
      files({ 'README.md': '# Home\n', 'api.md': '# API\n', 'SUMMARY.md': `* [Home](README.md)\n* [API](api.md)\n${block}\n` }),
    );
    expect(first.warnings).toEqual([]);
    expect(first.pages[1].children[0]).toMatchObject({
      type: 'computed',
      title: 'stacks-node-rpc',
      computed: {
        type: 'builtin:openapi',
        props: { models: true, downloadLink: false },
        dependencies: { spec: { ref: { kind: 'openapi', spec: 'stacks-node-rpc' } } },
      },
    });
    expect(summary).toContain('  * ```yaml\n');
    expect(summary).toContain('          spec: stacks-node-rpc\n');
  });

  it('a missing file is an empty page with a warning, and nothing else aborts', () => {
    const r = parseRepository(
      files({ 'README.md': '# Home\n', 'SUMMARY.md': '* [Home](README.md)\n* [Missing](nope.md)\nStray text\n\n| a |\n|---|\n| 1 |\n' }),
    );
    expect(r.pages.map((p) => [p.title, p.path, p.missing ?? false])).toEqual([
      ['Home', 'README.md', false],
      ['Missing', 'nope.md', true],
    ]);
    expect(r.warnings).toHaveLength(2);
    expect(r.warnings[0]).toMatch(/^SUMMARY.md line 2: 'nope.md' links to a file that does not exist/);
  });
});

describe('files pages use', () => {
  it('imports files linked by relative and root-absolute paths, in markdown, <figure> and raw <img>', () => {
    const r = parseRepository(
      new Map(
        Object.entries({
          'README.md': '# Home\n\n![a](images/a.png)\n\n<figure><img src="/images/b.png" alt=""><figcaption></figcaption></figure>\n',
          'guide/page.md': '# Page\n\n<img src="../images/c.png">\n\n[d](/files/d.pdf)\n',
          'SUMMARY.md': '* [Home](README.md)\n* [Page](guide/page.md)\n',
          'images/a.png': 'a',
          'images/b.png': 'b',
          'images/c.png': 'c',
          'files/d.pdf': 'd',
          'images/unused.png': 'u',
        }).map(([k, v]) => [k, Buffer.from(v)]),
      ),
    );
    expect(r.files.map((f) => f.path)).toEqual(['files/d.pdf', 'images/a.png', 'images/b.png', 'images/c.png']);
  });
});
