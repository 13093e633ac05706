// GitBook's `{% if %}` and `{% prompt %}` blocks: Markdown -> the description's document (valid
// against its DocumentBlockIf / DocumentBlockPrompt schemas) -> the same Markdown, and the two
// filters that decide what a reader with given claims sees (src/content/conditional-blocks.ts).
import { describe, expect, it } from 'vitest';
import { documentToMarkdown, markdownToDocument, type JSONDocument } from '../../../src/content/markdown.js';
import {
  conditionOutcomes,
  conditionalBlockWarnings,
  filterConditionalDocument,
  filterConditionalMarkdown,
  hasConditionalBlocks,
} from '../../../src/content/conditional-blocks.js';
import { assertMatchesSchema } from '../../helpers/spec.js';

const convert = (md: string): JSONDocument => {
  const doc = markdownToDocument(md);
  assertMatchesSchema('JSONDocument', doc);
  return doc;
};
const pro = { visitor: { claims: { unsigned: { plan: 'pro' } } } };
const free = { visitor: { claims: { unsigned: { plan: 'free' } } } };
const json = (v: unknown) => JSON.stringify(v);

// As GitBook writes them (git-synced repositories): the condition after `if`, the prompt's options as attributes.
const PAGE = [
  'Intro for everyone.',
  '',
  '{% if visitor.claims.unsigned.plan === "pro" %}',
  'Pro only text.',
  '',
  '{% hint style="info" %}',
  'A pro hint.',
  '{% endhint %}',
  '{% endif %}',
  '',
  '{% prompt description="Summarize this page" icon="rectangle-terminal" openInAIProviders="true" defaultExpanded="full" %}',
  '```markdown',
  'Summarize the page in three bullet points.',
  '```',
  '{% endprompt %}',
  '',
  'Outro.',
  '',
].join('\n');

