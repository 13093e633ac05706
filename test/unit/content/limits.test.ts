import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LIMITS, checkDocument, checkTree, scanMarkdown } from '../../../src/content/limits.js';
import { markdownToDocument, parseMarkdown } from '../../../src/content/markdown.js';

const root = path.resolve(import.meta.dirname, '../../..');

/** Nesting of quotes and list items in the parsed tree (the parser's truth), iteratively. */
function containerDepth(md: string): number {
  let max = 0;
  const todo: [any, number][] = [[parseMarkdown(md), 0]];
  while (todo.length) {
    const [n, d] = todo.pop()!;
    const nd = d + (n.type === 'blockquote' || n.type === 'listItem' ? 1 : 0);
    max = Math.max(max, nd);
    for (const c of n.children ?? []) todo.push([c, nd]);
  }
  return max;
}

const nestedList = (levels: number) => Array.from({ length: levels }, (_, i) => `${'  '.repeat(i)}- level ${i + 1}`).join('\n');

describe('scanMarkdown refuses hostile Markdown without parsing it, naming the limit', () => {
  const cases: [string, string, string, RegExp][] = [
    ['50,000 nested quotes', `${'>'.repeat(50_000)} x`, 'depth', /^nesting deeper than 32 levels \(line 1\)$/],
    ['33 quotes with spaces', `${'> '.repeat(33)}x`, 'depth', /nesting deeper than 32 levels/],
    ['33 levels of indented lists', nestedList(33), 'depth', /nesting deeper than 32 levels \(line 33\)/],
    ['33 list markers on one line', `${'- '.repeat(33)}x`, 'depth', /nesting deeper than 32 levels/],
    ['quotes and lists mixed', `${'> - '.repeat(17)}x`, 'depth', /nesting deeper than 32 levels/],
    [
      'nesting kept through lazy lines',
      Array.from({ length: 40 }, (_, i) => `${'  '.repeat(i)}- x\nlazy`).join('\n'),
      'depth',
      /nesting deeper than 32 levels/,
    ],
    ['33 nested link brackets', `${'['.repeat(33)}x${']'.repeat(33)}`, 'depth', /^links nested deeper than 32 levels/],
    ['50,000 nested link brackets', '['.repeat(50_000), 'depth', /^links nested deeper than 32 levels/],
    [
      'an emphasis run of 65',
      `${'*'.repeat(65)}x${'*'.repeat(65)}`,
      'depth',
      /^emphasis nested deeper than 32 levels \(a run of 65 '\*' on line 1\)$/,
    ],
    ['5,001 emphasis markers in a paragraph', '*a '.repeat(5001), 'inline', /^more than 5,000 emphasis and link markers in one paragraph/],
    ['a page longer than the size limit', 'a'.repeat(LIMITS.pageChars + 1), 'size', /^longer than 1,000,000 characters \(1,000,001\)$/],
    ['more than 100,000 nodes', '- a\n'.repeat(40_000), 'nodes', /^more than 100,000 nodes$/],
    ['sub-lists ending 5,000 times', '- a\n  - b\n'.repeat(5000), 'work', /^too complex to parse/],
    ['quotes ending 10,000 times', '> a\n\nb\n\n'.repeat(10_000), 'work', /^too complex to parse/],
    ['20,000 lazy lines in one quote', '> a\nb\n'.repeat(10_000), 'work', /^too complex to parse/],
  ];
  for (const [name, md, limit, message] of cases) {
    it(name, () => {
      const v = scanMarkdown(md);
      expect(v?.limit).toBe(limit);
      expect(v?.message).toMatch(message);
    });
  }

  it('applies the size limit it is given (comments)', () => {
    expect(scanMarkdown('a'.repeat(LIMITS.commentChars + 1), LIMITS.commentChars)?.message).toBe(
      'longer than 100,000 characters (100,001)',
    );
    expect(scanMarkdown('a'.repeat(LIMITS.commentChars), LIMITS.commentChars)).toBeNull();
  });
});

