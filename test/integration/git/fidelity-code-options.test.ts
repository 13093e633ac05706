// Real GitBook pages (../shared/fixtures/gitbook/) put code with titles and line numbers inside tabs,
// steps, expandable blocks and columns. Read as a JSON document and written back as Markdown (what
// a page edited through the API and then exported to git goes through), every `{% code %}` frame
// comes back as written: the tag with its options, the fenced code and `{% endcode %}`, wherever it
// stood (byte for byte; a hand-written frame with blank lines inside comes back in GitBook's shape). The one exception is code inside a hint, which the public description does not allow there
// (a hint holds paragraphs, headings, lists, tables...): the import makes it code-marked paragraphs.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { documentToMarkdown, markdownToDocument } from '../../../src/content/markdown.js';
import { canonicalFrame, codeFrames } from '../../helpers/code-frames.js';
import { GITBOOK_FIXTURES, requireFixtures } from '../../helpers/fixtures.js';

const GITBOOK = requireFixtures(GITBOOK_FIXTURES);

function markdownFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) out.push(...markdownFiles(p));
    else if (/\.md$/i.test(name) && !['SOURCE.md', 'SUMMARY.md'].includes(name)) out.push(p);
  }
  return out;
}

describe('real GitBook pages: code block options through the document', () => {
  it('every {% code %} frame, nested or not, comes back with its options and code (code in hints aside)', () => {
    const lost: string[] = [];
    const nested = new Map<string, number>();
    let checked = 0;
    let exact = 0;
    for (const file of markdownFiles(GITBOOK)) {
      const md = readFileSync(file, 'utf8').replace(/^---\n[\s\S]*?\n---\n/, '');
      if (!md.includes('{% code')) continue;
      const back = documentToMarkdown(markdownToDocument(md));
      const written = codeFrames(back).map((f) => f.text);
      for (const frame of codeFrames(md)) {
        if (frame.within.includes('hint')) continue;
        checked++;
        for (const c of new Set(frame.within)) nested.set(c, (nested.get(c) ?? 0) + 1);
        // Byte for byte when written in GitBook's shape; else the same options and code in that shape.
        const expected = canonicalFrame(frame.text);
        if (expected === frame.text) exact++;
        const i = written.indexOf(expected);
        if (i >= 0) written.splice(i, 1);
        else lost.push(`${path.relative(GITBOOK, file)} (in ${frame.within.join(' > ') || 'the page'}): ${frame.text.split('\n')[0]}`);
      }
    }
    expect(lost).toEqual([]);
    // The fixtures do exercise the containers: code in tabs, steps and expandable blocks.
    expect(checked).toBeGreaterThan(500);
    expect(exact).toBeGreaterThan(checked - 20);
    expect(nested.get('tab')).toBeGreaterThan(20);
    expect(nested.get('step')).toBeGreaterThan(20);
    expect(nested.get('details')).toBeGreaterThan(5);
  }, 300_000);
});

describe('real GitBook pages: hints through the document', () => {
  it('every {% hint %} tag comes back with its style, in containers too', () => {
    // A style the description does not have (`tip`) is read as `info`, the description's default.
    const hints = (md: string) =>
      (md.match(/^[ \t]*\{% hint style="[a-z]+" %\}$/gm) ?? []).map((l) =>
        l.trim().replace(/"(?!info|warning|danger|success)[a-z]+"/, '"info"'),
      );
    const changed: string[] = [];
    let inContainers = 0;
    for (const file of markdownFiles(GITBOOK)) {
      const md = readFileSync(file, 'utf8').replace(/^---\n[\s\S]*?\n---\n/, '');
      if (!md.includes('{% hint')) continue;
      const before = hints(md);
      const after = hints(documentToMarkdown(markdownToDocument(md)));
      if (JSON.stringify(before) !== JSON.stringify(after))
        changed.push(`${path.relative(GITBOOK, file)}: ${before.length} → ${after.length}`);
      if (/\{% (tab|step|column|update) [^%]*%\}\n(?:(?!\{% end)[\s\S])*?\{% hint/.test(md)) inContainers++;
    }
    expect(changed).toEqual([]);
    expect(inContainers).toBeGreaterThan(10);
  }, 300_000);
});
