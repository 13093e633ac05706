// llms-full.txt of a large site: streamed page by page (chunked, no length known in advance; the
// stream holds a bounded amount ahead of the reader, never the whole file) and equal, byte for byte,
// to every page's Markdown in reading order joined by `---` rules.
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { editContent } from '../../helpers/content.js';
import { readerContext } from '../../../src/sites/reader.js';
import { publishedSite } from '../../../src/services/sites/reader.js';
import { llmsFullStream } from '../../../src/services/sites/agents.js';
import { sitePathBaseUrl } from '../../../src/presenters/sites.js';

const { t } = useTestApp();
const PAGES = 400;
const paragraph = (n: number) =>
  `Paragraph ${n} of the long guide. ${'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(40)}`;
let base: string;
let siteId: string;

beforeAll(async () => {
  const o = await t.seedOrg();
  const call = async (method: string, path: string, body?: unknown) => {
    const r = await t.api(method, `/v1/orgs/${o.orgId}${path}`, { token: o.adminToken, body });
    expect(r.status, r.text).toBeLessThan(300);
    return r.body;
  };
  const space = await call('POST', '/spaces', { title: 'Big guide' });
  await editContent(t, space.id, (d) => {
    for (const id of d.childIds(null)) d.deletePage(id);
    for (let i = 0; i < PAGES / 20; i++) {
      const top = d.insertPage(null, { title: `Chapter ${i}`, markdown: paragraph(i * 100) });
      for (let k = 1; k < 20; k++)
        d.insertPage(top, { title: `Chapter ${i} part ${k}`, markdown: `${paragraph(i * 100 + k)}\n\n${paragraph(k)}` });
    }
  });
  const site = await call('POST', '/sites', { title: 'Big docs', visibility: 'public' });
  await call('POST', `/sites/${site.id}/sections`, { spaceId: space.id, title: 'Guide' });
  await call('POST', `/sites/${site.id}/publish`);
  siteId = site.id;
  base = `/site/${site.id}`;
}, 120_000);

describe('llms-full.txt of a large site', () => {
  it('is streamed: chunked on the wire, and the stream runs a bounded way ahead of its reader', async () => {
    const res = await fetch(`${t.baseUrl}${base}/llms-full.txt`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBeNull();
    expect(res.headers.get('transfer-encoding')).toBe('chunked');
    const whole = await res.text();
    expect(whole.length).toBeGreaterThan(1024 * 1024);

    // The service's stream, read one chunk: what it produced so far is a small part of the whole.
    const site = { ...(await publishedSite(t.app, siteId)), base: sitePathBaseUrl(t.app, siteId) };
    const stream = await llmsFullStream(t.app, site, readerContext({}, {}));
    const first: Buffer = await new Promise((resolve) => stream.once('data', (c: Buffer) => resolve(c)));
    stream.pause();
    await new Promise((r) => setImmediate(r));
    expect(first.toString('utf8').startsWith('# Chapter 0\n')).toBe(true);
    expect(stream.readableEnded).toBe(false);
    expect(stream.readableLength).toBeLessThan(256 * 1024);
    stream.destroy();
  });

  it('holds every page in reading order, the same bytes as the pages joined', async () => {
    const whole = await (await fetch(`${t.baseUrl}${base}/llms-full.txt`)).text();
    const llms = await (await fetch(`${t.baseUrl}${base}/llms.txt`)).text();
    const urls = [...llms.matchAll(/\((http[^)]+\.md)\)/g)].map((m) => m[1]);
    expect(urls).toHaveLength(PAGES);
    const parts: string[] = [];
    for (const url of urls) parts.push(await (await fetch(url)).text());
    expect(whole).toBe(`${parts.join('\n\n---\n\n')}\n`);
  });
});
