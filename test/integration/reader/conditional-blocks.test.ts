// `{% if %}` and `{% prompt %}` blocks imported from git (a real GitBook tree, the Lawnchair help,
// plus one page using both) as readers meet them: a visitor whose claims match the condition sees
// the branch; one whose claims do not never meets it, in the page, its `.md`, llms-full.txt, the
// site's search (the reader's and the API's), MCP's getPage and searchDocumentation, or the PDF.
// Editors' reads show the block unevaluated; nothing shows raw `{%` text in Chromium.
import { appendFile, cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { useTestApp } from '../../helpers/app.js';
import { startGitServer, type GitServer } from '../../helpers/git-server.js';
import { operationSettled } from '../../helpers/operations.js';
import { GITBOOK_FIXTURES, requireFixtures } from '../../helpers/fixtures.js';
import { assertMatchesSchema, assertMatchesSpec } from '../../helpers/spec.js';
import { expectClean, useBrowser, watchedTab } from '../../helpers/browser.js';
import { officialClient } from '../sites/helpers.js';
import { pdfText } from '../../helpers/pdf.js';

const GITBOOK = requireFixtures(GITBOOK_FIXTURES);

let g: GitServer;
beforeAll(async () => {
  g = await startGitServer();
});
afterAll(() => g?.close());
const { t, org } = useTestApp({ workers: ['git', 'pdf'], env: { WORKER_CONCURRENCY: '1' }, seedOrg: true });
const browser = useBrowser();

const api = (method: string, p: string, body?: unknown) => t.api(method, p, { token: org.adminToken, body });
const settle = (location: string) => operationSettled(t, location, { token: org.adminToken, timeoutMs: 150_000 });

// The page as GitBook writes it: conditions on the visitor's claims, a prompt block.
const PLANS = `# Plans

Everyone reads this paragraph about quokkas.

{% if visitor.claims.plan === "pro" %}
Pro readers get the platypus discount.

{% hint style="success" %}
Platypus support answers within the hour.
{% endhint %}
{% endif %}

{% if visitor.claims.plan != "pro" %}
Upgrade to read about the wombat offer.
{% endif %}

{% if visitor.claims.( %}
Broken condition echidna text.
{% endif %}

{% prompt description="Ask about your plan" icon="robot" openInAIProviders="true" defaultExpanded="full" %}
\`\`\`markdown
Explain my Lawnchair plan to a kookaburra in two sentences.
\`\`\`
{% endprompt %}
`;

// The three ways a prompt opens (defaultExpanded), read without JavaScript.
const LONG = Array.from({ length: 30 }, (_, i) => `Step ${i + 1}: check the setting number ${i + 1}.`).join('\n');
const PROMPTS = ['hidden', 'partial', 'full']
  .map((mode) => `{% prompt description="The ${mode} prompt" defaultExpanded="${mode}" %}\n\`\`\`\n${LONG}\n\`\`\`\n{% endprompt %}\n`)
  .join('\n');

const SECRET = 'platypus';
const OTHER = 'wombat';

let spaceId: string;
let siteId: string;
let base: string;
let key: string;
let importWarnings: string[];

beforeAll(async () => {
  const work = await mkdtemp(path.join(tmpdir(), 'dp-ifblocks-'));
  await cp(path.join(GITBOOK, 'LawnchairLauncher--docs', 'help'), work, { recursive: true });
  await writeFile(path.join(work, 'plans.md'), PLANS);
  await writeFile(path.join(work, 'prompts.md'), `# Prompts\n\n${PROMPTS}`);
  await appendFile(path.join(work, 'SUMMARY.md'), '\n## Adaptive\n\n* [Plans](plans.md)\n* [Prompts](prompts.md)\n');
  const url = await g.createRepo('ifblocks-lawnchair-help', { dir: work });
  await rm(work, { recursive: true, force: true });
  spaceId = (await api('POST', `/v1/orgs/${org.orgId}/spaces`, { title: 'Lawnchair', empty: true })).body.id as string;
  const r = await api('POST', `/v1/spaces/${spaceId}/git/import`, { url, ref: 'refs/heads/main' });
  expect(r.status).toBe(204);
  const op = await settle(r.headers.get('location')!);
  expect(op.status, op.error).toBe('succeeded');
  importWarnings = op.result?.warnings ?? [];

  const site = await api('POST', `/v1/orgs/${org.orgId}/sites`, { title: 'Lawnchair help', visibility: 'visitor-auth' });
  siteId = site.body.id;
  base = `/site/${siteId}`;
  for (const [method, p, body] of [
    ['PATCH', `/sites/${siteId}`, { adaptiveContent: { enabled: true } }],
    ['POST', `/sites/${siteId}/sections`, { spaceId, title: 'Help' }],
    ['POST', `/sites/${siteId}/publish`, undefined],
  ] as const) {
    const x = await api(method, `/v1/orgs/${org.orgId}${p}`, body);
    expect(x.status, x.text).toBeLessThan(300);
  }
  key = (await api('GET', `/v1/orgs/${org.orgId}/sites/${siteId}/publishing/auth`)).body.privateKey as string;
}, 240_000);

const token = (claims: Record<string, unknown>) =>
  new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime('1h').sign(new TextEncoder().encode(key));

/** A reader session (the visitor cookie a token gives) with these claims. */
async function session(claims: Record<string, unknown>): Promise<{ cookie: string }> {
  const r = await t.api('GET', `${base}?jwt_token=${await token(claims)}`, { headers: { accept: 'text/html' } });
  return { cookie: r.headers.get('set-cookie')!.split(';')[0] };
}
const get = (p: string, headers: Record<string, string>) => t.api('GET', p, { headers: { accept: 'text/html', ...headers } });

async function mcp(claims: Record<string, unknown>): Promise<Client> {
  const client = new Client({ name: 'ifblocks-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${t.baseUrl}${base}/~gitbook/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${await token(claims)}` } },
  });
  await client.connect(transport);
  return client;
}

describe('{% if %} blocks on a visitor-auth site', () => {
  it('the import warns about the condition it cannot read', () => {
    expect(importWarnings.some((w) => w.includes('plans.md') && /condition of an \{% if %\} block is not valid/.test(w))).toBe(true);
  });

  it('editors read the blocks unevaluated, as the description shapes them', async () => {
    const walk = (list: any[]): any[] => list.flatMap((p) => [p, ...walk(p.pages ?? [])]);
    const plans = walk((await api('GET', `/v1/spaces/${spaceId}/content/pages`)).body.pages).find((p) => p.git?.path === 'plans.md');
    expect(plans).toBeDefined();
    const r = await api('GET', `/v1/spaces/${spaceId}/content/page/${plans.id}?format=document`);
    expect(r.status).toBe(200);
    const doc = r.body.document;
    assertMatchesSchema('JSONDocument', doc);
    const ifs = doc.nodes.filter((n: any) => n.type === 'if');
    expect(ifs.map((n: any) => n.data.expression)).toEqual([
      'visitor.claims.plan === "pro"',
      'visitor.claims.plan != "pro"',
      'visitor.claims.(',
    ]);
    const prompt = doc.nodes.find((n: any) => n.type === 'prompt');
    expect(prompt.data).toEqual({ description: 'Ask about your plan', icon: 'robot', openInAIProviders: true, defaultExpanded: 'full' });
    // The Markdown read gives back what was imported.
    const md = await api('GET', `/v1/spaces/${spaceId}/content/page/${plans.id}?format=markdown`);
    expect(md.body.markdown).toContain('{% if visitor.claims.plan === "pro" %}');
  });

  it('page HTML and .md: the branch for matching claims only, never a tag; the two audiences never share a render', async () => {
    const pro = await session({ sub: 'p', plan: 'pro' });
    const free = await session({ sub: 'f', plan: 'free' });
    const proPage = await get(`${base}/plans`, pro);
    const freePage = await get(`${base}/plans`, free);
    expect(proPage.status).toBe(200);
    expect(freePage.status).toBe(200);
    expect(proPage.text).toContain('platypus discount');
    expect(proPage.text).toContain('Platypus support');
    expect(proPage.text).not.toContain(OTHER);
    expect(freePage.text).not.toContain(SECRET);
    expect(freePage.text).toContain('wombat offer');
    for (const text of [proPage.text, freePage.text]) {
      expect(text).toContain('quokkas');
      expect(text).not.toContain('echidna');
      expect(text).not.toContain('{%');
      expect(text).toMatch(/<details class="prompt prompt-full" open><summary class="prompt-head">.*Ask about your plan/);
    }
    expect(proPage.headers.get('etag')).not.toBe(freePage.headers.get('etag'));
    // Asked again in the other order (the render cache is warm): still each its own.
    expect((await get(`${base}/plans`, free)).text).not.toContain(SECRET);
    expect((await get(`${base}/plans`, pro)).text).toContain(SECRET);

    const proMd = await get(`${base}/plans.md`, pro);
    const freeMd = await get(`${base}/plans.md`, free);
    expect(proMd.text).toContain('platypus discount');
    expect(freeMd.text).not.toContain(SECRET);
    for (const text of [proMd.text, freeMd.text]) {
      expect(text).not.toMatch(/\{%\s*(end)?if/);
      expect(text).not.toContain('echidna');
    }
  });

  it('llms-full.txt follows the claims', async () => {
    const pro = await get(`${base}/llms-full.txt`, await session({ sub: 'p', plan: 'pro' }));
    const free = await get(`${base}/llms-full.txt`, await session({ sub: 'f', plan: 'free' }));
    expect(pro.text).toContain('platypus discount');
    expect(free.text).toContain('wombat offer');
    expect(free.text).not.toContain(SECRET);
    expect(free.text).not.toMatch(/\{%\s*(end)?if/);
  });

  it('search (the reader site and the API) holds no conditional content; what everyone reads is found', async () => {
    const pro = await session({ sub: 'p', plan: 'pro' });
    const everyone = await t.api('GET', `${base}/~site/search?q=quokkas`, { headers: pro });
    expect(everyone.status).toBe(200);
    expect(everyone.body.items.length).toBeGreaterThan(0);
    for (const q of [SECRET, OTHER, 'echidna']) {
      const r = await t.api('GET', `${base}/~site/search?q=${q}`, { headers: pro });
      expect(r.body.items, q).toEqual([]);
    }
    const client = officialClient(t, org.adminToken);
    const found = await client.orgs.searchSiteContent(org.orgId, siteId, { query: 'quokkas', scope: { mode: 'all' } }, {});
    assertMatchesSpec('POST', '/orgs/{organizationId}/sites/{siteId}/search', 200, found.data);
    expect(found.data.items.length).toBeGreaterThan(0);
    const hidden = await client.orgs.searchSiteContent(org.orgId, siteId, { query: SECRET, scope: { mode: 'all' } }, {});
    expect(JSON.stringify(hidden.data)).not.toContain(SECRET);
    // The prompt's text is searched.
    const prompt = await t.api('GET', `${base}/~site/search?q=kookaburra`, { headers: pro });
    expect(prompt.body.items.map((i: any) => i.title)).toEqual(['Plans']);
  });

  it('MCP: getPage by claims, and searchDocumentation never finds the branch', async () => {
    const pro = await mcp({ sub: 'p', plan: 'pro' });
    const free = await mcp({ sub: 'f', plan: 'free' });
    const page = async (c: Client) =>
      ((await c.callTool({ name: 'getPage', arguments: { url: 'plans' } })) as any).structuredContent.markdown as string;
    expect(await page(pro)).toContain('platypus discount');
    const freeMd = await page(free);
    expect(freeMd).toContain('wombat offer');
    expect(freeMd).not.toContain(SECRET);
    const search = (await free.callTool({ name: 'searchDocumentation', arguments: { query: SECRET } })) as any;
    expect(JSON.stringify(search.structuredContent)).not.toContain(SECRET);
    await pro.close();
    await free.close();
  });

  it('the PDF has no visitor: evaluated with empty claims, no raw tags', async () => {
    const r = await api('GET', `/v1/spaces/${spaceId}/pdf`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const op = await settle(r.headers.get('location')!);
    expect(op.status, JSON.stringify(op)).toBe('succeeded');
    const text = await pdfText(Buffer.from(await (await fetch(r.body.url)).arrayBuffer()));
    expect(text).toContain('quokkas');
    expect(text).toContain('Ask about your plan');
    expect(text).toContain('Explain my Lawnchair plan');
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('echidna');
    expect(text).not.toContain('{%');
  });

  it('in Chromium: the matching branch and the prompt show, no raw {% text anywhere', async () => {
    const w = await watchedTab(browser, t.baseUrl, { isolated: true });
    const { tab } = w;
    await tab.goto(`${t.baseUrl}${base}/plans?jwt_token=${await token({ sub: 'p', plan: 'pro' })}`, { waitUntil: 'load' });
    const text = await tab.$eval('main', (e) => (e as HTMLElement).innerText);
    expect(text).toContain('Pro readers get the platypus discount.');
    expect(text).not.toContain('{%');
    expect(text).not.toContain(OTHER);
    // The prompt: open (defaultExpanded full), its code block with the copy button.
    expect(await tab.$eval('details.prompt', (e) => (e as HTMLDetailsElement).open)).toBe(true);
    expect(await tab.$eval('details.prompt summary', (e) => (e as HTMLElement).innerText.trim())).toBe('Ask about your plan');
    expect(await tab.$eval('details.prompt pre code', (e) => (e as HTMLElement).innerText.trim())).toBe(
      'Explain my Lawnchair plan to a kookaburra in two sentences.',
    );
    expect(await tab.$$eval('details.prompt .code-copy', (l) => l.length)).toBe(1);
    expect(await tab.$$eval('details.prompt .prompt-actions a', (l) => l.map((a) => (a as HTMLElement).innerText))).toEqual([
      'Open in ChatGPT',
      'Open in Claude',
    ]);
    await expectClean(w);
    await w.close();
  });

  it('in Chromium without JavaScript: a hidden prompt is closed, a partial one clipped until its toggle, a full one open', async () => {
    const w = await watchedTab(browser, t.baseUrl, { isolated: true, js: false });
    const { tab } = w;
    await tab.goto(`${t.baseUrl}${base}/prompts?jwt_token=${await token({ sub: 'p' })}`, { waitUntil: 'load' });
    const shown = (mode: string) =>
      tab.$eval(`.prompt-${mode} .prompt-body`, (e) => {
        const r = (e as HTMLElement).getBoundingClientRect();
        return { height: r.height, full: (e as HTMLElement).scrollHeight, visible: (e as HTMLElement).checkVisibility() };
      });
    expect(await tab.$eval('.prompt-hidden', (e) => (e as HTMLDetailsElement).open)).toBe(false);
    expect((await shown('hidden')).visible).toBe(false);
    expect(await tab.$eval('.prompt-full', (e) => (e as HTMLDetailsElement).open)).toBe(true);
    const full = await shown('full');
    expect(full.visible).toBe(true);
    expect(full.height).toBeGreaterThan(300);
    const clipped = await shown('partial');
    expect(clipped.visible).toBe(true);
    expect(clipped.height).toBeGreaterThan(0);
    expect(clipped.height).toBeLessThan(clipped.full);
    await tab.click('.prompt-partial .prompt-more');
    const opened = await shown('partial');
    expect(Math.abs(opened.full - opened.height)).toBeLessThan(2);
    expect(opened.height).toBeGreaterThan(clipped.height);
    expect(await tab.$eval('.prompt-partial .prompt-more', (e) => getComputedStyle(e).display)).toBe('none');
    // The hidden one opens from its summary.
    await tab.click('.prompt-hidden summary');
    expect((await shown('hidden')).visible).toBe(true);
    expect(await tab.$eval('main', (e) => (e as HTMLElement).innerText)).not.toContain('{%');
    await expectClean(w);
    await w.close();
  });
});
