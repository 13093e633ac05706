import { describe, expect, it } from 'vitest';
import {
  documentToMarkdown,
  extractLinks,
  headings,
  markdownToDocument,
  parseMarkdown,
  plainText,
  slugify,
  splitSections,
  type ContentRef,
  type JSONDocument,
} from '../../../src/content/markdown.js';
import { assertMatchesSchema } from '../../helpers/spec.js';

const leaf = (text: string, ...marks: string[]) => ({ object: 'leaf', text, marks: marks.map((type) => ({ object: 'mark', type })) });

/** Every node of a document (blocks, inlines, texts, fragments), depth first. */
function allNodes(doc: JSONDocument): Array<{ object: string; type?: string; key?: string }> {
  const out: Array<{ object: string; type?: string; key?: string }> = [];
  const visit = (n: any) => {
    out.push(n);
    for (const c of n.nodes ?? []) visit(c);
    for (const f of n.fragments ?? []) visit(f);
  };
  doc.nodes.forEach(visit);
  return out;
}

const block = (doc: JSONDocument, i = 0): any => doc.nodes[i];

const pageResolve = (url: string): ContentRef =>
  url.startsWith('/pages/')
    ? { kind: 'page', page: url.slice(7) }
    : url.startsWith('/files/')
      ? { kind: 'file', file: url.slice(7) }
      : { kind: 'url', url };

const KITCHEN_SINK = `Intro with **bold**, *italic*, \`code\`, ~~strike~~ and ***both***.
Second line with a [link](https://example.com) and <https://auto.example>.

# Setup

## Setup

### Level three

#### Level four

\`\`\`ts
const a = 1;

console.log(a);
\`\`\`

- one
  - nested **bold**
    1. deep
- two

3. three
4. four

- [ ] todo
- [x] done

> Quoted *text*
>
> > nested quote

---

![Diagram](https://img.example/d.png) ![Second][logo]

Inline ![icon](i.png) in text.

| Name | Value | Note |
|:-----|:-----:|-----:|
| \`a\` | [x](https://x.example) | **b** |
| c |  |  |

{% hint style="warning" %}
Be **careful** here.

- a list in a hint
{% endhint %}

[logo]: https://img.example/logo.png
`;

describe('parseMarkdown', () => {
  it('parses GFM: tables, strikethrough, task items and literal autolinks', () => {
    const root = parseMarkdown('~~gone~~ www.example.com\n\n- [x] done\n\n| a |\n|---|\n| 1 |');
    const [para, list, table] = root.children as any[];
    expect(para.children[0].type).toBe('delete');
    expect(para.children[2]).toMatchObject({ type: 'link', url: 'http://www.example.com' });
    expect(list.children[0].checked).toBe(true);
    expect(table.type).toBe('table');
  });

  it('leaves YAML front matter alone (another module strips it)', () => {
    const root = parseMarkdown('---\ntitle: x\n---\n');
    expect(root.children[0].type).toBe('thematicBreak');
  });
});

