// A published site's MCP server (<site>/~gitbook/mcp) driven by the official SDK client over
// Streamable HTTP: tools listed with their input schemas, search (noIndex and hidden pages never
// in results), pages fetched by URL and by path, and the site's access rules (share key in the
// URL, visitor token as a bearer) applied as on the site.
import { beforeAll, describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { useTestApp, type TestApp } from '../../helpers/app.js';
import { editContent } from '../../helpers/content.js';
import { docsSite, type DocsSite } from '../reader/helpers.js';

const { t } = useTestApp();

async function connect(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'mcp-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

async function search(client: Client, query: string) {
  const r = await client.callTool({ name: 'searchDocumentation', arguments: { query } });
  return r as {
    content: { type: string; text: string }[];
    structuredContent: { results: { title: string; url: string; section: string | null; snippet: string }[] };
  };
}

async function admin(t: TestApp, d: DocsSite, method: string, path: string, body?: unknown) {
  const r = await t.api(method, `/v1/orgs/${d.o.orgId}${path}`, { token: d.o.adminToken, body });
  expect(r.status, r.text).toBeLessThan(300);
  return r.body;
}

describe('the MCP server of a public site', () => {
  let d: DocsSite;
  let endpoint: string;
  beforeAll(async () => {
    d = await docsSite(t, await t.seedOrg());
    await editContent(t, d.spaces.api, (draft) => {
      draft.insertPage(null, { title: 'Quokka limits', markdown: 'Quokka requests are limited to ten per second.' });
      draft.insertPage(null, { title: 'Quokka internals', noIndex: true, markdown: 'Quokka internals are not for search engines.' });
    });
    endpoint = `${t.baseUrl}${d.base}/~gitbook/mcp`;
  });

  it('lists both tools with their input schemas', async () => {
    const client = await connect(endpoint);
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((x) => [x.name, x]));
    expect([...byName.keys()].sort()).toEqual(['getPage', 'searchDocumentation']);
    expect(byName.get('searchDocumentation')!.inputSchema).toMatchObject({
      type: 'object',
      properties: { query: { type: 'string' } },
      required: ['query'],
    });
    expect(byName.get('getPage')!.inputSchema).toMatchObject({
      type: 'object',
      properties: { url: { type: 'string' } },
      required: ['url'],
    });
    expect(byName.get('searchDocumentation')!.outputSchema).toBeTruthy();
    await client.close();
  });

  it('searches: ranked results with title, URL, section and snippet, as text and structured content; noIndex and hidden pages never', async () => {
    const client = await connect(endpoint);
    const r = await search(client, 'Quokka');
    const results = r.structuredContent.results;
    expect(results.map((x) => x.title)).toEqual(['Quokka limits']);
    expect(results[0].url).toBe(`${t.baseUrl}${d.base}/api/quokka-limits`);
    expect(results[0].section).toBe('API');
    expect(results[0].snippet).toContain('ten per second');
    expect(r.content[0].text).toContain(`URL: ${results[0].url}`);
    expect(r.content[0].text).toContain('Quokka limits');
    expect((await search(client, 'internals')).structuredContent.results).toEqual([]);
    expect((await search(client, 'Hidden body')).structuredContent.results).toEqual([]);
    // Bounded input: an oversized query is refused by the declared schema.
    const long = (await client.callTool({ name: 'searchDocumentation', arguments: { query: 'x'.repeat(500) } })) as { isError?: boolean };
    expect(long.isError).toBe(true);
    await client.close();
  });

  it('sees a change to the site on the next search (page lists are kept per site state)', async () => {
    const client = await connect(endpoint);
    expect((await search(client, 'Wombat')).structuredContent.results).toEqual([]);
    await editContent(t, d.spaces.api, (draft) => {
      draft.insertPage(null, { title: 'Wombat mode', markdown: 'Wombat mode batches requests.' });
    });
    expect((await search(client, 'Wombat')).structuredContent.results.map((r) => r.title)).toEqual(['Wombat mode']);
    await client.close();
  });

  it('fetches a page as Markdown by URL or by path, as the site serves it', async () => {
    const client = await connect(endpoint);
    const byUrl = (await client.callTool({ name: 'getPage', arguments: { url: `${t.baseUrl}${d.base}/api/quokka-limits` } })) as any;
    expect(byUrl.isError).toBeFalsy();
    expect(byUrl.structuredContent).toMatchObject({
      title: 'Quokka limits',
      url: `${t.baseUrl}${d.base}/api/quokka-limits`,
      truncated: false,
    });
    expect(byUrl.structuredContent.markdown).toMatch(/^# Quokka limits\n/);
    expect(byUrl.content[0].text).toContain('ten per second');
    const byPath = (await client.callTool({ name: 'getPage', arguments: { url: '/api/quokka-limits.md' } })) as any;
    expect(byPath.structuredContent.title).toBe('Quokka limits');
    // A noIndex page is readable (it is only kept out of search).
    const noIndexed = (await client.callTool({ name: 'getPage', arguments: { url: 'api/quokka-internals' } })) as any;
    expect(noIndexed.structuredContent.markdown).toContain('not for search engines');
    // A hidden page is out of navigation and search but opens by its URL on the site: the same here.
    const hidden = (await client.callTool({ name: 'getPage', arguments: { url: 'secret' } })) as any;
    expect(hidden.structuredContent.markdown).toBe((await t.api('GET', `${d.base}/secret.md`)).text);
    const missing = (await client.callTool({ name: 'getPage', arguments: { url: 'no-such-page' } })) as any;
    expect(missing.isError).toBe(true);
    const elsewhere = (await client.callTool({
      name: 'getPage',
      arguments: { url: 'https://elsewhere.example/api/quokka-limits' },
    })) as any;
    expect(elsewhere.isError).toBe(true);
    await client.close();
  });

  it('answers plain HTTP as the transport says: GET is 405, a call without initialize still works statelessly', async () => {
    const get = await fetch(endpoint, { headers: { accept: 'text/event-stream' } });
    expect(get.status).toBe(405);
    const post = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(post.status).toBe(200);
    expect(((await post.json()) as any).result.tools).toHaveLength(2);
  });
});

describe('the MCP server of a private site', () => {
  it('share-link: refused without the key, served with the key in the URL', async () => {
    const d = await docsSite(t, await t.seedOrg(), 'share-link');
    const endpoint = `${t.baseUrl}${d.base}/~gitbook/mcp`;
    await expect(connect(endpoint)).rejects.toThrow(/404/);
    await expect(connect(`${endpoint}?share=wrong`)).rejects.toThrow(/404/);
    const link = await admin(t, d, 'POST', `/sites/${d.siteId}/share-links`, { name: 'Agents' });
    const key = new URL(link.urls.published).searchParams.get('share')!;
    const client = await connect(`${endpoint}?share=${encodeURIComponent(key)}`);
    expect((await search(client, 'Endpoints')).structuredContent.results[0].title).toBe('Reference');
    await client.close();
  });

  it('visitor-auth: refused without a token, served with a visitor token as a bearer; claims decide what it sees', async () => {
    const d = await docsSite(t, await t.seedOrg(), 'visitor-auth');
    const key = (await admin(t, d, 'GET', `/sites/${d.siteId}/publishing/auth`)).privateKey as string;
    await admin(t, d, 'PATCH', `/sites/${d.siteId}`, { adaptiveContent: { enabled: true } });
    await admin(t, d, 'PATCH', `/sites/${d.siteId}/sections/${d.sections.api.id}`, { condition: 'visitor.claims.beta == true' });
    const endpoint = `${t.baseUrl}${d.base}/~gitbook/mcp`;
    const token = (claims: Record<string, unknown>) =>
      new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime('1h').sign(new TextEncoder().encode(key));
    await expect(connect(endpoint)).rejects.toThrow(/401/);
    await expect(connect(endpoint, { authorization: 'Bearer not.a.token' })).rejects.toThrow(/401/);
    const plain = await connect(endpoint, { authorization: `Bearer ${await token({ sub: 'a' })}` });
    expect((await search(plain, 'Welcome')).structuredContent.results.length).toBeGreaterThan(0);
    // The API section is for beta readers only: not searched, not fetched.
    expect((await search(plain, 'Endpoints')).structuredContent.results).toEqual([]);
    expect(((await plain.callTool({ name: 'getPage', arguments: { url: 'api' } })) as any).isError).toBe(true);
    const beta = await connect(endpoint, { authorization: `Bearer ${await token({ sub: 'b', beta: true })}` });
    expect((await search(beta, 'Endpoints')).structuredContent.results[0].title).toBe('Reference');
    await plain.close();
    await beta.close();
  });
});

describe('MCP transport refusals', () => {
  it("answer with the API's error body and status", async () => {
    const d = await docsSite(t, await t.seedOrg());
    const endpoint = `${t.baseUrl}${d.base}/~gitbook/mcp`;
    const notRpc = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ hello: 'world' }),
    });
    expect(notRpc.status).toBe(400);
    expect(((await notRpc.json()) as any).error.code).toBe(400);
    const noAccept = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/plain' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(noAccept.status).toBe(406);
    expect(await noAccept.json()).toEqual({ error: { code: 406, message: expect.any(String) } });
    const tooBig = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { pad: 'x'.repeat(100_000) } }),
    });
    expect(tooBig.status).toBe(413);
  });
});
