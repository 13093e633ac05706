// Site insights (issue 29 item 3) through the official client, answers checked against the 0.202.0
// description: events tracked without a token, aggregated (counts by type and page, unique
// visitors, searches that found nothing, feedback ratings), visitor segments, Do-Not-Track and
// the site setting dropping events, bad input, permissions, and the insights.aggregate job
// folding events into rollups and deleting raw events past their retention.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { beforeAll, describe, expect, it } from 'vitest';
import { GitBookAPI } from '@gitbook/api';
import { useTestApp } from '../../helpers/app.js';
import { docsSite, type DocsSite } from '../reader/helpers.js';
import { checked, failure, officialClient, SITE } from './helpers.js';
import { assertMatchesSpec } from '../../helpers/spec.js';
import { aggregateInsights } from '../../../src/services/sites/insights.js';
import { visitorHash } from '../../../src/sites/insights-privacy.js';
import { rawRequest, waitFor } from '../../helpers/http.js';

const require = createRequire(import.meta.url);
const { t } = useTestApp({ env: { INSIGHTS_EVENTS_PER_MINUTE: '1000', SITES_DOMAIN: 'sites.test' } });
let d: DocsSite;
let api: any;
let anon: any;
beforeAll(async () => {
  d = await docsSite(t, await t.seedOrg());
  api = officialClient(t, d.o.adminToken);
  anon = new GitBookAPI({ endpoint: t.baseUrl });
}, 120_000);

const UA_A = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36';
const UA_B =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';

function event(
  type: string,
  extra: Record<string, unknown> = {},
  opts: { ua?: string; ip?: string; page?: string | null; session?: string; claims?: any } = {},
) {
  return {
    type,
    session: {
      visitorId: 'v',
      sessionId: opts.session ?? 's1',
      cookies: {},
      userAgent: opts.ua ?? UA_A,
      language: 'en-US',
      referrer: 'https://search.example/?q=acme',
      ...(opts.ip ? { ip: opts.ip } : {}),
      ...(opts.claims ? { visitorAuthClaims: opts.claims } : {}),
    },
    location: {
      url: `${t.baseUrl}${d.base}/${opts.page ?? 'start'}?utm_source=newsletter`,
      siteSection: d.sections.guides.id,
      siteSpace: null,
      siteShareKey: null,
      space: d.spaces.v1,
      revision: null,
      page: opts.page === undefined ? 'page-start' : opts.page,
    },
    ...extra,
  };
}