describe('markdownToDocument', () => {
  it('produces a paragraph with a text node, keyed', () => {
    expect(markdownToDocument('Hello world')).toEqual({
      object: 'document',
      data: {},
      nodes: [
        { object: 'block', type: 'paragraph', key: 'k1', data: {}, nodes: [{ object: 'text', key: 'k2', leaves: [leaf('Hello world')] }] },
      ],
    });
  });

  it('turns emphasis, strong, inline code and strikethrough into marks, combined when nested', () => {
    const doc = markdownToDocument('***bold italic*** `code` ~~strike~~ **a *b* c** **`x`**');
    expect(block(doc).nodes).toEqual([
      {
        object: 'text',
        key: 'k2',
        leaves: [
          leaf('bold italic', 'bold', 'italic'),
          leaf(' '),
          leaf('code', 'code'),
          leaf(' '),
          leaf('strike', 'strikethrough'),
          leaf(' '),
          leaf('a ', 'bold'),
          leaf('b', 'bold', 'italic'),
          leaf(' c', 'bold'),
          leaf(' '),
          leaf('x', 'bold', 'code'),
        ],
      },
    ]);
  });

  it('keeps soft and hard line breaks as "\\n" in the text', () => {
    const doc = markdownToDocument('one\ntwo  \nthree');
    expect(block(doc).nodes[0].leaves).toEqual([leaf('one\ntwo\nthree')]);
  });

  it('maps heading levels to heading-1/2/3 with slug ids in data and meta', () => {
    const doc = markdownToDocument('# Getting Started\n\n## Install it\n\n### Three\n\n#### Four');
    expect(doc.nodes.map((n) => n.type)).toEqual(['heading-1', 'heading-2', 'heading-3', 'heading-3']);
    expect(block(doc, 0)).toMatchObject({ data: { id: 'getting-started' }, meta: { id: 'getting-started' } });
    expect(block(doc, 0).nodes[0].leaves).toEqual([leaf('Getting Started')]);
    expect(block(doc, 3).meta.id).toBe('four');
  });

  it('gives duplicate headings unique ids (setup, setup-1, setup-2)', () => {
    const doc = markdownToDocument('# Setup\n\n## Setup\n\n### Setup');
    expect(doc.nodes.map((n: any) => n.data.id)).toEqual(['setup', 'setup-1', 'setup-2']);
  });

  it('keeps CJK heading text and anchor, leaving out the ASCII-only data.id', () => {
    const doc = markdownToDocument('## 安装指南\n\n这是一个文档平台');
    expect(block(doc, 0)).toMatchObject({ type: 'heading-2', meta: { id: '安装指南' }, data: {} });
    expect(block(doc, 0).data.id).toBeUndefined();
    expect(block(doc, 1).nodes[0].leaves).toEqual([leaf('这是一个文档平台')]);
    assertMatchesSchema('JSONDocument', doc);
  });

  it('turns a fenced code block into code with the syntax and one code-line per line', () => {
    const doc = markdownToDocument('```ts title="x"\nconst a = 1;\n\n  return a;\n```');
    const code = block(doc);
    expect(code).toMatchObject({ type: 'code', data: { syntax: 'ts' } });
    expect(code.nodes.map((l: any) => [l.type, l.nodes[0].leaves[0].text])).toEqual([
      ['code-line', 'const a = 1;'],
      ['code-line', ''],
      ['code-line', '  return a;'],
    ]);
    expect(block(markdownToDocument('    indented')).data).toEqual({});
  });

  it('maps nested unordered and ordered lists, with a start number', () => {
    const doc = markdownToDocument('- one\n  - nested\n    1. deep\n- two');
    const list = block(doc);
    expect(list).toMatchObject({ type: 'list-unordered', data: {} });
    expect(list.nodes.map((i: any) => i.type)).toEqual(['list-item', 'list-item']);
    const [para, nested] = list.nodes[0].nodes;
    expect(para.type).toBe('paragraph');
    expect(nested.type).toBe('list-unordered');
    const ordered = nested.nodes[0].nodes[1];
    expect(ordered).toMatchObject({ type: 'list-ordered', data: {} });
    expect(ordered.nodes[0].nodes[0].nodes[0].leaves).toEqual([leaf('deep')]);
    expect(block(markdownToDocument('5. five\n6. six'))).toMatchObject({ type: 'list-ordered', data: { start: 5 } });
  });

  it('maps task lists with checked on every item', () => {
    const doc = markdownToDocument('- [ ] todo\n- [x] done\n- plain');
    expect(block(doc).type).toBe('list-tasks');
    expect(block(doc).nodes.map((i: any) => i.data.checked)).toEqual([false, true, false]);
  });

  it('maps blockquotes (nested too) and thematic breaks', () => {
    const doc = markdownToDocument('> quoted *text*\n>\n> > inner\n\n---');
    expect(block(doc, 0).type).toBe('blockquote');
    expect(block(doc, 0).nodes.map((n: any) => n.type)).toEqual(['paragraph', 'blockquote']);
    expect(block(doc, 1)).toEqual({ object: 'block', type: 'divider', key: expect.any(String), data: {}, isVoid: true });
  });

  it('degrades code inside a quote to code-marked paragraphs (the schema allows no code there)', () => {
    const doc = markdownToDocument('> ```sh\n> npm test\n> ```');
    expect(block(doc).nodes).toEqual([
      {
        object: 'block',
        type: 'paragraph',
        key: expect.any(String),
        data: {},
        nodes: [{ object: 'text', key: expect.any(String), leaves: [leaf('npm test', 'code')] }],
      },
    ]);
    assertMatchesSchema('JSONDocument', doc);
  });

  it('turns a paragraph of images into an images block, and images within text into inline images', () => {
    const doc = markdownToDocument('![Diagram](d.png) ![](e.png)\n\nSee ![icon](i.png) here');
    expect(block(doc, 0)).toMatchObject({
      type: 'images',
      isVoid: false,
      nodes: [
        { type: 'image', data: { ref: { kind: 'url', url: 'd.png' }, alt: 'Diagram' }, fragments: [], isVoid: true },
        { type: 'image', data: { ref: { kind: 'url', url: 'e.png' } } },
      ],
    });
    expect(block(doc, 0).nodes[1].data.alt).toBeUndefined();
    expect(block(doc, 1).nodes[1]).toMatchObject({
      object: 'inline',
      type: 'inline-image',
      data: { ref: { kind: 'url', url: 'i.png' }, alt: 'icon' },
      isVoid: true,
    });
  });

  it('maps inline, reference and autolinks to link inlines with url refs by default', () => {
    const doc = markdownToDocument(
      '[a **b**](https://a.example) [ref][r] <https://auto.example> www.lit.example\n\n[r]: https://ref.example',
    );
    const links = block(doc).nodes.filter((n: any) => n.type === 'link');
    expect(links.map((l: any) => l.data.ref)).toEqual([
      { kind: 'url', url: 'https://a.example' },
      { kind: 'url', url: 'https://ref.example' },
      { kind: 'url', url: 'https://auto.example' },
      { kind: 'url', url: 'http://www.lit.example' },
    ]);
    expect(links[0]).toMatchObject({
      object: 'inline',
      type: 'link',
      nodes: [{ object: 'text', leaves: [leaf('a '), leaf('b', 'bold')] }],
    });
    expect(doc.nodes).toHaveLength(1); // the definition produces no block
  });

  it('resolves link and image destinations through the resolver', () => {
    const doc = markdownToDocument('[Guide](/pages/p1) ![logo](/files/f1) ![x](/pages/p2)', pageResolve);
    const [link, , img, , bad] = block(doc).nodes;
    expect(link.data.ref).toEqual({ kind: 'page', page: 'p1' });
    expect(img.data.ref).toEqual({ kind: 'file', file: 'f1' });
    expect(bad.data.ref).toEqual({ kind: 'url', url: '/pages/p2' }); // images only take url or file refs
    assertMatchesSchema('JSONDocument', doc);
  });

  it('maps a GFM table to a grid table with text columns, records and cell fragments', () => {
    const doc = markdownToDocument('| Name | **Value** | N |\n|:--|:-:|--:|\n| `a` | [x](https://x) | |\n| b |');
    const table = block(doc);
    expect(table).toMatchObject({ object: 'block', type: 'table', isVoid: true });
    expect(table.data.view).toEqual({ type: 'grid', columns: ['c0', 'c1', 'c2'], hideHeader: false });
    expect(table.data.definition).toEqual({
      c0: { id: 'c0', title: 'Name', type: 'text', textAlignment: 'left' },
      c1: { id: 'c1', title: 'Value', type: 'text', textAlignment: 'center' },
      c2: { id: 'c2', title: 'N', type: 'text', textAlignment: 'right' },
    });
    expect(table.data.records).toEqual({
      r0: { orderIndex: 'a0000', values: { c0: 'r0-c0', c1: 'r0-c1' } },
      r1: { orderIndex: 'a0001', values: { c0: 'r1-c0' } },
    });
    expect(table.fragments.map((f: any) => f.fragment)).toEqual(['r0-c0', 'r0-c1', 'r1-c0']);
    expect(table.fragments[0]).toMatchObject({
      object: 'fragment',
      nodes: [{ type: 'paragraph', nodes: [{ leaves: [leaf('a', 'code')] }] }],
    });
    expect(table.fragments[1].nodes[0].nodes[0]).toMatchObject({ type: 'link', data: { ref: { kind: 'url', url: 'https://x' } } });
    assertMatchesSchema('JSONDocument', doc);
  });

  it('hides the header of a table whose header row is empty', () => {
    expect(block(markdownToDocument('| | |\n|-|-|\n| a | b |')).data.view.hideHeader).toBe(true);
  });

  it('maps {% hint %} to a hint block, but not inside code', () => {
    const doc = markdownToDocument(
      '{% hint style="danger" %}\nDo **not** do this.\n\n> quoted\n{% endhint %}\n\n```\n{% hint style="info" %}\n```',
    );
    expect(block(doc, 0)).toMatchObject({ type: 'hint', data: { style: 'danger' } });
    expect(block(doc, 0).nodes.map((n: any) => n.type)).toEqual(['paragraph', 'paragraph']);
    expect(block(doc, 0).nodes[0].nodes[0].leaves).toEqual([leaf('Do '), leaf('not', 'bold'), leaf(' do this.')]);
    expect(block(doc, 1).nodes[0].nodes[0].leaves[0].text).toBe('{% hint style="info" %}');
    expect(markdownToDocument('{% hint style="info" %}\nno end').nodes.every((n) => n.type === 'paragraph')).toBe(true);
    assertMatchesSchema('JSONDocument', doc);
  });

  it('resolves reference links inside a hint through definitions outside it', () => {
    const doc = markdownToDocument('{% hint style="info" %}\nSee [docs][d].\n{% endhint %}\n\n[d]: https://docs.example');
    expect(block(doc).nodes[0].nodes[1]).toMatchObject({ type: 'link', data: { ref: { kind: 'url', url: 'https://docs.example' } } });
  });

  it('maps {% file %} to a file block when the source resolves to a file', () => {
    const doc = markdownToDocument('{% file src="/files/f1" %}\nThe report\n{% endfile %}', pageResolve);
    expect(block(doc, 0)).toEqual({ object: 'block', type: 'file', key: 'k1', data: { ref: { kind: 'file', file: 'f1' } }, isVoid: true });
    expect(block(doc, 1).nodes[0].leaves).toEqual([leaf('The report')]);
    assertMatchesSchema('JSONDocument', doc);
  });

  it('drops HTML tags and comments but keeps the text between them', () => {
    const doc = markdownToDocument('a<br>b <kbd>Ctrl</kbd>\n\n<!-- hidden -->\n\n<div>\n<b>Shown</b>\n</div>');
    expect(doc.nodes).toHaveLength(2);
    expect(block(doc, 0).nodes[0].leaves).toEqual([leaf('a\nb Ctrl')]);
    expect(block(doc, 1).nodes[0].leaves).toEqual([leaf('Shown')]);
  });

  it('produces a document that matches the public JSONDocument schema', () => {
    const doc = markdownToDocument(KITCHEN_SINK);
    expect(new Set(allNodes(doc).map((n) => n.type ?? n.object))).toEqual(
      new Set([
        'paragraph',
        'text',
        'link',
        'heading-1',
        'heading-2',
        'heading-3',
        'code',
        'code-line',
        'list-unordered',
        'list-ordered',
        'list-tasks',
        'list-item',
        'blockquote',
        'divider',
        'images',
        'image',
        'inline-image',
        'table',
        'fragment',
        'hint',
      ]),
    );
    assertMatchesSchema('JSONDocument', doc);
  });

  it('is deterministic: same input, same document and keys; keys are unique and in document order', () => {
    const a = markdownToDocument(KITCHEN_SINK);
    const b = markdownToDocument(KITCHEN_SINK);
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    const keys = allNodes(a).map((n) => n.key);
    expect(keys).toEqual(keys.map((_, i) => `k${i + 1}`));
  });
});

