// Who may read a site, checked in Chromium as a reader: an unlisted site's robots rules; visitor
// tokens valid, tampered, expired and signed with the key a `regenerate` replaced (each refused
// one lands on the customer's login page); claims showing and hiding a header link and a section,
// whose URL then answers 404; and a site on its own custom hostname (Chromium resolves
// docs.example.test to the test server). Every flow ends with zero off-origin requests, zero
// console errors and zero CSP violations. Screenshots go to data/test-artifacts/site/.
import { mkdir } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import { useTestApp } from '../../helpers/app.js';
import {
  clickLinkText,
  expectClean,
  h1,
  here,
  STATUS_401_404,
  useBrowser,
  watchedTab,
  type Watched,
  type WatchOptions,
} from '../../helpers/browser.js';
import { serve } from '../../helpers/http.js';
import { docsSite } from './helpers.js';
import { ARTIFACTS, go, linkTexts, screenshot } from './browser-access-helpers.js';

const CUSTOM_HOST = 'docs.example.test';

const { t } = useTestApp();
const browser = useBrowser({
  args: [
    // The custom hostname reaches the test server, as DNS would send it to a real deployment.
    `--host-resolver-rules=MAP ${CUSTOM_HOST} 127.0.0.1`,
    // Plain http on a non-local name, as in the test server: no automatic https attempt first.
    '--disable-features=HttpsUpgrades',
  ],
});
let origin: string;
beforeAll(async () => {
  origin = new URL(t.baseUrl).origin;
  await mkdir(ARTIFACTS, { recursive: true });
});

/**
 * A tab on `site` in its own browser context, so that cookies of one test never reach another; it
 * records the CSP violations of every document it loads. A 404 or 401 page is expected where a
 * test asks for one.
 */
const readerTab = (site: string, opts: WatchOptions = {}) =>
  watchedTab(browser, site, { isolated: true, ignoreConsole: STATUS_401_404, cspEveryDocument: true, ...opts });

const admin = (o: { orgId: string; adminToken: string }, method: string, path: string, body?: unknown) =>
  t.api(method, `/v1/orgs/${o.orgId}${path}`, { token: o.adminToken, body });

const sign = (key: string, claims: Record<string, unknown>, exp: string | number = '1h') =>
  new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime(exp).sign(new TextEncoder().encode(key));

async function signingKey(o: { orgId: string; adminToken: string }, siteId: string): Promise<string> {
  return (await admin(o, 'GET', `/sites/${siteId}/publishing/auth`)).body.privateKey as string;
}

async function siteCookies(w: Watched, siteId: string) {
  return (await w.context.cookies()).filter((c) => c.name.endsWith(siteId));
}

