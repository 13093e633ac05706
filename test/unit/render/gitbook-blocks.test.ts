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

describe('GitBook HTML tables', () => {
  const cards = [
    '<table data-card-size="large" data-view="cards">',
    '\t<thead><tr><th></th><th></th><th data-hidden data-card-target data-type="content-ref"></th><th data-hidden data-card-cover data-type="image">Cover image</th></tr></thead>',
    '\t<tbody>',
    '\t\t<tr><td><strong>Modular SDK</strong></td><td>Unified APIs &#x26; more</td><td><a href="../sdk/get-started.md">get-started.md</a></td><td><a href="../assets/sdk.png">sdk.png</a></td></tr>',
    '\t\t<tr><td><strong>Indexer</strong></td><td>Data <script>alert(1)</script><b onclick="x()">access</b></td><td></td><td></td></tr>',
    '\t</tbody>',
    '</table>',
    '',
  ].join('\n');

  it('card grids: planned (covers as images, targets as links), one card per row, title linked to its target', () => {
    const plan = renderPlan(cards);
    expect(plan.images).toEqual(['../assets/sdk.png']);
    expect(plan.links).toEqual(['../sdk/get-started.md']);
    const html = render(cards, {
      images: [['../assets/sdk.png', { src: 'data:image/png;base64,AA==' }]],
      links: [['../sdk/get-started.md', '/s/x/sdk/get-started']],
    });
    expect(html.match(/<div class="card">/g)).toHaveLength(2);
    expect(html).toContain(
      '<div class="card"><img src="data:image/png;base64,AA==" alt=""><p class="card-title"><a href="/s/x/sdk/get-started"><strong>Modular SDK</strong></a></p><p class="card-text">Unified APIs &#x26; more</p></div>',
    );
    // Only text and a few inline elements are rebuilt: no script, no event handler.
    expect(html).toContain('<p class="card-text">Data <strong>access</strong></p>');
    expect(html).not.toMatch(/<script|onclick|alert/);
  });

  it('plain HTML tables keep their header and cells, hidden columns left out', () => {
    const html = render(
      '<table><thead><tr><th>Name</th><th data-hidden>Secret</th></tr></thead><tbody><tr><td><code>limit</code></td><td>x</td></tr></tbody></table>\n',
    );
    expect(html).toBe('<table><thead><tr><th>Name</th></tr></thead><tbody><tr><td><code>limit</code></td></tr></tbody></table>');
  });
});
