// The Ask box's HTML: a model's citations (`[[1]](url)`) become links; the renderer of a growing
// answer gives, at every step, exactly what rendering the whole answer gives; labels stay bounded.
import { describe, expect, it } from 'vitest';
import { answerHtml, growingAnswerHtml } from '../../../src/reader/answer-html.js';

describe('answer HTML', () => {
  it("a model's citation [[n]](url) is a link labelled [n]; other schemes stay text", () => {
    const html = answerHtml('Retry later [[1]](https://docs.test/p1), not [[2]](javascript:alert(1)).');
    expect(html).toBe('<p>Retry later <a href="https://docs.test/p1">[1]</a>, not [[2]](javascript:alert(1)).</p>');
    expect(answerHtml('[a \\] b](/x)')).toBe('<p><a href="/x">a ] b</a></p>');
  });

  it('a growing answer renders, step by step, as the whole answer does', () => {
    const full =
      'First paragraph with [a link](https://docs.test/p1) and `code`.\n\n> A quote <b>here</b>\n> and more\n\nRetry [[1]](https://docs.test/p1).\n\nSources:\n1. [Page 1](https://docs.test/p1)';
    const render = growingAnswerHtml();
    for (let n = 1; n <= full.length; n += 7) expect(render(full.slice(0, n))).toBe(answerHtml(full.slice(0, n)));
    expect(render(full)).toBe(answerHtml(full));
    // A step that changes an earlier block (the model rewrote it) is rendered anew too.
    expect(render('Other text.\n\nSources:\n1. [Page 1](https://docs.test/p1)')).toBe(
      answerHtml('Other text.\n\nSources:\n1. [Page 1](https://docs.test/p1)'),
    );
  });

  it('a label longer than 512 characters is not a link', () => {
    expect(answerHtml(`[${'a'.repeat(600)}](/x)`)).not.toContain('<a ');
    expect(answerHtml(`[${'a'.repeat(500)}](/x)`)).toContain('<a href="/x">');
  });
});
