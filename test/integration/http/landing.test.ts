// GET / : the home page a newcomer opens first. It links to the API reference, the job dashboard
// and the health endpoints, and lists the sites anyone may read (published, public) and no other;
// HTML for a browser, JSON for `Accept: application/json`.
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { publicSites } from '../../../src/services/sites/directory.js';
import { prefersJson } from '../../../src/routes/landing.js';

const { t, org } = useTestApp({ seedOrg: true, env: { ADMIN_DASHBOARD_PATH: '/ops/jobs' } });

interface Made {
  id: string;
  title: string;
  url?: string;
}
const sites: Record<'open' | 'escaped' | 'unlisted' | 'shareLink' | 'visitorAuth' | 'unpublished' | 'withdrawn' | 'noSpace', Made> =
  {} as never;

async function site(title: string, visibility: string, publish: boolean, spaces: 'sample' | 'empty' | [] = 'empty'): Promise<Made> {
  const made = await t.api('POST', `/v1/orgs/${org.orgId}/sites`, { token: org.adminToken, body: { title, visibility, spaces } });
  expect(made.status, made.text).toBe(201);
  let url: string | undefined;
  if (publish) {
    const published = await t.api('POST', `/v1/orgs/${org.orgId}/sites/${made.body.id}/publish`, { token: org.adminToken });
    expect(published.status, published.text).toBe(200);
    url = published.body.urls.published;
  }
  return { id: made.body.id, title, url };
}

beforeAll(async () => {
  sites.open = await site('Acme handbook', 'public', true, 'sample');
  sites.escaped = await site('<b>Docs</b> & "quotes"', 'public', true);
  sites.unlisted = await site('Unlisted notes', 'unlisted', true);
  sites.shareLink = await site('Shared by link', 'share-link', true);
  sites.visitorAuth = await site('Behind a login', 'visitor-auth', true);
  sites.unpublished = await site('Draft site', 'public', false);
  sites.withdrawn = await site('Withdrawn site', 'public', true);
  const off = await t.api('POST', `/v1/orgs/${org.orgId}/sites/${sites.withdrawn.id}/unpublish`, { token: org.adminToken });
  expect(off.status).toBe(200);
  sites.noSpace = await site('Nothing to read', 'public', true, []);
});

const hidden = ['unlisted', 'shareLink', 'visitorAuth', 'unpublished', 'withdrawn', 'noSpace'] as const;

describe('GET /', () => {
  it('is an HTML page linking to the reference, the dashboard, the health endpoints and the public sites', async () => {
    const r = await t.api('GET', '/');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(r.headers.get('vary')).toBe('accept');
    const html = r.text;
    const hrefs = [...html.matchAll(/<a href="([^"]*)">/g)].map((m) => m[1]);
    expect(hrefs).toEqual(expect.arrayContaining(['/docs', '/openapi.json', '/ops/jobs', '/healthz', '/readyz', '/metrics']));
    expect(html).toContain(`<code>${t.baseUrl}/v1</code>`);
    // Every link but the public sites' stays on this server, and each of those answers.
    for (const href of hrefs.filter((h) => h.startsWith('/') && h !== '/ops/jobs')) {
      expect((await t.api('GET', href)).status, href).toBe(200);
    }
    expect((await t.api('GET', '/ops/jobs')).status).toBe(401); // operators only: a token is asked for

    // The public published sites, by title, titles escaped; the reader URL of each opens the site.
    expect(html).toContain(`<li><a href="${sites.open.url}">Acme handbook</a></li>`);
    expect(html).toContain(`<li><a href="${sites.escaped.url}">&lt;b&gt;Docs&lt;/b&gt; &amp; &quot;quotes&quot;</a></li>`);
    expect(html.indexOf(sites.escaped.url!)).toBeLessThan(html.indexOf(sites.open.url!));
    expect(html).not.toContain('<b>Docs</b>');
    expect(sites.open.url).toBe(`${t.baseUrl}/site/${sites.open.id}`);
    expect((await t.api('GET', new URL(sites.open.url!).pathname, { headers: { accept: 'text/html' } })).status).toBeLessThan(400);
    // Nothing a reader without a link, a key or a login could open.
    for (const k of hidden) {
      expect(html, k).not.toContain(sites[k].id);
      expect(html, k).not.toContain(sites[k].title);
    }
  });

  it('sends a strict Content-Security-Policy that allows its one style block and nothing else', async () => {
    const r = await t.api('GET', '/');
    const csp = r.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('script-src');
    const style = /<style>([\s\S]*?)<\/style>/.exec(r.text)![1];
    expect(csp).toContain(`style-src 'sha256-${createHash('sha256').update(style).digest('base64')}'`);
    expect(r.text).not.toMatch(/<script|\sstyle=|\son\w+=/i);
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('answers JSON for Accept: application/json, with the same links and sites', async () => {
    const r = await t.api('GET', '/', { headers: { accept: 'application/json' } });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(r.body).toEqual({
      links: {
        home: `${t.baseUrl}/`,
        api: `${t.baseUrl}/v1`,
        reference: `${t.baseUrl}/docs`,
        openapi: `${t.baseUrl}/openapi.json`,
        dashboard: `${t.baseUrl}/ops/jobs`,
        health: `${t.baseUrl}/healthz`,
        readiness: `${t.baseUrl}/readyz`,
        metrics: `${t.baseUrl}/metrics`,
      },
      sites: [
        { title: sites.escaped.title, url: sites.escaped.url },
        { title: sites.open.title, url: sites.open.url },
      ],
      moreSites: false,
    });
    // A browser's Accept (HTML first) and curl's (*/*) get the page.
    const browser = await t.api('GET', '/', { headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' } });
    expect(browser.headers.get('content-type')).toContain('text/html');
    expect((await t.api('GET', '/', { headers: { accept: '*/*' } })).headers.get('content-type')).toContain('text/html');
    const head = await t.api('HEAD', '/');
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
  });

  it('is served without a token, and other methods are refused', async () => {
    expect((await t.api('GET', '/', { token: 'dp_not-a-token' })).status).toBe(200);
    const post = await t.api('POST', '/', { body: {} });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toContain('GET');
  });

  it('lists a bounded number of sites, saying when more were left out', async () => {
    expect(await publicSites(t.app, 1)).toEqual({ sites: [{ title: sites.escaped.title, url: sites.escaped.url }], more: true });
    expect((await publicSites(t.app, 2)).more).toBe(false);
  });
});

describe('prefersJson', () => {
  it.each([
    [undefined, false],
    ['', false],
    ['*/*', false],
    ['application/json', true],
    ['application/json, text/plain, */*', true],
    ['text/html', false],
    ['text/html;q=0.5, application/json', true],
    ['application/json;q=0.5, text/html', false],
    ['application/json;q=0, */*', false],
    ['application/*', true],
    ['text/*, application/json', true],
    ['text/html, application/json', false],
    ['application/xml', false],
  ])('%s -> %s', (accept, json) => {
    expect(prefersJson(accept)).toBe(json);
  });
});
