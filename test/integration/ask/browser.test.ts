// The Ask box in Chromium, as a reader: a page opened with `?ask=` answers at once; a question typed
// in the header's box answers under the header, with links to the cited pages that open them;
// without JavaScript the box opens the Ask page. No console error, CSP violation or off-origin request.
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { expectClean, h1, here, useBrowser, watchedTab } from '../../helpers/browser.js';
import type { DocsSite } from '../reader/helpers.js';
import { HIDDEN_WORD, quotaSite } from './helpers.js';

const { t } = useTestApp();
const browser = useBrowser();
let d: DocsSite;
beforeAll(async () => {
  d = await quotaSite(t);
}, 120_000);

describe('the Ask box', () => {
  it('answers a ?ask= link, then a typed question; the cited page opens from the answer', async () => {
    const w = await watchedTab(browser, t.baseUrl, { cspEveryDocument: true });
    await w.tab.goto(`${t.baseUrl}${d.base}/?ask=${encodeURIComponent('What is the quota?')}`);
    await w.tab.waitForSelector('.ask-panel .answer[data-done="1"]');
    expect(await w.tab.$eval('#site-ask', (e) => (e as HTMLInputElement).value)).toBe('What is the quota?');
    expect(await w.tab.$eval('.ask-panel h2', (e) => e.textContent)).toBe('What is the quota?');
    const answer = await w.tab.$eval('.ask-panel .answer', (e) => e.textContent ?? '');
    expect(answer).toContain('quota of 100 requests per minute');
    expect(answer).not.toContain(HIDDEN_WORD);

    await w.tab.click('#site-ask', { count: 3 });
    await w.tab.type('#site-ask', 'What happens past the quota?');
    await w.tab.keyboard.press('Enter');
    await w.tab.waitForFunction(() => document.querySelector('.ask-panel h2')?.textContent === 'What happens past the quota?');
    await w.tab.waitForSelector('.ask-panel .answer[data-done="1"]');
    expect(await w.tab.$eval('.ask-panel .answer', (e) => e.textContent ?? '')).toContain('429');
    await Promise.all([w.tab.waitForNavigation(), w.tab.click('.ask-panel .answer a[href$="/api/quotas"]')]);
    expect(here(w.tab)).toBe(`${d.base}/api/quotas`);
    expect(await h1(w.tab)).toBe('Quotas');
    await expectClean(w);
    await w.close();
  });

  it('without JavaScript, the box opens the Ask page with the answer', async () => {
    const w = await watchedTab(browser, t.baseUrl, { js: false });
    await w.tab.goto(`${t.baseUrl}${d.base}/`);
    await w.tab.type('#site-ask', 'quota per minute');
    await Promise.all([w.tab.waitForNavigation(), w.tab.keyboard.press('Enter')]);
    expect(here(w.tab)).toBe(`${d.base}/ask`);
    expect(await h1(w.tab)).toBe('quota per minute');
    expect(await w.tab.$eval('.ask-answer', (e) => e.textContent ?? '')).toContain('100 requests per minute');
    expect(await w.tab.$$eval('.ask-answer a', (as) => as.map((a) => new URL((a as HTMLAnchorElement).href).pathname))).toContain(
      `${d.base}/api/quotas`,
    );
    await expectClean(w);
    await w.close();
  });
});
