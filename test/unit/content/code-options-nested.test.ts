// A code block's GitBook options (`{% code title lineNumbers overflow fullWidth expandable %}`) survive
// Markdown → document → Markdown wherever the block is, not only at the top level: a page read and
// written back as a JSON document (then exported to git) keeps the titles and line numbers of the
// code in its tabs, steps, columns, updates, expandable blocks, conditions and prompts.
import { describe, expect, it } from 'vitest';
import { documentToMarkdown, markdownToDocument } from '../../../src/content/markdown.js';
import type { DocumentBlock, JSONDocument } from '../../../src/content/markdown/types.js';
import { assertMatchesSchema } from '../../helpers/spec.js';

const OPTIONS = { title: 'app.js', overflow: 'wrap', lineNumbers: true, fullWidth: false, expandable: true };
const CODE =
  '{% code title="app.js" overflow="wrap" lineNumbers="true" fullWidth="false" expandable="true" %}\n```js\nconsole.log(1)\n```\n{% endcode %}\n';

/** Every code block of a document, at any depth (nodes and fragments), with the types of its ancestors. */
function codeBlocks(doc: JSONDocument): { path: string[]; block: DocumentBlock }[] {
  const out: { path: string[]; block: DocumentBlock }[] = [];
  const walk = (node: any, path: string[]) => {
    if (node?.type === 'code') out.push({ path, block: node });
    for (const child of [...(node?.nodes ?? []), ...(node?.fragments ?? [])]) walk(child, node.type ? [...path, node.type] : path);
  };
  for (const node of doc.nodes) walk(node, []);
  return out;
}

/** Markdown in the writer's own shape: it converts to a valid document and comes back byte for byte. */
function roundTrip(md: string): JSONDocument {
  const doc = markdownToDocument(md);
  assertMatchesSchema('JSONDocument', doc);
  const back = documentToMarkdown(doc);
  expect(back).toBe(md);
  expect(markdownToDocument(back)).toEqual(doc);
  return doc;
}