describe('{% if %} and {% prompt %} in the document model', () => {
  it('become DocumentBlockIf and DocumentBlockPrompt, valid against the description', () => {
    const doc = convert(PAGE);
    expect(doc.nodes.map((n) => n.type)).toEqual(['paragraph', 'if', 'prompt', 'paragraph']);
    const ifBlock: any = doc.nodes[1];
    assertMatchesSchema('DocumentBlockIf', ifBlock);
    expect(ifBlock.data).toEqual({ expression: 'visitor.claims.unsigned.plan === "pro"' });
    expect(ifBlock.nodes.map((n: any) => n.type)).toEqual(['paragraph', 'hint']);
    const prompt: any = doc.nodes[2];
    assertMatchesSchema('DocumentBlockPrompt', prompt);
    expect(prompt.data).toEqual({
      description: 'Summarize this page',
      icon: 'rectangle-terminal',
      openInAIProviders: true,
      defaultExpanded: 'full',
    });
    expect(prompt.nodes).toHaveLength(1);
    expect(prompt.nodes[0]).toMatchObject({ type: 'code', data: { syntax: 'markdown' } });
  });

  it('round-trip: the document is written back as the same Markdown', () => {
    const doc = convert(PAGE);
    const back = documentToMarkdown(doc);
    // Byte for byte what GitBook wrote.
    expect(back).toBe(PAGE);
    expect(back).toContain(
      '{% if visitor.claims.unsigned.plan === "pro" %}\nPro only text.\n\n{% hint style="info" %}\nA pro hint.\n{% endhint %}\n{% endif %}',
    );
    expect(back).toContain(
      '{% prompt description="Summarize this page" icon="rectangle-terminal" openInAIProviders="true" defaultExpanded="full" %}\n```markdown\nSummarize the page in three bullet points.\n```\n{% endprompt %}',
    );
    // And again: Markdown -> document -> Markdown is stable.
    expect(json(convert(back))).toBe(json(doc));
    expect(documentToMarkdown(convert(back))).toBe(back);
  });

  it('nested ifs, and a prompt without options or fence', () => {
    const md =
      '{% if visitor.claims.a %}\nA\n\n{% if visitor.claims.b %}\nA and B\n{% endif %}\n{% endif %}\n\n{% prompt description="Plain" %}\nJust text\n{% endprompt %}\n';
    const doc: any = convert(md);
    expect(doc.nodes[0].nodes.map((n: any) => n.type)).toEqual(['paragraph', 'if']);
    expect(doc.nodes[1].data).toEqual({ description: 'Plain' });
    expect(doc.nodes[1].nodes[0].nodes[0].nodes[0].leaves[0].text).toBe('Just text');
    expect(json(convert(documentToMarkdown(doc)))).toBe(json(doc));
  });

  it('an if where the description has no room for one (a tab) carries its condition on its blocks and writes back', () => {
    const md =
      '{% tabs %}\n{% tab title="One" %}\nEveryone\n\n{% if visitor.claims.a %}\nSecret A\n{% endif %}\n{% endtab %}\n{% endtabs %}\n';
    const doc: any = convert(md);
    const item = doc.nodes[0].nodes[0];
    expect(item.nodes.map((n: any) => n.meta?.condition)).toEqual([undefined, 'visitor.claims.a']);
    const back = documentToMarkdown(doc);
    expect(back).toContain('{% if visitor.claims.a %}\nSecret A\n{% endif %}');
    expect(json(convert(back))).toBe(json(doc));
    expect(json(filterConditionalDocument(doc, { visitor: { claims: { a: true } } }))).toContain('Secret A');
    const hidden = filterConditionalDocument(doc, { visitor: { claims: {} } });
    expect(json(hidden)).not.toContain('Secret A');
    expect(json(hidden)).toContain('Everyone');
    assertMatchesSchema('JSONDocument', hidden);
  });

  it('a prompt inside a hint (no room for it) gives its description and text', () => {
    const doc: any = convert('{% hint style="info" %}\n{% prompt description="Ask" %}\n```\nHello\n```\n{% endprompt %}\n{% endhint %}\n');
    expect(json(doc)).toContain('Ask');
    expect(json(doc)).toContain('Hello');
  });

  it('tags inside code are text', () => {
    const md = '```liquid\n{% if visitor.claims.a %}\nshown\n{% endif %}\n```\n';
    expect(convert(md).nodes.map((n) => n.type)).toEqual(['code']);
    expect(filterConditionalMarkdown(md, null)).toBe(md);
  });
});