describe('documentToMarkdown', () => {
  it('writes the node types back as Markdown', () => {
    const md = documentToMarkdown(markdownToDocument(KITCHEN_SINK));
    expect(md).toContain('Intro with **bold**, *italic*, `code`, ~~strike~~ and');
    expect(md).toContain('[link](https://example.com) and <https://auto.example>');
    expect(md).toContain('# Setup\n\n## Setup\n\n### Level three\n\n### Level four');
    expect(md).toContain('```ts\nconst a = 1;\n\nconsole.log(a);\n```');
    expect(md).toContain('- one\n  - nested **bold**\n    1. deep\n- two');
    expect(md).toContain('3. three\n4. four');
    expect(md).toContain('- [ ] todo\n- [x] done');
    expect(md).toContain('> Quoted *text*\n>\n> > nested quote');
    expect(md).toContain('\n---\n');
    expect(md).toContain('![Diagram](https://img.example/d.png) ![Second](https://img.example/logo.png)');
    expect(md).toMatch(/\| Name \| +Value +\| +Note \|\n\| -+ \| :-+: \| -+: \|\n\| `a` +\| \[x\]\(https:\/\/x\.example\) \| \*\*b\*\* \|/);
    expect(md).toContain('{% hint style="warning" %}\nBe **careful** here.\n\n- a list in a hint\n{% endhint %}');
  });

  it('writes page, file and anchor refs with the default formatter, or a given one', () => {
    const doc: JSONDocument = {
      object: 'document',
      data: {},
      nodes: [
        {
          object: 'block',
          type: 'paragraph',
          nodes: [
            {
              object: 'inline',
              type: 'link',
              data: { ref: { kind: 'page', page: 'p1' } },
              nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'Guide', marks: [] }] }],
            },
            { object: 'text', leaves: [{ object: 'leaf', text: ' ', marks: [] }] },
            {
              object: 'inline',
              type: 'link',
              data: { ref: { kind: 'anchor', anchor: 'setup' } },
              nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'Setup', marks: [] }] }],
            },
            { object: 'text', leaves: [{ object: 'leaf', text: ' ', marks: [] }] },
            { object: 'inline', type: 'inline-image', data: { ref: { kind: 'file', file: 'f1' }, alt: 'Logo' }, isVoid: true },
          ],
        },
      ],
    };
    expect(documentToMarkdown(doc)).toBe('[Guide](/pages/p1) [Setup](#setup) ![Logo](/files/f1)\n');
    const custom = (ref: ContentRef) =>
      ref.kind === 'page' ? `https://docs.example/${ref.page}` : ref.kind === 'file' ? `https://cdn.example/${ref.file}.png` : '#x';
    expect(documentToMarkdown(doc, { formatRef: custom })).toBe(
      '[Guide](https://docs.example/p1) [Setup](#x) ![Logo](https://cdn.example/f1.png)\n',
    );
  });

  it('round-trips page and file refs through formatRef and resolve', () => {
    const doc = markdownToDocument('[Guide](/pages/p1) and ![logo](/files/f1)\n\n{% file src="/files/f2" %}\n{% endfile %}', pageResolve);
    expect(markdownToDocument(documentToMarkdown(doc), pageResolve)).toEqual(doc);
  });

  it('returns an empty string for an empty document', () => {
    expect(documentToMarkdown({ object: 'document', data: {}, nodes: [] })).toBe('');
  });

  const ROUND_TRIP: Record<string, string> = {
    'kitchen sink': KITCHEN_SINK,
    marks: '***bold italic*** `code` ~~strike~~ **a *b* c** *a **b*** **`x`**`y` a*b*c __d__',
    'line breaks': 'one\ntwo  \nthree\\\nfour',
    'setext and deep headings': 'Title\n=====\n\nSub\n---\n\n###### Six',
    'nested lists': '- a\n  - b\n    - c\n      1. d\n\n        para in item\n- [ ] task\n\n7. seven\n8. eight\n\n* other bullet',
    'code variants': '```\n```\n\n    indented\n\n~~~python\nprint("~~~")\n~~~\n\n````md\n```js\n```\n````',
    'quotes with degraded content': '> ```js\n> x()\n> ```\n>\n> | a | b |\n> |---|---|\n> | 1 | 2 |\n>\n> ![i](u.png)',
    'list items with code, quotes and images': '- item\n\n  ```sh\n  run\n  ```\n\n  > quote\n\n  ![img](x.png)',
    tables: '| a | b |\n|---|:-:|\n| **1** | `|` |\n| 3 |\n\n| | |\n|-|-|\n| x | y |',
    links:
      '[a](https://a "title") [r][ref] [collapsed][] <https://auto> www.literal.com me@mail.com [anchor](#top) [![badge](b.svg)](https://ci)\n\n[ref]: https://r\n[collapsed]: https://c',
    'escapes and html':
      '\\*not emphasis\\* 1\\. not a list \\# not a heading <span>x</span> & < > [brackets] `` a`b ``\n\n<!-- c -->\n\n<details>\n<summary>S</summary>\n\nbody\n\n</details>',
    footnotes: 'Text[^1] and more.\n\n[^1]: The **note**.',
    hints:
      '{% hint style="success" %}\n# Inside\n\n| t |\n|---|\n| 1 |\n\n```\ncode\n```\n{% endhint %}\n\n{% hint style="info" %}\n{% endhint %}',
    cjk: '# 文档平台\n\n## 安装指南\n\n这是一个文档平台，**支持** `中文`。\n\n- 列表\n- 项目',
  };

  it.each(Object.entries(ROUND_TRIP))('round trip is stable: %s', (_name, md) => {
    const first = markdownToDocument(md);
    assertMatchesSchema('JSONDocument', first);
    const written = documentToMarkdown(first);
    const second = markdownToDocument(written);
    expect(second).toEqual(first);
    expect(documentToMarkdown(second)).toBe(written);
  });
});

