import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { serve } from '../../helpers/http.js';
import { operationSettled } from '../../helpers/operations.js';

// Two documentation sites on loopback, with the page chrome and block shapes their generators
// write: MkDocs Material 9 (pymdownx.highlight, admonition, pymdownx.details, pymdownx.tabbed) and
// Sphinx 7 with the alabaster theme (Pygments, docutils admonitions, sphinx-design tabs).

const mkdocsPage = (title: string, article: string) => `<!doctype html>
<html lang="en" class="no-js"><head><meta charset="utf-8"><title>${title} - Acme Docs</title>
<link rel="stylesheet" href="../assets/stylesheets/main.css"></head>
<body dir="ltr" data-md-color-scheme="default">
<input class="md-toggle" data-md-toggle="drawer" type="checkbox" id="__drawer" autocomplete="off">
<header class="md-header" data-md-component="header"><nav class="md-header__inner md-grid" aria-label="Header">
<a href="/mk/" title="Acme Docs" class="md-header__button md-logo">Acme</a></nav></header>
<div class="md-container" data-md-component="container"><main class="md-main" data-md-component="main"><div class="md-main__inner md-grid">
<div class="md-sidebar md-sidebar--primary" data-md-component="sidebar" data-md-type="navigation"><nav class="md-nav md-nav--primary" aria-label="Navigation">
<ul class="md-nav__list"><li class="md-nav__item"><a href="/mk/" class="md-nav__link">Home</a></li>
<li class="md-nav__item"><a href="/mk/install/" class="md-nav__link">Install</a></li></ul></nav></div>
<div class="md-content" data-md-component="content"><article class="md-content__inner md-typeset">
<h1 id="${title.toLowerCase()}">${title}<a class="headerlink" href="#${title.toLowerCase()}" title="Permanent link">&para;</a></h1>
${article}
</article></div></div></main>
<footer class="md-footer"><div class="md-copyright">Made with Material for MkDocs</div></footer></div>
<script src="../assets/javascripts/bundle.js"></script></body></html>`;

const sphinxPage = (title: string, body: string) => `<!DOCTYPE html>
<html lang="en" data-content_root="./"><head><meta charset="utf-8" /><title>${title} &#8212; Acme 1.0 documentation</title>
<link rel="stylesheet" type="text/css" href="_static/alabaster.css?v=12dfc556" /></head><body>
<div class="document"><div class="documentwrapper"><div class="bodywrapper"><div class="body" role="main">
<section id="${title.toLowerCase()}"><h1>${title}<a class="headerlink" href="#${title.toLowerCase()}" title="Link to this heading">¶</a></h1>
${body}
</section></div></div></div>
<div class="sphinxsidebar" role="navigation" aria-label="Main"><div class="sphinxsidebarwrapper"><h1 class="logo"><a href="index.html">Acme</a></h1>
<ul><li class="toctree-l1"><a class="reference internal" href="usage.html">Usage</a></li></ul></div></div></div>
<div class="footer">&#169;2026, Acme. | Powered by <a href="https://www.sphinx-doc.org/">Sphinx 7.4.7</a></div></body></html>`;

const SITE: Record<string, string> = {
  '/mk/': mkdocsPage('Home', '<p>Read how to <a href="install/">install</a>.</p>'),
  '/mk/install/': mkdocsPage(
    'Install',
    `<div class="admonition warning">
<p class="admonition-title">Breaking change in 2.0</p>
<p>The <strong>old</strong> API is gone.</p>
</div>
<div class="tabbed-set tabbed-alternate" data-tabs="1:2"><input checked="checked" id="__tabbed_1_1" name="__tabbed_1" type="radio" /><input id="__tabbed_1_2" name="__tabbed_1" type="radio" /><div class="tabbed-labels"><label for="__tabbed_1_1">pip</label><label for="__tabbed_1_2">conda</label></div>
<div class="tabbed-content">
<div class="tabbed-block">
<div class="language-bash highlight"><pre><span></span><code><a id="__codelineno-0-1" name="__codelineno-0-1" href="#__codelineno-0-1"></a>pip install acme
</code></pre></div>
</div>
<div class="tabbed-block">
<div class="language-bash highlight"><pre><span></span><code>conda install acme
</code></pre></div>
</div>
</div>
</div>
<div class="language-python highlight"><span class="filename">app.py</span><pre><span></span><code><button class="md-clipboard md-icon" title="Copy to clipboard" data-clipboard-target="#__code_2 > code"></button><span class="kn">import</span> <span class="nn">acme</span>
</code></pre></div>
<details class="note">
<summary>Offline installs</summary>
<p>Download the wheel first.</p>
</details>`,
  ),
  '/sx/index.html': sphinxPage('Welcome', '<p>See <a class="reference internal" href="usage.html">Usage</a>.</p>'),
  '/sx/usage.html': sphinxPage(
    'Usage',
    `<div class="admonition note">
<p class="admonition-title">Note</p>
<p>Requires Python 3.10.</p>
</div>
<div class="highlight-python3 notranslate"><div class="highlight"><pre><span></span><span class="kn">import</span> <span class="nn">acme</span>
<span class="n">acme</span><span class="o">.</span><span class="n">run</span><span class="p">()</span>
</pre></div>
</div>
<div class="sd-tab-set docutils">
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
</div>
<div class="admonition danger">
<p class="admonition-title">Danger</p>
<p>Do not run this as root.</p>
</div>`,
  ),
};