describe('filterConditionalMarkdown', () => {
  it('keeps the branch for matching claims, drops it otherwise, and never keeps a tag', () => {
    const shown = filterConditionalMarkdown(PAGE, pro);
    expect(shown).toContain('Pro only text.');
    expect(shown).toContain('A pro hint.');
    const hidden = filterConditionalMarkdown(PAGE, free);
    expect(hidden).not.toContain('Pro only');
    expect(hidden).not.toContain('pro hint');
    expect(hidden).toContain('Intro for everyone.');
    expect(hidden).toContain('Outro.');
    for (const out of [shown, hidden]) expect(out).not.toMatch(/\{%\s*(end)?if/);
  });

  it('no context (search indexing) hides every conditional block, even one that is always true', () => {
    const out = filterConditionalMarkdown('A\n\n{% if true %}\nB\n{% endif %}\n\n{% if !visitor.claims.x %}\nC\n{% endif %}\n', null);
    expect(out.replace(/\s+/g, ' ').trim()).toBe('A');
  });

  it('nested blocks: the inner one shows only when both are true', () => {
    const md = '{% if visitor.claims.a %}\nA\n{% if visitor.claims.b %}\nAB\n{% endif %}\nA2\n{% endif %}\nEnd';
    expect(filterConditionalMarkdown(md, { visitor: { claims: { a: true, b: true } } })).toBe('A\nAB\nA2\nEnd');
    expect(filterConditionalMarkdown(md, { visitor: { claims: { a: true } } })).toBe('A\nA2\nEnd');
    expect(filterConditionalMarkdown(md, { visitor: { claims: { b: true } } })).toBe('End');
  });

  it('an invalid expression, an unclosed block and a stray endif never show anything hidden', () => {
    expect(filterConditionalMarkdown('{% if visitor.claims.( %}\nX\n{% endif %}\nY', pro)).toBe('Y');
    expect(filterConditionalMarkdown('{% if eval("1") %}\nX\n{% endif %}\nY', pro)).toBe('Y');
    expect(filterConditionalMarkdown('A\n{% if visitor.claims.nope %}\nX\n\nY', pro)).toBe('A');
    expect(filterConditionalMarkdown('A\n{% endif %}\nB', pro)).toBe('A\nB');
  });

  it("tags inside a line of text are text (GitBook's blocks stand on their own lines): never evaluated, so never half-hidden", () => {
    // Docs about Liquid or Jinja quote the tag in prose and inline code.
    for (const line of [
      'Plan: {% if visitor.claims.unsigned.plan === "pro" %}pro{% endif %}.',
      'Write `{% if user %}` then `{% endif %}` in a template.',
    ])
      for (const ctx of [pro, free, null]) expect(filterConditionalMarkdown(`${line}\nNext`, ctx)).toBe(`${line}\nNext`);
    const many = `x ${'{% if true '.repeat(20_000)}`;
    expect(filterConditionalMarkdown(many, pro)).toBe(many);
  });

  it('space and page variables are part of the context', () => {
    expect(
      filterConditionalMarkdown('{% if space.vars.edition == "cloud" %}\nCloud\n{% endif %}', { space: { vars: { edition: 'cloud' } } }),
    ).toBe('Cloud');
  });

  it('deep nesting without recursion', () => {
    const depth = 5_000;
    const md = `${'{% if true %}\n'.repeat(depth)}deep\n${'{% endif %}\n'.repeat(depth)}`;
    expect(filterConditionalMarkdown(md, pro).trim()).toBe('deep');
  });
});

describe('filterConditionalDocument', () => {
  it('replaces a true if by its content, removes a false one, leaves the input alone', () => {
    const doc = convert(PAGE);
    const before = json(doc);
    const shown = filterConditionalDocument(doc, pro);
    expect(shown.nodes.map((n) => n.type)).toEqual(['paragraph', 'paragraph', 'hint', 'prompt', 'paragraph']);
    const hidden = filterConditionalDocument(doc, free);
    expect(hidden.nodes.map((n) => n.type)).toEqual(['paragraph', 'prompt', 'paragraph']);
    expect(json(hidden)).not.toContain('Pro only');
    expect(json(doc)).toBe(before);
    assertMatchesSchema('JSONDocument', shown);
    assertMatchesSchema('JSONDocument', hidden);
  });
});

describe('helpers', () => {
  it('hasConditionalBlocks and import warnings for invalid conditions', () => {
    expect(hasConditionalBlocks(PAGE)).toBe(true);
    expect(hasConditionalBlocks('{% hint %}')).toBe(false);
    expect(conditionalBlockWarnings(PAGE)).toEqual([]);
    const w = conditionalBlockWarnings('Text\n\n{% if visitor.claims.( %}\nX\n{% endif %}\n');
    expect(w).toHaveLength(1);
    expect(w[0]).toMatch(/^line 3: the condition of an \{% if %\} block is not valid/);
    // What the conditions decide (blocks only: a tag inside a line is text), the render key's part.
    const md = `${PAGE}\n{% if visitor.claims.unsigned.plan == "free" %}\nfree\n{% endif %}\nPlan: {% if visitor.claims.x %}inline{% endif %}`;
    expect(conditionOutcomes(md, pro)).toBe('10');
    expect(conditionOutcomes(md, free)).toBe('01');
    expect(conditionOutcomes('No conditions', pro)).toBe('');
  });
});
