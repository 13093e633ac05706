// Code highlighting (issue 29, item 5): what highlighting code blocks on the server costs a page's
// render. The pages are the real GitBook pages of ../shared/fixtures/gitbook that hold fenced code
// with a language (up to BENCH_CODE_PAGES, 300), rendered to HTML in this process as the Markdown
// pool's threads render them (pageBodyHtml), in two halves A and B:
//   - cold: the first pass over A in a fresh process, where each language's grammar is compiled the
//     first time a block names it;
//   - first render: the pass over B after A (grammars warm, B's blocks never highlighted), per page;
//   - again: every page rendered BENCH_CODE_ROUNDS (5) more times (a page rendered again for a new
//     revision or another audience: its blocks' tokens are remembered), median per page.
// Baseline, in the same run: the same pages with the language removed from every fence (code blocks
// as plain escaped text, as before highlighting), rendered the same way.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { pageBodyHtml } from '../src/render/html.js';
import { GITBOOK_FIXTURES, requireFixtures } from '../test/helpers/fixtures.js';
import { envInt, log, median, type Row } from './lib.js';

const PAGES = envInt('BENCH_CODE_PAGES', 300);
const ROUNDS = envInt('BENCH_CODE_ROUNDS', 5);
const FENCE_WITH_LANGUAGE = /^(\s*(?:```+|~~~+))[ \t]*[\w#+.-]+.*$/gm;

async function* markdownFiles(dir: string): AsyncGenerator<string> {
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* markdownFiles(p);
    else if (e.name.endsWith('.md')) yield p;
  }
}

const opts = { anchor: '', images: new Map(), links: new Map(), files: new Map() };

/** Milliseconds to render every page once. */
function pass(pages: string[]): number {
  const start = process.hrtime.bigint();
  for (const md of pages) pageBodyHtml(md, opts);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

export async function benchCode(): Promise<Row[]> {
  requireFixtures(GITBOOK_FIXTURES);
  const pages: string[] = [];
  for await (const file of markdownFiles(GITBOOK_FIXTURES)) {
    const md = await readFile(file, 'utf8');
    FENCE_WITH_LANGUAGE.lastIndex = 0;
    if (FENCE_WITH_LANGUAGE.test(md)) pages.push(md);
    if (pages.length >= PAGES) break;
  }
  const plain = pages.map((md) => md.replace(FENCE_WITH_LANGUAGE, '$1'));
  log(`${pages.length} fixture pages with highlighted code blocks`);
  const half = Math.ceil(pages.length / 2);
  // The baseline first each time (its parses warm the parser for both sides).
  const coldPlain = pass(plain.slice(0, half));
  const coldOurs = pass(pages.slice(0, half));
  const firstPlain = pass(plain.slice(half)) / (pages.length - half);
  const firstOurs = pass(pages.slice(half)) / (pages.length - half);
  const ours: number[] = [];
  const base: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    base.push(pass(plain) / pages.length);
    ours.push(pass(pages) / pages.length);
  }
  const name = `code: ${pages.length} real pages with code`;
  return [
    {
      benchmark: name,
      metric: `first pass of ${half} pages, cold (ms)`,
      ours: coldOurs,
      baseline: coldPlain,
      digits: 0,
      higherIsBetter: false,
    },
    {
      benchmark: name,
      metric: 'first render per page, warm grammars (ms)',
      ours: firstOurs,
      baseline: firstPlain,
      digits: 2,
      higherIsBetter: false,
    },
    { benchmark: name, metric: 'render again per page (ms)', ours: median(ours), baseline: median(base), digits: 2, higherIsBetter: false },
  ];
}
