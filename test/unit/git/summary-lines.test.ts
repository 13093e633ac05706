// The line-by-line reading of SUMMARY.md (src/git/format/summary-lines.ts) must give exactly what
// the Markdown parser gives: every entry, title, target and warning, for the real fixtures and for
// shapes at the edges of what it accepts (others fall back to the parser, which is the reference).
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseSummary } from '../../../src/git/format/summary.js';
import { simpleSummaryTree } from '../../../src/git/format/summary-lines.js';
import { GITBOOK_FIXTURES, TEST_FIXTURES, requireFixtures, summaryFiles } from '../../helpers/fixtures.js';

const SHAPES = [
  '* [A](a.md)\n  * [B](b.md)\n    * [C](c.md)\n  * [D](d.md)\n* [E](e.md)\n',
  '# Table of contents\n\n* [A](a.md)\n\n## Group one\n\n* [B](b.md)\n    * [C](c.md)\n* [D](d.md)\n',
  '- [A](a.md)\n   - [B](b.md)\n      - [C](c.md)\n   - [D](d.md)\n- [E](missing.md)\n- [F](a.md)\n',
  '* [A](a.md)\n - [B](b.md)\n',
  '* [A](a.md)\n     * [B](b.md)\n',
  '* [A](a.md)\n      * [B](b.md)\n',
  '* [A](a.md)\n\n\n  * [B](b.md)\n\n* [C](c.md)\n',
  '+ [A](a.md)\n* [B](b.md)\n  - [C](c.md)\n  + [D](d.md)\n',
  '* [](a.md)\n* [Über 日本 (v2)](b.md)\n* [A  spaced  title ](c.md)\n',
  '## G\n* [A](a.md)\n## H\n  * [B](b.md)\n',
  '* [A](a.md)\n    * [B](b.md)\n        * [C](c.md)\n    * [D](d.md)\n',
  '  * [A](a.md)\n    * [B](b.md)\n  * [C](c.md)\n',
  '* [A](sub/)\n* [B](../x.md)\n* [C](/abs.md)\n* [D](a%20b.md)\n',
  '### Deep heading\n* [A](a.md)\n# Late h1\n* [B](b.md)\n',
  '* [A & B](a.md "Side & bar")\n* [C &amp; D](b.md)\n* [E](c\\_d.md)\n* [F](e\\(1\\).md)\n## G & H <a href="#g" id="g"></a>\n* [X](a.md "t")\n* [Y](b.md "")\n',
  '## About <a href="#about" id="about"></a>\n* [A](a.md)\n## B &copy; <a href="#b" id="b"></a>\n',
  '* [A](a.md)\n  text under it\n* [B](b.md)\n',
  '* [A](a.md)\r\n* [B](b.md)\r\n',
  '# Table of contents\r\n\r\n* [A](a.md)\r\n  * [B](b.md "Side")\r\n\r\n## G\r\n* [C](c.md)\r\n',
];

const ctx = {
  label: 'SUMMARY.md',
  dir: '',
  path: 'SUMMARY.md',
  exists: (p: string) => ['a.md', 'b.md', 'c.md', 'd.md', 'e.md', 'c_d.md', 'e(1).md', 'sub/README.md', 'a b.md'].includes(p),
  caseInsensitiveMatch: () => undefined,
};
/** An HTML comment at the end (ignored by parseSummary) makes the line reader give up: the parser's reading. */
const parsed = (source: string) => parseSummary(`${source}\n<!-- parsed -->\n`, ctx as never);

describe('SUMMARY.md read line by line', () => {
  it('gives what the parser gives, for the fixtures and edge shapes', () => {
    const roots = [path.join(TEST_FIXTURES, 'git'), requireFixtures(GITBOOK_FIXTURES)];
    const cases: [string, string][] = [
      ...roots.flatMap((r) => summaryFiles(r)),
      ...SHAPES.map((s, i): [string, string] => [`shape ${i}`, s]),
    ];
    let simple = 0;
    for (const [name, source] of cases) {
      if (simpleSummaryTree(source)) simple++;
      expect(parseSummary(source, ctx as never), name).toEqual(parsed(source));
    }
    // Most of them take the line reader (the assertion above would hold trivially otherwise).
    expect(simple).toBeGreaterThan(cases.length / 2);
  });

  it('leaves to the parser what it does not read', () => {
    expect(simpleSummaryTree('* [A](a.md)\n - [B](b.md)\n')).toBeNull(); // between two indentations
    expect(simpleSummaryTree('* [A](a.md)\n  text under it\n')).toBeNull();
    expect(simpleSummaryTree('* [C &amp; D](b.md)\n')).toBeNull();
    expect(simpleSummaryTree('* [*A*](a.md)\n')).toBeNull();
    expect(simpleSummaryTree('* [A](https://example.com)\n')).toBeNull();
    expect(simpleSummaryTree('* [A](a.md\r)\n')).toBeNull();
    expect(simpleSummaryTree('* [A](a.md)\r\n')).not.toBeNull(); // CR LF line breaks are read (the parser's tree is the same)
    expect(simpleSummaryTree('* [A](a.md)\n* [B](b.md "t")\n## G\n')).not.toBeNull();
  });
});
