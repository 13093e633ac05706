import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { editContent } from '../../helpers/content.js';
import { setSpaceGitSync } from '../../../src/db/repos/git-sync.js';
import { docsSite, linksIn, pathOf, type DocsSite } from './helpers.js';

const { t } = useTestApp();
let d: DocsSite;
beforeAll(async () => {
  d = await docsSite(t, await t.seedOrg());
});

const get = (path: string, headers: Record<string, string> = {}) => t.api('GET', path, { headers: { accept: 'text/html', ...headers } });

describe('serving a published site', () => {
  it('lands on the default section default variant first page with the whole layout', async () => {
    const r = await get(d.base);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('text/html');
    const html = r.text;
    expect(html).toContain('<h1>Getting started</h1>');
    expect(html).toContain('First steps');
    expect(html).toContain('Welcome to v1.');
    expect(html).toContain('<header class="site">');
    expect(html).toContain('<main id="site-main">');
    expect(html).toContain('<footer class="site">');
    expect(html).toContain('Acme Docs');
    // Sidebar: the current page, nested pages, no hidden page.
    expect(html).toMatch(/<a href="[^"]+" aria-current="page">Getting started<\/a>/);
    expect(html).toContain('Nested page');
    expect(html).not.toContain('Secret');
    // Section tabs (default section omitted from URLs), variant menu, outline, next.
    const tabs = linksIn(html, '<nav class="sections"').map(pathOf);
    expect(tabs).toEqual([`${d.base}/`, `${d.base}/api`, `${d.base}/sdks`]);
    expect(html).toMatch(
      /<li class="group"><span>Developers<\/span><ul><li><a href="[^"]+\/api">API<\/a><\/li><li><a href="[^"]+\/sdks">SDKs<\/a>/,
    );
    const variants = linksIn(html, '<details class="variant"', '</details>').map(pathOf);
    expect(variants).toEqual([`${d.base}/getting-started`, `${d.base}/v2/getting-started`]);
    expect(html).toContain('On this page');
    expect(html).toMatch(/<a href="#install">Install<\/a>/);
    expect(html).toMatch(/<h2 id="install">Install<\/h2>/);
    expect(linksIn(html, '<nav class="pagination"').map(pathOf)).toEqual([`${d.base}/getting-started/nested-page`]);
    expect(html).toMatch(/<link rel="canonical" href="[^"]+\/site\/[^"]+\/">/);
    expect(html).toContain('property="og:title"');
    expect(html).not.toContain('name="robots"');
    // Strict CSP: no inline script or style anywhere.
    const csp = r.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(html).not.toMatch(/<script>|<style|style="/);
    expect(r.headers.get('cache-control')).toBe('public, max-age=0, must-revalidate');
  });

  it('serves pages at GitBook-shaped URLs, keeps the page across variants, and 404s what is not there', async () => {
    const nested = await get(`${d.base}/getting-started/nested-page`);
    expect(nested.status).toBe(200);
    expect(nested.text).toContain('Nested body.');
    expect(linksIn(nested.text, '<nav class="breadcrumbs"').map(pathOf)).toEqual([`${d.base}/getting-started`]);
    const prevNext = linksIn(nested.text, '<nav class="pagination"').map(pathOf);
    expect(prevNext).toEqual([`${d.base}/getting-started`, `${d.base}/second`]);

    const v2 = await get(`${d.base}/v2/getting-started`);
    expect(v2.status).toBe(200);
    expect(v2.text).toContain('Welcome to v2.');
    // "Second" is not in v2: the switch leads to v2's first page.
    const second = await get(`${d.base}/second`);
    expect(linksIn(second.text, '<details class="variant"', '</details>').map(pathOf)).toEqual([`${d.base}/second`, `${d.base}/v2`]);

    const api = await get(`${d.base}/api`);
    expect(api.status).toBe(200);
    expect(api.text).toContain('Endpoints.');
    expect(api.text).toMatch(/<a href="[^"]+\/api" aria-current="page">API<\/a>/);

    const missing = await get(`${d.base}/no/such/page`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toContain('text/html');
    expect(missing.text).toContain('Not found');
    expect((await get('/site/nosuchsite')).status).toBe(404);
  });

  it('serves hashed immutable assets and the site theme', async () => {
    const html = (await get(d.base)).text;
    const css = /href="[^"]+(\/site\/[^"]+\/~site\/static\/[0-9a-f]+\.css)"/.exec(html)![1];
    const js = /src="[^"]+(\/site\/[^"]+\/~site\/static\/[0-9a-f]+\.js)"/.exec(html)![1];
    for (const path of [css, js]) {
      const r = await get(path);
      expect(r.status).toBe(200);
      expect(r.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    }
    expect((await get(`${d.base}/~site/static/0000.css`)).status).toBe(404);
    await t.api('PUT', `/v1/orgs/${d.o.orgId}/sites/${d.siteId}/customization`, {
      token: d.o.adminToken,
      body: { styling: { primaryColor: { light: '#ff0000', dark: '#00ff00' } }, favicon: { emoji: '📘' } },
    });
    const page = (await get(d.base)).text;
    const theme = /href="[^"]+(\/site\/[^"]+\/~site\/theme\/[\w-]+\.css)"/.exec(page)![1];
    expect((await get(theme)).text).toContain('--primary:#ff0000');
    expect(page).toMatch(/<link rel="icon" href="data:image\/svg\+xml,[^"]+">/);
  });

  it('links a page to its file in the synced repository when the customization shows edit links', async () => {
    await setSpaceGitSync(t.app.db, d.spaces.v1, { url: 'https://git.example.test/acme/docs.git' });
    await editContent(t, d.spaces.v1, (draft) => {
      const id = draft.childIds(null).find((x: string) => draft.page(x)?.title === 'Second')!;
      draft.updatePage(id, { git: { oid: 'abc', path: 'docs/second.md' } });
    });
    expect((await get(`${d.base}/second`)).text).not.toContain('Edit on Git');
    await t.api('PUT', `/v1/orgs/${d.o.orgId}/sites/${d.siteId}/customization`, {
      token: d.o.adminToken,
      body: { git: { showEditLink: true } },
    });
    expect((await get(`${d.base}/second`)).text).toContain(
      '<a href="https://git.example.test/acme/docs/blob/HEAD/docs/second.md">Edit on Git</a>',
    );
    await setSpaceGitSync(t.app.db, d.spaces.v1, null);
  });

  it('answers 304 to a matching ETag and shows a content change on the next request', async () => {
    const first = await get(`${d.base}/second`);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^".+"$/);
    expect((await get(`${d.base}/second`, { 'if-none-match': etag })).status).toBe(304);
    await editContent(t, d.spaces.v1, (draft) => {
      const id = draft.childIds(null).find((x: string) => draft.page(x)?.title === 'Second')!;
      draft.updatePage(id, { markdown: 'Second body, edited.' });
    });
    const after = await get(`${d.base}/second`, { 'if-none-match': etag });
    expect(after.status).toBe(200);
    expect(after.text).toContain('Second body, edited.');
    expect(after.headers.get('etag')).not.toBe(etag);
  });

  it('shows a merged change request on the next request', async () => {
    const as = { token: d.o.adminToken };
    const pages = (await t.api('GET', `/v1/spaces/${d.spaces.v1}/content/pages`, as)).body.pages as any[];
    const second = pages.find((p) => p.title === 'Second');
    const before = await get(`${d.base}/second`);
    const cr = (await t.api('POST', `/v1/spaces/${d.spaces.v1}/change-requests`, { ...as, body: { subject: 'Reword' } })).body;
    const changed = await t.api('POST', `/v1/spaces/${d.spaces.v1}/change-requests/${cr.id}/content?compat=false`, {
      ...as,
      body: { changes: [{ operation: 'update_page', page: second.id, document: { markdown: 'Merged through a change request.' } }] },
    });
    expect(changed.status, changed.text).toBeLessThan(300);
    expect((await get(`${d.base}/second`)).text).not.toContain('Merged through a change request.');
    const merged = await t.api('POST', `/v1/spaces/${d.spaces.v1}/change-requests/${cr.id}/merge`, as);
    expect(merged.status, merged.text).toBeLessThan(300);
    const after = await get(`${d.base}/second`, { 'if-none-match': before.headers.get('etag')! });
    expect(after.status).toBe(200);
    expect(after.text).toContain('Merged through a change request.');
  });

  it('gives machines Markdown, llms.txt, llms-full.txt, sitemap.xml and robots.txt', async () => {
    const md = await get(`${d.base}/getting-started/nested-page.md`);
    expect(md.status).toBe(200);
    expect(md.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(md.text).toContain('# Nested page');
    const accept = await get(`${d.base}/api`, { accept: 'text/markdown' });
    expect(accept.headers.get('content-type')).toContain('text/markdown');
    const api404 = await t.api('GET', `${d.base}/nope`);
    expect(api404.status).toBe(404);
    expect(api404.body).toEqual({ error: { code: 404, message: 'Not found' } });
    expect(accept.text).toContain('Endpoints.');
    expect((await get(`${d.base}/index.md`)).text).toContain('# Getting started');

    const llms = (await get(`${d.base}/llms.txt`)).text;
    expect(llms).toContain('# Acme Docs');
    expect(llms).toContain('## Guides');
    expect(llms).toMatch(/- \[Nested page\]\(http[^)]+\/getting-started\/nested-page\.md\)/);
    expect(llms).not.toContain('Secret');
    for (const url of [...llms.matchAll(/\((http[^)]+\.md)\)/g)].map((m) => m[1])) expect((await get(pathOf(url))).status, url).toBe(200);
    const full = (await get(`${d.base}/llms-full.txt`)).text;
    expect(full).toContain('Endpoints.');
    expect(full).not.toContain('Hidden body.');

    const sitemap = await get(`${d.base}/sitemap.xml`);
    expect(sitemap.headers.get('content-type')).toContain('application/xml');
    expect(sitemap.text).toContain('/v2/only-in-v2</loc>');
    expect(sitemap.text).not.toContain('secret');
    const robots = (await get(`${d.base}/robots.txt`)).text;
    expect(robots).toContain('Allow: /');
    expect(robots).toContain(`Sitemap: ${t.baseUrl}${d.base}/sitemap.xml`);
  });

  it('evaluates the space and page variables for readers, in the page and its Markdown', async () => {
    await editContent(t, d.spaces.api, (draft) => {
      draft.setVariables({ version: '4.2.0' });
      const id = draft.childIds(null).find((x: string) => draft.page(x)?.title === 'Reference')!;
      draft.updatePage(id, {
        variables: { tier: 'Enterprise' },
        markdown: 'Endpoints of {{ space.vars.version }} for {{ page.vars.tier }}; {{ space.vars.unknown }} stays.',
      });
    });
    const shown = await get(`${d.base}/api`);
    expect(shown.text).toContain('Endpoints of 4.2.0 for Enterprise; {{ space.vars.unknown }} stays.');
    const md = await get(`${d.base}/api.md`);
    expect(md.text).toContain('Endpoints of 4.2.0 for Enterprise;');
    // The page as stored keeps the expressions.
    const pages = (await t.api('GET', `/v1/spaces/${d.spaces.api}/content/pages`, { token: d.o.adminToken })).body.pages;
    const raw = await t.api('GET', `/v1/spaces/${d.spaces.api}/content/page/${pages[0].id}`, { token: d.o.adminToken });
    expect(raw.body.markdown).toContain('{{ space.vars.version }}');
    await editContent(t, d.spaces.api, (draft) => {
      const id = draft.childIds(null).find((x: string) => draft.page(x)?.title === 'Reference')!;
      draft.updatePage(id, { markdown: 'Endpoints.' });
    });
  });

  it("gives headings GitBook's ids, so page#heading links written for GitBook land", async () => {
    await editContent(t, d.spaces.sdk, (draft) => {
      const install = draft.childIds(null)[0]!;
      draft.updatePage(install, { markdown: 'npm install acme.\n\n# Usage notes\n\nCall it.' });
      draft.insertPage(null, {
        title: 'Linking',
        markdown: '# Here\n\nSee [usage](install-the-sdk#usage-notes) and [this section](#here).',
      });
    });
    const linking = await get(`${d.base}/sdks/linking`);
    expect(linking.text).toMatch(/<h2 id="here">Here<\/h2>/);
    expect(linking.text).toContain('<a href="#here">this section</a>');
    const usage = /<a href="([^"]+)">usage<\/a>/.exec(linking.text)![1];
    expect(pathOf(usage.replace(/#.*/, ''))).toBe(`${d.base}/sdks/install-the-sdk`);
    expect(new URL(usage).hash).toBe('#usage-notes');
    const target = await get(pathOf(usage));
    expect(target.text).toMatch(/<h2 id="usage-notes">Usage notes<\/h2>/);
    await editContent(t, d.spaces.sdk, (draft) => {
      const ids = draft.childIds(null);
      draft.deletePage(ids.find((x: string) => draft.page(x)?.title === 'Linking')!);
      draft.updatePage(ids[0]!, { markdown: 'npm install acme.' });
    });
  });

  it('searches the visible site spaces from an HTML page and a JSON endpoint', async () => {
    const json = await get(`${d.base}/~site/search?q=Endpoints`);
    expect(json.status).toBe(200);
    expect(json.body.items.map((h: any) => pathOf(h.url))).toEqual([`${d.base}/api/reference`]);
    const page = await get(`${d.base}/search?q=Endpoints`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Reference');
    expect(page.text).toContain('name="robots" content="noindex');
    expect((await get(`${d.base}/~site/search?q=Hidden`)).body.items).toEqual([]);
  });

  it('sends readers of the per-space view of a space the site shows to its page on the site', async () => {
    const v2 = d.spaces.v2;
    expect((await t.api('PATCH', `/v1/spaces/${v2}`, { token: d.o.adminToken, body: { visibility: 'public' } })).status).toBe(200);
    const old = await get(`/s/${v2}/getting-started`);
    expect(old.status).toBe(302);
    expect(pathOf(old.headers.get('location')!)).toBe(`${d.base}/v2/getting-started`);
    const there = await get(pathOf(old.headers.get('location')!));
    expect(there.status).toBe(200);
    expect(there.text).toContain('Welcome to v2.');
    // A page the space does not have stays a 404; a space in no site keeps its own view.
    expect((await get(`/s/${v2}/no-such-page`)).status).toBe(404);
    const lone = await t.api('POST', `/v1/orgs/${d.o.orgId}/spaces`, { token: d.o.adminToken, body: { title: 'Alone' } });
    await t.api('PATCH', `/v1/spaces/${lone.body.id}`, { token: d.o.adminToken, body: { visibility: 'public' } });
    expect((await get(`/s/${lone.body.id}`)).status).toBe(200);
  });

  it('sees rows changed by another instance on the next request: a space renamed or deleted, the site unpublished', async () => {
    // Written straight to the database, as another API instance's request would: nothing in this
    // process is told, so the reader must notice the changed rows by itself.
    const sql = (text: string, values: unknown[]) => t.app.db.query(text, values);
    const heading = async () => (await get(`${d.base}/llms.txt`)).text.split('\n').find((l) => l.startsWith('## Guides'));
    expect(await heading()).toBe('## Guides / Guide v1');
    await sql('UPDATE spaces SET title = $2 WHERE id = $1', [d.spaces.v1, 'Guide one']);
    expect(await heading()).toBe('## Guides / Guide one');
    await sql('UPDATE spaces SET title = $2 WHERE id = $1', [d.spaces.v1, 'Guide v1']);

    expect((await get(`${d.base}/sdks`)).status).toBe(200);
    await sql('UPDATE spaces SET deleted_at = now() WHERE id = $1', [d.spaces.sdk]);
    expect((await get(`${d.base}/sdks`)).status).toBe(404);
    await sql('UPDATE spaces SET deleted_at = NULL WHERE id = $1', [d.spaces.sdk]);
    expect((await get(`${d.base}/sdks`)).status).toBe(200);

    await sql('UPDATE sites SET published = false WHERE id = $1', [d.siteId]);
    expect((await get(`${d.base}/second`)).status).toBe(404);
    await sql('UPDATE sites SET published = true WHERE id = $1', [d.siteId]);
    expect((await get(`${d.base}/second`)).status).toBe(200);
  });

  it('answers 404 once the site is unpublished, except through a member preview link', async () => {
    const o = d.o;
    await t.api('POST', `/v1/orgs/${o.orgId}/sites/${d.siteId}/unpublish`, { token: o.adminToken });
    expect((await get(d.base)).status).toBe(404);
    expect((await get(`${d.base}/llms.txt`)).status).toBe(404);

    // Members preview it through the signed, short-lived urls.preview.
    const preview = (await t.api('GET', `/v1/orgs/${o.orgId}/sites/${d.siteId}`, { token: o.adminToken })).body.urls.preview as string;
    const enter = await get(pathOf(preview) + new URL(preview).search);
    expect(enter.status).toBe(302);
    expect(enter.headers.get('location')).toBe(`${d.base}/`);
    const cookie = { cookie: enter.headers.get('set-cookie')!.split(';')[0] };
    expect(enter.headers.get('set-cookie')).toContain('HttpOnly');
    const seen = await get(`${d.base}/second`, cookie);
    expect(seen.status).toBe(200);
    expect(seen.headers.get('x-robots-tag')).toContain('noindex');
    expect(seen.headers.get('cache-control')).toBe('private, no-cache');
    const forged = new URL(preview);
    forged.searchParams.set('token', `${forged.searchParams.get('token')!.split('.')[0]}.${'A'.repeat(43)}`);
    expect((await get(`${d.base}/~preview${forged.search}`)).status).toBe(404);
    expect((await get(`${d.base}/~preview`)).status).toBe(404);
    expect((await get(d.base, { cookie: `dp_preview_${d.siteId}=1.${'A'.repeat(43)}` })).status).toBe(404);
    await t.api('POST', `/v1/orgs/${o.orgId}/sites/${d.siteId}/publish`, { token: o.adminToken });
    expect((await get(d.base)).status).toBe(200);
  });
});
