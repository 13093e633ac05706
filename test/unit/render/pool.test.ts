import { afterAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../../src/content/limits.js';
import { markdownToDocument, splitSections } from '../../../src/content/markdown.js';
import { runTask, type BodyOutput, type FromDocumentOutput } from '../../../src/render/tasks.js';
import { MarkdownPool } from '../../../src/render/pool.js';

const DEEP = `${'>'.repeat(50_000)} deep`;
const codeLines = (doc: any): string[] => doc.nodes[0].nodes.map((line: any) => line.nodes[0].leaves[0].text);

describe('render tasks', () => {
  it('handle a body beyond the limits as plain text, saying why, for every reader', () => {
    const doc = runTask({ op: 'document', md: `${DEEP}\nsecond line` }) as BodyOutput<'document'>;
    expect(doc.plain).toBe('it exceeds the content limits (nesting deeper than 32 levels (line 1))');
    expect(doc.value.nodes).toHaveLength(1);
    expect(doc.value.nodes[0]).toMatchObject({ object: 'block', type: 'code', data: { syntax: 'markdown' } });
    expect(codeLines(doc.value)).toEqual([DEEP, 'second line']);

    const html = runTask({ op: 'html', md: `${DEEP}\n<script>`, anchor: 'a', images: [], links: [], files: [] }) as BodyOutput<'html'>;
    expect(html.value).toContain(
      '<p class="content-limit"><em>This page is shown as plain text: it exceeds the content limits (nesting deeper than 32 levels (line 1)).</em></p>',
    );
    expect(html.value).toContain(`<pre class="plain-text">${'&gt;'.repeat(50_000)} deep\n&lt;script&gt;</pre>`);

    const sections = runTask({ op: 'sections', md: `${DEEP}\n\n  findme  \n` }) as BodyOutput<'sections'>;
    expect(sections.value).toEqual([{ id: '', title: '', depth: 0, body: `${'>'.repeat(50_000)} deep\nfindme` }]);
    expect((runTask({ op: 'links', md: `[a](b.md)\n${DEEP}` }) as BodyOutput<'links'>).value).toEqual([]);
    expect((runTask({ op: 'headings', md: `# A\n${DEEP}` }) as BodyOutput<'headings'>).value).toEqual([]);
  });

  it('bound what a stored body beyond the size limit produces', () => {
    const huge = `${'line\n'.repeat(20_000)}${'x'.repeat(LIMITS.pageChars)}`;
    const doc = runTask({ op: 'document', md: huge }) as BodyOutput<'document'>;
    expect(doc.plain).toMatch(/^it exceeds the content limits \(longer than 1,000,000 characters/);
    const lines = codeLines(doc.value);
    expect(lines).toHaveLength(10_001);
    expect(lines.at(-1)).toBe('… 10,001 more lines not shown (read the page as Markdown)');
    const html = (runTask({ op: 'html', md: huge, anchor: 'a', images: [], links: [], files: [] }) as BodyOutput<'html'>).value;
    expect(html.length).toBeLessThan(LIMITS.pageChars + 1000);
    expect(html).toContain('… 100,000 more characters not shown');
  });

  it('convert bodies within the limits as the Markdown module does', () => {
    const md = '# Title\n\nSome *text* with a [link](https://example.com).\n\n- a\n  - b\n';
    expect(runTask({ op: 'document', md })).toEqual({ value: markdownToDocument(md) });
    expect(runTask({ op: 'sections', md })).toEqual({ value: splitSections(md) });
  });

  it('check a JSON document before converting it, and the Markdown it makes', () => {
    const doc = (nodes: unknown[]) => ({ object: 'document', data: {}, nodes });
    expect(runTask({ op: 'fromDocument', doc: doc([{ object: 'block', type: 'paragraph', nodes: [null] }]), maxChars: 100 })).toEqual({
      violation: { limit: 'shape', path: 'nodes[0].nodes[0]', message: 'must be a node object (block, inline or text), not null' },
    });
    const para = {
      object: 'block',
      type: 'paragraph',
      data: {},
      nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'x'.repeat(200), marks: [] }] }],
    };
    expect((runTask({ op: 'fromDocument', doc: doc([para]), maxChars: 100 }) as { violation: unknown }).violation).toEqual({
      limit: 'size',
      path: '',
      message: 'as Markdown, longer than 100 characters (201)',
    });
    expect(runTask({ op: 'fromDocument', doc: doc([para]), maxChars: 1000 })).toEqual({ markdown: `${'x'.repeat(200)}\n` });
    // 40 nested quotes are a valid document shape, but 40 levels of Markdown.
    let deep: unknown = para;
    for (let i = 0; i < 40; i++) deep = { object: 'block', type: 'blockquote', data: {}, nodes: [deep] };
    const out = runTask({ op: 'fromDocument', doc: doc([deep]), maxChars: 1e6 }) as FromDocumentOutput;
    expect(out).toEqual({ violation: { limit: 'depth', path: '', message: 'as Markdown, nesting deeper than 32 levels (line 1)' } });
  });
});

