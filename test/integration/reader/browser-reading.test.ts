// Reading features in Chromium, as a reader sees them: live search under the header box (typing,
// arrows, Enter, Escape, ARIA state), GitBook blocks readable in dark mode, tint and semantic
// colors, a page cover switching with the theme, the footer's social links by accessible name.
// Every run asserts zero off-origin requests, zero console errors and zero CSP violations.
// Screenshots go to data/test-artifacts/site/ (SITE_ARTIFACTS to change it).
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'puppeteer-core';
import { contrast } from '../../../src/reader/layout-theme.js';
import { useTestApp } from '../../helpers/app.js';
import { expectClean, here, useBrowser, watchedTab } from '../../helpers/browser.js';
import { addFile, editContent } from '../../helpers/content.js';
import { png } from '../../helpers/png.js';
import { docsSite, type DocsSite } from './helpers.js';

const LOGO = (fill: string) =>
  `data:image/svg+xml,${encodeURIComponent(`<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20"><rect width="20" height="20" fill="${fill}"/></svg>`)}`;
const ARTIFACTS = process.env.SITE_ARTIFACTS ?? path.resolve('data/test-artifacts/site');

/** An `rgb(…)`/`rgba(…)` computed color as `#rrggbb`. */
function cssHex(rgb: string): string {
  const m = /rgba?\((\d+),\s*(\d+),\s*(\d+)/.exec(rgb);
  if (!m) throw new Error(`not an rgb color: ${rgb}`);
  return `#${[m[1], m[2], m[3]].map((x) => Number(x).toString(16).padStart(2, '0')).join('')}`;
}

const BLOCKS = `Blocks of every kind.

{% hint style="info" %}
An info hint.
{% endhint %}

{% hint style="warning" %}
A warning hint.
{% endhint %}

{% hint style="danger" %}
A danger hint.
{% endhint %}

{% hint style="success" %}
A success hint.
{% endhint %}

{% tabs %}
{% tab title="First" %}
First tab body.
{% endtab %}

{% tab title="Second" %}
Second tab body.
{% endtab %}
{% endtabs %}

| Name | Value |
| ---- | ----- |
| a    | \`1\`   |

\`\`\`js
const x = 1;
\`\`\`
`;

const { t } = useTestApp();
const browser = useBrowser();
let d: DocsSite;
beforeAll(async () => {
  d = await docsSite(t, await t.seedOrg());
  const light = await addFile(t, d.spaces.v1, 'cover-light.png', 'image/png', png(8, 2, [240, 200, 60]));
  const dark = await addFile(t, d.spaces.v1, 'cover-dark.png', 'image/png', png(8, 2, [20, 30, 90]));
  await editContent(t, d.spaces.v1, (x) => {
    x.insertPage(null, {
      title: 'Blocks',
      markdown: BLOCKS,
      cover: { ref: { kind: 'file', file: light }, refDark: { kind: 'file', file: dark }, yPos: 0 },
      layout: { cover: true },
    });
  });
  await mkdir(ARTIFACTS, { recursive: true });
}, 120_000);

const input = 'header.site input[name=q]';
const expanded = (tab: Page) => tab.$eval(input, (e) => e.getAttribute('aria-expanded'));

describe('live search under the header box', () => {
  it('shows results as the reader types; arrows, Enter and Escape work; ARIA follows', async () => {
    const w = await watchedTab(browser, t.baseUrl);
    const { tab } = w;
    await tab.goto(`${t.baseUrl}${d.base}/second`, { waitUntil: 'load' });
    expect(await tab.$eval(input, (e) => [e.getAttribute('role'), e.getAttribute('aria-controls')])).toEqual([
      'combobox',
      'search-results',
    ]);
    expect(await expanded(tab)).toBe('false');

    await tab.type(input, 'Endpoints');
    await tab.waitForSelector('#search-results [role=option] a', { visible: true });
    expect(await expanded(tab)).toBe('true');
    const options = await tab.$$eval('#search-results [role=option]', (els) =>
      els.map((e) => [e.querySelector('.t')?.textContent, e.querySelector('.s')?.textContent, e.querySelector('.x')?.textContent]),
    );
    expect(options).toEqual([['Reference', 'API', 'Endpoints.']]);
    expect(await tab.$eval('#search-results', (e) => e.getAttribute('role'))).toBe('listbox');
    // Screen readers hear how many results there are.
    expect(await tab.$eval('header.site form [role=status]', (e) => e.textContent)).toBe('1 result');
    await tab.screenshot({ path: path.join(ARTIFACTS, 'search-dropdown.png') });

    // Escape closes; ArrowDown reopens and selects.
    await tab.keyboard.press('Escape');
    expect(await expanded(tab)).toBe('false');
    expect(await tab.$eval('#search-results', (e) => (e as HTMLElement).hidden)).toBe(true);
    await tab.keyboard.press('ArrowDown');
    expect(await expanded(tab)).toBe('true');
    expect(await tab.$eval(input, (e) => e.getAttribute('aria-activedescendant'))).toBe('search-option-0');
    expect(await tab.$eval('#search-option-0', (e) => e.getAttribute('aria-selected'))).toBe('true');
    expect(await w.cspViolations()).toEqual([]);
    await Promise.all([tab.waitForNavigation({ waitUntil: 'load' }), tab.keyboard.press('Enter')]);
    expect(here(tab)).toBe(`${d.base}/api/reference`);
    expect(await tab.$eval('main h1', (e) => e.textContent)).toBe('Reference');

    // A query with no match says so; Enter with nothing selected goes to the results page.
    await tab.type(input, 'zzzznothing');
    await tab.waitForSelector('#search-results .empty', { visible: true });
    expect(await tab.$eval('#search-results .empty', (e) => e.textContent)).toContain('No results');
    await Promise.all([tab.waitForNavigation({ waitUntil: 'load' }), tab.keyboard.press('Enter')]);
    expect(here(tab)).toBe(`${d.base}/search`);
    await expectClean(w);
    await w.close();
  }, 120_000);

  it('without JavaScript, the box is a plain form to the results page', async () => {
    const w = await watchedTab(browser, t.baseUrl, { js: false });
    const { tab } = w;
    await tab.goto(`${t.baseUrl}${d.base}/second`, { waitUntil: 'load' });
    expect(await tab.$eval(input, (e) => e.getAttribute('role'))).toBeNull();
    expect(await tab.$('#search-results')).toBeNull();
    await tab.type(input, 'Endpoints');
    await Promise.all([tab.waitForNavigation({ waitUntil: 'load' }), tab.keyboard.press('Enter')]);
    expect(here(tab)).toBe(`${d.base}/search`);
    expect(await tab.$eval('.results a', (e) => e.textContent)).toBe('Reference');
    await expectClean(w);
    await w.close();
  }, 120_000);
});

/** Text and background colors of an element as hex, its background taken from the nearest painted ancestor. */
function colorsOf(tab: Page, selector: string): Promise<[string, string, string]> {
  return tab.$eval(selector, (e) => {
    const fg = getComputedStyle(e).color;
    let bg = 'rgba(0, 0, 0, 0)';
    for (let n: Element | null = e; n && /rgba\(0, 0, 0, 0\)|transparent/.test(bg); n = n.parentElement)
      bg = getComputedStyle(n).backgroundColor;
    return [fg, bg, getComputedStyle(e).borderLeftColor] as [string, string, string];
  });
}

describe('blocks, colors and covers', () => {
  it('keeps hints, tabs, tables and code readable in dark mode, with the semantic colors and the cover of each theme', async () => {
    const put = await t.api('PUT', `/v1/orgs/${d.o.orgId}/sites/${d.siteId}/customization`, {
      token: d.o.adminToken,
      body: {
        themes: { default: 'system', toggeable: true },
        styling: {
          warningColor: { light: '#b45309', dark: '#f59e0b' },
          dangerColor: { light: '#b91c1c', dark: '#f87171' },
          infoColor: { light: '#1d4ed8', dark: '#60a5fa' },
        },
      },
    });
    expect(put.status, put.text).toBe(200);
    const w = await watchedTab(browser, t.baseUrl);
    const { tab } = w;
    await tab.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'dark' }]);
    await tab.goto(`${t.baseUrl}${d.base}/blocks`, { waitUntil: 'load' });

    const readable = async (selector: string, min: number) => {
      const [fg, bg] = await colorsOf(tab, selector);
      const ratio = contrast(cssHex(fg), cssHex(bg));
      expect(ratio, `${selector}: ${fg} on ${bg}`).toBeGreaterThanOrEqual(min);
      return cssHex(bg);
    };
    // Dark mode: every hint is light text on a dark background (it was dark text on light pastel before).
    const hintBgs: string[] = [];
    for (const style of ['info', 'warning', 'danger', 'success']) hintBgs.push(await readable(`.body aside.hint-${style} p`, 7));
    expect(new Set(hintBgs).size).toBe(4);
    for (const bg of hintBgs) expect(contrast(bg, '#000000')).toBeLessThan(3); // a dark background, not a pastel
    expect(cssHex((await colorsOf(tab, '.body aside.hint-warning'))[2])).toBe('#f59e0b');
    expect(cssHex((await colorsOf(tab, '.body aside.hint-danger'))[2])).toBe('#f87171');
    await readable('.body .tab-label', 4.5);
    await readable('.body td', 7);
    await readable('.body th', 7);
    await readable('.body pre code', 7);
    // The dark cover shows, and it loaded.
    const shownCover = () =>
      tab.$$eval('.cover img', (imgs) =>
        imgs.filter((i) => getComputedStyle(i).display !== 'none').map((i) => [i.className, (i as HTMLImageElement).naturalWidth]),
      );
    expect(await shownCover()).toEqual([['cover-dark', 8]]);
    await tab.screenshot({ path: path.join(ARTIFACTS, 'blocks-dark.png'), fullPage: true });

    // Light mode (the toggle): the same blocks with the light semantic colors, and the light cover.
    await tab.click('[data-theme-toggle]');
    for (const style of ['info', 'warning', 'danger', 'success']) await readable(`.body aside.hint-${style} p`, 7);
    expect(cssHex((await colorsOf(tab, '.body aside.hint-warning'))[2])).toBe('#b45309');
    expect(await shownCover()).toEqual([['cover-light', 8]]);
    await tab.screenshot({ path: path.join(ARTIFACTS, 'cover-light.png'), fullPage: true });
    await expectClean(w);
    await w.close();
  }, 120_000);

  it('tints the page and shows the footer with social links named for assistive technology', async () => {
    const put = await t.api('PUT', `/v1/orgs/${d.o.orgId}/sites/${d.siteId}/customization`, {
      token: d.o.adminToken,
      body: {
        styling: { tint: { color: { light: '#7c3aed', dark: '#7c3aed' } } },
        footer: { copyright: '© Acme', logo: { light: LOGO('#000'), dark: LOGO('#fff') } },
        privacyPolicy: { url: 'https://acme.example.test/privacy' },
        socialAccounts: [{ platform: 'github', handle: 'acme', display: { footer: true, header: false } }],
      },
    });
    expect(put.status, put.text).toBe(200);
    const w = await watchedTab(browser, t.baseUrl);
    const { tab } = w;
    await tab.goto(`${t.baseUrl}${d.base}/second`, { waitUntil: 'load' });
    const body = cssHex(await tab.evaluate(() => getComputedStyle(document.body).backgroundColor));
    expect(body).not.toBe('#ffffff');
    const [r, g, b] = [1, 3, 5].map((i) => parseInt(body.slice(i, i + 2), 16));
    expect(b).toBeGreaterThan(g); // violet-tinted
    expect(r).toBeGreaterThan(g);
    const github = await tab.$('aria/Acme Docs on GitHub (acme)');
    expect(github).not.toBeNull();
    expect(await github!.evaluate((a) => (a as HTMLAnchorElement).href)).toBe('https://github.com/acme');
    expect(await tab.$('aria/Privacy policy')).not.toBeNull();
    expect(await tab.$$eval('footer .footer-logo img', (imgs) => imgs.filter((i) => getComputedStyle(i).display !== 'none').length)).toBe(
      1,
    );
    await tab.screenshot({ path: path.join(ARTIFACTS, 'tint-footer.png'), fullPage: true });
    await expectClean(w);
    await w.close();
  }, 120_000);
});
