// Fast paths of the git format must give exactly what the general path gives: the export's SUMMARY.md
// links with plain text and destinations (src/git/format/summary.ts, linkMarkdown) and one-word
// YAML scalars (src/git/format/yaml.ts); the import's `key: plain text` front matter
// (src/git/format/page-file.ts). Checked on the real fixtures and on generated strings at the
// edges of what each fast path accepts.
import fs from 'node:fs';
import path from 'node:path';
import { toMarkdown } from 'mdast-util-to-markdown';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { PLAIN_DESTINATION, PLAIN_LINK_TEXT, linkMarkdown } from '../../../src/git/format/summary.js';
import { dumpYaml } from '../../../src/git/format/yaml.js';
import { simpleFrontMatter } from '../../../src/git/format/page-file.js';
import { prng } from '../../helpers/prng.js';
import { GITBOOK_FIXTURES, requireFixtures } from '../../helpers/fixtures.js';

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
    const links = summaryLinks(requireFixtures(GITBOOK_FIXTURES));
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
    const words = [
      'description',
      'cover_y',
      'a-b',
      'x1',
      'Yes',
      'YES',
      'yEs',
      'no',
      'N',
      'y',
      'On',
      'OFF',
      'Null',
      'NULL',
      'true',
      'False',
    ];
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

/** The front matter block of every Markdown file of the fixtures (as page-file.ts splits it). */
function frontMatters(dir: string, out: string[] = []): string[] {
  if (!fs.existsSync(dir)) return out;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory() && e.name !== '.git') frontMatters(p, out);
    else if (/\.md$/i.test(e.name)) {
      const text = fs.readFileSync(p, 'utf8').replace(/\r\n?/g, '\n');
      const open = /^---[ \t]*\n/.exec(text);
      if (!open) continue;
      const rest = text.slice(open[0].length);
      const close = /^(?:---|\.\.\.)[ \t]*$/m.exec(rest);
      if (close) out.push(rest.slice(0, close.index));
    }
  }
  return out;
}

describe('front matter fast path', () => {
  const same = (yaml: string) => {
    const fast = simpleFrontMatter(yaml);
    if (!fast) return false;
    const slow = parse(yaml, { logLevel: 'error' }) as Record<string, unknown>;
    expect(Object.entries(fast), yaml).toEqual(Object.entries(slow));
    return true;
  };

  it('reads what the YAML parser reads for every fixture front matter it takes', () => {
    const blocks = frontMatters(requireFixtures(GITBOOK_FIXTURES));
    expect(blocks.length).toBeGreaterThan(100);
    const taken = blocks.filter(same).length;
    expect(taken).toBeGreaterThan(blocks.length / 4);
  });

  it('reads what the YAML parser reads for generated lines, and leaves the rest to it', () => {
    const next = prng(16);
    const keys = ['description', 'icon', 'title', 'cover_y', 'a-b', 'null', 'Yes', 'x'];
    const chars = 'aZ09 ,.\'()?!/_-:#"';
    let taken = 0;
    for (let i = 0; i < 5_000; i++) {
      const lines = Array.from({ length: 1 + Math.floor(next() * 3) }, () => {
        const word = ['true', 'False', 'NULL', 'on', 'No', 'y'][Math.floor(next() * 12)];
        return `${keys[Math.floor(next() * keys.length)]}: ${word ?? `${next() < 0.5 ? 'a' : 'Z'}${randomString(next, chars, 10)}`}`;
      });
      let yaml = `${lines.join('\n')}\n`;
      try {
        parse(yaml, { logLevel: 'error' });
      } catch {
        yaml = ''; // the parser refuses it (a duplicate key...): the fast path must not take it either
      }
      if (!yaml) continue;
      if (same(yaml)) taken++;
    }
    expect(taken).toBeGreaterThan(100);
    for (const other of ['description: >-\n  folded\n', 'a: b\na: c\n', 'a: b # note\n', 'a:  b\n', 'a: b \n', 'x: true\n', 'k: 12\n']) {
      expect(simpleFrontMatter(other), other).toBeNull();
    }
  });
});
