import { describe, expect, it } from 'vitest';
import { htmlToMarkdown, parsePage } from '../../../src/import/html.js';

/** Markdown of a page's content, as the website import makes it (chrome dropped first). */
const convert = (html: string) =>
  htmlToMarkdown(parsePage(`<html><body><main>${html}</main></body></html>`, new URL('http://docs.test/p')).content.innerHTML);

// Shapes as MkDocs Material 9 (pymdownx.highlight, admonition, pymdownx.details, pymdownx.tabbed
// alternate style) writes them.
const MKDOCS = {
  code: `<div class="language-python highlight"><pre><span></span><code><span class="k">def</span> <span class="nf">f</span><span class="p">():</span>
    <span class="k">return</span> <span class="mi">1</span>
</code></pre></div>`,
  codeTitled: `<div class="language-yaml highlight"><span class="filename">mkdocs.yml</span><pre><span></span><code><a id="__codelineno-0-1" name="__codelineno-0-1" href="#__codelineno-0-1"></a><span class="nt">site_name</span><span class="p">:</span><span class="w"> </span><span class="l l-Scalar l-Scalar-Plain">Acme</span>
</code></pre></div>`,
  linenums: `<div class="language-bash highlight"><table class="highlighttable"><tr><td class="linenos"><div class="linenodiv"><pre><span></span><span class="normal"><a href="#__codelineno-1-1">1</a></span>
<span class="normal"><a href="#__codelineno-1-2">2</a></span></pre></div></td><td class="code"><div><pre><span></span><code>npm install
npm start
</code></pre></div></td></tr></table></div>`,
  note: `<div class="admonition note">
<p class="admonition-title">Note</p>
<p>Set <code>site_url</code> first.</p>
</div>`,
  warningTitled: `<div class="admonition warning">
<p class="admonition-title">Breaking change in 2.0</p>
<p>The <strong>old</strong> API is gone.</p>
</div>`,
  details: `<details class="tip">
<summary>Speed it up</summary>
<p>Enable the cache.</p>
</details>`,
  tabs: `<div class="tabbed-set tabbed-alternate" data-tabs="1:2"><input checked="checked" id="__tabbed_1_1" name="__tabbed_1" type="radio" /><input id="__tabbed_1_2" name="__tabbed_1" type="radio" /><div class="tabbed-labels"><label for="__tabbed_1_1">pip</label><label for="__tabbed_1_2">conda</label></div>
<div class="tabbed-content">
<div class="tabbed-block">
<div class="language-text highlight"><pre><span></span><code>pip install acme
</code></pre></div>
</div>
<div class="tabbed-block">
<p>With conda:</p>
<div class="language-bash highlight"><pre><span></span><code>conda install acme
</code></pre></div>
</div>
</div>
</div>`,
};

// Shapes as Sphinx 7 (docutils HTML5 writer, Pygments) writes them, with sphinx-design and sphinx-tabs.
const SPHINX = {
  code: `<div class="highlight-python3 notranslate"><div class="highlight"><pre><span></span><span class="kn">import</span> <span class="nn">acme</span>
</pre></div>
</div>`,
  caption: `<div class="literal-block-wrapper docutils container" id="id1">
<div class="code-block-caption"><span class="caption-text">conf.py</span><a class="headerlink" href="#id1" title="Link to this code">¶</a></div>
<div class="highlight-python notranslate"><div class="highlight"><pre><span></span><span class="n">project</span> <span class="o">=</span> <span class="s1">'acme'</span>
</pre></div>
</div>
</div>`,
  console: `<div class="highlight-console notranslate"><div class="highlight"><pre><span></span><span class="gp">$ </span>make html
</pre></div>
</div>`,
  danger: `<div class="admonition danger">
<p class="admonition-title">Danger</p>
<p>Do not run this as root.</p>
</div>`,
  seealso: `<div class="admonition seealso">
<p class="admonition-title">See also</p>
<p><a class="reference internal" href="other.html">Other</a></p>
</div>`,
  design: `<div class="sd-tab-set docutils">
<input checked="checked" id="sd-tab-item-0" name="sd-tab-set-0" type="radio">
<label class="sd-tab-label" data-sync-id="linux" for="sd-tab-item-0">
Linux</label><div class="sd-tab-content docutils">
<p>Use apt.</p>
</div>
<input id="sd-tab-item-1" name="sd-tab-set-0" type="radio">
<label class="sd-tab-label" data-sync-id="mac" for="sd-tab-item-1">
macOS</label><div class="sd-tab-content docutils">
<p>Use brew.</p>
</div>
</div>`,
  sphinxTabs: `<div class="sphinx-tabs docutils container">
<div aria-label="Tabbed content" class="closeable" role="tablist"><button aria-controls="panel-0-0-0" aria-selected="true" class="sphinx-tabs-tab" id="tab-0-0-0" name="0-0" role="tab" tabindex="0">Python</button><button aria-controls="panel-0-0-1" aria-selected="false" class="sphinx-tabs-tab" id="tab-0-0-1" name="0-1" role="tab" tabindex="-1">C++</button></div><div aria-labelledby="tab-0-0-0" class="sphinx-tabs-panel" id="panel-0-0-0" name="0-0" role="tabpanel" tabindex="0"><p>Python text.</p>
</div><div aria-labelledby="tab-0-0-1" class="sphinx-tabs-panel" hidden="true" id="panel-0-0-1" name="0-1" role="tabpanel" tabindex="0"><p>C++ text.</p>
</div></div>`,
};

