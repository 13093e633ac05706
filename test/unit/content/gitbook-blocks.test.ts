// GitBook's blocks as they appear in real git-synced repositories become the description's document
// nodes (?format=document), valid against its JSONDocument schema.
import { describe, expect, it } from 'vitest';
import { documentToMarkdown, markdownToDocument, type JSONDocument } from '../../../src/content/markdown.js';
import { assertMatchesSchema } from '../../helpers/spec.js';

const convert = (md: string): JSONDocument => {
  const doc = markdownToDocument(md);
  assertMatchesSchema('JSONDocument', doc);
  return doc;
};
const types = (doc: JSONDocument) => doc.nodes.map((n) => n.type);
const first = (md: string): any => convert(md).nodes[0];

describe('GitBook blocks to document nodes', () => {
  it('hint', () => {
    expect(first('{% hint style="warning" %}\nCareful **now**.\n{% endhint %}\n')).toMatchObject({
      type: 'hint',
      data: { style: 'warning' },
    });
  });

  it('tabs with titled items, nested blocks inside', () => {
    const b = first(
      '{% tabs %}\n{% tab title="npm" %}\n```bash\nnpm i x\n```\n{% endtab %}\n\n{% tab title="yarn" %}\n{% hint style="info" %}\nYarn 1\n{% endhint %}\n{% endtab %}\n{% endtabs %}\n',
    );
    expect(b.type).toBe('tabs');
    expect(b.nodes.map((i: any) => [i.type, i.data.title, i.nodes[0].type])).toEqual([
      ['tabs-item', 'npm', 'code'],
      ['tabs-item', 'yarn', 'hint'],
    ]);
  });

  it('stepper with steps', () => {
    const b = first(
      '{% stepper %}\n{% step %}\n### Install\n\nRun it.\n{% endstep %}\n\n{% step %}\n### Use\n{% endstep %}\n{% endstepper %}\n',
    );
    expect(b.type).toBe('stepper');
    expect(b.nodes.map((s: any) => [s.type, s.nodes[0].type])).toEqual([
      ['stepper-step', 'heading-3'],
      ['stepper-step', 'heading-3'],
    ]);
  });

  it('code with title, overflow and line numbers', () => {
    const b = first('{% code title="app.js" overflow="wrap" lineNumbers="true" %}\n```js\nconsole.log(1)\n```\n{% endcode %}\n');
    expect(b).toMatchObject({ type: 'code', data: { syntax: 'js', title: 'app.js', overflow: 'wrap', lineNumbers: true } });
  });

  it('embed, content-ref, file, include', () => {
    const doc = convert(
      [
        '{% embed url="https://www.youtube.com/watch?v=x" %}',
        '',
        '{% content-ref url="guide/setup.md" %}',
        '[setup.md](guide/setup.md)',
        '{% endcontent-ref %}',
        '',
        '{% include "../.gitbook/includes/support.md" %}',
        '',
      ].join('\n'),
    );
    expect(types(doc)).toEqual(['embed', 'content-ref', 'reusable-content']);
    expect(doc.nodes[0]).toMatchObject({ data: { url: 'https://www.youtube.com/watch?v=x' } });
    expect(doc.nodes[1]).toMatchObject({ data: { ref: { kind: 'url', url: 'guide/setup.md' } } });
    expect(doc.nodes[2]).toMatchObject({ data: { ref: { kind: 'reusable-content', reusableContent: '../.gitbook/includes/support.md' } } });
  });

  it('swagger, openapi and openapi-operation', () => {
    const doc = convert(
      [
        '{% swagger src="../../.gitbook/assets/openapi.yaml" path="/data-policies" method="get" expanded="true" %}',
        '[openapi.yaml](../../.gitbook/assets/openapi.yaml)',
        '{% endswagger %}',
        '',
        '{% openapi src="./openapi.json" path="/api/v1/balance" method="post" %}',
        '[openapi.json](openapi.json)',
        '{% endopenapi %}',
        '',
        '{% openapi-operation spec="petstore" path="/pets" method="get" %}',
        '[OpenAPI petstore](https://example.com/openapi.json)',
        '{% endopenapi-operation %}',
        '',
      ].join('\n'),
    );
    expect(doc.nodes.map((n: any) => [n.type, n.data.path, n.data.method])).toEqual([
      ['swagger', '/data-policies', 'get'],
      ['swagger', '/api/v1/balance', 'post'],
      ['openapi-operation', '/pets', 'get'],
    ]);
    expect(doc.nodes[2]).toMatchObject({ data: { ref: { kind: 'openapi', spec: 'petstore' } } });
  });

  it('figure with caption, raw img, details, columns, math, updates', () => {
    const doc = convert(
      [
        '<figure><img src=".gitbook/assets/a.png" alt="A chart"><figcaption><p>The chart</p></figcaption></figure>',
        '',
        '<details>',
        '',
        '<summary>More</summary>',
        '',
        'Hidden **text**.',
        '',
        '</details>',
        '',
        '{% columns %}',
        '{% column %}',
        'Left',
        '{% endcolumn %}',
        '',
        '{% column %}',
        'Right',
        '{% endcolumn %}',
        '{% endcolumns %}',
        '',
        '$$',
        'E = mc^2',
        '$$',
        '',
        'Inline $$a^2$$ math, and $5 stays text.',
        '',
        '{% updates format="full" %}',
        '{% update date="2024-01-31" %}',
        '## Release',
        '{% endupdate %}',
        '{% endupdates %}',
        '',
      ].join('\n'),
    );
    expect(types(doc)).toEqual(['images', 'expandable', 'columns', 'math', 'paragraph', 'updates']);
    const img: any = doc.nodes[0];
    expect(img.nodes[0]).toMatchObject({ data: { ref: { url: '.gitbook/assets/a.png' }, alt: 'A chart' } });
    expect(img.nodes[0].fragments[0].nodes[0].nodes[0].leaves[0].text).toBe('The chart');
    const details: any = doc.nodes[1];
    expect(details.fragments.map((f: any) => f.fragment)).toEqual(['expandable-title', 'expandable-body']);
    expect(details.fragments[0].nodes[0].nodes[0].leaves[0].text).toBe('More');
    expect((doc.nodes[2] as any).nodes.map((c: any) => c.type)).toEqual(['column', 'column']);
    expect(doc.nodes[3]).toMatchObject({ data: { formula: 'E = mc^2' } });
    const inline = (doc.nodes[4] as any).nodes;
    expect(inline.find((n: any) => n.type === 'inline-math')).toMatchObject({ data: { formula: 'a^2' } });
    expect(JSON.stringify(inline)).toContain('$5 stays text');
    expect((doc.nodes[5] as any).nodes[0]).toMatchObject({ type: 'update', data: { date: '2024-01-31T00:00:00.000Z' } });
  });

  it('HTML card tables and HTML tables as table blocks (cards view with cover and target, or a grid)', () => {
    const cards = first(
      [
        '<table data-card-size="large" data-view="cards">',
        '<thead><tr><th></th><th></th><th data-hidden data-card-target data-type="content-ref"></th><th data-hidden data-card-cover data-type="image">Cover image</th></tr></thead>',
        '<tbody>',
        '<tr><td><strong>Modular SDK</strong></td><td>Unified <a href="https://example.com/apis">APIs</a></td><td><a href="../sdk/get-started.md">get-started.md</a></td><td><a href="../assets/sdk.png">sdk.png</a></td></tr>',
        '<tr><td><strong>Indexer</strong></td><td>Data access</td><td></td><td></td></tr>',
        '</tbody>',
        '</table>',
        '',
      ].join('\n'),
    );
    expect(cards.type).toBe('table');
    expect(cards.data.view).toEqual({
      type: 'cards',
      cardSize: 'large',
      columns: ['c0', 'c1'],
      hideColumnTitle: true,
      coverDefinition: 'c3',
      targetDefinition: 'c2',
    });
    expect(cards.data.definition.c3).toMatchObject({ type: 'image', title: 'Cover image' });
    expect(cards.data.definition.c2).toMatchObject({ type: 'content-ref' });
    expect(cards.data.records.r0.values.c3).toEqual({ ref: { kind: 'url', url: '../assets/sdk.png' } });
    // A target that is not a page (here a URL: no snapshot resolves it) links the card's title instead.
    expect(cards.data.records.r0.values.c2).toBeUndefined();
    const title = cards.fragments.find((f: any) => f.fragment === 'r0-c0');
    expect(title.nodes[0].nodes[0]).toMatchObject({ type: 'link', data: { ref: { kind: 'url', url: '../sdk/get-started.md' } } });
    expect(title.nodes[0].nodes[0].nodes[0].leaves[0]).toMatchObject({ text: 'Modular SDK', marks: [{ type: 'bold' }] });
    // A page target stays the card's target.
    const paged = markdownToDocument(
      '<table data-view="cards"><thead><tr><th></th><th data-hidden data-card-target></th></tr></thead><tbody><tr><td>A</td><td><a href="a.md">a</a></td></tr></tbody></table>\n',
      (url) => (url === 'a.md' ? { kind: 'page', page: 'pageA' } : { kind: 'url', url }),
    ).nodes[0] as any;
    expect(paged.data.records.r0.values.c1).toEqual({ kind: 'page', page: 'pageA' });
    const text = JSON.stringify(cards.fragments.find((f: any) => f.fragment === 'r0-c1'));
    expect(text).toContain('"type":"link"');
    expect(Object.keys(cards.data.records)).toEqual(['r0', 'r1']);

    const grid = first(
      '<table><thead><tr><th>Name</th><th>Meaning</th></tr></thead><tbody><tr><td><code>port</code></td><td>Port</td></tr></tbody></table>\n',
    );
    expect(grid.data.view).toEqual({ type: 'grid', columns: ['c0', 'c1'], hideHeader: false });
    expect(grid.data.definition.c0).toMatchObject({ title: 'Name', type: 'text' });
  });

  it('tags inside code blocks stay code; unclosed tags stay text; nesting is bounded', () => {
    const doc = convert('```\n{% tabs %}\n```\n\n{% tabs %}\nno end\n');
    expect(types(doc)).toEqual(['code', 'paragraph']);
    const deep = `${'{% hint style="info" %}\n'.repeat(40)}x\n${'{% endhint %}\n'.repeat(40)}`;
    expect(() => markdownToDocument(deep)).not.toThrow();
  });

  it('a document of GitBook blocks written back as Markdown reads back the same', () => {
    const md = [
      '{% tabs %}\n{% tab title="A" %}\nOne\n{% endtab %}\n\n{% tab title="B" %}\nTwo\n{% endtab %}\n{% endtabs %}',
      '{% stepper %}\n{% step %}\nFirst\n{% endstep %}\n{% endstepper %}',
      '<details>\n\n<summary>More</summary>\n\nHidden.\n\n</details>',
      '{% embed url="https://example.com/v" %}',
      '{% columns %}\n{% column %}\nL\n{% endcolumn %}\n{% endcolumns %}',
      '$$\nx^2\n$$',
      '{% updates format="full" %}\n{% update date="2024-01-31" %}\nNew\n{% endupdate %}\n{% endupdates %}',
    ].join('\n\n');
    const first = convert(md);
    const again = convert(documentToMarkdown(first));
    expect(again).toEqual(first);
  });
});
