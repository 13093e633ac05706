// GitBook's code block options in the API's document (DocumentBlockCode data) and back to Markdown,
// so a block written through the API renders as one written in git.
import { describe, expect, it } from 'vitest';
import { documentToMarkdown, markdownToDocument } from '../../../src/content/markdown.js';

describe('code block options in the document', () => {
  it('title, overflow, lineNumbers, fullWidth and expandable, both ways', () => {
    const md =
      '{% code title="app.js" overflow="wrap" lineNumbers="true" fullWidth="true" expandable="false" %}\n```js\nconsole.log(1)\n```\n{% endcode %}\n';
    const doc = markdownToDocument(md);
    expect(doc.nodes[0]).toMatchObject({
      type: 'code',
      data: { syntax: 'js', title: 'app.js', overflow: 'wrap', lineNumbers: true, fullWidth: true, expandable: false },
    });
    const back = documentToMarkdown(doc);
    expect(back).toBe(md);
    expect(markdownToDocument(back)).toEqual(doc);
  });

  it('a block without options stays a bare fence; a title with quotes stays one attribute', () => {
    expect(documentToMarkdown(markdownToDocument('```py\nx = 1\n```\n'))).toBe('```py\nx = 1\n```\n');
    const doc = markdownToDocument('```sh\nls\n```\n');
    (doc.nodes[0] as any).data.title = 'say "hi"';
    expect(documentToMarkdown(doc)).toBe('{% code title="say %22hi%22" %}\n```sh\nls\n```\n{% endcode %}\n');
  });
});
