// Signed, token-free file URLs expire (issue 8, item 7): FILE_URL_TTL_SECONDS, verified on every
// download; an expired link is a 410 with the error body, a tampered one a 403.
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { addFile, editContent, PNG_2x1 } from '../../helpers/content.js';
import { fileDownloadUrl } from '../../../src/content/present.js';
import { loadConfig } from '../../../src/config.js';

const TTL = 600;

const { t, org } = useTestApp({ env: { FILE_URL_TTL_SECONDS: String(TTL) }, seedOrg: true });
let spaceId: string;
let fileId: string;

beforeAll(async () => {
  spaceId = (await t.api('POST', `/v1/orgs/${org.orgId}/spaces`, { token: org.adminToken, body: { title: 'Files', empty: true } })).body.id;
  fileId = await addFile(t, spaceId, 'logo.png', 'image/png', PNG_2x1);
});

async function downloadUrl(): Promise<string> {
  const r = await t.api('GET', `/v1/spaces/${spaceId}/content/files/${fileId}`, { token: org.adminToken });
  expect(r.status).toBe(200);
  return r.body.downloadURL;
}

async function download(url: string) {
  const res = await fetch(url);
  const bytes = Buffer.from(await res.arrayBuffer());
  const json = (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(bytes.toString('utf8')) : null;
  return { status: res.status, headers: res.headers, bytes, json };
}

const file = () => {
  const sha256 = createHash('sha256').update(PNG_2x1).digest('hex');
  return { sha256, blobKey: `files/sha256/${sha256}`, name: 'logo.png', contentType: 'image/png' };
};

describe('signed file URLs', () => {
  it('default to one hour', () => {
    expect(loadConfig({}).fileUrlTtlSeconds).toBe(3600);
    expect(() => loadConfig({ FILE_URL_TTL_SECONDS: '0' })).toThrow(/FILE_URL_TTL_SECONDS/);
  });

  it('carry an expiry FILE_URL_TTL_SECONDS ahead; a fresh one serves the bytes, cacheable until it expires', async () => {
    const before = Math.floor(Date.now() / 1000);
    const url = await downloadUrl();
    const after = Math.ceil(Date.now() / 1000);
    const exp = Number(new URL(url).searchParams.get('exp'));
    // At least the configured lifetime, rounded up by at most a tenth of it.
    expect(exp).toBeGreaterThanOrEqual(before + TTL);
    expect(exp).toBeLessThanOrEqual(after + TTL + TTL / 10);

    const r = await download(url);
    expect(r.status).toBe(200);
    expect(r.bytes.equals(PNG_2x1)).toBe(true);
    const maxAge = Number(/max-age=(\d+)/.exec(r.headers.get('cache-control') ?? '')?.[1]);
    expect(maxAge).toBeGreaterThan(0);
    expect(maxAge).toBeLessThanOrEqual(exp - before);
  });

  it('refuse an expired link with 410 and the error body; reading the file again gives one that works', async () => {
    // The same code that signs downloadURLs, with a clock two lifetimes in the past.
    const expired = fileDownloadUrl(t.app, file(), Date.now() - 2 * (TTL + TTL / 10) * 1000);
    expect(new URL(expired).pathname).toBe(new URL(await downloadUrl()).pathname);
    const r = await download(expired);
    expect(r.status).toBe(410);
    expect(r.json).toEqual({ error: { code: 410, message: expect.stringMatching(/expired at .*fresh downloadURL/) } });

    const fresh = await download(await downloadUrl());
    expect(fresh.status).toBe(200);
    expect(fresh.bytes.equals(PNG_2x1)).toBe(true);
  });

  it('refuse a link whose expiry was changed (403), and one without an expiry from before links expired (410)', async () => {
    const url = new URL(await downloadUrl());
    const exp = Number(url.searchParams.get('exp'));
    for (const changed of [exp + 365 * 24 * 3600, exp - 1]) {
      const tampered = new URL(url);
      tampered.searchParams.set('exp', String(changed));
      const r = await download(tampered.toString());
      expect(r.status, String(changed)).toBe(403);
      expect(r.json).toEqual({ error: { code: 403, message: expect.stringMatching(/signature/) } });
    }
    const legacy = new URL(url);
    legacy.searchParams.delete('exp');
    const r = await download(legacy.toString());
    expect(r.status).toBe(410);
    expect(r.json.error).toEqual({ code: 410, message: expect.stringMatching(/expired/) });

    const bad = new URL(url);
    bad.searchParams.set('exp', 'soon');
    expect((await download(bad.toString())).status).toBe(400);
  });

  it('apply to the images of the published view too', async () => {
    await editContent(t, spaceId, (d) => d.insertPage(null, { id: 'imgPage', title: 'Logo', markdown: `![Logo](/files/${fileId})` }));
    expect((await t.api('PATCH', `/v1/spaces/${spaceId}`, { token: org.adminToken, body: { visibility: 'public' } })).status).toBe(200);
    const html = await (await fetch(`${t.baseUrl}/s/${spaceId}`)).text();
    const img = /<img[^>]+src="([^"]+)"/.exec(html)![1].replace(/&amp;|&#x26;/g, '&');
    expect(Number(new URL(img).searchParams.get('exp'))).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000) + TTL - 60);
    expect((await download(img)).status).toBe(200);
  });
});
