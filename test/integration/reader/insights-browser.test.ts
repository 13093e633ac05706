// Insights as a reader makes them in Chromium (issue 29 item 3): the published site sends its own
// page views, searches (with how many results the reader saw), link clicks and "Was this page
// helpful?" feedback to its own origin, and aggregateSiteEvents shows them. Nothing leaves the
// site's origin, no console error, no CSP violation; with insights off the page has neither the
// script nor the control.
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { expectClean, h1, here, useBrowser, watchedTab } from '../../helpers/browser.js';
import { waitFor } from '../../helpers/http.js';
import { checked, officialClient, SITE } from '../sites/helpers.js';
import { docsSite, type DocsSite } from './helpers.js';

const { t } = useTestApp();
const browser = useBrowser();
let d: DocsSite;
let api: any;
beforeAll(async () => {
  d = await docsSite(t, await t.seedOrg());
  api = officialClient(t, d.o.adminToken);
  await api.orgs.updateSiteCustomizationById(d.o.orgId, d.siteId, { feedback: { enabled: true } });
}, 120_000);

const AGG = `${SITE}/insights/events/aggregate`;
async function aggregate(body: Record<string, unknown>): Promise<any[][]> {
  const r = await checked('POST', AGG, api.orgs.aggregateSiteEvents(d.o.orgId, d.siteId, { range: 'last24Hours', ...body }), 200);
  return r.columns[0].values.map((_: unknown, i: number) => r.columns.map((c: any) => c.values[i]));
}
const countOf = (rs: any[][], key: unknown) => rs.find((r) => JSON.stringify(r[0]) === JSON.stringify(key))?.[1] ?? 0;

describe('insights in the reader', () => {
  it('counts what a reader views, searches, clicks and rates, all sent to the site itself', async () => {
    const w = await watchedTab(browser, t.baseUrl, { isolated: true, cspEveryDocument: true });
    const beacons: string[] = [];
    w.tab.on('request', (r) => {
      if (r.url().includes('~gitbook/insights')) beacons.push(r.url());
    });
    try {
      await w.tab.goto(`${t.baseUrl}${d.base}/getting-started`, { waitUntil: 'load' });
      expect(await h1(w.tab)).toBe('Getting started');
      const pageId = await w.tab.$eval('[data-insights-page]', (e) => (e as HTMLElement).dataset.page);

      // "Was this page helpful?": shown by the script, a rating then a comment.
      await w.tab.waitForSelector('.page-feedback:not([hidden])');
      expect(await w.tab.$eval('.page-feedback h2', (e) => e.textContent)).toBe('Was this page helpful?');
      await w.tab.click('.page-feedback button[data-rating="good"]');
      await w.tab.waitForSelector('.page-feedback form:not([hidden])');
      await w.tab.type('.page-feedback textarea', 'Clear and short');
      await w.tab.click('.page-feedback form button[type=submit]');
      await w.tab.waitForFunction(() => document.querySelector('.page-feedback [role=status]')?.textContent?.includes('comment was sent'));

      // Searches in the header box: one that finds pages, one that finds nothing.
      await w.tab.type('header.site input[name=q]', 'nested');
      await w.tab.waitForSelector('#search-results:not([hidden]) li[role=option]:not([aria-disabled])');
      await waitFor(async () => beacons.length >= 4, { what: 'the search event' }); // view, rating, comment, search
      await w.tab.click('header.site input[name=q]', { clickCount: 3 });
      await w.tab.type('header.site input[name=q]', 'zzqqxx');
      await w.tab.waitForSelector('#search-results li.empty');
      await waitFor(async () => beacons.length >= 5, { what: 'the second search event' });
      await w.tab.keyboard.press('Escape');

      // A link of the sidebar: a click, then the next page's view.
      await w.tab.$$eval('nav.tree a', (as) => (as.find((a) => a.textContent === 'Second') as HTMLElement).click());
      await w.tab.waitForFunction(() => document.querySelector('main h1')?.textContent === 'Second');
      expect(here(w.tab)).toBe(`${d.base}/second`);
      await waitFor(async () => beacons.length >= 7, { what: 'the click and the second view' });
      await expectClean(w);
      expect(beacons.every((u) => u.startsWith(`${t.baseUrl}${d.base}/~gitbook/insights`))).toBe(true);

      const byType = await waitFor(
        async () => {
          const rs = await aggregate({ select: [{ column: 'eventType' }, { column: 'eventsCount' }] });
          return countOf(rs, 'page_view') >= 2 && countOf(rs, 'link_click') >= 1 && countOf(rs, 'search_type_query') >= 2 ? rs : null;
        },
        { what: 'the events in the aggregate' },
      );
      expect(countOf(byType, 'page_post_feedback')).toBe(1);
      expect(countOf(byType, 'page_post_feedback_comment')).toBe(1);

      const feedback = await aggregate({
        select: [{ column: 'page' }, { column: 'pageFeedbackRating' }],
        where: [{ column: 'eventType', values: ['page_post_feedback'] }],
      });
      expect(feedback).toEqual([
        [
          { page: pageId, space: d.spaces.v1 },
          { ok: 0, good: 1, bad: 0 },
        ],
      ]);
      expect(await aggregate({ select: [{ column: 'eventPageFeedbackComment' }, { column: 'eventsCount' }] })).toEqual([
        ['Clear and short', 1],
      ]);

      const searches = await aggregate({
        where: [{ column: 'eventType', values: ['search_type_query'] }],
        select: [{ column: 'eventSearchQuery' }, { column: 'eventsCount' }],
      });
      expect(searches).toEqual([
        ['nested', 1],
        ['zzqqxx', 1],
      ]);
      const nothingFound = await aggregate({
        where: [
          { column: 'eventType', values: ['search_type_query'] },
          { column: 'eventSearchResultsCount', values: [0] },
        ],
        select: [{ column: 'eventSearchQuery' }, { column: 'eventsCount' }],
      });
      expect(nothingFound).toEqual([['zzqqxx', 1]]);

      const clicks = await aggregate({
        select: [{ column: 'eventLinkPosition' }, { column: 'eventLinkTargetValue' }, { column: 'eventsCount' }],
      });
      expect(clicks).toEqual([['sidebar', { kind: 'url', url: `${t.baseUrl}${d.base}/second` }, 1]]);
      const visitors = await aggregate({ select: [{ column: 'visitorsCount' }, { column: 'visitorBrowser' }] });
      expect(visitors).toEqual([[1, 'chrome']]);
    } finally {
      await w.close();
    }
  });

  it('leaves the script and the feedback control out when the site turns insights off', async () => {
    await api.orgs.updateSiteCustomizationById(d.o.orgId, d.siteId, { feedback: { enabled: true }, insights: { enabled: false } });
    const w = await watchedTab(browser, t.baseUrl, { isolated: true });
    try {
      await w.tab.goto(`${t.baseUrl}${d.base}/getting-started`, { waitUntil: 'load' });
      expect(await h1(w.tab)).toBe('Getting started');
      expect(await w.tab.$$eval('script[src*="insights-"], .page-feedback, [data-insights-page]', (es) => es.length)).toBe(0);
      await expectClean(w);
    } finally {
      await w.close();
    }
  });
});