describe('code block options inside containers', () => {
  it('in tabs: each tab keeps its block options', () => {
    const other = '{% code title="app.py" %}\n```python\nprint(1)\n```\n{% endcode %}\n';
    const doc = roundTrip(
      `{% tabs %}\n{% tab title="JavaScript" %}\n${CODE}{% endtab %}\n\n{% tab title="Python" %}\nRun:\n\n${other}{% endtab %}\n{% endtabs %}\n`,
    );
    const codes = codeBlocks(doc);
    expect(codes.map((c) => c.path)).toEqual([
      ['tabs', 'tabs-item'],
      ['tabs', 'tabs-item'],
    ]);
    expect(codes[0].block.data).toEqual({ syntax: 'js', ...OPTIONS });
    expect(codes[1].block.data).toEqual({ syntax: 'python', title: 'app.py' });
  });

  it('in steps, columns and updates', () => {
    for (const [md, path] of [
      [
        `{% stepper %}\n{% step %}\n### Install\n\n${CODE}{% endstep %}\n\n{% step %}\nDone.\n{% endstep %}\n{% endstepper %}\n`,
        ['stepper', 'stepper-step'],
      ],
      [
        `{% columns %}\n{% column %}\n${CODE}{% endcolumn %}\n\n{% column %}\nBeside it.\n{% endcolumn %}\n{% endcolumns %}\n`,
        ['columns', 'column'],
      ],
      [`{% updates format="full" %}\n{% update date="2024-01-31" %}\n${CODE}{% endupdate %}\n{% endupdates %}\n`, ['updates', 'update']],
    ] as const) {
      const codes = codeBlocks(roundTrip(md));
      expect(codes.map((c) => c.path)).toEqual([path]);
      expect(codes[0].block.data).toEqual({ syntax: 'js', ...OPTIONS });
    }
  });

  it('in an expandable block (<details>), open or closed', () => {
    for (const open of ['', ' open']) {
      const codes = codeBlocks(roundTrip(`<details${open}>\n\n<summary>Full source</summary>\n\n${CODE}\n</details>\n`));
      expect(codes.map((c) => c.path)).toEqual([['expandable', 'expandable-body']]);
      expect(codes[0].block.data).toEqual({ syntax: 'js', ...OPTIONS });
    }
  });

  it('in an if block, and in an if inside a tab (the condition as meta.condition)', () => {
    const top = codeBlocks(roundTrip(`{% if visitor.claims.plan === "pro" %}\n${CODE}{% endif %}\n`));
    expect(top.map((c) => c.path)).toEqual([['if']]);
    expect(top[0].block.data).toEqual({ syntax: 'js', ...OPTIONS });
    const inTab = codeBlocks(
      roundTrip(
        `{% tabs %}\n{% tab title="Pro" %}\n{% if visitor.claims.plan === "pro" %}\n${CODE}{% endif %}\n{% endtab %}\n{% endtabs %}\n`,
      ),
    );
    expect(inTab[0].block).toMatchObject({ data: { syntax: 'js', ...OPTIONS }, meta: { condition: 'visitor.claims.plan === "pro"' } });
  });

  it('in a prompt block', () => {
    const codes = codeBlocks(roundTrip(`{% prompt description="Explain this" %}\n${CODE}{% endprompt %}\n`));
    expect(codes.map((c) => c.path)).toEqual([['prompt']]);
    expect(codes[0].block.data).toEqual({ syntax: 'js', ...OPTIONS });
  });

  it('a code block nested two containers deep (tabs flattened into a step) keeps its options', () => {
    const md = `{% stepper %}\n{% step %}\n{% tabs %}\n{% tab title="npm" %}\n${CODE}{% endtab %}\n{% endtabs %}\n{% endstep %}\n{% endstepper %}\n`;
    const doc = markdownToDocument(md);
    assertMatchesSchema('JSONDocument', doc);
    const back = documentToMarkdown(doc);
    expect(back).toContain(CODE);
    expect(codeBlocks(markdownToDocument(back))[0].block.data).toEqual({ syntax: 'js', ...OPTIONS });
  });

  it('an empty title (GitBook writes title="") is kept both ways', () => {
    const md = '{% tabs %}\n{% tab title="A" %}\n{% code title="" %}\n```\nx\n```\n{% endcode %}\n{% endtab %}\n{% endtabs %}\n';
    expect(codeBlocks(roundTrip(md))[0].block.data).toEqual({ title: '' });
    expect(documentToMarkdown(markdownToDocument('{% code title="" expandable="true" %}\n```\nx\n```\n{% endcode %}\n'))).toBe(
      '{% code title="" expandable="true" %}\n```\nx\n```\n{% endcode %}\n',
    );
  });

  it('an explicit overflow="scroll" (the default) is written back as it was read', () => {
    const md = '{% stepper %}\n{% step %}\n{% code overflow="scroll" %}\n```\nx\n```\n{% endcode %}\n{% endstep %}\n{% endstepper %}\n';
    expect(codeBlocks(roundTrip(md))[0].block.data).toEqual({ overflow: 'scroll' });
  });

  it('a block without options stays a bare fence inside a container', () => {
    roundTrip('{% tabs %}\n{% tab title="A" %}\n```sh\nls\n```\n{% endtab %}\n{% endtabs %}\n');
  });

  it('a fence inside the code that needs a longer fence, and a code line like a tag, stay code', () => {
    const md =
      '{% tabs %}\n{% tab title="A" %}\n{% code title="README.md" %}\n````markdown\n```js\n{% endcode %}\n```\n````\n{% endcode %}\n{% endtab %}\n{% endtabs %}\n';
    const codes = codeBlocks(roundTrip(md));
    expect(codes[0].block.data).toEqual({ syntax: 'markdown', title: 'README.md' });
    expect((codes[0].block as { nodes: unknown[] }).nodes).toHaveLength(3);
  });
});

