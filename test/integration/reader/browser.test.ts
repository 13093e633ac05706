// The reader site in Chromium, as a reader: clicks through the sidebar, previous/next, section
// tabs, the variant menu, the outline and search, with JavaScript and without; dark mode by system
// preference and by the toggle; a share link without key, with key and after deactivation. Every
// run asserts zero off-origin requests, zero console errors and zero CSP violations. Screenshots
// of the main states go to data/test-artifacts/site/ (SITE_ARTIFACTS to change it).
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'puppeteer-core';
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
import { SignJWT } from 'jose';
import { editContent } from '../../helpers/content.js';
import { serve } from '../../helpers/http.js';
import { docsSite, type DocsSite } from './helpers.js';

const LOGO = (fill: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20"><rect width="20" height="20" fill="${fill}"/></svg>`;
const ARTIFACTS = process.env.SITE_ARTIFACTS ?? path.resolve('data/test-artifacts/site');

const { t } = useTestApp();
const browser = useBrowser();
let d: DocsSite;
beforeAll(async () => {
  d = await docsSite(t, await t.seedOrg());
  await mkdir(ARTIFACTS, { recursive: true });
}, 120_000);

/** A tab on the site; a 404 or 401 page is expected where a test asks for one. */
const watched = (opts: WatchOptions = {}) => watchedTab(browser, t.baseUrl, { ignoreConsole: STATUS_401_404, ...opts });

async function clickAndWait(tab: Page, selector: string) {
  await Promise.all([tab.waitForNavigation({ waitUntil: 'load' }), tab.click(selector)]);
}

async function navigateAround(w: Watched, js: boolean) {
  const { tab } = w;
  const res = await tab.goto(`${t.baseUrl}${d.base}`, { waitUntil: 'load' });
  expect([200, 304]).toContain(res!.status()); // 304: the browser revalidated its cached copy
  expect(await h1(tab)).toBe('Getting started');
  expect(await tab.$eval('nav.tree a[aria-current="page"]', (e) => e.textContent)).toBe('Getting started');
  await tab.screenshot({ path: path.join(ARTIFACTS, `landing-${js ? 'js' : 'nojs'}.png`) });

  // Keyboard: the first Tab reaches the skip link, which leads to the main content.
  await tab.keyboard.press('Tab');
  expect(await tab.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
  await tab.keyboard.press('Enter');
  await tab.waitForFunction(() => location.hash === '#site-main');

  // Sidebar (the nested page sits in an open <details> of the current branch).
  await clickLinkText(tab, 'nav.tree', 'Nested page');
  expect(here(tab)).toBe(`${d.base}/getting-started/nested-page`);
  expect(await h1(tab)).toBe('Nested page');
  expect(await tab.$$eval('nav.breadcrumbs a', (as) => as.map((a) => a.textContent))).toEqual(['Getting started']);

  // Previous / next.
  await clickAndWait(tab, 'nav.pagination a.next');
  expect(await h1(tab)).toBe('Second');
  await clickAndWait(tab, 'nav.pagination a.previous');
  expect(await h1(tab)).toBe('Nested page');

  // Section tabs.
  await clickLinkText(tab, 'nav.sections', 'API');
  expect(here(tab)).toBe(`${d.base}/api`);
  expect(await h1(tab)).toBe('Reference');
  await clickLinkText(tab, 'nav.sections', 'SDKs');
  expect(await h1(tab)).toBe('Install the SDK');
  await clickLinkText(tab, 'nav.sections', 'Guides');
  expect(await h1(tab)).toBe('Getting started');

  // Variant menu: a <details> (no script needed); the page is kept where it exists.
  await tab.click('details.variant summary');
  await clickLinkText(tab, 'details.variant', 'v2');
  expect(here(tab)).toBe(`${d.base}/v2/getting-started`);
  expect(await tab.$eval('main .body', (e) => e.textContent)).toContain('Welcome to v2.');

  // Outline links land on their headings.
  await tab.goto(`${t.baseUrl}${d.base}`, { waitUntil: 'load' });
  await tab.click('aside.outline a[href="#install"]');
  await tab.waitForFunction(() => location.hash === '#install');
  expect(await tab.$eval('#install', (e) => e.textContent)).toBe('Install');

  // Search from the box, then a result.
  await tab.type('header.site input[type=search]', 'Endpoints');
  await Promise.all([tab.waitForNavigation({ waitUntil: 'load' }), tab.keyboard.press('Enter')]);
  expect(here(tab)).toBe(`${d.base}/search`);
  await tab.screenshot({ path: path.join(ARTIFACTS, `search-${js ? 'js' : 'nojs'}.png`) });
  await clickLinkText(tab, 'ol.results', 'Reference');
  expect(here(tab)).toBe(`${d.base}/api/reference`);

  // Unknown page: the site's 404 page.
  const missing = await tab.goto(`${t.baseUrl}${d.base}/nope`, { waitUntil: 'load' });
  expect(missing!.status()).toBe(404);
  expect(await h1(tab)).toBe('Not found');
}

describe('a reader in Chromium', () => {
  it('navigates with JavaScript', async () => {
    const w = await watched();
    await navigateAround(w, true);
    await expectClean(w);
    await w.close();
  }, 120_000);

  it('navigates the same way without JavaScript', async () => {
    const w = await watched({ js: false });
    await navigateAround(w, false);
    await expectClean(w);
    await w.close();
  }, 120_000);

  it('follows the system dark preference and the toggle, which persists across pages', async () => {
    await t.api('PUT', `/v1/orgs/${d.o.orgId}/sites/${d.siteId}/customization`, {
      token: d.o.adminToken,
      body: {
        themes: { default: 'system', toggeable: true },
        styling: { primaryColor: { light: '#aa0000', dark: '#00aa00' } },
        header: {
          logo: {
            light: `data:image/svg+xml,${encodeURIComponent(LOGO('#000'))}`,
            dark: `data:image/svg+xml,${encodeURIComponent(LOGO('#fff'))}`,
          },
        },
      },
    });
    const w = await watched();
    const { tab } = w;
    await tab.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'dark' }]);
    await tab.goto(`${t.baseUrl}${d.base}`, { waitUntil: 'load' });
    const bg = () => tab.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(await bg()).toBe('rgb(21, 22, 26)');
    expect(await tab.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--primary').trim())).toBe('#00aa00');
    const shownLogo = () =>
      tab.$$eval('header.site .brand img', (imgs) => imgs.filter((i) => getComputedStyle(i).display !== 'none').map((i) => i.className));
    expect(await shownLogo()).toEqual(['logo-dark']);
    await tab.screenshot({ path: path.join(ARTIFACTS, 'dark-system.png') });
    await tab.click('[data-theme-toggle]');
    expect(await bg()).toBe('rgb(255, 255, 255)');
    expect(await shownLogo()).toEqual(['logo-light']);
    await clickLinkText(tab, 'nav.tree', 'Second');
    expect(await bg()).toBe('rgb(255, 255, 255)');
    await tab.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'light' }]);
    await tab.click('[data-theme-toggle]');
    expect(await bg()).toBe('rgb(21, 22, 26)');
    await tab.screenshot({ path: path.join(ARTIFACTS, 'dark-toggle.png') });
    await expectClean(w);
    await w.close();
  }, 120_000);

  it('reads a share-link site only with an active key', async () => {
    const s = await docsSite(t, await t.seedOrg(), 'share-link');
    const link = (
      await t.api('POST', `/v1/orgs/${s.o.orgId}/sites/${s.siteId}/share-links`, { token: s.o.adminToken, body: { name: 'P' } })
    ).body;
    const w = await watched();
    const { tab } = w;
    expect((await tab.goto(`${t.baseUrl}${s.base}`, { waitUntil: 'load' }))!.status()).toBe(404);
    expect(await tab.content()).not.toContain('Acme Docs');
    await tab.goto(link.urls.published.replace(/^https?:\/\/[^/]+/, t.baseUrl), { waitUntil: 'load' });
    expect(here(tab)).toBe(s.base);
    expect(new URL(tab.url()).search).toBe('');
    expect(await h1(tab)).toBe('Getting started');
    const cookie = (await tab.cookies()).find((c) => c.name === `dp_share_${s.siteId}`)!;
    expect(cookie.httpOnly).toBe(true);
    await clickLinkText(tab, 'nav.tree', 'Second');
    expect(await h1(tab)).toBe('Second');
    await tab.screenshot({ path: path.join(ARTIFACTS, 'share-link.png') });
    await t.api('PATCH', `/v1/orgs/${s.o.orgId}/sites/${s.siteId}/share-links/${link.id}`, {
      token: s.o.adminToken,
      body: { active: false },
    });
    expect((await tab.reload({ waitUntil: 'load' }))!.status()).toBe(404);
    await expectClean(w);
    await w.close();
  }, 120_000);

  it('shows the customization: colors, corners, banner, header links, external link targets, no prev/next when pagination is off', async () => {
    const c = await docsSite(t, await t.seedOrg());
    const put = await t.api('PUT', `/v1/orgs/${c.o.orgId}/sites/${c.siteId}/customization`, {
      token: c.o.adminToken,
      body: {
        styling: { primaryColor: { light: '#123456', dark: '#654321' }, corners: 'straight' },
        announcement: { enabled: true, message: 'Version 2 is out', style: 'warning' },
        header: { links: [{ title: 'Status', to: { kind: 'url', url: 'https://status.example.test/' } }] },
        externalLinks: { target: 'blank' },
        pagination: { enabled: false },
      },
    });
    expect(put.status, put.text).toBe(200);
    const w = await watched();
    const { tab } = w;
    await tab.goto(`${t.baseUrl}${c.base}/second`, { waitUntil: 'load' });
    expect(await tab.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--primary').trim())).toBe('#123456');
    expect(await tab.$eval('header.site button[type=submit]', (e) => getComputedStyle(e).borderTopLeftRadius)).toBe('0px');
    expect(await tab.$eval('.banner', (e) => e.textContent)).toContain('Version 2 is out');
    const status = await tab.$eval('header.site nav.links a', (a) => [a.textContent, a.getAttribute('target')]);
    expect(status).toEqual(['Status', '_blank']);
    expect(await tab.$eval('main .body a[href^="https://example.test"]', (a) => a.getAttribute('target'))).toBe('_blank');
    expect(await tab.$('nav.pagination')).toBeNull();
    await tab.screenshot({ path: path.join(ARTIFACTS, 'customized.png') });
    await expectClean(w);
    await w.close();
  }, 120_000);

  it('signs a visitor in through the customer login; claims show a section; bad tokens go back to the login; a change shows on reload', async () => {
    const v = await docsSite(t, await t.seedOrg(), 'visitor-auth');
    const key = (await t.api('GET', `/v1/orgs/${v.o.orgId}/sites/${v.siteId}/publishing/auth`, { token: v.o.adminToken })).body.privateKey;
    await t.api('PATCH', `/v1/orgs/${v.o.orgId}/sites/${v.siteId}/sections/${v.sections.api.id}`, {
      token: v.o.adminToken,
      body: { condition: 'visitor.claims.beta == true' },
    });
    let claims: Record<string, unknown> = { sub: 'reader' };
    const logins: string[] = [];
    // The customer's own login: signs a token with the site's key and sends the reader back.
    const login = await serve(async (req, res) => {
      const location = new URL(req.url!, 'http://x').searchParams.get('location') ?? '/';
      logins.push(location);
      const jwt = await new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256' })
        .setExpirationTime('1h')
        .sign(new TextEncoder().encode(key));
      res.writeHead(302, { location: `${t.baseUrl}${location}${location.includes('?') ? '&' : '?'}jwt_token=${jwt}` }).end();
    });
    try {
      await t.api('PATCH', `/v1/orgs/${v.o.orgId}/sites/${v.siteId}/publishing/auth`, {
        token: v.o.adminToken,
        body: { fallbackURL: `${login.url}/login` },
      });
      const w = await watched({ allowed: [new URL(login.url).origin] });
      const { tab } = w;
      await tab.goto(`${t.baseUrl}${v.base}/second`, { waitUntil: 'load' });
      expect(logins).toEqual([`${v.base}/second`]);
      expect(here(tab)).toBe(`${v.base}/second`);
      expect(new URL(tab.url()).search).toBe('');
      expect(await h1(tab)).toBe('Second');
      expect(await tab.$$eval('nav.sections a', (as) => as.map((a) => a.textContent))).toEqual(['Guides', 'SDKs']);
      expect((await tab.goto(`${t.baseUrl}${v.base}/api`, { waitUntil: 'load' }))!.status()).toBe(404);

      // A token with the claim: the API section appears and its URL opens.
      claims = { sub: 'reader', beta: true };
      await tab.deleteCookie(...(await tab.cookies()));
      await tab.goto(`${t.baseUrl}${v.base}`, { waitUntil: 'load' });
      await clickLinkText(tab, 'nav.sections', 'API');
      expect(await h1(tab)).toBe('Reference');

      // A tampered token sends the reader back to the login.
      await tab.deleteCookie(...(await tab.cookies()));
      const before = logins.length;
      await tab.goto(`${t.baseUrl}${v.base}/second?jwt_token=e30.e30.bad`, { waitUntil: 'load' });
      expect(logins.length).toBe(before + 1);
      expect(await h1(tab)).toBe('Second');

      // A change of the space's content shows on the next load.
      await editContent(t, v.spaces.v1, (draft) => {
        const id = draft.childIds(null).find((x: string) => draft.page(x)?.title === 'Second')!;
        draft.updatePage(id, { markdown: 'Second body, merged.' });
      });
      await tab.reload({ waitUntil: 'load' });
      expect(await tab.$eval('main .body', (e) => e.textContent)).toContain('Second body, merged.');
      await tab.screenshot({ path: path.join(ARTIFACTS, 'visitor-auth.png') });
      await expectClean(w);
      await w.close();
    } finally {
      await login.close();
    }
  }, 120_000);
});