const track = (events: unknown[], headers?: Record<string, string>) =>
  fetch(`${t.baseUrl}/v1/orgs/${d.o.orgId}/sites/${d.siteId}/insights/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ events }),
  });

const AGG = `${SITE}/insights/events/aggregate`;
const aggregate = (body: unknown, client = api) => checked('POST', AGG, client.orgs.aggregateSiteEvents(d.o.orgId, d.siteId, body), 200);
const column = (r: any, name: string) => r.columns.find((c: any) => c.column === name)?.values;
const rows = (r: any) => r.columns[0].values.map((_: unknown, i: number) => r.columns.map((c: any) => c.values[i]));
const hours = { range: { from: new Date(Date.now() - 3_600_000).toISOString(), to: new Date(Date.now() + 3_600_000).toISOString() } };

describe('site insights', () => {
  it('tracks events without a token and aggregates them by type, page, visitors, searches and feedback', async () => {
    const r = await anon.orgs.trackEventsInSiteById(d.o.orgId, d.siteId, {
      events: [
        event('page_view', {}, { ip: '198.51.100.1' }),
        event('page_view', {}, { ip: '198.51.100.1' }),
        event('page_view', {}, { ip: '198.51.100.2', ua: UA_B, session: 's2' }),
        event('page_view', {}, { ip: '198.51.100.2', ua: UA_B, session: 's2', page: 'page-second' }),
        event('search_type_query', { query: 'install', resultsCount: 3 }, { ip: '198.51.100.1' }),
        event('search_type_query', { query: 'kubernetes', resultsCount: 0 }, { ip: '198.51.100.1' }),
        event('search_type_query', { query: 'kubernetes', resultsCount: 0 }, { ip: '198.51.100.2', ua: UA_B }),
        event('page_post_feedback', { feedback: { rating: 'good' } }, { ip: '198.51.100.1' }),
        event('page_post_feedback', { feedback: { rating: 'bad' } }, { ip: '198.51.100.2', ua: UA_B }),
        event('page_post_feedback_comment', { feedback: { rating: 'bad', comment: 'Missing a step' } }, { ip: '198.51.100.2', ua: UA_B }),
        event(
          'link_click',
          { link: { target: { kind: 'url', url: 'https://example.test/x' }, position: 'content' } },
          { ip: '198.51.100.1' },
        ),
        // Types the reader does not send are stored all the same.
        event('llms_request', { llmsVariant: 'full' }, { ip: '198.51.100.3' }),
        event('ask_rate_response', { query: 'how?', rating: -1, responseId: 'r1' }, { ip: '198.51.100.3' }),
      ],
    });
    expect(r.status).toBe(204);

    const byType = await aggregate({
      ...hours,
      groupBy: [{ column: 'eventType' }],
      select: [{ column: 'eventType' }, { column: 'eventsCount' }],
    });
    expect(Object.fromEntries(rows(byType))).toEqual({
      page_view: 4,
      search_type_query: 3,
      page_post_feedback: 2,
      page_post_feedback_comment: 1,
      link_click: 1,
      llms_request: 1,
      ask_rate_response: 1,
    });

    const views = await aggregate({
      range: 'last24Hours',
      where: [{ column: 'eventType', values: ['page_view'] }],
      groupBy: [{ column: 'page' }],
      select: [{ column: 'page' }, { column: 'eventsCount' }, { column: 'visitorsCount' }, { column: 'sessionsCount' }],
      order: { by: { column: 'eventsCount' }, direction: 'desc' },
    });
    expect(rows(views)).toEqual([
      [{ page: 'page-start', space: d.spaces.v1 }, 3, 2, 2],
      [{ page: 'page-second', space: d.spaces.v1 }, 1, 1, 1],
    ]);

    const totals = await aggregate({ range: 'last7Days', select: [{ column: 'eventsCount' }, { column: 'visitorsCount' }] });
    expect(rows(totals)).toEqual([[13, 3]]);

    // Searches that found nothing: our filter on the count the reader reports.
    const empty = await aggregate({
      range: 'last24Hours',
      where: [
        { column: 'eventType', values: ['search_type_query'] },
        { column: 'eventSearchResultsCount', values: [0] },
      ],
      groupBy: [{ column: 'eventSearchQuery' }],
      select: [{ column: 'eventSearchQuery' }, { column: 'eventsCount' }, { column: 'visitorsCount' }],
    });
    expect(rows(empty)).toEqual([['kubernetes', 2, 2]]);

    const feedback = await aggregate({
      range: 'last24Hours',
      groupBy: [{ column: 'page' }],
      select: [{ column: 'page' }, { column: 'pageFeedbackRating' }],
    });
    expect(rows(feedback)).toContainEqual([
      { page: 'page-start', space: d.spaces.v1 },
      { ok: 0, good: 1, bad: 1 },
    ]);
    const comments = await aggregate({ range: 'last24Hours', select: [{ column: 'eventPageFeedbackComment' }, { column: 'eventsCount' }] });
    expect(rows(comments)).toEqual([['Missing a step', 1]]);

    const facets = await aggregate({
      range: 'last24Hours',
      where: [{ column: 'eventType', values: ['page_view'] }],
      select: [
        { column: 'visitorBrowser' },
        { column: 'visitorDevice' },
        { column: 'utmSource' },
        { column: 'referrerDomain' },
        { column: 'eventsCount' },
      ],
    });
    expect(rows(facets)).toEqual([
      ['chrome', 'desktop', 'newsletter', 'search.example', 2],
      ['safari', 'mobile', 'newsletter', 'search.example', 2],
    ]);

    // Filters on aggregates (HAVING) and ordering by one.
    const busy = await aggregate({
      range: 'last24Hours',
      groupBy: [{ column: 'eventType' }],
      select: [{ column: 'eventType' }, { column: 'visitorsCount' }],
      where: [{ column: 'visitorsCount', operator: 'greaterThanOrEqual', values: [2] }],
      order: { by: { column: 'visitorsCount' }, direction: 'desc' },
    });
    expect(rows(busy)).toEqual([
      ['page_post_feedback', 2],
      ['page_view', 2],
      ['search_type_query', 2],
    ]);
    const notViews = await aggregate({
      range: 'last24Hours',
      where: [
        { column: 'eventType', operator: 'notIn', values: ['page_view', 'search_type_query'] },
        { column: 'dayOfWeek', values: [new Date().getUTCDay() || 7] },
      ],
      select: [{ column: 'eventsCount' }],
    });
    expect(rows(notViews)).toEqual([[6]]);

    const daily = await aggregate({
      range: 'last7Days',
      groupBy: [{ column: 'datetime', interval: 'day' }],
      select: [{ column: 'datetime', interval: 'day' }, { column: 'visitorsCount' }],
    });
    expect(column(daily, 'datetime')).toEqual([`${new Date().toISOString().slice(0, 10)}T00:00:00.000Z`]);
    expect(column(daily, 'visitorsCount')).toEqual([3]);
  });

  it('accepts and stores every event type of the description', async () => {
    const op = { path: '/pets', method: 'get' };
    const ad = { domain: 'ads.example', zoneId: 'z1', placement: 'aside' };
    const all = [
      event('page_view'),
      event('page_markdown_request', { markdownSource: 'page-action' }),
      event('search_open'),
      event('search_type_query', { query: 'q' }),
      event('search_open_result', { query: 'q', result: { spaceId: d.spaces.v1, pageId: 'p1' } }),
      event('search_open_result', { query: 'q', result: { recordId: 'r1' } }),
      event('page_post_feedback', { feedback: { rating: 'ok' } }),
      event('page_post_feedback_comment', { feedback: { rating: 'ok', comment: 'Fine' } }),
      event('agent_feedback'),
      event('ask_question', { query: 'how?', goal: 'install' }),
      event('ask_view'),
      event('ask_rate_response', { query: 'how?', rating: 1, responseId: 'r2' }),
      event('link_click', { link: { target: { kind: 'page', page: 'p1', space: d.spaces.v1 }, position: 'header' } }),
      event('api_client_open', { operation: op }),
      event('api_client_request', { operation: op }),
      event('trademark_click', { placement: 'footer' }),
      event('ad_click', { ad }),
      event('ad_display', { ad }),
      event('llms_request', { llmsVariant: 'standard' }),
      event('mcp_request'),
      event('rss_request'),
    ];
    const doc = JSON.parse(readFileSync(require.resolve('@gitbook/api/spec/openapi.json'), 'utf8'));
    const types = new Set(all.map((e) => e.type));
    expect([...types].sort()).toEqual([...doc.components.schemas.SiteInsightsEventType.enum].sort());
    const other = await t.api('POST', `/v1/orgs/${d.o.orgId}/sites`, { token: d.o.adminToken, body: { title: 'All types' } });
    await t.api('POST', `/v1/orgs/${d.o.orgId}/sites/${other.body.id}/sections`, {
      token: d.o.adminToken,
      body: { spaceId: d.spaces.sdk, title: 'S' },
    });
    expect((await t.api('POST', `/v1/orgs/${d.o.orgId}/sites/${other.body.id}/publish`, { token: d.o.adminToken })).status).toBeLessThan(
      300,
    );
    const r = await anon.orgs.trackEventsInSiteById(d.o.orgId, other.body.id, { events: all });
    expect(r.status).toBe(204);
    const byType = await checked(
      'POST',
      AGG,
      api.orgs.aggregateSiteEvents(d.o.orgId, other.body.id, {
        range: 'last24Hours',
        select: [{ column: 'eventType' }, { column: 'eventsCount' }],
      }),
      200,
    );
    expect(byType.columns[0].values.sort()).toEqual([...types].sort());
  });

  it('never stores addresses in clear', async () => {
    const { rows: stored } = await t.app.db.query(
      'SELECT visitor_hash, dims::text AS dims, claims::text AS claims FROM site_insight_events WHERE site_id = $1',
      [d.siteId],
    );
    expect(stored.length).toBeGreaterThan(0);
    // Neither the senders' addresses (given as session.ip) nor the socket's are kept anywhere.
    for (const r of stored) expect(`${r.visitor_hash} ${r.dims} ${r.claims}`).not.toMatch(/198\.51\.100|"ip"|::ffff|::1\b/);
    // Nor credentials a URL carried (share keys, visitor tokens).
    const e = event('page_view', {}, { ip: '198.51.100.77' });
    e.location.url = `${t.baseUrl}${d.base}/start?share=s3cr3tshare&jwt_token=s3cr3tjwt&ref=kept#frag`;
    (e.session as any).referrer = `${t.baseUrl}${d.base}/?token=s3cr3tpreview`;
    expect((await track([e])).status).toBe(204);
    const { rows: urls } = await t.app.db.query(
      `SELECT dims->>'url' AS url, dims->>'referrer' AS referrer FROM site_insight_events WHERE site_id = $1 ORDER BY id DESC LIMIT 1`,
      [d.siteId],
    );
    expect(urls[0]).toEqual({ url: `${t.baseUrl}${d.base}/start?ref=kept`, referrer: `${t.baseUrl}${d.base}/` });
    const expected = visitorHash(t.app.secret, d.siteId, new Date(), '198.51.100.1', UA_A);
    expect(stored.map((r) => r.visitor_hash)).toContain(expected);
  });

  it('groups visitors into segments by their claims', async () => {
    await track([
      event('page_view', {}, { ip: '203.0.113.9', claims: { plan: 'enterprise' } }),
      event('page_view', {}, { ip: '203.0.113.9', claims: { plan: 'enterprise' } }),
    ]);
    const r = await api.orgs.listSiteVisitorSegments(d.o.orgId, d.siteId);
    expect(r.status).toBe(200);
    const list = r.data;
    // The description's PlainObject has no `type`, so any scalar matches both it and its own type in
    // the oneOf: no claim with a string value can validate. Checked with the claims left out.
    assertMatchesSpec('GET', `${SITE}/insights/visitor-segments`, 200, {
      ...list,
      items: list.items.map((s: any) => ({ ...s, claims: {} })),
    });
    expect(list.items).toContainEqual({ title: 'plan: enterprise', claims: { plan: 'enterprise' }, events: 2, visitors: 1, sessions: 1 });
    expect(list.items.find((s: any) => Object.keys(s.claims).length === 0)).toMatchObject({ title: 'Anonymous visitors', visitors: 4 });
  });

  it('drops events under Do-Not-Track or Global Privacy Control, and when the site turns insights off', async () => {
    const before = await aggregate({ range: 'last24Hours', select: [{ column: 'eventsCount' }] });
    expect((await track([event('page_view', {}, { ip: '192.0.2.1' })], { dnt: '1' })).status).toBe(204);
    expect((await track([event('page_view', {}, { ip: '192.0.2.1' })], { 'sec-gpc': '1' })).status).toBe(204);
    await checked(
      'PUT',
      `${SITE}/customization`,
      api.orgs.updateSiteCustomizationById(d.o.orgId, d.siteId, { insights: { trackingCookie: false, enabled: false } }),
      200,
    );
    expect((await track([event('page_view', {}, { ip: '192.0.2.1' })])).status).toBe(204);
    expect(await aggregate({ range: 'last24Hours', select: [{ column: 'eventsCount' }] })).toEqual(before);
    await checked(
      'PUT',
      `${SITE}/customization`,
      api.orgs.updateSiteCustomizationById(d.o.orgId, d.siteId, { insights: { trackingCookie: true, enabled: true } }),
      200,
    );
  });

  it('refuses bad input with 400 (and 413, 415), an unknown site with 404, an unpublished one with 403', async () => {
    const bad = async (events: unknown, status = 400, init: RequestInit = {}) => {
      const r = await fetch(`${t.baseUrl}/v1/orgs/${d.o.orgId}/sites/${d.siteId}/insights/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ events }),
        ...init,
      });
      expect(r.status, await r.clone().text()).toBe(status);
      const body = await r.json();
      expect(body.error).toMatchObject({ code: status, message: expect.any(String) });
    };
    await bad([{ type: 'page_view' }]);
    await bad([event('no_such_type')]);
    await bad([event('page_post_feedback', { feedback: { rating: 'great' } })]);
    await bad([event('page_post_feedback_comment', { feedback: { rating: 'good', comment: 'x'.repeat(513) } })]);
    await bad([event('page_view', { timestamp: new Date(Date.now() - 3_600_000).toISOString() })]);
    await bad(Array.from({ length: 51 }, () => event('page_view')));
    await bad('nope');
    await bad(null, 400, { body: '{not json' });
    await bad(null, 413, { body: JSON.stringify({ events: [event('search_type_query', { query: 'x'.repeat(70_000) })] }) });
    await bad(null, 415, { headers: { 'content-type': 'application/xml' }, body: '<x/>' });

    const e404 = await failure(anon.orgs.trackEventsInSiteById(d.o.orgId, 'nosuchsite', { events: [event('page_view')] }));
    expect(e404.code).toBe(404);
    const other = await t.seedOrg();
    expect((await failure(anon.orgs.trackEventsInSiteById(other.orgId, d.siteId, { events: [event('page_view')] }))).code).toBe(404);
    const draft = await t.api('POST', `/v1/orgs/${d.o.orgId}/sites`, { token: d.o.adminToken, body: { title: 'Draft' } });
    expect((await failure(anon.orgs.trackEventsInSiteById(d.o.orgId, draft.body.id, { events: [event('page_view')] }))).code).toBe(403);

    for (const q of [
      { range: 'lastDecade' },
      { range: 'last7Days', select: [{ column: 'noSuchColumn' }] },
      { range: 'last7Days', groupBy: [{ column: 'eventsCount' }] },
      { range: 'last7Days', select: [{ column: 'visitorGeoPoint' }] },
      { range: { from: new Date().toISOString(), to: new Date(Date.now() - 1000).toISOString() } },
      { range: 'last7Days', limit: 5000 },
      { range: 'last7Days', where: [{ column: 'eventsCount', operator: 'greaterThan', values: [1, 2] }] },
      { range: 'last7Days', where: [{ column: 'pageFeedbackRating', values: [1] }] },
      { range: 'last7Days', select: [{ column: 'eventSearchResultsCount' }] },
      { range: 'last7Days', order: { by: { column: 'urlPath' }, direction: 'asc' } },
    ])
      expect((await failure(api.orgs.aggregateSiteEvents(d.o.orgId, d.siteId, q))).code, JSON.stringify(q)).toBe(400);
  });

  it('answers every column of the description, grouped and filtered, with 200 and a valid answer or a 400, never a 500', async () => {
    const doc = JSON.parse(readFileSync(require.resolve('@gitbook/api/spec/openapi.json'), 'utf8'));
    const names: string[] = doc.components.schemas.SiteInsightsQueryEventsColumn.oneOf.map((c: any) =>
      c.$ref ? 'datetime' : c.properties.column.enum[0],
    );
    expect(names.length).toBeGreaterThan(40);
    const samples: unknown[][] = [
      ['x'],
      [1],
      [null],
      [true],
      [{ page: 'page-start', space: d.spaces.v1 }],
      [{ kind: 'url', url: 'https://example.test/x' }],
    ];
    let answered = 0;
    for (const name of names) {
      const col = { column: name, ...(name === 'visitorClaim' ? { claim: 'plan' } : {}) };
      const queries: unknown[] = [
        { range: 'last24Hours', select: [col, { column: 'eventsCount' }] },
        { range: 'last24Hours', groupBy: [col], order: { by: col, direction: 'desc' } },
        ...samples.map((values) => ({ range: 'last24Hours', where: [{ ...col, values }], select: [{ column: 'eventsCount' }] })),
        ...[1, '2026-01-01T00:00:00Z'].map((v) => ({ range: 'last24Hours', where: [{ ...col, operator: 'greaterThan', values: [v] }] })),
      ];
      for (const q of queries) {
        const r = await t.api('POST', `/v1/orgs/${d.o.orgId}/sites/${d.siteId}/insights/events/aggregate`, {
          token: d.o.adminToken,
          body: q,
        });
        expect([200, 400], `${JSON.stringify(q)} -> ${r.status} ${r.text.slice(0, 300)}`).toContain(r.status);
        if (r.status === 200) {
          try {
            assertMatchesSpec('POST', AGG, 200, r.body);
          } catch (err) {
            throw new Error(`${JSON.stringify(q)} -> ${JSON.stringify(r.body).slice(0, 500)}`, { cause: err });
          }
          answered++;
        } else expect(r.body.error.code).toBe(400);
      }
    }
    expect(answered).toBeGreaterThan(300);
  });

  it('lets editors read insights; org readers get 403, strangers 404, no token 401', async () => {
    const editor = await t.seedUser(d.o.orgId, 'edit');
    const reader = await t.seedUser(d.o.orgId, 'read');
    const stranger = await t.seedUser();
    await aggregate({ range: 'last24Hours', select: [{ column: 'eventsCount' }] }, officialClient(t, editor.token));
    expect(
      (await failure(officialClient(t, reader.token).orgs.aggregateSiteEvents(d.o.orgId, d.siteId, { range: 'last24Hours' }))).code,
    ).toBe(403);
    expect((await failure(officialClient(t, reader.token).orgs.listSiteVisitorSegments(d.o.orgId, d.siteId))).code).toBe(403);
    expect(
      (await failure(officialClient(t, stranger.token).orgs.aggregateSiteEvents(d.o.orgId, d.siteId, { range: 'last24Hours' }))).code,
    ).toBe(404);
    expect((await failure(anon.orgs.aggregateSiteEvents(d.o.orgId, d.siteId, { range: 'last24Hours' }))).code).toBe(401);
    expect((await failure(anon.orgs.listSiteVisitorSegments(d.o.orgId, d.siteId))).code).toBe(401);
  });

  it("takes the reader's own events on the site's origin: PUBLIC_URL/site/{id} and its custom hostname", async () => {
    const count = async () =>
      (
        await aggregate({
          range: 'last24Hours',
          where: [{ column: 'eventType', values: ['rss_request'] }],
          select: [{ column: 'eventsCount' }],
        })
      ).columns[0].values[0] ?? 0;
    const before = await count();
    const body = JSON.stringify({ events: [event('rss_request')] });
    const json = { 'content-type': 'application/json' };
    expect((await rawRequest(t.baseUrl, 'POST', `${d.base}/~gitbook/insights`, { headers: json, body })).status).toBe(204);
    // Only JSON: a form or a text/plain beacon of another origin cannot post events for its visitors.
    expect(
      (
        await rawRequest(t.baseUrl, 'POST', `${d.base}/~gitbook/insights`, {
          headers: { 'content-type': 'text/plain;charset=UTF-8' },
          body,
        })
      ).status,
    ).toBe(415);
    expect((await rawRequest(t.baseUrl, 'GET', `${d.base}/~gitbook/insights`)).status).toBe(404);
    expect(
      (await t.api('PATCH', `/v1/orgs/${d.o.orgId}/sites/${d.siteId}`, { token: d.o.adminToken, body: { hostname: 'docs.insights.test' } }))
        .status,
    ).toBe(200);
    const hosted = await rawRequest(t.baseUrl, 'POST', '/~gitbook/insights', { headers: { ...json, host: 'docs.insights.test' }, body });
    expect(hosted.status, hosted.text).toBe(204);
    expect((await rawRequest(t.baseUrl, 'POST', '/other', { headers: { ...json, host: 'docs.insights.test' }, body })).status).toBe(405);
    expect(
      (await rawRequest(t.baseUrl, 'POST', '/~gitbook/insights', { headers: { ...json, host: 'docs.insights.test', dnt: '1' }, body }))
        .status,
    ).toBe(204);
    expect(await count()).toBe(before + 2);
  });

  it('the insights.aggregate job folds events into rollups with the same answers, and deletes raw events past retention', async () => {
    const query = {
      range: 'last7Days',
      groupBy: [{ column: 'eventType' }],
      select: [{ column: 'eventType' }, { column: 'eventsCount' }, { column: 'visitorsCount' }, { column: 'sessionsCount' }],
    };
    const before = await aggregate(query);
    const result = await aggregateInsights(t.app, { settleMs: 0 });
    expect(result.folded).toBeGreaterThan(0);
    const { rows: left } = await t.app.db.query(
      'SELECT count(*)::int AS n FROM site_insight_events WHERE id > coalesce((SELECT last_event_id FROM site_insight_rollup_state), 0)',
    );
    expect(left[0].n).toBe(0);
    expect(await aggregate(query)).toEqual(before);

    // New events after the fold are counted at once, beside the rollups.
    await track([event('page_view', {}, { ip: '198.51.100.1' })]);
    const after = await aggregate(query);
    const views = (r: any) => rows(r).find((x: any[]) => x[0] === 'page_view');
    expect(views(after)[1]).toBe(views(before)[1] + 1);
    expect(views(after)[2]).toBe(views(before)[2]); // the same visitor, the same day
    await aggregateInsights(t.app, { settleMs: 0 });
    expect(await aggregate(query)).toEqual(after);

    // Retention: folded raw events older than INSIGHTS_RETENTION_DAYS (90) go; rollups stay.
    await t.app.db.query(`UPDATE site_insight_events SET occurred_at = now() - interval '100 days' WHERE site_id = $1`, [d.siteId]);
    const purged = await aggregateInsights(t.app, { settleMs: 0 });
    expect(purged.deleted).toBeGreaterThan(0);
    const { rows: raw } = await t.app.db.query('SELECT count(*)::int AS n FROM site_insight_events WHERE site_id = $1', [d.siteId]);
    expect(raw[0].n).toBe(0);
    expect(await aggregate(query)).toEqual(after);
  });

  it('runs on a timer: workers of the maintenance queue register insights.aggregate, and its runs fold events', async () => {
    await track([event('page_view', {}, { ip: '198.51.100.50' })]);
    // Older than the job's settling delay (events still being inserted are left for the next run).
    await t.app.db.query(`UPDATE site_insight_events SET received_at = now() - interval '1 minute' WHERE site_id = $1`, [d.siteId]);
    const queue = t.app.jobs.queue('maintenance');
    t.startWorkers(['maintenance']);
    const scheduler = await waitFor(async () => (await queue.getJobSchedulers()).find((s) => s.key === 'insights.aggregate'), {
      what: 'the insights.aggregate scheduler',
    });
    expect(scheduler).toMatchObject({ every: t.config.insights.intervalMs });
    const op = await waitFor(
      async () => (await t.app.db.query(`SELECT * FROM operations WHERE kind = 'insights.aggregate' AND status = 'succeeded'`)).rows[0],
      { what: 'a scheduled insights.aggregate operation' },
    );
    expect(op).toMatchObject({ queue: 'maintenance', target_type: 'schedule', target_id: 'insights.aggregate' });
    expect(op.result.folded).toBeGreaterThanOrEqual(1);
    const { rows: left } = await t.app.db.query(
      'SELECT count(*)::int AS n FROM site_insight_events WHERE id > coalesce((SELECT last_event_id FROM site_insight_rollup_state), 0)',
    );
    expect(left[0].n).toBe(0);
  });
});

describe('site insights rate limit', () => {
  const { t: tl } = useTestApp({ env: { INSIGHTS_EVENTS_PER_MINUTE: '3' } });
  it('lets a visitor send INSIGHTS_EVENTS_PER_MINUTE requests a minute per site, then answers 429; another visitor is not held back', async () => {
    const o = await tl.seedOrg();
    const call = (method: string, path: string, body?: unknown) =>
      tl.api(method, `/v1/orgs/${o.orgId}${path}`, { token: o.adminToken, body });
    const space = await call('POST', '/spaces', { title: 'Limited' });
    const site = await call('POST', '/sites', { title: 'Limited' });
    await call('POST', `/sites/${site.body.id}/sections`, { spaceId: space.body.id, title: 'S' });
    expect((await call('POST', `/sites/${site.body.id}/publish`)).status).toBeLessThan(300);
    const send = (ua: string) =>
      fetch(`${tl.baseUrl}/v1/orgs/${o.orgId}/sites/${site.body.id}/insights/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': ua },
        body: JSON.stringify({
          events: [
            {
              type: 'page_view',
              session: { visitorId: '', sessionId: '', cookies: {}, userAgent: ua, language: null, referrer: null },
              location: {
                url: `${tl.baseUrl}/site/${site.body.id}/`,
                siteSection: null,
                siteSpace: null,
                siteShareKey: null,
                space: null,
                revision: null,
                page: null,
              },
            },
          ],
        }),
      });
    // The window is a fixed minute: a run that straddles two windows starts again as another reader.
    let limited: Response | undefined;
    for (let attempt = 0; attempt < 2 && limited?.status !== 429; attempt++) {
      for (let i = 0; i < 3; i++) expect((await send(`Reader A${attempt}`)).status).toBe(204);
      limited = await send(`Reader A${attempt}`);
    }
    expect(limited!.status).toBe(429);
    expect(limited!.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await limited!.json()).error.code).toBe(429);
    expect((await send('Reader B')).status).toBe(204);
  });
});
