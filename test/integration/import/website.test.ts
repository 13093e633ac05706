import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, useTestApp, type TestApp } from '../../helpers/app.js';
import { serve, waitFor } from '../../helpers/http.js';
import { operationSettled } from '../../helpers/operations.js';
import { PNG_2x1 } from '../../helpers/content.js';

// A small documentation site on loopback: /docs/ with a navigation bar, nested pages linking to
// each other (one with an anchor), an image, an external link, a page outside /docs, a broken
// link, and a robots.txt that disallows /docs/private.

const layout = (title: string | null, main: string) => `<!doctype html>
<html><head>${title === null ? '' : `<title>${title}</title>`}<meta charset="utf-8"><style>body { color: red }</style></head>
<body>
<header><a href="/docs/">Acme</a> <span>Site header text</span></header>
<nav>
  <a href="/docs/guide/">Guide</a>
  <a href="/docs/guide/install">Install</a>
  <a href="/docs/guide/configure">Configure</a>
  <a href="/docs/reference">Reference</a>
  <a href="/docs/private/secret">Secret</a>
  <a href="/blog/post">Blog</a>
  <a href="https://external.example.com/">Elsewhere</a>
  <a href="/docs/missing">Missing</a>
</nav>
<main>${main}</main>
<footer>Copyright Acme footer</footer>
<script>console.log("tracking script")</script>
</body></html>`;

const SITE: Record<string, { type: string; body: string | Buffer }> = {
  '/robots.txt': { type: 'text/plain', body: 'User-agent: *\nDisallow: /docs/private\n' },
  '/docs/': {
    type: 'text/html; charset=utf-8',
    body: layout(
      'Acme Docs',
      '<h1>Acme Docs</h1><p>Welcome to Acme. Start with <a href="guide/install#requirements">the requirements</a>.</p>',
    ),
  },
  '/docs/guide/': {
    type: 'text/html',
    body: layout(
      'Guide | Acme',
      '<h1>Guide</h1><p>How to use Acme: <a href="install">install</a>, then <a href="configure">configure</a>.</p>',
    ),
  },
  '/docs/guide/install': {
    type: 'text/html',
    body: layout(
      'Installation | Acme',
      `<h1>Installation</h1>
<p>Read the <a href="configure">configuration</a> next, and the <a href="../reference/api#errors">error codes</a>.</p>
<h2 id="requirements">Requirements <a class="anchor" href="#requirements">#</a></h2>
<ul><li>Node.js 20</li><li>PostgreSQL</li></ul>
<ol><li>Download</li><li>Install</li></ol>
<pre><code class="language-bash">npm install acme
</code></pre>
<p><img src="../img/logo.png" alt="Acme logo"></p>
<p>See <a href="https://external.example.com/tools">the tools</a>, <a href="/blog/post">our blog</a> and <a href="/docs/missing">the missing page</a>.</p>`,
    ),
  },
  '/docs/guide/configure': {
    type: 'text/html',
    body: layout(
      null,
      '<h1>Configuration</h1><p>Check the <a href="install#requirements">requirements</a> first. Use <code>acme.yaml</code>.</p>',
    ),
  },
  '/docs/reference': {
    type: 'text/html',
    body: layout('Reference', '<h1>Reference</h1><p>The <a href="/docs/reference/api">API</a>.</p>'),
  },
  '/docs/reference/api': {
    type: 'text/html',
    body: layout(
      'API | Acme',
      '<h1>API</h1><p>{% hint style="info" %}</p><p>Template syntax, not a hint.</p><p>{% endhint %}</p><h2 id="errors">Errors</h2><table><tr><th>Code</th><th>Meaning</th></tr><tr><td>404</td><td>Not found</td></tr></table>',
    ),
  },
  '/docs/private/secret': { type: 'text/html', body: layout('Secret', '<h1>Secret</h1><p>Robots may not read this.</p>') },
  '/blog/post': { type: 'text/html', body: layout('Blog post', '<h1>Blog post</h1>') },
  '/docs/img/logo.png': { type: 'image/png', body: PNG_2x1 },
  '/broken/': { type: 'text/html', body: '' },
};

let site: Awaited<ReturnType<typeof serve>>;
/** Paths the site was asked for. */
const requested: string[] = [];
/** While set, the site holds its answer to /docs/ until the promise resolves. */
let hold: Promise<void> | null = null;