let site: Awaited<ReturnType<typeof serve>>;

function handler(req: http.IncomingMessage, res: http.ServerResponse) {
  const path = new URL(req.url ?? '/', 'http://x').pathname;
  const body = SITE[path];
  if (!body) res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not found</h1>');
  else res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
}

beforeAll(async () => {
  site = await serve(handler);
});
afterAll(() => site?.close());
const { t, org } = useTestApp({ workers: ['import'], seedOrg: true });

const api = (method: string, p: string, body?: unknown) => t.api(method, p, { token: org.adminToken, body });
const walk = (pages: any[]): any[] => pages.flatMap((p) => [p, ...walk(p.pages ?? [])]);

/** Import `start` into a new empty space; its pages by title, each with its Markdown and JSON document. */
async function importSite(start: string) {
  const space = (await api('POST', `/v1/orgs/${org.orgId}/spaces`, { title: 'Imported', empty: true })).body;
  const r = await api('POST', `/v1/spaces/${space.id}/content/import`, { url: `${site.url}${start}`, source: 'website' });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  const op = await operationSettled(t, r.headers.get('location'), { token: org.adminToken, what: `import of ${start}`, timeoutMs: 60_000 });
  expect(op.status, JSON.stringify(op)).toBe('succeeded');
  const pages = walk((await api('GET', `/v1/spaces/${space.id}/content/pages`)).body.pages);
  const out = new Map<string, { markdown: string; document: any }>();
  for (const p of pages) {
    const base = `/v1/spaces/${space.id}/content/page/${p.id}`;
    out.set(p.title, {
      markdown: (await api('GET', base)).body.markdown,
      document: (await api('GET', `${base}?format=document`)).body.document,
    });
  }
  return out;
}

const blocks = (doc: any) => doc.nodes.map((n: any) => [n.type, n.data?.style ?? n.data?.syntax ?? null]);

describe('website import keeps the structure of generated documentation', () => {
  it('MkDocs Material: admonitions become hints, tab sets tabs, code blocks keep their language and file name', async () => {
    const pages = await importSite('/mk/');
    const install = pages.get('Install')!;
    expect(install.markdown).toBe(
      [
        '{% hint style="warning" %}\n**Breaking change in 2.0**\n\nThe **old** API is gone.\n{% endhint %}',
        '{% tabs %}\n{% tab title="pip" %}\n```bash\npip install acme\n```\n{% endtab %}\n\n{% tab title="conda" %}\n```bash\nconda install acme\n```\n{% endtab %}\n{% endtabs %}',
        '{% code title="app.py" %}\n```python\nimport acme\n```\n{% endcode %}',
        '{% hint style="info" %}\n**Offline installs**\n\nDownload the wheel first.\n{% endhint %}',
      ].join('\n\n'),
    );
    // The hints are hint blocks of the JSON document.
    const hints = install.document.nodes.filter((n: any) => n.type === 'hint');
    expect(hints.map((n: any) => n.data.style)).toEqual(['warning', 'info']);
    expect(JSON.stringify(hints[0])).toContain('The ');
    // Chrome stays out.
    for (const chrome of ['Made with Material', 'Copy to clipboard', '¶', 'Navigation']) expect(install.markdown).not.toContain(chrome);
  });

  it('Sphinx: admonitions become hints, sphinx-design tabs become tabs, code blocks keep their language', async () => {
    const pages = await importSite('/sx/index.html');
    const usage = pages.get('Usage')!;
    expect(usage.markdown).toBe(
      [
        '{% hint style="info" %}\nRequires Python 3.10.\n{% endhint %}',
        '```python\nimport acme\nacme.run()\n```',
        '{% tabs %}\n{% tab title="Linux" %}\nUse apt.\n{% endtab %}\n\n{% tab title="macOS" %}\nUse brew.\n{% endtab %}\n{% endtabs %}',
        '{% hint style="danger" %}\nDo not run this as root.\n{% endhint %}',
      ].join('\n\n'),
    );
    const doc = blocks(usage.document);
    expect(doc[0]).toEqual(['hint', 'info']);
    expect(doc[1]).toEqual(['code', 'python']);
    expect(doc[doc.length - 1]).toEqual(['hint', 'danger']);
  });
});
