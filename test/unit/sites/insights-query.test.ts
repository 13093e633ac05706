// Site insights engines without a database: events flattened into what is stored (user agent
// families, referrer domain, UTM parameters, credentials dropped) and queries checked and planned.
import { describe, expect, it } from 'vitest';
import { siteInsightsEvent, toStoredEvent, userAgentFacts } from '../../../src/sites/insights.js';
import { planQuery } from '../../../src/sites/insights-query.js';
import { isDomainError } from '../../../src/core/errors.js';

const NOW = new Date('2026-03-01T12:00:00Z');
const base = {
  session: {
    visitorId: 'v',
    sessionId: 's',
    cookies: { a: 'b' },
    userAgent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) Firefox/121.0',
    language: 'fr',
    referrer: 'https://www.example.org/a?x=1',
  },
  location: {
    url: 'https://docs.test/guide?utm_source=mail&utm_campaign=spring&share=secret',
    siteSection: 'sec',
    siteSpace: null,
    siteShareKey: null,
    space: 'sp',
    revision: null,
    page: 'pg',
  },
};

describe('insights events', () => {
  it('flattens an event into its dimensions, dropping cookies and credentials', () => {
    const e = siteInsightsEvent.parse({ ...base, type: 'search_type_query', query: 'install', resultsCount: 0 });
    const s = toStoredEvent(e, NOW, {});
    expect(s).toMatchObject({ type: 'search_type_query', occurredAt: NOW, claims: {} });
    expect(s.dims).toEqual({
      url: 'https://docs.test/guide?utm_source=mail&utm_campaign=spring',
      urlPath: '/guide',
      displayContext: 'site',
      siteSection: 'sec',
      space: 'sp',
      page: 'pg',
      language: 'fr',
      browser: 'firefox',
      device: 'desktop',
      os: 'macos',
      referrer: 'https://www.example.org/a?x=1',
      referrerDomain: 'www.example.org',
      authenticated: false,
      utmSource: 'mail',
      utmCampaign: 'spring',
      searchQuery: 'install',
      searchResultsCount: 0,
    });
    expect(JSON.stringify(s)).not.toContain('secret');
  });

  it('refuses what the description does not allow', () => {
    expect(siteInsightsEvent.safeParse({ ...base, type: 'page_post_feedback', feedback: { rating: 'great' } }).success).toBe(false);
    expect(siteInsightsEvent.safeParse({ ...base, type: 'nope' }).success).toBe(false);
    expect(siteInsightsEvent.safeParse({ ...base, type: 'page_view', location: { url: 'not a url' } }).success).toBe(false);
    expect(
      siteInsightsEvent.safeParse({
        ...base,
        type: 'link_click',
        link: { target: { kind: 'url', url: 'https://x.test' }, position: 'middle' },
      }).success,
    ).toBe(false);
  });

  it('tells browsers, devices, systems and bots apart', () => {
    expect(userAgentFacts('Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Version/17.0 Mobile/15E148 Safari/604.1')).toEqual({
      browser: 'safari',
      device: 'mobile',
      os: 'ios',
      bot: null,
    });
    expect(userAgentFacts('Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/120.0 Safari/537.36 Edg/120.0')).toMatchObject({
      browser: 'edge',
      os: 'windows',
    });
    expect(userAgentFacts('Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)').bot).toBe('googlebot');
    expect(userAgentFacts('')).toEqual({ browser: 'unknown', device: 'unknown', os: 'unknown', bot: null });
  });
});

describe('insights queries', () => {
  const bad = (q: any) => {
    try {
      planQuery(q, NOW);
    } catch (err) {
      expect(isDomainError(err, 'invalid')).toBe(true);
      return;
    }
    throw new Error(`accepted ${JSON.stringify(q)}`);
  };

  it('plans presets, implicit grouping and the default output', () => {
    const p = planQuery({ range: 'last7Days', groupBy: [{ column: 'eventType' }] }, NOW);
    expect(p.from).toEqual(new Date('2026-02-22T12:00:00Z'));
    expect(p.to).toEqual(NOW);
    expect(p.output.map((c) => c.out)).toEqual([{ column: 'eventType' }, { column: 'eventsCount' }]);
    const q = planQuery({ range: 'last24Hours', select: [{ column: 'datetime' }, { column: 'visitorsCount' }] }, NOW);
    expect(q.groupBy.map((c) => c.key)).toEqual(['datetime:day']);
    expect(q.limit).toBe(1000);
  });

  it('refuses unknown and unavailable columns, aggregates grouped by, and bad ranges or filters', () => {
    bad({ range: 'last7Days', select: [{ column: 'nope' }] });
    bad({ range: 'last7Days', select: [{ column: 'visitorGeoPoint' }] });
    bad({ range: 'last7Days', select: [{ column: 'eventSearchResultsCount' }] });
    bad({ range: 'last7Days', groupBy: [{ column: 'visitorsCount' }] });
    bad({ range: 'last7Days', select: [{ column: 'visitorClaim' }] });
    bad({ range: { from: '2026-03-01T00:00:00Z', to: '2026-02-01T00:00:00Z' } });
    bad({ range: { from: '2020-01-01T00:00:00Z', to: '2026-02-01T00:00:00Z' } });
    bad({ range: 'last7Days', where: [{ column: 'datetime', values: ['yesterday'] }] });
    bad({ range: 'last7Days', where: [{ column: 'eventType', values: [{ a: 1 }] }] });
    bad({ range: 'last7Days', order: { by: { column: 'urlPath' }, direction: 'asc' } });
  });
});