function handler(req: http.IncomingMessage, res: http.ServerResponse) {
  const path = new URL(req.url ?? '/', 'http://x').pathname;
  requested.push(path);
  const answer = () => {
    if (path === '/broken/') {
      res.writeHead(500, { 'content-type': 'text/plain' }).end('boom');
      return;
    }
    if (path === '/docs') {
      res.writeHead(301, { location: '/docs/' }).end();
      return;
    }
    const page = SITE[path];
    if (!page) {
      res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not found</h1>');
      return;
    }
    res.writeHead(200, { 'content-type': page.type }).end(page.body);
  };
  if (path === '/docs/' && hold) void hold.then(answer);
  else answer();
}

beforeAll(async () => {
  site = await serve(handler);
});
afterAll(() => site?.close());
// A longer fetch limit than the test default: the first import holds the start page on purpose.
const { t, org } = useTestApp({ workers: ['import'], env: { FETCH_TIMEOUT_MS: '15000' }, seedOrg: true });

const api = (method: string, p: string, body?: unknown, token = org.adminToken, app: TestApp = t) => app.api(method, p, { token, body });

async function newSpace(app: TestApp = t, token = org.adminToken, orgId = org.orgId) {
  const r = await app.api('POST', `/v1/orgs/${orgId}/spaces`, { token, body: { title: 'Imported' } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body as { id: string; revision: string };
}

const settle = (location: string, app: TestApp = t, token = org.adminToken) =>
  operationSettled(app, location, { token, timeoutMs: 60_000 });

const walk = (pages: any[]): any[] => pages.flatMap((p) => [p, ...walk(p.pages ?? [])]);
const outline = (pages: any[]): unknown[] => pages.map((p) => (p.pages?.length ? [p.title, outline(p.pages)] : p.title));
const byTitle = (pages: any[], title: string) => {
  const found = walk(pages).find((p) => p.title === title);
  expect(found, `page "${title}"`).toBeTruthy();
  return found;
};
const markdownOf = async (base: string, pageId: string) => {
  const r = await api('GET', `${base}/page/${pageId}?format=markdown`);
  expect(r.status).toBe(200);
  return r.body.markdown as string;
};

describe('website import into a space', () => {
  let space: { id: string; revision: string };
  let op: any;
  let accepted: any;
  let pages: any[];

  beforeAll(async () => {
    space = await newSpace();
    let release!: () => void;
    hold = new Promise<void>((r) => (release = r));
    try {
      const r = await api('POST', `/v1/spaces/${space.id}/content/import`, { url: `${site.url}/docs`, source: 'website' });
      accepted = r;
      // Answered while the site has not even served the start page: the work happens later.
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      await waitFor(() => Promise.resolve(requested.includes('/docs/')), { what: 'the crawl to reach the start page' });
      const during = await api('GET', new URL(r.headers.get('location')!).pathname);
      expect(during.body.status).toBe('running');
      expect((await api('GET', `/v1/spaces/${space.id}`)).body.revision).toBe(space.revision);
    } finally {
      release();
      hold = null;
    }
    op = await settle(accepted.headers.get('location')!);
    pages = (await api('GET', `/v1/spaces/${space.id}/content/pages`)).body.pages;
  });

  it('answers 201 with the revision it will create and a Location naming the operation; that revision becomes current', async () => {
    expect(accepted.body).toEqual({ revision: expect.stringMatching(/^\w{20}$/), importedResources: 0, totalResources: 0 });
    const location = accepted.headers.get('location')!;
    expect(location).toMatch(new RegExp(`^${t.baseUrl}/v1/operations/\\w+$`));
    expect(op).toMatchObject({ kind: 'import.website', status: 'succeeded', target: { type: 'space', id: space.id } });
    const after = (await api('GET', `/v1/spaces/${space.id}`)).body;
    expect(after.revision).toBe(accepted.body.revision);
    const rev = (await api('GET', `/v1/spaces/${space.id}/content`)).body;
    expect(rev).toMatchObject({ id: accepted.body.revision, parents: [space.revision] });
  });

  it('reports the counts: pages discovered within the site and pages imported', async () => {
    // Discovered: the start page, guide, install, configure, reference, missing (404), api.
    expect(op.result).toEqual({ revision: accepted.body.revision, importedResources: 6, totalResources: 7 });
  });

  it('appends the pages after the existing ones, nested by URL path, in discovery order', async () => {
    expect(outline(pages)).toEqual(['Introduction', 'Acme Docs', ['Guide', ['Installation', 'Configuration']], ['Reference', ['API']]]);
    expect(byTitle(pages, 'Installation').path).toBe('guide/install');
    expect(byTitle(pages, 'API').path).toBe('reference/api');
  });

  it('does not import pages outside the path prefix, disallowed by robots.txt, external or broken', async () => {
    const titles = walk(pages).map((p) => p.title);
    for (const absent of ['Secret', 'Blog post', 'Not found', 'Missing']) expect(titles).not.toContain(absent);
    expect(requested).toContain('/robots.txt');
    expect(requested).not.toContain('/docs/private/secret');
    expect(requested).not.toContain('/blog/post');
  });

  it('converts the page body to Markdown without the site chrome, with links rewritten to the imported pages', async () => {
    const base = `/v1/spaces/${space.id}/content`;
    const install = byTitle(pages, 'Installation');
    const configure = byTitle(pages, 'Configuration');
    const apiPage = byTitle(pages, 'API');
    const md = await markdownOf(base, install.id);
    expect(md).toContain(`[configuration](/pages/${configure.id})`);
    expect(md).toContain(`[error codes](/pages/${apiPage.id}#errors)`);
    expect(md).toMatch(/^## Requirements$/m);
    expect(md).toContain('```bash\nnpm install acme\n```');
    expect(md).toMatch(/^- Node\.js 20\n- PostgreSQL$/m);
    expect(md).toMatch(/^1\. Download\n2\. Install$/m);
    // External, out-of-prefix and broken links stay links to the site.
    expect(md).toContain('[the tools](https://external.example.com/tools)');
    expect(md).toContain(`[our blog](${site.url}/blog/post)`);
    expect(md).toContain(`[the missing page](${site.url}/docs/missing)`);
    // No navigation, header, footer, script, style, nor the title repeated as a heading.
    for (const chrome of ['Site header text', 'Copyright', 'tracking script', 'color: red', 'Elsewhere', '# Installation'])
      expect(md).not.toContain(chrome);

    const configureMd = await markdownOf(base, configure.id);
    expect(configureMd).toBe(`Check the [requirements](/pages/${install.id}#requirements) first. Use \`acme.yaml\`.`);
    const apiMd = await markdownOf(base, apiPage.id);
    expect(apiMd).toContain('| Code | Meaning |\n| --- | --- |\n| 404 | Not found |');
    // Text that looks like a GitBook block stays text.
    const apiDoc = (await api('GET', `${base}/page/${apiPage.id}?format=document`)).body.document;
    expect(apiDoc.nodes.slice(0, 3).map((n: any) => [n.type, n.nodes[0].leaves?.[0].text])).toEqual([
      ['paragraph', '{% hint style="info" %}'],
      ['paragraph', 'Template syntax, not a hint.'],
      ['paragraph', '{% endhint %}'],
    ]);
    const home = await markdownOf(base, byTitle(pages, 'Acme Docs').id);
    expect(home).toBe(`Welcome to Acme. Start with [the requirements](/pages/${install.id}#requirements).`);

    // Every /pages/<id> link names a page of the space: nothing is broken.
    const ids = new Set(walk(pages).map((p) => p.id));
    for (const m of (md + configureMd + home).matchAll(/\/pages\/(\w+)/g)) expect(ids.has(m[1])).toBe(true);
    for (const p of [install, configure, apiPage]) {
      const broken = await api('GET', `${base}/page/${p.id}/links?status=broken`);
      expect(broken.status).toBe(200);
      expect(broken.body.items).toEqual([]);
    }
  });

  it('stores same-origin images as files of the space and links them', async () => {
    const files = (await api('GET', `/v1/spaces/${space.id}/content/files`)).body.items;
    expect(files).toHaveLength(1);
    expect(files[0]).toMatchObject({ name: 'logo.png', contentType: 'image/png', size: PNG_2x1.length });
    const md = await markdownOf(`/v1/spaces/${space.id}/content`, byTitle(pages, 'Installation').id);
    expect(md).toContain(`![Acme logo](/files/${files[0].id})`);
    const bytes = Buffer.from(await (await fetch(files[0].downloadURL)).arrayBuffer());
    expect(bytes.equals(PNG_2x1)).toBe(true);
  });
});

describe('website import into a change request', () => {
  it('writes the pages to the change request and leaves main untouched', async () => {
    const space = await newSpace();
    const cr = (await api('POST', `/v1/spaces/${space.id}/change-requests`, { subject: 'Import the docs' })).body;
    const r = await api('POST', `/v1/spaces/${space.id}/change-requests/${cr.id}/content/import`, {
      url: `${site.url}/docs/guide/`,
      source: 'website',
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const op = await settle(r.headers.get('location')!);
    expect(op).toMatchObject({ status: 'succeeded', target: { type: 'change-request', id: cr.id } });
    // Only the guide section: its start page first, its pages beside it.
    expect(op.result).toEqual({ revision: r.body.revision, importedResources: 3, totalResources: 3 });
    const after = (await api('GET', `/v1/spaces/${space.id}/change-requests/${cr.id}`)).body;
    expect(after.revision).toBe(r.body.revision);
    const crPages = (await api('GET', `/v1/spaces/${space.id}/change-requests/${cr.id}/content/pages`)).body.pages;
    expect(outline(crPages)).toEqual(['Introduction', 'Guide', 'Installation', 'Configuration']);
    // The link to the API page (outside the imported section) points at the site.
    const md = await markdownOf(`/v1/spaces/${space.id}/change-requests/${cr.id}/content`, byTitle(crPages, 'Installation').id);
    expect(md).toContain(`[error codes](${site.url}/docs/reference/api#errors)`);
    expect(md).toContain(`[configuration](/pages/${byTitle(crPages, 'Configuration').id})`);
    // Main is where it was.
    expect((await api('GET', `/v1/spaces/${space.id}`)).body.revision).toBe(space.revision);
    expect(outline((await api('GET', `/v1/spaces/${space.id}/content/pages`)).body.pages)).toEqual(['Introduction']);
  });

  it('refuses archived and merged change requests (409)', async () => {
    const space = await newSpace();
    const cr = (await api('POST', `/v1/spaces/${space.id}/change-requests`, { subject: 'Archived' })).body;
    expect((await api('PATCH', `/v1/spaces/${space.id}/change-requests/${cr.id}`, { status: 'archived' })).status).toBe(200);
    const r = await api('POST', `/v1/spaces/${space.id}/change-requests/${cr.number}/content/import`, {
      url: `${site.url}/docs/`,
      source: 'website',
    });
    expect(r.status).toBe(409);
    expect(r.body.error.message).toContain('archived');
    const merged = (await api('POST', `/v1/spaces/${space.id}/change-requests`, { subject: 'Merged' })).body;
    expect((await api('POST', `/v1/spaces/${space.id}/change-requests/${merged.id}/merge`)).status).toBe(200);
    const m = await api('POST', `/v1/spaces/${space.id}/change-requests/${merged.id}/content/import`, {
      url: `${site.url}/docs/`,
      source: 'website',
    });
    expect(m.status).toBe(409);
    expect(m.body.error.message).toContain('merged');
  });
});

describe('failures', () => {
  it('fails the operation when the start URL answers 500, leaving the content unchanged', async () => {
    const space = await newSpace();
    const r = await api('POST', `/v1/spaces/${space.id}/content/import`, { url: `${site.url}/broken/`, source: 'website' });
    expect(r.status).toBe(201);
    const op = await settle(r.headers.get('location')!);
    expect(op.status).toBe('failed');
    expect(op.error).toContain(`Could not import ${site.url}/broken/`);
    expect(op.error).toContain('HTTP 500');
    expect(op.attempts).toBe(1); // a final outcome, not retried
    expect((await api('GET', `/v1/spaces/${space.id}`)).body.revision).toBe(space.revision);
    expect((await api('GET', `/v1/spaces/${space.id}/content/pages`)).body.pages.map((p: any) => p.title)).toEqual(['Introduction']);
    // Nothing half-written: no revision under the announced id, no file.
    expect((await t.app.db.query('SELECT 1 FROM revisions WHERE id = $1', [r.body.revision])).rowCount).toBe(0);
    expect((await api('GET', `/v1/spaces/${space.id}/content/files`)).body.items).toEqual([]);
  });

  it('fails with the address policy reason when private addresses are not allowed', async () => {
    const strict = await startTestApp({ workers: ['import'], env: { ALLOW_PRIVATE_FETCH: 'false' } });
    try {
      const o = await strict.seedOrg();
      const s = (await strict.api('POST', `/v1/orgs/${o.orgId}/spaces`, { token: o.adminToken, body: { title: 'S' } })).body;
      const before = requested.length;
      // A literal loopback address is refused at once (400), before any operation exists.
      const r = await strict.api('POST', `/v1/spaces/${s.id}/content/import`, {
        token: o.adminToken,
        body: { url: `${site.url}/docs/`, source: 'website' },
      });
      expect(r.status).toBe(400);
      expect(r.body.error.message).toMatch(/body\.url: .*private and loopback addresses are not allowed/);
      // A name that resolves to loopback passes that check; the crawler's fetch refuses it at connect time.
      const host = (await import('node:os')).hostname();
      const r2 = await strict.api('POST', `/v1/spaces/${s.id}/content/import`, {
        token: o.adminToken,
        body: { url: `http://${host}:${new URL(site.url).port}/docs/`, source: 'website' },
      });
      expect(r2.status).toBe(201);
      const op = await settle(r2.headers.get('location')!, strict, o.adminToken);
      expect(op.status).toBe('failed');
      expect(op.error).toMatch(/private address/);
      expect(requested.length).toBe(before);
      expect((await strict.api('GET', `/v1/spaces/${s.id}`, { token: o.adminToken })).body.revision).toBe(s.revision);
    } finally {
      await strict.close();
    }
  });

  it('stops at IMPORT_MAX_PAGES pages', async () => {
    const small = await startTestApp({ workers: ['import'], env: { IMPORT_MAX_PAGES: '3' } });
    try {
      const o = await small.seedOrg();
      const s = (await small.api('POST', `/v1/orgs/${o.orgId}/spaces`, { token: o.adminToken, body: { title: 'S', empty: true } })).body;
      const r = await small.api('POST', `/v1/spaces/${s.id}/content/import`, {
        token: o.adminToken,
        body: { url: `${site.url}/docs/`, source: 'website' },
      });
      const op = await settle(r.headers.get('location')!, small, o.adminToken);
      expect(op.result).toEqual({ revision: r.body.revision, importedResources: 3, totalResources: 3 });
      const got = (await small.api('GET', `/v1/spaces/${s.id}/content/pages`, { token: o.adminToken })).body.pages;
      expect(outline(got)).toEqual(['Acme Docs', ['Guide', ['Installation']]]);
    } finally {
      await small.close();
    }
  });
});

describe('validation and permissions', () => {
  it('names the offending field', async () => {
    const space = await newSpace();
    const path = `/v1/spaces/${space.id}/content/import`;
    for (const [body, field] of [
      [{ source: 'website' }, 'body.url'],
      [{ url: 'not a url', source: 'website' }, 'body.url'],
      [{ url: 'ftp://example.com/docs', source: 'website' }, 'body.url'],
      [{ url: 'https://user:secret@example.com/docs', source: 'website' }, 'body.url'],
      [{ url: 'https://example.com/docs' }, 'body.source'],
      [{ url: 'https://example.com/docs', source: 'notion' }, 'body.source'],
    ] as const) {
      const r = await api('POST', path, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.message).toContain(field);
    }
    const file = await api('POST', path, { url: 'https://example.com/docs', source: 'file' });
    expect(file.status).toBe(400);
    expect(file.body.error.message).toMatch(/body\.source: .*file.*not supported/);
    // Nothing was started.
    expect((await api('GET', `/v1/spaces/${space.id}`)).body.revision).toBe(space.revision);
  });

  it('needs edit access to the space (reader 403, unknown space 404) and refuses a locked space', async () => {
    const space = await newSpace();
    const reader = await t.seedUser(org.orgId, 'read');
    const body = { url: `${site.url}/docs/`, source: 'website' };
    expect((await api('POST', `/v1/spaces/${space.id}/content/import`, body, reader.token)).status).toBe(403);
    const cr = (await api('POST', `/v1/spaces/${space.id}/change-requests`, { subject: 'x' })).body;
    expect((await api('POST', `/v1/spaces/${space.id}/change-requests/${cr.id}/content/import`, body, reader.token)).status).toBe(403);
    expect((await api('POST', `/v1/spaces/${space.id}/change-requests/nope/content/import`, body)).status).toBe(404);
    expect((await api('POST', `/v1/spaces/nope/content/import`, body)).status).toBe(404);
    expect((await t.api('POST', `/v1/spaces/${space.id}/content/import`, { body })).status).toBe(401);
    await api('PATCH', `/v1/spaces/${space.id}`, { editMode: 'locked' });
    const locked = await api('POST', `/v1/spaces/${space.id}/content/import`, body);
    expect(locked.status).toBe(409);
    expect(locked.body.error.message).toContain('locked');
  });
});