describe('website import structure', () => {
  it('keeps code block languages and titles (MkDocs Material)', () => {
    expect(convert(MKDOCS.code)).toBe('```python\ndef f():\n    return 1\n```');
    expect(convert(MKDOCS.codeTitled)).toBe('{% code title="mkdocs.yml" %}\n```yaml\nsite_name: Acme\n```\n{% endcode %}');
    expect(convert(MKDOCS.linenums)).toBe('```bash\nnpm install\nnpm start\n```');
  });

  it('keeps code block languages and captions (Sphinx)', () => {
    expect(convert(SPHINX.code)).toBe('```python\nimport acme\n```');
    expect(convert(SPHINX.caption)).toBe(`{% code title="conf.py" %}\n\`\`\`python\nproject = 'acme'\n\`\`\`\n{% endcode %}`);
    expect(convert(SPHINX.console)).toBe('```console\n$ make html\n```');
    // Elsewhere: a data-lang attribute (Hugo), and Jekyll's Rouge wrappers.
    expect(convert('<div class="highlight"><pre tabindex="0"><code data-lang="go">package main\n</code></pre></div>')).toBe(
      '```go\npackage main\n```',
    );
    expect(
      convert(
        '<div class="language-ruby highlighter-rouge"><div class="highlight"><pre class="highlight"><code>puts 1\n</code></pre></div></div>',
      ),
    ).toBe('```ruby\nputs 1\n```');
  });

  it('turns admonitions into hints', () => {
    expect(convert(MKDOCS.note)).toBe('{% hint style="info" %}\nSet `site_url` first.\n{% endhint %}');
    expect(convert(MKDOCS.warningTitled)).toBe(
      '{% hint style="warning" %}\n**Breaking change in 2.0**\n\nThe **old** API is gone.\n{% endhint %}',
    );
    expect(convert(MKDOCS.details)).toBe('{% hint style="success" %}\n**Speed it up**\n\nEnable the cache.\n{% endhint %}');
    expect(convert(SPHINX.danger)).toBe('{% hint style="danger" %}\nDo not run this as root.\n{% endhint %}');
    expect(convert(SPHINX.seealso)).toBe('{% hint style="info" %}\n[Other](other.html)\n{% endhint %}');
    // Inside a list item a block tag cannot stand: a quote instead.
    expect(convert(`<ul><li>Step<div class="admonition tip"><p class="admonition-title">Tip</p><p>Careful.</p></div></li></ul>`)).toBe(
      '- Step\n  \n  > Careful.',
    );
  });

  it('turns tab sets into tabs', () => {
    expect(convert(MKDOCS.tabs)).toBe(
      '{% tabs %}\n{% tab title="pip" %}\n```\npip install acme\n```\n{% endtab %}\n\n{% tab title="conda" %}\nWith conda:\n\n```bash\nconda install acme\n```\n{% endtab %}\n{% endtabs %}',
    );
    expect(convert(SPHINX.design)).toBe(
      '{% tabs %}\n{% tab title="Linux" %}\nUse apt.\n{% endtab %}\n\n{% tab title="macOS" %}\nUse brew.\n{% endtab %}\n{% endtabs %}',
    );
    expect(convert(SPHINX.sphinxTabs)).toBe(
      '{% tabs %}\n{% tab title="Python" %}\nPython text.\n{% endtab %}\n\n{% tab title="C++" %}\nC++ text.\n{% endtab %}\n{% endtabs %}',
    );
  });
});
