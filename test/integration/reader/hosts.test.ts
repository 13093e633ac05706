// Where a site lives besides PUBLIC_URL/site/{id}: its own custom hostname, and its organization's
// host (the organization's `hostname` under SITES_DOMAIN, or its custom hostname) with the site's
// basename. Requests carry a Host header as a browser on that domain would send it.
import { beforeAll, describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import { useTestApp } from '../../helpers/app.js';
import { rawRequest } from '../../helpers/http.js';
import { assertMatchesSpec } from '../../helpers/spec.js';
import { docsSite, linksIn } from './helpers.js';

const { t } = useTestApp({ env: { SITES_DOMAIN: 'sites.test' } });
let port: string;
beforeAll(async () => {
  port = new URL(t.baseUrl).port;
});

const admin = (o: { orgId: string; adminToken: string }, method: string, path: string, body?: unknown) =>
  t.api(method, `/v1/orgs/${o.orgId}${path}`, { token: o.adminToken, body });

/** A request as a browser at `host` sends it (the Host header names the site's domain). */
const at = (host: string, path: string, headers: Record<string, string> = {}, method = 'GET') =>
  rawRequest(t.baseUrl, method, path, { headers: { host, accept: 'text/html', ...headers } });

const header = (h: Record<string, unknown>, name: string) => String(h[name] ?? '');
const cookiePair = (setCookie: unknown) => String(Array.isArray(setCookie) ? setCookie[0] : setCookie).split(';')[0];

describe('a site on its own custom hostname', () => {
  it('serves pages, machine files, search and assets under that host, with every link on it', async () => {
    const d = await docsSite(t, await t.seedOrg());
    const patched = await admin(d.o, 'PATCH', `/sites/${d.siteId}`, { hostname: 'docs.acme.test' });
    expect(patched.status, patched.text).toBe(200);
    const host = `http://docs.acme.test:${port}`;
    expect(patched.body.hostname).toBe('docs.acme.test');
    expect(patched.body.urls.published).toBe(host);
    assertMatchesSpec('PATCH', '/orgs/{organizationId}/sites/{siteId}', 200, patched.body);
    // Site spaces and sections show their URLs on the same base.
    const structure = await admin(d.o, 'GET', `/sites/${d.siteId}/sections`);
    expect(structure.body.items.map((s: any) => s.urls.published)).toContain(`${host}/api`);

    // Case and port of the Host header do not matter.
    const page = await at('DOCS.Acme.test:8443', '/');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<h1>Getting started</h1>');
    expect(page.text).toContain(`<link rel="canonical" href="${host}/">`);
    const tree = linksIn(page.text, '<nav class="tree"');
    expect(tree.length).toBeGreaterThan(2);
    for (const href of [...tree, ...linksIn(page.text, '<nav class="sections"')]) expect(href.startsWith(`${host}/`), href).toBe(true);
    expect(page.text).toContain(`<link rel="stylesheet" href="${host}/~site/static/`);
    // Page images (signed /files/ URLs) stay on PUBLIC_URL: allowed there, and only there.
    expect(header(page.headers, 'content-security-policy')).toMatch(new RegExp(`img-src [^;]*${t.baseUrl.replace(/[.]/g, '\\.')}`));

    expect((await at('docs.acme.test', '/getting-started/nested-page')).text).toContain('<h1>Nested page</h1>');
    expect((await at('docs.acme.test', '/api/reference')).text).toContain('<h1>Reference</h1>');
    const md = await at('docs.acme.test', '/second.md');
    expect(md.status).toBe(200);
    expect(md.text).toContain('# Second');
    const css = /href="[^"]+(\/~site\/static\/[^"]+\.css)"/.exec(page.text)![1];
    expect((await at('docs.acme.test', css)).status).toBe(200);

    const sitemap = await at('docs.acme.test', '/sitemap.xml');
    expect(sitemap.status).toBe(200);
    const locs = [...sitemap.text.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1]);
    expect(locs).toContain(`${host}/second`);
    expect(locs.every((l) => l.startsWith(`${host}/`))).toBe(true);
    expect((await at('docs.acme.test', '/robots.txt')).text).toContain(`Sitemap: ${host}/sitemap.xml`);
    const llms = (await at('docs.acme.test', '/llms.txt')).text;
    expect(llms).toContain(`(${host}/second.md)`);
    expect(llms).not.toContain('/site/');
    const search = await at('docs.acme.test', '/~site/search?q=Endpoints', { accept: 'application/json' });
    expect(search.body.items.map((h: any) => h.url)).toEqual([`${host}/api/reference`]);
    expect((await at('docs.acme.test', '/nope')).status).toBe(404);

    // The path URL keeps working, its links on its own base, its canonical on the custom host.
    const viaPath = await t.api('GET', `${d.base}/second`, { headers: { accept: 'text/html' } });
    expect(viaPath.status).toBe(200);
    expect(viaPath.text).toContain(`<link rel="canonical" href="${host}/second">`);
    expect(viaPath.headers.get('content-security-policy')).not.toContain(t.baseUrl);
    expect(linksIn(viaPath.text, '<nav class="tree"')[0]).toContain(`${t.baseUrl}${d.base}/`);
    // Two bases never share a cached page.
    const etags = [header(page.headers, 'etag'), (await t.api('GET', d.base, { headers: { accept: 'text/html' } })).headers.get('etag')];
    expect(etags[0]).not.toBe(etags[1]);
  });

  it('is only the site: no API, no dashboard, no other method there; unknown hosts stay the API', async () => {
    const d = await docsSite(t, await t.seedOrg());
    await admin(d.o, 'PATCH', `/sites/${d.siteId}`, { hostname: 'help.beta.test' });
    const api = await at('help.beta.test', `/v1/orgs/${d.o.orgId}`, {
      authorization: `Bearer ${d.o.adminToken}`,
      accept: 'application/json',
    });
    expect(api.status).toBe(404);
    expect(api.body.error.code).toBe(404);
    expect((await at('help.beta.test', '/admin/queues')).status).toBe(404);
    expect((await at('help.beta.test', '/healthz', { accept: 'application/json' })).status).toBe(404);
    const post = await at('help.beta.test', '/', { accept: 'application/json' }, 'POST');
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
    expect((await at('help.beta.test', '/', {}, 'HEAD')).status).toBe(200);

    // A host that names no site is the API, as today.
    const unknown = await at('elsewhere.example.test', `/v1/orgs/${d.o.orgId}`, {
      authorization: `Bearer ${d.o.adminToken}`,
      accept: 'application/json',
    });
    expect(unknown.status).toBe(200);
    expect(unknown.body.id).toBe(d.o.orgId);
    // Its root is the API's home page (src/routes/landing.ts), not a site's.
    const home = await at('elsewhere.example.test', '/');
    expect(home.status).toBe(200);
    expect(home.text).toContain('<a href="/docs">API reference</a>');
  });

  it('validates hostnames: a malformed one is a 400, one held by another site a 409, null removes it', async () => {
    const o = await t.seedOrg();
    const a = await docsSite(t, o);
    const b = (await admin(o, 'POST', '/sites', { title: 'Other site' })).body;
    for (const bad of ['Docs.Upper.test', 'two.labels', 'bad_char.example.test', '127.0.0.1']) {
      const r = await admin(o, 'PATCH', `/sites/${b.id}`, { hostname: bad });
      expect(r.status, bad).toBe(400);
    }
    expect((await admin(o, 'PATCH', `/sites/${b.id}`, { hostname: '127.0.0.1' })).body.error.message).toContain('hostname');
    expect((await admin(o, 'PATCH', `/sites/${a.siteId}`, { hostname: 'taken.docs.test' })).status).toBe(200);
    expect((await admin(o, 'PATCH', `/sites/${b.id}`, { hostname: 'taken.docs.test' })).status).toBe(409);
    expect((await at('taken.docs.test', '/second')).status).toBe(200);
    const cleared = await admin(o, 'PATCH', `/sites/${a.siteId}`, { hostname: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.hostname).toBeUndefined();
    expect(cleared.body.urls.published).toBe(`${t.baseUrl}/site/${a.siteId}`);
    // Freed: the host is the API again.
    expect((await at('taken.docs.test', '/second', { accept: 'application/json' })).body.error.code).toBe(404);
  });

  it('keeps access rules on the custom host: unpublished 404, share-link and visitor cookies scoped to the host root', async () => {
    const o = await t.seedOrg();
    const s = await docsSite(t, o, 'share-link');
    await admin(o, 'PATCH', `/sites/${s.siteId}`, { hostname: 'partners.acme.test' });
    expect((await at('partners.acme.test', '/second')).status).toBe(404);
    const link = (await admin(o, 'POST', `/sites/${s.siteId}/share-links`, { name: 'P' })).body;
    expect(link.urls.published.startsWith(`http://partners.acme.test:${port}?share=`)).toBe(true);
    const key = new URL(link.urls.published).searchParams.get('share')!;
    const enter = await at('partners.acme.test', `/second?share=${encodeURIComponent(key)}`);
    expect(enter.status).toBe(302);
    expect(enter.headers.location).toBe('/second');
    const setCookie = String(enter.headers['set-cookie']);
    expect(setCookie).toContain('Path=/;');
    expect(setCookie).toContain('HttpOnly');
    expect((await at('partners.acme.test', '/second', { cookie: cookiePair(enter.headers['set-cookie']) })).status).toBe(200);

    const v = await docsSite(t, o, 'visitor-auth');
    await admin(o, 'PATCH', `/sites/${v.siteId}`, { hostname: 'members.acme.test' });
    await admin(o, 'PATCH', `/sites/${v.siteId}/publishing/auth`, { fallbackURL: 'https://login.acme.test/sso' });
    const refused = await at('members.acme.test', '/second');
    expect(refused.status).toBe(302);
    expect(new URL(refused.headers.location!).searchParams.get('location')).toBe('/second');
    const key2 = (await admin(o, 'GET', `/sites/${v.siteId}/publishing/auth`)).body.privateKey as string;
    const jwt = await new SignJWT({ sub: 'r' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(key2));
    const signedIn = await at('members.acme.test', `/second?jwt_token=${jwt}`);
    expect(signedIn.status).toBe(302);
    expect(signedIn.headers.location).toBe('/second');
    expect(String(signedIn.headers['set-cookie'])).toContain('Path=/;');
    const page = await at('members.acme.test', '/second', { cookie: cookiePair(signedIn.headers['set-cookie']) });
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<a href="http://members.acme.test:${port}/~site/auth/logout">Sign out</a>`);
    // The login page only sends readers back inside the site.
    for (const evil of ['//evil.test/x', '/\\evil.test/x']) {
      const login = await at('members.acme.test', `/~site/auth/login?location=${encodeURIComponent(evil)}`);
      expect(new URL(login.headers.location!).searchParams.get('location'), evil).toBe('/');
    }
    const fine = await at('members.acme.test', '/~site/auth/login?location=%2Fsecond');
    expect(new URL(fine.headers.location!).searchParams.get('location')).toBe('/second');

    await admin(o, 'POST', `/sites/${s.siteId}/unpublish`);
    expect((await at('partners.acme.test', '/second', { cookie: cookiePair(enter.headers['set-cookie']) })).status).toBe(404);
  });
});

describe("sites on their organization's host", () => {
  it('serves each site under its basename on {org hostname}.SITES_DOMAIN, the default site at the root', async () => {
    const o = await t.seedOrg();
    const d = await docsSite(t, o);
    expect((await t.api('PATCH', `/v1/orgs/${o.orgId}`, { token: o.adminToken, body: { hostname: 'acme' } })).status).toBe(200);
    const patched = await admin(o, 'PATCH', `/sites/${d.siteId}`, { basename: 'guides' });
    const host = `http://acme.sites.test:${port}`;
    expect(patched.body.urls.published).toBe(`${host}/guides`);

    const page = await at('acme.sites.test', '/guides/second');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<h1>Second</h1>');
    for (const href of linksIn(page.text, '<nav class="tree"')) expect(href.startsWith(`${host}/guides/`), href).toBe(true);
    expect((await at('acme.sites.test', '/guides')).text).toContain('<h1>Getting started</h1>');
    expect((await at('acme.sites.test', '/guides/api')).text).toContain('<h1>Reference</h1>');
    expect((await at('acme.sites.test', '/guides/robots.txt')).text).toContain(`Sitemap: ${host}/guides/sitemap.xml`);
    // Nothing at the root or under another basename yet; the API is not served on this host.
    expect((await at('acme.sites.test', '/')).status).toBe(404);
    expect((await at('acme.sites.test', '/guidesx/second')).status).toBe(404);
    expect((await at('acme.sites.test', `/v1/orgs/${o.orgId}`, { authorization: `Bearer ${o.adminToken}` })).status).toBe(404);

    // Basenames tell the sites of one organization apart.
    const other = (await admin(o, 'POST', '/sites', { title: 'Other' })).body;
    expect((await admin(o, 'PATCH', `/sites/${other.id}`, { basename: 'guides' })).status).toBe(409);

    // The organization's default site answers at the root of its host.
    const home = await docsSite(t, o);
    await t.api('PATCH', `/v1/orgs/${o.orgId}`, { token: o.adminToken, body: { defaultContent: { type: 'site', site: home.siteId } } });
    expect((await admin(o, 'GET', `/sites/${home.siteId}`)).body.urls.published).toBe(host);
    const root = await at('acme.sites.test', '/second');
    expect(root.status).toBe(200);
    expect(linksIn(root.text, '<nav class="tree"')[0].startsWith(`${host}/`)).toBe(true);
    expect(root.text).not.toContain(`${host}/guides/`);
    // The basename still wins over the default site.
    expect((await at('acme.sites.test', '/guides/api')).text).toContain('<h1>Reference</h1>');

    // A site's own hostname wins over its organization's host for its canonical URL.
    await admin(o, 'PATCH', `/sites/${d.siteId}`, { hostname: 'guides.acme.test' });
    expect((await admin(o, 'GET', `/sites/${d.siteId}`)).body.urls.published).toBe(`http://guides.acme.test:${port}`);
  });

  it("serves the organization's custom hostname the same way", async () => {
    const o = await t.seedOrg();
    const d = await docsSite(t, o);
    await admin(o, 'PATCH', `/sites/${d.siteId}`, { basename: 'manual' });
    // No API operation sets it (the description's custom-hostname operations are GitBook-internal).
    await t.app.db.query('UPDATE organizations SET custom_hostname = $2 WHERE id = $1', [o.orgId, 'Docs.Corp.test']);
    expect((await admin(o, 'GET', `/sites/${d.siteId}`)).body.urls.published).toBe(`http://docs.corp.test:${port}/manual`);
    const page = await at('docs.corp.test', '/manual/second');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<h1>Second</h1>');
  });
});