describe('access in Chromium', () => {
  it('unlisted: robots meta tag in the page, X-Robots-Tag header, robots.txt Disallow, no sitemap', async () => {
    const pub = await docsSite(t, await t.seedOrg());
    const u = await docsSite(t, await t.seedOrg(), 'unlisted');
    const w = await readerTab(origin);
    const { tab } = w;

    // A public site, for contrast: indexable, with a sitemap.
    const open = await go(tab, `${t.baseUrl}${pub.base}/second`);
    expect(open.headers()['x-robots-tag']).toBeUndefined();
    expect(await tab.$('meta[name="robots"]')).toBeNull();
    expect((await go(tab, `${t.baseUrl}${pub.base}/sitemap.xml`)).status()).toBe(200);

    const page = await go(tab, `${t.baseUrl}${u.base}/second`);
    expect(page.status()).toBe(200);
    expect(await h1(tab)).toBe('Second');
    expect(page.headers()['x-robots-tag']).toBe('noindex, nofollow');
    expect(await tab.$eval('meta[name="robots"]', (m) => m.getAttribute('content'))).toBe('noindex, nofollow');
    await screenshot(tab, 'unlisted.png');

    const robots = await go(tab, `${t.baseUrl}${u.base}/robots.txt`);
    expect(robots.status()).toBe(200);
    const text = await tab.evaluate(() => document.body.innerText);
    expect(text).toContain('User-agent: *');
    expect(text).toContain('Disallow: /');
    expect(text).not.toContain('Sitemap');
    expect((await go(tab, `${t.baseUrl}${u.base}/sitemap.xml`)).status()).toBe(404);
    await expectClean(w);
    await w.close();
  }, 120_000);

  it('visitor tokens: a valid one signs in; tampered, expired and old-key ones (after regenerate) go to the login page', async () => {
    const v = await docsSite(t, await t.seedOrg(), 'visitor-auth');
    const site = `${t.baseUrl}${v.base}`;
    const asked: string[] = [];
    // The customer's login page: records where the reader wanted to go.
    const login = await serve((req, res) => {
      asked.push(new URL(req.url!, 'http://x').searchParams.get('location') ?? '');
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': "default-src 'none'" })
        .end('<!doctype html><html lang="en"><head><title>Login</title></head><body><main><h1>Customer login</h1></main></body></html>');
    });
    const loginOrigin = new URL(login.url).origin;
    try {
      await admin(v.o, 'PATCH', `/sites/${v.siteId}/publishing/auth`, { fallbackURL: `${login.url}/login` });
      const oldKey = await signingKey(v.o, v.siteId);
      const w = await readerTab(origin, { allowed: [loginOrigin] });
      const { tab } = w;

      /** A token given in the URL is refused: the reader is on the login page, asked for `/second`, and holds no token cookie. */
      const refused = async (jwt: string) => {
        const before = asked.length;
        await go(tab, `${site}/second?jwt_token=${jwt}`);
        expect(new URL(tab.url()).origin).toBe(loginOrigin);
        expect(await h1(tab)).toBe('Customer login');
        expect(asked.slice(before)).toEqual([`${v.base}/second`]);
        expect((await siteCookies(w, v.siteId)).map((c) => c.name)).not.toContain(`dp_visitor_${v.siteId}`);
      };

      // Valid: the token moves into an HttpOnly cookie and the URL loses it.
      const good = await sign(oldKey, { sub: 'reader' });
      await go(tab, `${site}/second?jwt_token=${good}`);
      expect(here(tab)).toBe(`${v.base}/second`);
      expect(new URL(tab.url()).search).toBe('');
      expect(await h1(tab)).toBe('Second');
      const cookie = (await siteCookies(w, v.siteId)).find((c) => c.name === `dp_visitor_${v.siteId}`)!;
      expect(cookie.httpOnly).toBe(true);
      await clickLinkText(tab, 'nav.tree', 'Getting started');
      expect(await h1(tab)).toBe('Getting started');
      await screenshot(tab, 'visitor-signed-in.png');

      // Tampered: another payload under the valid signature.
      await w.context.deleteCookie(...(await w.context.cookies()));
      const [head, , signature] = good.split('.');
      const payload = Buffer.from(JSON.stringify({ sub: 'admin', exp: Math.floor(Date.now() / 1000) + 3600 })).toString('base64url');
      await refused(`${head}.${payload}.${signature}`);
      await screenshot(tab, 'visitor-refused.png');

      // Expired (well past the 30 s clock tolerance).
      await refused(await sign(oldKey, { sub: 'reader' }, Math.floor(Date.now() / 1000) - 600));

      // Signed in with the current key, then the site's key is regenerated: the cookie's token and
      // any new token signed with the old key are refused; the new key works.
      await go(tab, `${site}/second?jwt_token=${await sign(oldKey, { sub: 'reader' })}`);
      expect(await h1(tab)).toBe('Second');
      const regenerated = await admin(v.o, 'POST', `/sites/${v.siteId}/publishing/auth/regenerate`);
      expect(regenerated.status, regenerated.text).toBeLessThan(300);
      const newKey = await signingKey(v.o, v.siteId);
      expect(newKey).not.toBe(oldKey);
      const before = asked.length;
      await go(tab, `${site}/second`);
      expect(new URL(tab.url()).origin).toBe(loginOrigin);
      expect(asked.slice(before)).toEqual([`${v.base}/second`]);
      await refused(await sign(oldKey, { sub: 'reader' }));
      await go(tab, `${site}/second?jwt_token=${await sign(newKey, { sub: 'reader' })}`);
      expect(here(tab)).toBe(`${v.base}/second`);
      expect(await h1(tab)).toBe('Second');
      await expectClean(w);
      await w.close();
    } finally {
      await login.close();
    }
  }, 120_000);

  it('claims show and hide a header link and a section; the hidden section answers 404', async () => {
    const d = await docsSite(t, await t.seedOrg(), 'visitor-auth');
    const site = `${t.baseUrl}${d.base}`;
    const key = await signingKey(d.o, d.siteId);
    await admin(d.o, 'PATCH', `/sites/${d.siteId}`, { adaptiveContent: { enabled: true } });
    const cond = await admin(d.o, 'PATCH', `/sites/${d.siteId}/sections/${d.sections.api.id}`, {
      condition: 'visitor.claims.beta == true',
    });
    expect(cond.status, cond.text).toBe(200);
    const put = await admin(d.o, 'PUT', `/sites/${d.siteId}/customization`, {
      header: {
        links: [
          { title: 'Beta portal', to: { kind: 'url', url: 'https://beta.example.test/' }, condition: 'visitor.claims.beta == true' },
          { title: 'Status', to: { kind: 'url', url: 'https://status.example.test/' } },
        ],
      },
    });
    expect(put.status, put.text).toBe(200);
    const w = await readerTab(origin);
    const { tab } = w;

    await go(tab, `${site}/second?jwt_token=${await sign(key, { sub: 'plain' })}`);
    expect(await h1(tab)).toBe('Second');
    expect(await linkTexts(tab, 'header.site nav.links a')).toEqual(['Status']);
    expect(await linkTexts(tab, 'nav.sections a')).toEqual(['Guides', 'SDKs']);
    await screenshot(tab, 'claims-without-beta.png');
    for (const hidden of ['/api', '/api/reference']) {
      const res = await go(tab, `${site}${hidden}`);
      expect(res.status(), hidden).toBe(404);
      expect(await h1(tab)).toBe('Not found');
      expect(await tab.content()).not.toContain('Endpoints');
    }

    await w.context.deleteCookie(...(await w.context.cookies()));
    await go(tab, `${site}/second?jwt_token=${await sign(key, { sub: 'beta', beta: true })}`);
    expect(await linkTexts(tab, 'header.site nav.links a')).toEqual(['Beta portal', 'Status']);
    expect(await linkTexts(tab, 'nav.sections a')).toEqual(['Guides', 'API', 'SDKs']);
    await clickLinkText(tab, 'nav.sections', 'API');
    expect(here(tab)).toBe(`${d.base}/api`);
    expect(await h1(tab)).toBe('Reference');
    await screenshot(tab, 'claims-with-beta.png');
    await expectClean(w);
    await w.close();
  }, 120_000);

  it('browses a site on its own custom hostname: links, search and a share-link cookie stay on that host', async () => {
    const d = await docsSite(t, await t.seedOrg());
    const patched = await admin(d.o, 'PATCH', `/sites/${d.siteId}`, { hostname: CUSTOM_HOST });
    expect(patched.status, patched.text).toBe(200);
    const host = `http://${CUSTOM_HOST}:${new URL(t.baseUrl).port}`;
    expect(patched.body.urls.published).toBe(host);
    // Off-origin now means anything but the custom host: PUBLIC_URL included.
    const w = await readerTab(host);
    const { tab } = w;
    const res = await go(tab, `${host}/`);
    expect(res.status()).toBe(200);
    expect(await h1(tab)).toBe('Getting started');
    expect(await tab.$eval('link[rel="canonical"]', (l) => l.getAttribute('href'))).toBe(`${host}/`);
    await screenshot(tab, 'custom-host.png');
    await clickLinkText(tab, 'nav.tree', 'Second');
    expect(tab.url()).toBe(`${host}/second`);
    await clickLinkText(tab, 'nav.sections', 'API');
    expect(tab.url()).toBe(`${host}/api`);
    expect(await h1(tab)).toBe('Reference');
    await tab.type('header.site input[type=search]', 'Nested');
    await Promise.all([tab.waitForNavigation({ waitUntil: 'load' }), tab.keyboard.press('Enter')]);
    expect(here(tab)).toBe('/search');
    await clickLinkText(tab, 'ol.results', 'Nested page');
    expect(tab.url()).toBe(`${host}/getting-started/nested-page`);
    const missing = await go(tab, `${host}/v1/orgs/${d.o.orgId}`);
    expect(missing.status()).toBe(404);
    await expectClean(w);
    await w.close();

    // A share-link site on its host: the key becomes a cookie of that host, path /.
    const s = await docsSite(t, await t.seedOrg(), 'share-link');
    await admin(d.o, 'PATCH', `/sites/${d.siteId}`, { hostname: null });
    await admin(s.o, 'PATCH', `/sites/${s.siteId}`, { hostname: CUSTOM_HOST });
    const link = (await admin(s.o, 'POST', `/sites/${s.siteId}/share-links`, { name: 'P' })).body;
    expect(link.urls.published.startsWith(`${host}?share=`)).toBe(true);
    const w2 = await readerTab(host);
    expect((await go(w2.tab, `${host}/second`)).status()).toBe(404);
    await go(w2.tab, link.urls.published);
    expect(w2.tab.url()).toBe(`${host}/`);
    expect(await h1(w2.tab)).toBe('Getting started');
    const cookie = (await w2.context.cookies()).find((c) => c.name === `dp_share_${s.siteId}`)!;
    expect(cookie).toMatchObject({ domain: CUSTOM_HOST, path: '/', httpOnly: true });
    await clickLinkText(w2.tab, 'nav.tree', 'Second');
    expect(w2.tab.url()).toBe(`${host}/second`);
    await screenshot(w2.tab, 'custom-host-share-link.png');
    await expectClean(w2);
    await w2.close();
  }, 120_000);
});