describe('extractLinks', () => {
  it('lists every link and image destination in document order', () => {
    const md = [
      'Read [the guide](https://guide.example) and [ref **link**][r], or <https://auto.example> / www.lit.example.',
      '',
      '- see [anchor](#install) ![shot](img/shot.png)',
      '',
      '[![badge][b]](https://ci.example)',
      '',
      '[r]: https://ref.example',
      '[b]: https://badge.example/b.svg',
      '[unused]: https://unused.example',
    ].join('\n');
    expect(extractLinks(md)).toEqual([
      { url: 'https://guide.example', text: 'the guide', kind: 'link' },
      { url: 'https://ref.example', text: 'ref link', kind: 'link' },
      { url: 'https://auto.example', text: 'https://auto.example', kind: 'link' },
      { url: 'http://www.lit.example', text: 'www.lit.example', kind: 'link' },
      { url: '#install', text: 'anchor', kind: 'link' },
      { url: 'img/shot.png', text: 'shot', kind: 'image' },
      { url: 'https://ci.example', text: 'badge', kind: 'link' },
      { url: 'https://badge.example/b.svg', text: 'badge', kind: 'image' },
    ]);
  });

  it('ignores link syntax inside code and unresolved references', () => {
    expect(extractLinks('`[a](b)`\n\n```\n[c](d)\n```\n\n[missing][nope]')).toEqual([]);
  });
});

