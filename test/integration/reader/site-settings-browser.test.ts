// Issue 29 items 1 and 2 as a reader meets them in Chromium: a site redirect and a `.gitbook.yaml`
// redirect followed with the query string kept, an external link in the header and, at a phone's
// width, in the mobile menu, and a custom font uploaded through the signed URL and used by the
// page. Each run asserts nothing off-origin, no console error and no CSP violation.
import { fileURLToPath } from 'node:url';
import { readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { expectClean, h1, here, STATUS_401_404, useBrowser, watchedTab } from '../../helpers/browser.js';
import { editContent } from '../../helpers/content.js';
import { officialClient } from '../sites/helpers.js';
import { docsSite, type DocsSite } from './helpers.js';

const { t } = useTestApp();
const browser = useBrowser();
const FONT = fileURLToPath(new URL('../../fixtures/fonts/LiberationSans-Regular.ttf', import.meta.url));
let d: DocsSite;
let api: any;
beforeAll(async () => {
  d = await docsSite(t, await t.seedOrg());
  api = officialClient(t, d.o.adminToken);
  // A page imported from git, and the `.gitbook.yaml` redirect of its old path.
  await editContent(t, d.spaces.v1, (draft) => {
    draft.insertPage(null, { title: 'Moved here', markdown: 'Moved body.', git: { oid: '0'.repeat(40), path: 'moved-here.md' } });
    draft.setRedirects({ 'old-place': 'moved-here.md' });
  });
}, 120_000);

const watched = () => watchedTab(browser, t.baseUrl, { ignoreConsole: STATUS_401_404, cspEveryDocument: true });

describe('redirects in the reader', () => {
  it('follows a site redirect and a .gitbook.yaml redirect, keeping the query string', async () => {
    await api.orgs.createSiteRedirect(d.o.orgId, d.siteId, {
      source: '/docs/old-nested',
      destination: { kind: 'path', spaceId: d.spaces.v1, path: 'getting-started/nested-page' },
    });
    const w = await watched();
    try {
      const res = await w.tab.goto(`${t.baseUrl}${d.base}/docs/old-nested?utm_source=newsletter`, { waitUntil: 'load' });
      expect(res!.status()).toBe(200);
      expect(here(w.tab)).toBe(`${d.base}/getting-started/nested-page`);
      expect(new URL(w.tab.url()).search).toBe('?utm_source=newsletter');
      expect(await h1(w.tab)).toBe('Nested page');
      const chain = res!.request().redirectChain();
      expect(chain.map((r) => r.response()?.status())).toEqual([307]);

      const old = await w.tab.goto(`${t.baseUrl}${d.base}/old-place?ref=2`, { waitUntil: 'load' });
      expect(
        old!
          .request()
          .redirectChain()
          .map((r) => r.response()?.status()),
      ).toEqual([301]);
      expect(here(w.tab)).toBe(`${d.base}/moved-here`);
      expect(new URL(w.tab.url()).search).toBe('?ref=2');
      expect(await h1(w.tab)).toBe('Moved here');
      await expectClean(w);
    } finally {
      await w.close();
    }
  });
});

describe('external links in the header and the mobile menu', () => {
  it('shows the link in the header on a wide screen and in the menu on a narrow one', async () => {
    await api.orgs.addExternalLinkToSite(d.o.orgId, d.siteId, { title: 'Community forum', url: 'https://forum.example.test/' });
    const w = await watched();
    try {
      await w.tab.goto(`${t.baseUrl}${d.base}`, { waitUntil: 'load' });
      const visible = (sel: string) =>
        w.tab.$eval(sel, (e) => {
          const r = (e as HTMLElement).getBoundingClientRect();
          return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden';
        });
      expect(await visible('header.site nav.external-links a')).toBe(true);
      expect(await w.tab.$eval('header.site nav.external-links a', (a) => [a.textContent, a.getAttribute('href')])).toEqual([
        'Community forum',
        'https://forum.example.test/',
      ]);
      expect(await visible('details.mobile-menu')).toBe(false);

      await w.tab.setViewport({ width: 375, height: 740 });
      expect(await visible('header.site nav.external-links')).toBe(false);
      expect(await visible('details.mobile-menu summary')).toBe(true);
      await w.tab.click('details.mobile-menu summary');
      const link = await w.tab.evaluate(() => {
        const a = [...document.querySelectorAll('details.mobile-menu a')].find((x) => x.textContent === 'Community forum') as
          HTMLElement | undefined;
        if (!a) return null;
        const r = a.getBoundingClientRect();
        return { href: a.getAttribute('href'), shown: r.width > 0 && r.height > 0 };
      });
      expect(link).toEqual({ href: 'https://forum.example.test/', shown: true });
      // The sections are in the menu too (their tabs are hidden at this width).
      expect(await w.tab.$$eval('details.mobile-menu a', (as) => as.map((a) => a.textContent))).toEqual(
        expect.arrayContaining(['Guides', 'API', 'SDKs', 'Community forum']),
      );
      await expectClean(w);
    } finally {
      await w.close();
    }
  });
});

describe('a custom font', () => {
  it('is uploaded through the signed URL, set in the customization, and loaded by the page', async () => {
    const bytes = await readFile(FONT);
    const signed = (
      await api.orgs.generateStorageUploadUrl(d.o.orgId, {
        file: { name: 'LiberationSans-Regular.ttf', type: 'font/ttf', size: bytes.length },
        kind: 'customization_font',
      })
    ).data;
    expect((await fetch(signed.url, { method: 'PUT', body: new Uint8Array(bytes), headers: { 'content-type': 'font/ttf' } })).status).toBe(
      200,
    );
    const font = (
      await api.orgs.createCustomFont(d.o.orgId, { fontFamily: 'Brand Sans', fontFaces: [{ weight: 400, storageKey: signed.key }] })
    ).data;
    await api.orgs.updateSiteCustomizationById(d.o.orgId, d.siteId, { styling: { font } });
    const w = await watched();
    try {
      await w.tab.goto(`${t.baseUrl}${d.base}`, { waitUntil: 'load' });
      const state = await w.tab.evaluate(async () => {
        await document.fonts.ready;
        await document.fonts.load('16px "Brand Sans"');
        return {
          family: getComputedStyle(document.body).fontFamily,
          loaded: [...document.fonts].some((f) => f.family.replace(/"/g, '') === 'Brand Sans' && f.status === 'loaded'),
        };
      });
      expect(state.family.startsWith('"Brand Sans"')).toBe(true);
      expect(state.loaded).toBe(true);
      await expectClean(w);
    } finally {
      await w.close();
    }
  });
});