describe('MarkdownPool', () => {
  const pools: MarkdownPool[] = [];
  const pool = (o: { threads: number; timeoutMs: number }) => {
    const p = new MarkdownPool(o);
    pools.push(p);
    return p;
  };
  afterAll(() => Promise.all(pools.map((p) => p.close())));

  it('runs tasks on worker threads and caches by body', async () => {
    const p = pool({ threads: 1, timeoutMs: 60_000 });
    const md = `# Guide\n\n${'Some text with **bold** and a [link](https://example.com).\n\n'.repeat(50)}`;
    const doc = await p.document(md);
    expect(doc).toEqual(markdownToDocument(md));
    expect(await p.document(md)).toBe(doc); // the cached result
    const other = `${md}\nMore.`;
    const [a, b] = await Promise.all([p.document(other), p.document(other)]);
    expect(a).toBe(b); // concurrent readers share one task
    expect(await p.sections([md, 'tiny', md])).toEqual([splitSections(md), splitSections('tiny'), splitSections(md)]);
    expect(await p.scan(`${'> '.repeat(40)}x`.padEnd(1000, ' '), LIMITS.pageChars)).toMatchObject({ limit: 'depth' });
  });

  it('caches an HTML fragment by its body and its lookups', async () => {
    const p = pool({ threads: 1, timeoutMs: 60_000 });
    const md = `# Setup\n\n![Diagram](d.png) and [the guide](guide.md).\n\n${'More text.\n\n'.repeat(60)}`;
    const lookups = { anchor: 'p1', images: [['d.png', { src: 'data:image/png;base64,AAAA' }]], links: [['guide.md', '#p2']], files: [] };
    const html = await p.html(md, lookups as never);
    expect(html).toContain('src="data:image/png;base64,AAAA"');
    expect(html).toContain('href="#p2"');
    await p.close();
    // No thread left: the same body with equal lookups comes from the cache, any other needs one.
    expect(await p.html(md, JSON.parse(JSON.stringify(lookups)))).toBe(html);
    await expect(p.html(md, { ...lookups, links: [['guide.md', '#p3']] } as never)).rejects.toThrow('closed');
    await expect(p.html(`${md}Changed.\n`, lookups as never)).rejects.toThrow('closed');
  });

  it("renders a body's HTML from the parse its plan made, on another thread, without parsing it again", async () => {
    const p = pool({ threads: 2, timeoutMs: 60_000 });
    const md = `# Setup\n\n![Diagram](d.png) and [the guide](guide.md).\n\n${'More text.\n\n'.repeat(60)}`;
    const lookups = { anchor: 'p1', images: [['d.png', { src: 'data:image/png;base64,AAAA' }]], links: [['guide.md', '#p2']], files: [] };
    const first = await p.planParsed(md);
    expect(first.plan).toEqual({ images: ['d.png'], links: ['guide.md'], files: [], operations: [] });
    expect(first.parsed?.root.type).toBe('root');
    // Planned once: the plan is cached, the parse is not kept.
    expect(await p.planParsed(md)).toEqual({ plan: first.plan });
    expect(await p.html(md, lookups as never, first.parsed)).toBe(await pool({ threads: 0, timeoutMs: 60_000 }).html(md, lookups as never));
    // The parse given is the one used: another text's parse shows through (so none was made).
    const other = `# Other\n\n${'Else.\n\n'.repeat(60)}`;
    const { parsed } = await p.planParsed(other);
    expect(await p.html(md, { ...lookups, anchor: 'p9' } as never, parsed)).toContain('Else.');
    // A body beyond the limits gives no parse, and its HTML is plain text as ever.
    const deep = await p.planParsed(`${DEEP}\nsecond line`);
    expect(deep.parsed).toBeUndefined();
    await p.close();
  });

  it('stops a task past its time limit, gives plain text, and keeps working', async () => {
    const p = pool({ threads: 1, timeoutMs: 300 });
    // Within every limit, but seconds of parsing: 48,000 links.
    const slow = `${'[a](b) '.repeat(2400)}\n\n`.repeat(20);
    expect(runTask({ op: 'scan', md: slow, maxChars: LIMITS.pageChars })).toBeNull();
    const doc = await p.document(slow);
    expect(doc.nodes[0]).toMatchObject({ type: 'code', data: { syntax: 'markdown' } });
    // Remembered as slow: the other readers get plain text at once.
    expect(await p.html(slow, { anchor: 'x', images: [], links: [], files: [] })).toContain(
      'This page is shown as plain text: it could not be processed within 300 ms',
    );
    expect(await p.sections([slow])).toEqual([
      [{ id: '', title: '', depth: 0, body: Array(20).fill('[a](b) '.repeat(2400).trim()).join('\n') }],
    ]);
    // A new thread takes the stopped one's place.
    const md = 'Fine *text*.\n\n'.repeat(100);
    expect(await p.document(md)).toEqual(markdownToDocument(md));
  });

  it('tells a body that ran out of time from one without links (the link index stores only the latter)', async () => {
    const p = pool({ threads: 1, timeoutMs: 300 });
    const slow = `${'[a](b) '.repeat(2400)}\n\n`.repeat(20); // seconds of parsing
    expect(await p.linksOrTimedOut([slow, 'No links.', 'A [link](y).'])).toEqual([null, [], [{ url: 'y', relation: 'link' }]]);
    expect(await p.links([slow])).toEqual([[]]);
  });

  it('merges texts line by line', async () => {
    const p = pool({ threads: 1, timeoutMs: 60_000 });
    const base = Array.from({ length: 200 }, (_, i) => `line ${i}`);
    const ours = [...base];
    ours[0] = 'ours';
    const theirs = [...base];
    theirs[199] = 'theirs';
    expect(await p.mergeText(base.join('\n'), ours.join('\n'), theirs.join('\n'))).toEqual({
      merged: [...ours.slice(0, 199), 'theirs'].join('\n'),
    });
    expect(await p.mergeText(base.join('\n'), ours.join('\n'), ['other', ...base.slice(1)].join('\n'))).toEqual({
      conflict: 'both sides changed the same lines of the page',
    });
  });

  it('runs on the calling thread with no threads', async () => {
    const p = pool({ threads: 0, timeoutMs: 1 });
    const md = '- a\n  - b\n'.repeat(100);
    expect(await p.document(md)).toEqual(markdownToDocument(md));
  });
});
