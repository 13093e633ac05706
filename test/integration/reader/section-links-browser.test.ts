// External links whose parent is a section group, as a reader meets them in Chromium: inside the
// group in the section tabs on a wide screen (root links in the header), under the group in the
// mobile menu at a phone's width; a conditional one only with its claim, a draft never. The page
// head's hreflang alternates as the browser parsed them. Nothing off-origin, no console error, no
// CSP violation.
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { expectClean, useBrowser, watchedTab } from '../../helpers/browser.js';
import { langSite, type LangSite } from './lang-site.js';

const { t } = useTestApp();
const browser = useBrowser();
let s: LangSite;
beforeAll(async () => {
  s = await langSite(t, await t.seedOrg());
}, 120_000);

const shown = (el: Element) => {
  const r = (el as HTMLElement).getBoundingClientRect();
  return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== 'hidden';
};

describe('external links in their section group', () => {
  it('shows a grouped link inside its group in the tabs, and under the group in the mobile menu', async () => {
    const w = await watchedTab(browser, t.baseUrl, { cspEveryDocument: true, isolated: true });
    try {
      await w.tab.setViewport({ width: 1280, height: 900 });
      await w.tab.goto(`${t.baseUrl}${s.base}/install`, { waitUntil: 'load' });
      // The group "Developers" in the tabs: its section, then its link; the root link in the header.
      const group = await w.tab.evaluate(() => {
        const li = [...document.querySelectorAll('nav.sections li.group')].find(
          (g) => g.querySelector(':scope > span')?.textContent === 'Developers',
        );
        return li ? [...li.querySelectorAll('a')].map((a) => ({ text: a.textContent, href: a.getAttribute('href') })) : null;
      });
      expect(group).toEqual([
        { text: 'API', href: `${t.baseUrl}${s.base}/api` },
        { text: 'Status', href: 'https://status.example.test/' },
      ]);
      expect(await w.tab.$eval('nav.sections li.external a', shown)).toBe(true);
      expect(await w.tab.$$eval('header.site nav.external-links a', (as) => as.map((a) => a.textContent))).toEqual(['Forum']);
      expect(await w.tab.evaluate(() => document.body.textContent?.includes('Draft link'))).toBe(false);
      expect(await w.tab.evaluate(() => document.body.textContent?.includes('Beta link'))).toBe(false);
      // The head's alternates as the browser parsed them.
      expect(
        await w.tab.$$eval('head link[rel="alternate"][hreflang]', (ls) =>
          ls.map((l) => [l.getAttribute('hreflang'), (l as HTMLLinkElement).href]),
        ),
      ).toEqual([
        ['en', `${t.baseUrl}${s.base}/install`],
        ['fr', `${t.baseUrl}${s.base}/fr/install`],
        ['x-default', `${t.baseUrl}${s.base}/install`],
      ]);

      // At a phone's width the tabs are hidden; the menu holds the group with its link, then the root link.
      await w.tab.setViewport({ width: 375, height: 740 });
      expect(await w.tab.$eval('nav.sections', shown)).toBe(false);
      await w.tab.click('details.mobile-menu summary');
      const menu = await w.tab.evaluate(() => {
        const nav = document.querySelector('details.mobile-menu nav')!;
        const g = [...nav.querySelectorAll('li.group')].find((x) => x.querySelector(':scope > span')?.textContent === 'Developers');
        const status = [...nav.querySelectorAll('a')].find((a) => a.textContent === 'Status')!;
        const r = status.getBoundingClientRect();
        return {
          group: g ? [...g.querySelectorAll('a')].map((a) => a.textContent) : null,
          all: [...nav.querySelectorAll('a')].map((a) => a.textContent),
          statusShown: r.width > 0 && r.height > 0,
        };
      });
      expect(menu).toEqual({ group: ['API', 'Status'], all: ['Docs', 'API', 'Status', 'Forum'], statusShown: true });
      await expectClean(w);
    } finally {
      await w.close();
    }
  });

  it('shows a conditional link in its group to a reader who meets the condition', async () => {
    const w = await watchedTab(browser, t.baseUrl, { cspEveryDocument: true, isolated: true });
    try {
      await w.tab.setViewport({ width: 1280, height: 900 });
      await w.tab.goto(`${t.baseUrl}${s.base}/install?visitor.beta=yes`, { waitUntil: 'load' });
      expect(await w.tab.$$eval('nav.sections li.group a', (as) => as.map((a) => a.textContent))).toEqual(['API', 'Status', 'Beta link']);
      // The claim is kept for the next page (a cookie): the link stays, and the conditional variant is named.
      await w.tab.goto(`${t.baseUrl}${s.base}/getting-started`, { waitUntil: 'load' });
      expect(await w.tab.$$eval('nav.sections li.group a', (as) => as.map((a) => a.textContent))).toEqual(['API', 'Status', 'Beta link']);
      expect(await w.tab.$$eval('head link[rel="alternate"][hreflang]', (ls) => ls.map((l) => l.getAttribute('hreflang')))).toEqual([
        'en',
        'fr',
        'de',
        'x-default',
      ]);
      await expectClean(w);
    } finally {
      await w.close();
    }
  });
});