describe('splitSections', () => {
  const md = [
    'Intro paragraph with **bold**.',
    '',
    '# Setup',
    '',
    'Install   the *tool*:',
    '',
    '```sh',
    'npm install tool',
    '```',
    '',
    '## Setup',
    '',
    '- one',
    '- two',
    '',
    '| a | b |',
    '|---|---|',
    '| 1 | 2 |',
    '',
    '## 安装指南',
    '',
    '这是一个文档平台',
  ].join('\n');

  it('splits at headings with slug ids, titles, depths and plain bodies', () => {
    expect(splitSections(md)).toEqual([
      { id: '', title: '', depth: 0, body: 'Intro paragraph with bold.' },
      { id: 'setup', title: 'Setup', depth: 1, body: 'Install the tool:\nnpm install tool' },
      { id: 'setup-1', title: 'Setup', depth: 2, body: 'one\ntwo\na b\n1 2' },
      { id: '安装指南', title: '安装指南', depth: 2, body: '这是一个文档平台' },
    ]);
  });

  it('omits an empty preamble and uses the same ids as the document', () => {
    const text = '# A\n\n# A\n\n### B';
    const sections = splitSections(text);
    expect(sections.map((s) => s.id)).toEqual(['a', 'a-1', 'b']);
    expect(sections.map((s) => s.id)).toEqual(markdownToDocument(text).nodes.map((n: any) => n.meta.id));
  });

  it('splits at headings inside a top-level hint and drops the hint tags', () => {
    const sections = splitSections('{% hint style="info" %}\nNote\n\n## Inside\n\nMore\n{% endhint %}');
    expect(sections).toEqual([
      { id: '', title: '', depth: 0, body: 'Note' },
      { id: 'inside', title: 'Inside', depth: 2, body: 'More' },
    ]);
  });
});

