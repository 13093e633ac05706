// Fast paths of the export's writers must write exactly what the general path writes: SUMMARY.md
// links with plain text and destinations (src/git/format/summary.ts, linkMarkdown) and one-word
// YAML scalars (src/git/format/yaml.ts). Checked on the real fixtures' titles and paths and on
// generated strings at the edges of what each fast path accepts.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { toMarkdown } from 'mdast-util-to-markdown';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { PLAIN_DESTINATION, PLAIN_LINK_TEXT, linkMarkdown } from '../../../src/git/format/summary.js';
import { dumpYaml } from '../../../src/git/format/yaml.js';
import { prng } from '../../helpers/prng.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const fixtures = process.env.GITBOOK_FIXTURES ?? path.join(here, '../../../../shared/fixtures/gitbook');

/** [title, target] of every `[title](target)` in the fixtures' SUMMARY.md files. */
function summaryLinks(dir: string, out: [string, string][] = []): [string, string][] {
  if (!fs.existsSync(dir)) return out;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory() && e.name !== '.git') summaryLinks(p, out);
    else if (e.name === 'SUMMARY.md') {
      for (const m of fs.readFileSync(p, 'utf8').matchAll(/\[([^\]\n]*)\]\(([^)\s]*)\)/g)) out.push([m[1], m[2]]);
    }
  }
  return out;
}

const general = (title: string, url: string) =>
  toMarkdown({ type: 'paragraph', children: [{ type: 'link', url, title: null, children: [{ type: 'text', value: title }] }] }).trimEnd();

function randomString(next: () => number, alphabet: string, max: number): string {
  const n = 1 + Math.floor(next() * max);
  return Array.from({ length: n }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
}

describe('SUMMARY.md link fast path', () => {
  it('writes what toMarkdown writes for every fixture entry it takes', () => {
    const links = summaryLinks(fixtures);
    expect(links.length).toBeGreaterThan(100);
    let taken = 0;
    for (const [title, url] of links) {
      if (!PLAIN_LINK_TEXT.test(title) || !PLAIN_DESTINATION.test(url)) continue;
      taken++;
      expect(linkMarkdown(title, url), `${title} -> ${url}`).toBe(general(title, url));
    }
    expect(taken).toBeGreaterThan(links.length / 3);
  });

  it('writes what toMarkdown writes for generated text and paths at the edges of the plain classes', () => {
    const next = prng(14);
    const textChars = "aZ09',.?- ";
    const pathChars = 'aZ09._-/';
    for (let i = 0; i < 5_000; i++) {
      const title = randomString(next, textChars, 12);
      const url = randomString(next, pathChars, 12);
      if (!PLAIN_LINK_TEXT.test(title) || !PLAIN_DESTINATION.test(url)) continue;
      expect(linkMarkdown(title, url), `${JSON.stringify(title)} -> ${JSON.stringify(url)}`).toBe(general(title, url));
    }
  });

  it('leaves anything else to toMarkdown (escapes, angle brackets, titles)', () => {
    expect(linkMarkdown('a*b', 'x.md')).toBe(general('a*b', 'x.md'));
    expect(linkMarkdown('A', 'a b.md')).toBe('[A](<a b.md>)');
    expect(linkMarkdown('A', 'x.md', 'Hint')).toBe('[A](x.md "Hint")');
  });
});

describe('YAML one-word scalars', () => {
  // The general rule: written plain when it reads back as the same string under both schemas.
  const expected = (word: string) => {
    const plain = ['core', 'yaml-1.1'].every((schema) => {
      try {
        return parse(word, { schema: schema as 'core' | 'yaml-1.1' }) === word;
      } catch {
        return false;
      }
    });
    return plain ? `k: ${word}\n` : null;
  };

  it('quotes exactly the words that would read back as something else', () => {
    const words = ['description', 'cover_y', 'a-b', 'x1', 'Yes', 'YES', 'yEs', 'no', 'N', 'y', 'On', 'OFF', 'Null', 'NULL', 'true', 'False'];
    const next = prng(15);
    for (let i = 0; i < 3_000; i++) words.push(randomString(next, 'yYeEsSnNoOfFtTrRuUlLaA_-1', 6).replace(/^[^A-Za-z]+/, 'a'));
    for (const word of words) {
      const out = dumpYaml({ k: word });
      expect(parse(out).k, word).toBe(word);
      const plain = expected(word);
      if (plain) expect(out, word).toBe(plain);
      else expect(out, word).not.toBe(`k: ${word}\n`);
    }
  });
});
