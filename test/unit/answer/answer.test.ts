// The answer engine without a server: the extractive back-end quotes and cites, the OpenAI-compatible
// back-end's prompt is bounded and its links kept to the passages' pages, and an answer's HTML (the
// Ask box) escapes everything but the few constructs answers use.
import { describe, expect, it } from 'vitest';
import { extractiveBackend } from '../../../src/answer/extractive.js';
import { buildPrompt, keepOwnLinks } from '../../../src/answer/openai.js';
import type { Passage } from '../../../src/answer/types.js';
import { answerHtml } from '../../../src/reader/answer-html.js';

const passage = (i: number, text: string): Passage => ({
  title: `Page ${i}`,
  url: `https://docs.test/p${i}`,
  section: null,
  text,
  spaceId: 's',
  pageId: `p${i}`,
  revisionId: 'r',
  sectionIds: [],
});

describe('extractive answers', () => {
  it('quotes the sentences sharing most words with the question, best page first, with links and sources', async () => {
    const steps: string[] = [];
    const a = await extractiveBackend().answer(
      'How do I rotate the signing key?',
      [
        passage(1, 'Keys are stored encrypted. To rotate the signing key, call regenerate. Old tokens stop working.'),
        passage(2, 'The signing key is shown once.'),
        passage(3, 'Unrelated text about fonts.'),
      ],
      { onText: (t) => steps.push(t) },
    );
    expect(a.used).toEqual([0, 1]);
    expect(a.markdown).toContain('> To rotate the signing key, call regenerate.');
    expect(a.markdown).toContain('[Page 1](https://docs.test/p1)');
    expect(a.markdown).toContain('Sources:\n1. [Page 1](https://docs.test/p1)\n2. [Page 2](https://docs.test/p2)');
    expect(a.markdown).not.toContain('fonts');
    expect(steps.length).toBeGreaterThan(1);
    expect(steps.at(-1)).toBe(a.markdown);
  });

  it('says so when nothing was found', async () => {
    const a = await extractiveBackend().answer('anything', [], {});
    expect(a).toEqual({ markdown: 'No page of this documentation answers that question.', used: [] });
  });
});

describe('the OpenAI-compatible back-end', () => {
  it('bounds the prompt to whole passages that fit', () => {
    const { text, offered } = buildPrompt('q', [passage(1, 'a'.repeat(900)), passage(2, 'b'.repeat(900))], 1200);
    expect(offered).toBe(1);
    expect(text).toContain('[1] Page 1');
    expect(text).not.toContain('[2]');
  });

  it("keeps the model's links only to the passages' pages", () => {
    const md = keepOwnLinks('See [the page](https://docs.test/p1#x), [this](https://evil.test/) and ![img](https://docs.test/p1).', [
      passage(1, ''),
    ]);
    expect(md).toBe('See [the page](https://docs.test/p1#x), this and img.');
  });
});

describe('answer HTML', () => {
  it('escapes text, keeps http(s) and site links, drops other schemes', () => {
    const html = answerHtml(
      'Intro <script>alert(1)</script>\n\n> quoted <b>x</b>\n\n— [Page](https://docs.test/p1) [js](javascript:alert(1)) [rel](/site/x)\n\nSources:\n1. [A](//evil.test/a)',
    );
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;script&gt;');
    expect(html).toContain('<blockquote><p>quoted &lt;b&gt;x&lt;/b&gt;</p></blockquote>');
    expect(html).toContain('<a href="https://docs.test/p1">Page</a>');
    expect(html).toContain('<a href="/site/x">rel</a>');
    expect(html).not.toContain('href="javascript');
    expect(html).not.toContain('href="//evil');
    expect(html).toContain('<ol><li>');
  });
});
