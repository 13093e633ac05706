// A page past a content limit never stops an import: it is kept as written, with a warning naming
// the file and the limit.
import { describe, expect, it } from 'vitest';
import { LIMITS } from '../../../src/content/limits.js';
import { parseRepository } from '../../../src/git/format.js';

const files = (entries: Record<string, string>) => new Map(Object.entries(entries).map(([k, v]) => [k, Buffer.from(v)]));

const HOSTILE: Array<[string, string, RegExp]> = [
  ['depth', `${'- '.repeat(50_000)}x\n`, /nesting deeper than 32 levels \(line 3\)/],
  ['size', `${'a'.repeat(LIMITS.pageChars + 10)}\n`, /longer than 1,000,000 characters/],
  ['inline', `${'*a '.repeat(5001)}\n`, /more than 5,000 emphasis and link markers/],
];

describe('import of pages past the content limits', () => {
  for (const [limit, body, message] of HOSTILE) {
    it(`keeps a page past the '${limit}' limit as written, with a warning naming the file and the limit`, () => {
      const markdown = `# Big\n\n${body}`;
      for (const layout of [{ 'SUMMARY.md': '* [Home](README.md)\n* [Big](guide/big.md)\n' }, {}] as Record<string, string>[]) {
        const r = parseRepository(files({ 'README.md': '# Home\n', 'guide/big.md': markdown, ...layout }));
        const big = 'SUMMARY.md' in layout ? r.pages[1] : r.pages[1].children[0];
        expect(big).toMatchObject({ path: 'guide/big.md', title: 'Big', type: 'document' });
        expect(big.markdown).toBe(body);
        expect(r.warnings).toHaveLength(1);
        expect(r.warnings[0]).toMatch(/^guide\/big\.md: /);
        expect(r.warnings[0]).toMatch(message);
        expect(r.warnings[0]).toContain(`the '${limit}' limit of a page body`);
      }
    });
  }

  it('warns about nothing within the limits', () => {
    const r = parseRepository(files({ 'README.md': '# Home\n', 'a.md': `# A\n\n${'- '.repeat(32)}x\n` }));
    expect(r.warnings).toEqual([]);
  });
});
