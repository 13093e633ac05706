// Revalidation of GitBook's renderer (issue 29 item 6): a change to a published site's content
// reaches the configured URL as the renderer's `/~gitbook/revalidate` expects it (a JSON body of
// cache tags, `X-Gitbook-Signature` = hex HMAC-SHA256 of the body), from a job that retries, and
// the request that made the change does not wait for it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { editContent } from '../../helpers/content.js';
import { docsSite, type DocsSite } from '../reader/helpers.js';

const SECRET = 'renderer-shared-secret';
interface Received {
  body: string;
  signature: string | undefined;
}
const received: Received[] = [];
let failNext = 0;
let waiters: (() => void)[] = [];
const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    if (req.url !== '/~gitbook/revalidate' || req.method !== 'POST') {
      res.writeHead(404).end();
      return;
    }
    received.push({ body: Buffer.concat(chunks).toString('utf8'), signature: req.headers['x-gitbook-signature'] as string | undefined });
    if (failNext > 0) {
      failNext--;
      res.writeHead(503).end();
    } else res.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true}');
    const w = waiters;
    waiters = [];
    for (const f of w) f();
  });
});
beforeAll(() => new Promise<void>((r) => server.listen(0, '127.0.0.1', r)));
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const { t } = useTestApp(() => ({
  workers: ['maintenance'],
  env: {
    RENDERER_REVALIDATE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/~gitbook/revalidate`,
    RENDERER_REVALIDATE_SECRET: SECRET,
  },
}));

/** Wait until `n` deliveries arrived in total (no time assertion: the test runner's timeout bounds it). */
async function deliveries(n: number): Promise<Received[]> {
  while (received.length < n) await new Promise<void>((r) => waiters.push(r));
  return received.slice(0, n);
}

let d: DocsSite;
beforeAll(async () => {
  d = await docsSite(t, await t.seedOrg());
});

describe('renderer revalidation', () => {
  it('posts the signed cache tags of a published site after a content change, retrying a failed delivery', async () => {
    // Publishing queued one already: wait for it, then count from there.
    await deliveries(1);
    const before = received.length;
    failNext = 1;
    await editContent(t, d.spaces.v2, (x) => x.insertPage(null, { title: 'New', markdown: 'New.' }));
    const [failed, delivered] = (await deliveries(before + 2)).slice(before);
    expect(failed.body).toBe(delivered.body);
    const body = JSON.parse(delivered.body);
    expect(body.tags).toEqual(expect.arrayContaining([`site:${d.siteId}`, `space:${d.spaces.v2}`, `space:${d.spaces.v1}`]));
    expect(body.tags.some((tag: string) => tag.startsWith('url:'))).toBe(true);
    expect(delivered.signature).toBe(createHmac('sha256', SECRET).update(delivered.body).digest('hex'));
  });

  it('announces a customization or structure change and unpublishing, not a change of a space no published site shows', async () => {
    const start = received.length;
    const r = await t.api('PUT', `/v1/orgs/${d.o.orgId}/sites/${d.siteId}/customization`, {
      token: d.o.adminToken,
      body: { title: 'Renamed docs' },
    });
    expect(r.status, r.text).toBe(200);
    const [custom] = (await deliveries(start + 1)).slice(start);
    expect(JSON.parse(custom.body).tags).toContain(`site:${d.siteId}`);
    // A change of its structure too (any successful write under the site's path).
    const renamed = await t.api('PATCH', `/v1/orgs/${d.o.orgId}/sites/${d.siteId}/site-spaces/${d.v2SiteSpace.id}`, {
      token: d.o.adminToken,
      body: { title: 'Version 2' },
    });
    expect(renamed.status, renamed.text).toBe(200);
    await deliveries(start + 2);
    const lone = await t.api('POST', `/v1/orgs/${d.o.orgId}/spaces`, { token: d.o.adminToken, body: { title: 'Alone' } });
    await editContent(t, lone.body.id, (x) => x.insertPage(null, { title: 'x', markdown: 'x' }));
    const off = await t.api('POST', `/v1/orgs/${d.o.orgId}/sites/${d.siteId}/unpublish`, { token: d.o.adminToken });
    expect(off.status).toBe(200);
    const [unpublished] = (await deliveries(start + 3)).slice(start + 2);
    expect(JSON.parse(unpublished.body).tags).toContain(`site:${d.siteId}`);
    expect(received.slice(start).every((x) => !x.body.includes(lone.body.id))).toBe(true);
  });
});
