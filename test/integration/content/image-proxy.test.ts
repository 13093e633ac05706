// Images of other origins in content reach readers through this server: signed proxy URLs, image
// types only, guarded fetches, so published pages keep a same-origin CSP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { editContent, PNG_2x1 } from '../../helpers/content.js';
import { serve } from '../../helpers/http.js';

let host: Awaited<ReturnType<typeof serve>>;
let spaceId: string;
let hits = 0;

beforeAll(async () => {
  host = await serve((req, res) => {
    hits++;
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/badge.png') return void res.writeHead(200, { 'content-type': 'image/png' }).end(PNG_2x1);
    if (path === '/page.html') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<script>alert(1)</script>');
    res.writeHead(404).end();
  });
});
afterAll(() => host?.close());
const { t } = useTestApp();
const { t: strict } = useTestApp({ env: { ALLOW_PRIVATE_FETCH: 'false' } });

beforeAll(async () => {
  const org = await t.seedOrg();
  spaceId = (await t.api('POST', `/v1/orgs/${org.orgId}/spaces`, { token: org.adminToken, body: { title: 'Badges', empty: true } })).body
    .id;
  await editContent(t, spaceId, (d) => {
    d.insertPage(null, {
      title: 'Status',
      markdown: `![Build](${host.url}/badge.png)\n\n![Not an image](${host.url}/page.html)\n\n![Gone](${host.url}/missing.png)`,
    });
  });
  await t.api('PATCH', `/v1/spaces/${spaceId}`, { token: org.adminToken, body: { visibility: 'public' } });
});

const srcs = (html: string) => [...html.matchAll(/<img src="([^"]+)"/g)].map((m) => m[1].replace(/&amp;|&#x26;/g, '&'));

describe('images of other origins', () => {
  it('are shown through a signed same-origin URL that serves the image', async () => {
    const html = await (await fetch(`${t.baseUrl}/s/${spaceId}/status`)).text();
    const [badge, notImage, gone] = srcs(html);
    for (const src of [badge, notImage, gone]) expect(src.startsWith(`${t.baseUrl}/images/proxy?`)).toBe(true);
    expect(html).not.toContain(`src="${host.url}`);
    expect(new URL(badge).searchParams.get('url')).toBe(`${host.url}/badge.png`);

    const before = hits;
    const r = await fetch(badge);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('image/png');
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await r.arrayBuffer()).equals(PNG_2x1)).toBe(true);
    // Cached: a second reader does not make the server fetch again.
    expect((await fetch(badge)).status).toBe(200);
    expect(hits - before).toBe(1);

    const html502 = await fetch(notImage);
    expect(html502.status).toBe(502);
    expect((await html502.json()).error.message).toMatch(/did not answer with an image \(text\/html\)/);
    const missing = await fetch(gone);
    expect(missing.status).toBe(502);
    expect((await missing.json()).error.message).toMatch(/HTTP 404/);
  });

  it('refuses URLs it did not sign and private addresses unless configured', async () => {
    const forged = new URL(`${t.baseUrl}/images/proxy`);
    forged.searchParams.set('url', `${host.url}/badge.png`);
    forged.searchParams.set('sig', 'x'.repeat(32));
    const r = await fetch(forged);
    expect(r.status).toBe(403);
    expect((await r.json()).error.message).toMatch(/signature/);
    expect((await fetch(`${t.baseUrl}/images/proxy?url=x`)).status).toBe(400);

    // An instance with the default configuration signs its links too, but keeps its fetches off loopback.
    const org = await strict.seedOrg();
    const s = (await strict.api('POST', `/v1/orgs/${org.orgId}/spaces`, { token: org.adminToken, body: { title: 'S', empty: true } })).body
      .id;
    await editContent(strict, s, (d) => void d.insertPage(null, { title: 'Status', markdown: `![Build](${host.url}/badge.png?strict)` }));
    await strict.api('PATCH', `/v1/spaces/${s}`, { token: org.adminToken, body: { visibility: 'public' } });
    const [src] = srcs(await (await fetch(`${strict.baseUrl}/s/${s}/status`)).text());
    const before = hits;
    const refused = await fetch(src);
    expect(refused.status).toBe(502);
    expect((await refused.json()).error.message).toMatch(/private|loopback|not allowed/i);
    expect(hits).toBe(before);
  });
});