describe('code blocks with options written from a JSON document', () => {
  const codeBlock = (data: Record<string, unknown>) => ({
    object: 'block',
    type: 'code',
    data,
    nodes: [
      { object: 'block', type: 'code-line', data: {}, nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'npm i', marks: [] }] }] },
    ],
  });
  const paragraph = (text: string) => ({
    object: 'block',
    type: 'paragraph',
    data: {},
    nodes: [{ object: 'text', leaves: [{ object: 'leaf', text, marks: [] }] }],
  });

  it('a tab made through the API writes its code block as GitBook does', () => {
    const doc = {
      object: 'document',
      data: {},
      nodes: [
        {
          object: 'block',
          type: 'tabs',
          data: {},
          nodes: [
            {
              object: 'block',
              type: 'tabs-item',
              data: { title: 'npm' },
              nodes: [codeBlock({ syntax: 'sh', title: 'Terminal', lineNumbers: false })],
            },
          ],
        },
      ],
    } as unknown as JSONDocument;
    assertMatchesSchema('JSONDocument', doc);
    expect(documentToMarkdown(doc)).toBe(
      '{% tabs %}\n{% tab title="npm" %}\n{% code title="Terminal" lineNumbers="false" %}\n```sh\nnpm i\n```\n{% endcode %}\n{% endtab %}\n{% endtabs %}\n',
    );
  });

  it('in a list item the frame is indented with the item (as GitBook writes it), and its options come back', () => {
    const doc = {
      object: 'document',
      data: {},
      nodes: [
        {
          object: 'block',
          type: 'list-ordered',
          data: {},
          nodes: [
            {
              object: 'block',
              type: 'list-item',
              data: {},
              nodes: [paragraph('Install:'), codeBlock({ syntax: 'sh', title: 'Terminal' })],
            },
          ],
        },
      ],
    } as unknown as JSONDocument;
    assertMatchesSchema('JSONDocument', doc);
    const md = documentToMarkdown(doc);
    expect(md).toBe('1. Install:\n\n   {% code title="Terminal" %}\n   ```sh\n   npm i\n   ```\n   {% endcode %}\n');
    // The import reads tags on lines of their own at any indentation: the block comes back (after
    // the list) with its options, never as text.
    const back = codeBlocks(markdownToDocument(md));
    expect(back.map((c) => c.block.data)).toEqual([{ syntax: 'sh', title: 'Terminal' }]);
  });

  it('in a quote (where a tag line would be quoted text) a bare fence is written, never tag text', () => {
    const doc = {
      object: 'document',
      data: {},
      nodes: [
        { object: 'block', type: 'blockquote', data: {}, nodes: [paragraph('Note'), codeBlock({ syntax: 'sh', title: 'Terminal' })] },
      ],
    } as unknown as JSONDocument;
    const md = documentToMarkdown(doc);
    expect(md).toBe('> Note\n>\n> ```sh\n> npm i\n> ```\n');
    expect(md).not.toContain('{%');
  });
});

describe('hints inside containers are written back as hints', () => {
  it('in tabs, steps, columns, updates and expandable blocks: the {% hint %} tag and its style come back', () => {
    const hint = '{% hint style="warning" %}\nMind the **gap**.\n{% endhint %}\n';
    for (const md of [
      `{% tabs %}\n{% tab title="A" %}\n${hint}{% endtab %}\n{% endtabs %}\n`,
      `{% stepper %}\n{% step %}\n### Install\n\n${hint}{% endstep %}\n{% endstepper %}\n`,
      `{% columns %}\n{% column %}\n${hint}{% endcolumn %}\n{% endcolumns %}\n`,
      `{% updates format="full" %}\n{% update date="2024-01-31" %}\n${hint}{% endupdate %}\n{% endupdates %}\n`,
      `<details>\n\n<summary>More</summary>\n\n${hint}\n</details>\n`,
    ]) {
      const doc = roundTrip(md);
      expect(JSON.stringify(doc)).toContain('"type":"hint","key":"k');
      expect(JSON.stringify(doc)).toContain('"style":"warning"');
    }
  });

  it('in a quote, a hint is written as a quote (a tag line there would be quoted text)', () => {
    const doc = {
      object: 'document',
      data: {},
      nodes: [
        {
          object: 'block',
          type: 'blockquote',
          data: {},
          nodes: [
            {
              object: 'block',
              type: 'hint',
              data: { style: 'info' },
              nodes: [
                {
                  object: 'block',
                  type: 'paragraph',
                  data: {},
                  nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'Note', marks: [] }] }],
                },
              ],
            },
          ],
        },
      ],
    } as unknown as JSONDocument;
    expect(documentToMarkdown(doc)).toBe('> > Note\n');
  });
});
