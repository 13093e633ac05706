// Every page of the real GitBook repositories (../shared/fixtures/gitbook/) converts to a valid
// document in which no GitBook block tag is left as text (outside code blocks, where it is code).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { markdownToDocument } from '../../../src/content/markdown.js';
import { assertMatchesSchema } from '../../helpers/spec.js';
import { GITBOOK_FIXTURES, requireFixtures } from '../../helpers/fixtures.js';

const GITBOOK = requireFixtures(GITBOOK_FIXTURES);
const BLOCK_TAG =
  /\{%\s*(end)?(hint|tabs|tab|stepper|step|code|embed|content-ref|file|swagger|openapi|openapi-operation|columns|column|include|updates|update)\b/;

function markdownFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) out.push(...markdownFiles(p));
    else if (/\.md$/i.test(name) && !['SOURCE.md', 'SUMMARY.md'].includes(name)) out.push(p);
  }
  return out;
}

/** Text of the document outside code blocks (code keeps tags as written: that is its content). */
function proseText(node: any): string {
  if (node.type === 'code') return '';
  if (node.object === 'leaf') return node.marks?.some((m: any) => m.type === 'code') ? '' : node.text;
  return [...(node.leaves ?? []), ...(node.nodes ?? []), ...(node.fragments ?? [])].map(proseText).join('\n');
}

describe('real GitBook pages to documents', () => {
  for (const fixture of readdirSync(GITBOOK)) {
    it(`${fixture}: every page converts, no block tag left as text`, () => {
      const files = markdownFiles(path.join(GITBOOK, fixture));
      expect(files.length).toBeGreaterThan(5);
      const leftovers: string[] = [];
      for (const file of files) {
        const md = readFileSync(file, 'utf8').replace(/^---\n[\s\S]*?\n---\n/, '');
        const doc = markdownToDocument(md);
        // Validation is slow: pages with GitBook blocks, figures, details or math are the ones to check.
        if (/\{%|<figure|<details|<img|\$\$/.test(md)) assertMatchesSchema('JSONDocument', doc);
        const text = doc.nodes.map(proseText).join('\n');
        const m = BLOCK_TAG.exec(text);
        if (m) leftovers.push(`${path.relative(GITBOOK, file)}: ${text.slice(Math.max(0, m.index - 40), m.index + 60)}`);
      }
      expect(leftovers).toEqual([]);
    }, 300_000);
  }
});