describe('plainText and headings', () => {
  it('renders the page as plain text, one line per block, markup removed', () => {
    const md =
      '# Title\n\nSome **bold** and [a link](https://x) with `code`.\n\n> quoted\n\n```js\nconst  a = 1;\n```\n\n![alt text](i.png)\n\n<!-- note -->\n\nfoo[^1]\n\n[^1]: footnote';
    expect(plainText(md)).toBe('Title\nSome bold and a link with code.\nquoted\nconst a = 1;\nalt text\nfoo\nfootnote');
  });

  it('keeps CJK text', () => {
    expect(plainText('## 安装指南\n\n这是一个文档平台')).toBe('安装指南\n这是一个文档平台');
  });

  it('drops GitBook hint tags but keeps their content', () => {
    expect(plainText('{% hint style="info" %}\nHello\n{% endhint %}')).toBe('Hello');
  });

  it('lists headings with ids, titles and written depth', () => {
    expect(headings('# Setup\n\ntext\n\n## Setup\n\n#### Deep `code`\n\n- ## In a list')).toEqual([
      { id: 'setup', title: 'Setup', depth: 1 },
      { id: 'setup-1', title: 'Setup', depth: 2 },
      { id: 'deep-code', title: 'Deep code', depth: 4 },
      { id: 'in-a-list', title: 'In a list', depth: 2 },
    ]);
  });
});

