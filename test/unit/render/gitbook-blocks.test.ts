// GitBook's blocks in the HTML of the published view and of the PDF (same renderer): tabs are
// switchable without scripts, hints styled, steppers numbered, figures captioned, details collapsible.
import { describe, expect, it } from 'vitest';
import { BLOCK_CSS, exportDocumentHtml, pageBodyHtml, renderPlan } from '../../../src/render/html.js';

const render = (md: string, extra: { images?: [string, { src: string }][]; links?: [string, string | null][] } = {}) =>
  pageBodyHtml(md, { anchor: 'p1', images: new Map(extra.images ?? []), links: new Map(extra.links ?? []), files: new Map() });

describe('GitBook blocks in HTML', () => {
  it('tabs: one radio button and label per tab, the first checked, panels titled for print', () => {
    const html = render(
      '{% tabs %}\n{% tab title="npm" %}\nnpm i\n{% endtab %}\n\n{% tab title="yarn" %}\nyarn add\n{% endtab %}\n{% endtabs %}\n',
    );
    expect(html.match(/<input type="radio"/g)).toHaveLength(2);
    expect(html).toMatch(/<input type="radio" name="p1-tabs-1" id="p1-tabs-1-0" class="tab-radio" checked>/);
    expect(html).toContain('<label for="p1-tabs-1-1" class="tab-label">yarn</label>');
    expect(html).toMatch(/<div class="tab-panel"><p class="tab-title">npm<\/p>\s*<p>npm i<\/p>/);
    // Switching is CSS only; printed, every panel shows.
    expect(BLOCK_CSS).toContain('.tab-radio:nth-of-type(2):checked ~ .tab-panel:nth-of-type(2)');
    expect(BLOCK_CSS).toMatch(/@media print[\s\S]*\.tab-panel \{ display: block !important; \}/);
  });

  it('hints, steppers, columns, updates, code titles, math', () => {
    const html = render(
      [
        '{% hint style="danger" %}\nStop.\n{% endhint %}',
        '{% stepper %}\n{% step %}\nOne\n{% endstep %}\n\n{% step %}\nTwo\n{% endstep %}\n{% endstepper %}',
        '{% columns %}\n{% column %}\nL\n{% endcolumn %}\n\n{% column %}\nR\n{% endcolumn %}\n{% endcolumns %}',
        '{% updates format="full" %}\n{% update date="2024-01-31" %}\nShipped\n{% endupdate %}\n{% endupdates %}',
        '{% code title="app.js" lineNumbers="true" %}\n```js\nrun()\n```\n{% endcode %}',
        '$$\nE=mc^2\n$$',
      ].join('\n\n'),
    );
    expect(html).toContain('<aside class="hint hint-danger">');
    expect(html).toMatch(/<ol class="stepper"><li class="step">\s*<p>One<\/p>\s*<\/li><li class="step">\s*<p>Two<\/p>/);
    expect(html).toMatch(/<div class="columns"><div class="column">\s*<p>L<\/p>/);
    expect(html).toContain('<p class="update-date">2024-01-31</p>');
    expect(html).toMatch(/<figure class="code-block line-numbers"><figcaption class="code-title">app.js<\/figcaption>/);
    // Math as MathML: E, =, m, c with a superscript 2.
    expect(html).toMatch(/<div class="math"><span class="katex"><math xmlns="http:\/\/www.w3.org\/1998\/Math\/MathML" display="block">/);
    expect(html).toMatch(/<msup><mi>c<\/mi><mn>2<\/mn><\/msup>/);
    expect(BLOCK_CSS).toMatch(/li\.step::before \{ content: counter\(step\)/);
  });

  it('math: inline and block as MathML; hostile or broken TeX stays text; nothing runs', () => {
    const inline = render('The area is $$\\pi r^2$$ here.\n');
    expect(inline).toMatch(/<span class="math"><span class="katex"><math[^>]*><semantics><mrow><mi>π<\/mi>/);
    // Unknown commands and unbalanced braces are shown as written.
    expect(render('$$\n\\frac{1}{\n$$\n')).toContain('<div class="math"><code>\\frac{1}{</code></div>');
    // KaTeX untrusted: no links, no HTML, no unbounded macro expansion.
    const link = render('$$\n\\href{javascript:alert(1)}{x}\n$$\n');
    expect(link).not.toMatch(/href=|<a\b/); // the TeX is kept only as the annotation's text
    expect(link).toContain('<mtext>\\href</mtext>');
    expect(render('$$\n\\htmlClass{x}{y}\n$$\n')).not.toContain('class="x"');
    const bomb = `$$\n\\def\\a{\\b\\b}\\def\\b{\\c\\c}\\def\\c{\\d\\d}\\def\\d{xxxxxxxx}${'\\a'.repeat(40)}\n$$\n`;
    expect(render(bomb)).toContain('<code>');
    // Markdown's own raw HTML is still dropped (the only raw HTML is KaTeX's).
    expect(render('<script>alert(1)</script>\n\n<b onclick="x()">b</b>\n')).not.toMatch(/<script|onclick/);
  });

  it('figures with captions and raw images: planned, embedded, captioned', () => {
    const md =
      '<figure><img src=".gitbook/assets/a.png" alt="Chart"><figcaption><p>The chart</p></figcaption></figure>\n\n<img src="b.png" alt="">\n';
    expect(renderPlan(md).images).toEqual(['.gitbook/assets/a.png', 'b.png']);
    const html = render(md, { images: [['.gitbook/assets/a.png', { src: 'data:image/png;base64,AA==' }]] });
    expect(html).toMatch(/<figure><img src="data:image\/png;base64,AA==" alt="Chart"><figcaption>The chart<\/figcaption><\/figure>/);
    expect(html).toContain('image-placeholder');
  });

  it('details are collapsible in the published view and open in the PDF', () => {
    const body = render('<details>\n\n<summary>More</summary>\n\nHidden.\n\n</details>\n');
    expect(body).toMatch(/<details class="expandable"><summary>More<\/summary>\s*<p>Hidden.<\/p>\s*<\/details>/);
    const pdf = exportDocumentHtml({
      title: 'T',
      subtitle: [],
      sections: [{ anchor: 'p1', title: 'P', depth: 0, kind: 'page', bodyHtml: body }],
    });
    expect(pdf).toContain('<details open class="expandable">');
  });

  it('embeds, content references, includes and OpenAPI blocks', () => {
    const html = render(
      [
        '{% embed url="https://example.com/video" %}',
        '{% content-ref url="guide/setup.md" %}\n[setup.md](guide/setup.md)\n{% endcontent-ref %}',
        '{% include "../.gitbook/includes/x.md" %}',
        '{% openapi src="./openapi.json" path="/pets" method="post" %}\n[openapi.json](openapi.json)\n{% endopenapi %}',
      ].join('\n\n'),
      {
        links: [
          ['https://example.com/video', 'https://example.com/video'],
          ['guide/setup.md', '#page-setup'],
        ],
      },
    );
    expect(html).toContain('<a href="https://example.com/video">https://example.com/video</a>');
    expect(html).toContain('<p class="content-ref"><a href="#page-setup">setup</a></p>');
    expect(html).toContain('Reusable content: ../.gitbook/includes/x.md');
    expect(html).toMatch(/<span class="method method-post">POST<\/span> <code>\/pets<\/code>/);
    expect(renderPlan('{% content-ref url="guide/setup.md" %}\n[x](guide/setup.md)\n{% endcontent-ref %}').links).toContain(
      'guide/setup.md',
    );
  });
});
