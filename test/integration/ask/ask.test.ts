// Ask in extractive mode (the default back-end, no model): askInOrganization, the streamed
// operations through @gitbook/api with their event shapes checked against the 0.202.0
// description, and the reader site's Ask endpoints. Answers quote only what the asker may read.
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { assertMatchesSchema, assertMatchesSpec } from '../../helpers/spec.js';
import { officialClient } from '../sites/helpers.js';
import { docsSite, type DocsSite } from '../reader/helpers.js';
import { CONDITIONAL_WORD, HIDDEN_WORD, quotaSite } from './helpers.js';

const { t } = useTestApp();
let d: DocsSite;
beforeAll(async () => {
  d = await quotaSite(t);
});

describe('ask in extractive mode', () => {
  it('askInOrganization: the best passages quoted, the pages cited as sources', async () => {
    const api = officialClient(t, d.o.adminToken);
    const r = await api.orgs.askInOrganization(d.o.orgId, { query: 'What is the quota per minute?' }, { format: 'markdown' });
    expect(r.status).toBe(200);
    assertMatchesSpec('post', '/orgs/{organizationId}/ask', 200, r.data);
    const md: string = r.data.answer.answer.markdown;
    expect(md).toContain('> Every token has a quota of 100 requests per minute.');
    expect(md).toMatch(/\[Quotas\]\(http[^)]+\)/);
    expect(r.data.answer.sources[0]).toMatchObject({ type: 'page', space: d.spaces.api });
    expect(r.data.answer.followupQuestions).toEqual([]);
    // As a document, too.
    const doc = await api.orgs.askInOrganization(d.o.orgId, { query: 'quota per minute' }, { format: 'document' });
    assertMatchesSpec('post', '/orgs/{organizationId}/ask', 200, doc.data);
    expect(doc.data.answer.answer.document.object).toBe('document');
  });

  it('askInOrganization: a guest who can read no space gets no passage of any', async () => {
    const guest = await t.seedUser(d.o.orgId, null);
    const r = await t.api('POST', `/v1/orgs/${d.o.orgId}/ask`, { token: guest.token, body: { query: 'quota' } });
    expect(r.status, r.text).toBe(200);
    expect(r.body.answer.sources).toEqual([]);
    expect(r.text).not.toContain('100 requests');
    const outsider = await t.seedUser();
    expect((await t.api('POST', `/v1/orgs/${d.o.orgId}/ask`, { token: outsider.token, body: { query: 'quota' } })).status).toBe(403);
    const empty = await t.api('POST', `/v1/orgs/${d.o.orgId}/ask`, { token: d.o.adminToken, body: { query: '  ' } });
    expect(empty.status).toBe(400);
    expect(empty.body.error.code).toBe(400);
  });

  it('streamAskInOrganization and streamAskInSite: Server-Sent Events of SearchAIAnswerStream, read by @gitbook/api', async () => {
    const api = officialClient(t, d.o.adminToken);
    const events: any[] = [];
    for await (const ev of api.orgs.streamAskInOrganization(d.o.orgId, { query: 'quota per minute' })) events.push(ev);
    expect(events.length).toBeGreaterThan(1); // the answer grows, one quote at a time
    for (const ev of events) assertMatchesSchema('SearchAIAnswerStream', ev);
    const last = events.at(-1);
    expect(last.type).toBe('answer');
    expect(last.answer.answer.markdown).toContain('100 requests per minute');
    expect(last.answer.sources.length).toBeGreaterThan(0);

    const site: any[] = [];
    for await (const ev of api.orgs.streamAskInSite(
      d.o.orgId,
      d.siteId,
      { question: 'quota per minute', scope: { mode: 'all' } },
      { format: 'markdown' },
    ))
      site.push(ev);
    for (const ev of site) assertMatchesSchema('SearchAIAnswerStream', ev);
    expect(site.at(-1).answer.answer.markdown).toContain('100 requests per minute');

    // On the wire: text/event-stream, data events, then `event: done`.
    const raw = await fetch(`${t.baseUrl}/v1/orgs/${d.o.orgId}/ask/stream?query=quota`, {
      headers: { authorization: `Bearer ${d.o.adminToken}` },
    });
    expect(raw.headers.get('content-type')).toContain('text/event-stream');
    const text = await raw.text();
    expect(text).toMatch(/^data: \{"type":"answer"/);
    expect(text.trimEnd().endsWith('event: done\ndata: {}')).toBe(true);
    // Refusals before the stream are plain error statuses.
    const outsider = await t.seedUser();
    const refused = await fetch(`${t.baseUrl}/v1/orgs/${d.o.orgId}/ask/stream?query=quota`, {
      headers: { authorization: `Bearer ${outsider.token}` },
    });
    expect(refused.status).toBe(403);
  });

  it("follows the customization: no Ask box and no ask endpoints while `ai.mode` is 'none' (the default)", async () => {
    const plain = await docsSite(t, await t.seedOrg());
    const page = await t.api('GET', `${plain.base}/`, { headers: { accept: 'text/html' } });
    expect(page.text).not.toContain('class="ask"');
    expect((await t.api('GET', `${plain.base}/~site/ask?q=quota`)).status).toBe(404);
    expect((await t.api('GET', `${plain.base}/ask?q=quota`)).status).toBe(404);
    const on = await t.api('GET', `${d.base}/`, { headers: { accept: 'text/html' } });
    expect(on.text).toContain('placeholder="Ask the Acme docs"');
  });

  it("the reader site's Ask: answers from the pages that reader may see, with links into the site", async () => {
    const r = await t.api('GET', `${d.base}/~site/ask?q=${encodeURIComponent('What is the quota?')}`);
    expect(r.status, r.text).toBe(200);
    expect(r.body.markdown).toContain('quota of 100 requests per minute');
    expect(r.body.sources).toEqual([{ title: 'Quotas', url: `${t.baseUrl}${d.base}/api/quotas`, section: 'API' }]);
    expect(r.body.html).toContain(`<a href="${t.baseUrl}${d.base}/api/quotas">Quotas</a>`);
    expect(r.headers.get('cache-control')).toContain('no-store');
    // Hidden pages and sections whose condition the reader does not meet never reach the answer.
    const all = await t.api('GET', `${d.base}/~site/ask?q=${encodeURIComponent('quota secret SDK beta readers')}`);
    expect(all.text).not.toContain(HIDDEN_WORD);
    expect(all.text).not.toContain(CONDITIONAL_WORD);
    // Without JavaScript: the Ask page.
    const page = await t.api('GET', `${d.base}/ask?q=quota`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.text).toContain('<blockquote>');
    expect(page.text).toContain(`href="${t.baseUrl}${d.base}/api/quotas"`);
  });
});
