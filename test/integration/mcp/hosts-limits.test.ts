// The MCP endpoint on a site's own host (POST allowed on that path only, URLs on the host) and under
// the API's rate limit (per client address: 429 with the API's error body and Retry-After).
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { rawRequest } from '../../helpers/http.js';
import { docsSite } from '../reader/helpers.js';

const { t } = useTestApp({ env: { SITES_DOMAIN: 'sites.test', RATE_LIMIT_PER_MINUTE: '40' } });

const rpc = (method: string, params: unknown = {}) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });

describe('MCP on a custom host, rate-limited', () => {
  it('answers tool calls at <host>/~gitbook/mcp with URLs on that host; other paths still refuse POST; then 429', async () => {
    const d = await docsSite(t, await t.seedOrg());
    const patched = await t.api('PATCH', `/v1/orgs/${d.o.orgId}/sites/${d.siteId}`, {
      token: d.o.adminToken,
      body: { hostname: 'docs.acme.test' },
    });
    expect(patched.status, patched.text).toBe(200);
    const port = new URL(t.baseUrl).port;
    const headers = { host: 'docs.acme.test', 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const call = (path: string, body: string) => rawRequest(t.baseUrl, 'POST', path, { headers, body });

    const r = await call('/~gitbook/mcp', rpc('tools/call', { name: 'searchDocumentation', arguments: { query: 'Endpoints' } }));
    expect(r.status, r.text).toBe(200);
    const results = JSON.parse(r.text).result.structuredContent.results;
    expect(results[0]).toMatchObject({ title: 'Reference', url: `http://docs.acme.test:${port}/api/reference` });
    expect((await call('/api', '{}')).status).toBe(405);

    let last = r;
    for (let i = 0; i < 45 && last.status !== 429; i++) last = await call('/~gitbook/mcp', rpc('tools/list'));
    expect(last.status).toBe(429);
    expect(JSON.parse(last.text).error.code).toBe(429);
    expect(last.headers['retry-after']).toBeTruthy();
  });
});