describe('scanMarkdown accepts real content', () => {
  it('at the limits: 32 levels of lists, of quotes, of links; a run of 64', () => {
    expect(scanMarkdown(nestedList(32))).toBeNull();
    expect(scanMarkdown(`${'> '.repeat(32)}x`)).toBeNull();
    expect(scanMarkdown(`${'['.repeat(32)}x${']'.repeat(32)}`)).toBeNull();
    expect(scanMarkdown(`${'*'.repeat(64)}x${'*'.repeat(64)}`)).toBeNull();
    expect(scanMarkdown('*a '.repeat(4999))).toBeNull();
  });

  it('where only the parse can tell: code, tables, thematic breaks, form blanks', () => {
    // Deep YAML in a fence, deep indentation in indented code, `>` prompts in a fence.
    expect(scanMarkdown(`\`\`\`yaml\n${nestedList(60)}\n\`\`\`\n`)).toBeNull();
    expect(scanMarkdown(`- item\n\n  \`\`\`\n  ${'>'.repeat(100)}\n  \`\`\`\n`)).toBeNull();
    // A 2,000-row table with bold in every row: each row is inline content of its own.
    expect(scanMarkdown(`| a | b |\n|---|---|\n${'| **x** | *y* |\n'.repeat(2000)}`)).toBeNull();
    expect(scanMarkdown(`${'*'.repeat(80)}\n\nName: ${'_'.repeat(80)}\n`)).toBeNull();
  });

  it('every Markdown file of the repository and of the templates', () => {
    const files = [
      'README.md',
      ...readdirSync(path.join(root, 'src/content/templates'), { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.md'))
        .map((f) => `src/content/templates/${f}`),
    ];
    expect(files.length).toBeGreaterThan(10);
    for (const f of files) expect(scanMarkdown(readFileSync(path.join(root, f), 'utf8')), f).toBeNull();
  });

  it('a megabyte of ordinary documentation', () => {
    const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
    expect(scanMarkdown(readme.repeat(Math.ceil(900_000 / readme.length)).slice(0, 900_000))).toBeNull();
  });
});

describe('scanMarkdown never sees less nesting than the parser', () => {
  // Random documents made of the pieces that change block structure (containers, lazy lines,
  // fences, HTML blocks, tables, indented code, tabs): whenever the scan accepts a document at a
  // small depth limit, the parsed tree must not be deeper. Seeded: the same documents every run.
  const pieces = [
    '> ',
    '>',
    '- ',
    '* ',
    '+ ',
    '1. ',
    '2) ',
    '10. ',
    '  - ',
    '   > ',
    '\t- ',
    '  ',
    '    ',
    '\t',
    'text ',
    'a',
    'lazy\n',
    '\n',
    '\n',
    '\n\n',
    '```\n',
    '~~~\n',
    '# h\n',
    '---\n',
    '| a | b |\n',
    '|---|---|\n',
    '*',
    '_',
    '[',
    ']',
    '`',
    '\\',
    '<div>\n',
    '<!-- ',
    '-->',
    '<pre>',
    '</pre>',
    '<?x',
    '    code\n',
    '-\n',
    '>\n',
  ];
  it('on 1,500 random documents at limits 1 to 6', () => {
    let seed = 20240601;
    const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    let accepted = 0;
    for (let n = 0; n < 1500; n++) {
      let md = '';
      const len = 5 + Math.floor(rnd() * 100);
      for (let k = 0; k < len; k++) md += pieces[Math.floor(rnd() * pieces.length)];
      const actual = containerDepth(md);
      for (const limit of [1, 2, 3, 4, 6]) {
        if (scanMarkdown(md, LIMITS.pageChars, limit)) continue;
        accepted++;
        expect(actual, `limit ${limit}: ${JSON.stringify(md)}`).toBeLessThanOrEqual(limit);
      }
    }
    expect(accepted).toBeGreaterThan(1000); // the property was exercised
  });
});

describe('checkDocument', () => {
  const doc = (nodes: unknown[]) => ({ object: 'document', data: {}, nodes });
  const text = (t: string) => ({ object: 'text', leaves: [{ object: 'leaf', text: t, marks: [] }] });
  const para = (...nodes: unknown[]) => ({ object: 'block', type: 'paragraph', data: {}, nodes });

  it('accepts what markdownToDocument produces', () => {
    const md = readFileSync(path.join(root, 'src/content/templates/product-docs/quickstart.md'), 'utf8');
    expect(checkDocument(markdownToDocument(md))).toBeNull();
    expect(checkDocument(markdownToDocument(`${nestedList(32)}\n\n${'> '.repeat(32)}[deep](https://example.com)`))).toBeNull();
  });

  it('names a null node, and any other malformed one, by its path', () => {
    expect(checkDocument(doc([null]))).toEqual({
      limit: 'shape',
      path: 'nodes[0]',
      message: 'must be a node object (block, inline or text), not null',
    });
    expect(checkDocument(doc([para(text('a'), null)]))?.path).toBe('nodes[0].nodes[1]');
    expect(checkDocument(doc([para([])]))?.message).toBe('must be a node object (block, inline or text), not an array');
    expect(checkDocument(doc([{ object: 'block', nodes: [] }]))?.message).toBe('a block must have a "type"');
    expect(checkDocument(doc([{ object: 'blob', type: 'paragraph' }]))?.message).toBe('"object" must be "block", "inline" or "text"');
    expect(checkDocument(doc([para({ object: 'text' })]))).toMatchObject({
      path: 'nodes[0].nodes[0]',
      message: 'a text node must have a "leaves" array',
    });
    expect(checkDocument(doc([para({ object: 'text', leaves: [null] })]))).toMatchObject({
      path: 'nodes[0].nodes[0].leaves[0]',
      message: 'must be a leaf object, not null',
    });
    expect(checkDocument(doc([para({ object: 'text', leaves: [{ text: 1 }] })]))?.message).toBe('must have a "text" string');
    expect(checkDocument(doc([para({ object: 'text', leaves: [{ text: 'a', marks: [null] }] })]))?.path).toBe(
      'nodes[0].nodes[0].leaves[0].marks[0]',
    );
    expect(checkDocument(doc([para({ object: 'inline', type: 'link', nodes: [text('a')] })]))?.message).toBe(
      'a link must have "data.ref", a content reference',
    );
    expect(checkDocument(doc([{ object: 'block', type: 'table', data: {}, fragments: [null] }]))?.message).toBe(
      'must be a fragment object, not null',
    );
    expect(checkDocument(null)?.message).toBe('must be a document object, not null');
    expect(checkDocument({ object: 'document', nodes: 'x' })).toMatchObject({ path: 'nodes', message: 'must be an array of nodes' });
  });

  it('refuses nesting past the document depth, and too many nodes', () => {
    let deep: unknown = text('x');
    for (let i = 0; i < 100_000; i++) deep = { object: 'block', type: 'blockquote', data: {}, nodes: [deep] };
    expect(checkDocument(doc([deep]))).toMatchObject({ limit: 'depth', message: `nesting deeper than ${LIMITS.documentDepth} levels` });
    const wide = doc(Array.from({ length: 60_000 }, () => para(text('a'))));
    expect(checkDocument(wide)).toMatchObject({ limit: 'nodes', message: 'more than 100,000 nodes and leaves' });
  });
});

describe('checkTree', () => {
  it('measures depth and size iteratively, whatever the depth', () => {
    let deep: any = { type: 'text' };
    for (let i = 0; i < 200_000; i++) deep = { type: 'x', children: [deep] };
    expect(checkTree(deep, 100, 1e9)?.message).toBe('nesting deeper than 100 levels');
    expect(checkTree({ children: Array.from({ length: 11 }, () => ({})) }, 5, 10)?.message).toBe('more than 10 nodes');
    expect(checkTree(parseMarkdown(nestedList(5)), 100, 1000)).toBeNull();
  });
});

describe('htmlTooDeep (website import)', () => {
  it('counts element nesting without parsing: voids, self-closing tags, comments and scripts do not nest', async () => {
    const { htmlTooDeep, MAX_HTML_DEPTH } = await import('../../../src/import/html.js');
    const nest = (n: number, tag = 'div') => `${`<${tag} class="x">`.repeat(n)}x${`</${tag}>`.repeat(n)}`;
    expect(htmlTooDeep(nest(MAX_HTML_DEPTH))).toBe(false);
    expect(htmlTooDeep(nest(MAX_HTML_DEPTH + 1, 'blockquote'))).toBe(true);
    expect(htmlTooDeep('<p>a</p>'.repeat(10_000))).toBe(false);
    expect(htmlTooDeep('<br><img src="x"><hr/><span/>'.repeat(10_000))).toBe(false);
    expect(htmlTooDeep(`<!--${'<div>'.repeat(1000)}-->`)).toBe(false);
    expect(htmlTooDeep(`<script>${'<div>'.repeat(1000)}</SCRIPT><p>after</p>`)).toBe(false);
    expect(htmlTooDeep('<'.repeat(100_000))).toBe(false);
    expect(htmlTooDeep(`${'<div>'.repeat(600)}`)).toBe(true); // never closed: still open
  });
});