describe('slugify', () => {
  it.each([
    ['Hello World', 'hello-world'],
    ['  Getting   Started!  ', 'getting-started'],
    ['Café crème brûlée', 'cafe-creme-brulee'],
    ['Straße & Smørrebrød', 'strasse-smorrebrod'],
    ["What's new?", 'whats-new'],
    ['Node.js / API_v2', 'node-js-api-v2'],
    ['--a--b--', 'a-b'],
    ['Ｆｕｌｌ ｗｉｄｔｈ', 'full-width'],
    ['安装 Guide', 'guide'],
  ])('%s → %s', (title, slug) => {
    expect(slugify(title)).toBe(slug);
  });

  it('keeps Unicode letters when nothing ASCII is left, and falls back to "page"', () => {
    expect(slugify('安装指南')).toBe('安装指南');
    expect(slugify('Привет, мир')).toBe('привет-мир');
    expect(slugify('!!! 🎉')).toBe('page');
    expect(slugify('')).toBe('page');
  });

  it('caps slugs at 100 characters without a trailing hyphen', () => {
    expect(slugify('a'.repeat(150))).toHaveLength(100);
    const slug = slugify(`${'a'.repeat(99)} b`);
    expect(slug).toBe('a'.repeat(99));
    expect(slugify(`${'安'.repeat(120)}`)).toHaveLength(100);
  });

  it('only ever yields lowercase ASCII letters, digits and single hyphens for Latin titles', () => {
    for (const t of ['Ça va? Oui!', 'ÀÉÎÕÜ ñ ç', 'a -- b __ c', 'x\ty\nz']) expect(slugify(t)).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
  });
});
