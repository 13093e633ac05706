// hreflang alternates of a site with language variants (page head and sitemap.xml), and external
// links whose parent is a section group shown inside that group's tabs and mobile-menu group, over
// HTTP against a site built through the API. The same links in Chromium: section-links-browser.test.ts.
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { linksIn } from './helpers.js';
import { headAlternates, langSite, sitemapEntries, type LangSite } from './lang-site.js';

const { t } = useTestApp();

let s: LangSite;
let B: string; // the site's absolute (canonical) base
beforeAll(async () => {
  s = await langSite(t, await t.seedOrg());
  B = `${t.baseUrl}${s.base}`;
}, 120_000);

const get = (path: string) => t.api('GET', path, { headers: { accept: 'text/html' } });
const beta = (path: string) => `${path}${path.includes('?') ? '&' : '?'}visitor.beta=yes`;

describe('hreflang alternates in the page head', () => {
  it('names the page in each language variant that has it, itself and x-default included', async () => {
    const page = await get(`${s.base}/install`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<link rel="canonical" href="${B}/install">`);
    expect(headAlternates(page.text)).toEqual([
      ['en', `${B}/install`],
      ['fr', `${B}/fr/install`],
      ['x-default', `${B}/install`],
    ]);
    // The same set from the French page.
    const fr = await get(`${s.base}/fr/install`);
    expect(fr.status).toBe(200);
    expect(headAlternates(fr.text)).toEqual(headAlternates(page.text));
  });

  it("leaves out a variant without the page (no fallback to the variant's home)", async () => {
    const page = await get(`${s.base}/only-in-english`);
    expect(page.status).toBe(200);
    // The switcher falls back to the French home; the head names no French page.
    expect(linksIn(page.text, '<details class="variant"', '</details>')).toContain(`${B}/fr`);
    expect(headAlternates(page.text)).toEqual([
      ['en', `${B}/only-in-english`],
      ['x-default', `${B}/only-in-english`],
    ]);
  });

  it('leaves out a variant a condition hides from this reader, and shows it to readers who meet it', async () => {
    expect((await get(`${s.base}/de/install`)).status).toBe(404);
    expect(headAlternates((await get(`${s.base}/install`)).text).map(([l]) => l)).not.toContain('de');
    const withClaim = await get(beta(`${s.base}/install`));
    expect(withClaim.status).toBe(200);
    expect(headAlternates(withClaim.text)).toEqual([
      ['en', `${B}/install`],
      ['fr', `${B}/fr/install`],
      ['de', `${B}/de/install`],
      ['x-default', `${B}/install`],
    ]);
    expect(headAlternates((await get(beta(`${s.base}/only-in-english`))).text)).toEqual([
      ['en', `${B}/only-in-english`],
      ['de', `${B}/de/only-in-english`],
      ['x-default', `${B}/only-in-english`],
    ]);
  });

  it('names no hidden variant, and a page of a hidden variant or of a section without languages has none', async () => {
    const hidden = await get(`${s.base}/pt-br/install`);
    expect(hidden.status).toBe(200);
    expect(headAlternates(hidden.text)).toEqual([]);
    expect(headAlternates((await get(`${s.base}/install`)).text).map(([l]) => l)).not.toContain('pt-BR');
    const api = await get(`${s.base}/api/reference`);
    expect(api.status).toBe(200);
    expect(headAlternates(api.text)).toEqual([]);
  });

  it("a variant's home page names the other variants' homes, as its canonical URL has it", async () => {
    const home = await get(`${s.base}/`);
    expect(home.text).toContain(`<link rel="canonical" href="${B}/">`);
    expect(headAlternates(home.text)).toEqual([
      ['en', `${B}/`],
      ['fr', `${B}/fr`],
      ['x-default', `${B}/`],
    ]);
    expect(headAlternates((await get(`${s.base}/fr`)).text)).toEqual(headAlternates(home.text));
  });
});

describe('hreflang alternates in sitemap.xml', () => {
  it('gives each listed page of a language variant its alternates, with the xhtml namespace', async () => {
    const r = await t.api('GET', `${s.base}/sitemap.xml`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('application/xml');
    expect(r.text).toContain('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">');
    const entries = sitemapEntries(r.text);
    expect([...entries.keys()].sort()).toEqual(
      [
        `${B}/`, // "Getting started", listed at its canonical URL (its variant's home)
        `${B}/install`,
        `${B}/only-in-english`,
        `${B}/fr`,
        `${B}/fr/install`,
        `${B}/api`,
      ].sort(),
    );
    const install = [
      ['en', `${B}/install`],
      ['fr', `${B}/fr/install`],
      ['x-default', `${B}/install`],
    ];
    expect(entries.get(`${B}/install`)).toEqual(install);
    expect(entries.get(`${B}/fr/install`)).toEqual(install);
    expect(entries.get(`${B}/only-in-english`)).toEqual([
      ['en', `${B}/only-in-english`],
      ['x-default', `${B}/only-in-english`],
    ]);
    expect(entries.get(`${B}/api`)).toEqual([]);
  });

  it('lists the variant a condition shows to this reader, with its alternates', async () => {
    const entries = sitemapEntries((await t.api('GET', beta(`${s.base}/sitemap.xml`))).text);
    expect(entries.get(`${B}/de/only-in-english`)).toEqual([
      ['en', `${B}/only-in-english`],
      ['de', `${B}/de/only-in-english`],
      ['x-default', `${B}/only-in-english`],
    ]);
    expect(entries.get(`${B}/install`)?.map(([l]) => l)).toEqual(['en', 'fr', 'de', 'x-default']);
  });
});

describe('external links in their section group', () => {
  it('shows a link whose parent is a group inside that group, root links in the header', async () => {
    const page = await get(`${s.base}/install`);
    expect(linksIn(page.text, '<nav class="external-links"')).toEqual(['https://forum.example.test/']);
    // The section tabs: "Docs", then the group "Developers" with its section and its live link.
    const tabs = page.text.slice(page.text.indexOf('<nav class="sections"'));
    const group = /<li class="group"><span>Developers<\/span><ul>(.*?)<\/ul><\/li>/.exec(tabs)?.[1] ?? '';
    expect([...group.matchAll(/href="([^"]+)"/g)].map((m) => m[1])).toEqual([`${B}/api`, 'https://status.example.test/']);
    expect(linksIn(page.text, '<nav class="sections"')).not.toContain('https://forum.example.test/');
    // Drafts never show; a conditional link only to readers who meet its condition.
    expect(page.text).not.toContain('draft.example.test');
    expect(page.text).not.toContain('beta.example.test');
    const withClaim = await get(beta(`${s.base}/install`));
    const betaGroup =
      /<nav class="sections".*?<li class="group"><span>Developers<\/span><ul>(.*?)<\/ul><\/li>/.exec(withClaim.text)?.[1] ?? '';
    expect([...betaGroup.matchAll(/href="([^"]+)"/g)].map((m) => m[1])).toEqual([
      `${B}/api`,
      'https://status.example.test/',
      'https://beta.example.test/',
    ]);

    // The mobile menu: the group with its section and link, then the root link.
    const menu = page.text.slice(
      page.text.indexOf('<details class="mobile-menu"'),
      page.text.indexOf('</details>', page.text.indexOf('<details class="mobile-menu"')),
    );
    const menuGroup = /<li class="group"><span>Developers<\/span><ul>(.*?)<\/ul><\/li>/.exec(menu)?.[1] ?? '';
    expect([...menuGroup.matchAll(/href="([^"]+)"/g)].map((m) => m[1])).toEqual([`${B}/api`, 'https://status.example.test/']);
    expect([...menu.matchAll(/href="([^"]+)"/g)].map((m) => m[1]).at(-1)).toBe('https://forum.example.test/');
  });

  it('on a page without section tabs (search results), every live link shows in the header', async () => {
    const search = await get(`${s.base}/search?q=install`);
    expect(linksIn(search.text, '<nav class="external-links"')).toEqual(['https://forum.example.test/', 'https://status.example.test/']);
  });
});

describe('after the site or a space changes', () => {
  it("follows a space's new language on the next request, and the site's canonical host", async () => {
    const before = await get(`${s.base}/install`);
    const patched = await t.api('PATCH', `/v1/spaces/${s.spaces.fr}`, { token: s.o.adminToken, body: { language: 'es' } });
    expect(patched.status, patched.text).toBe(200);
    const after = await get(`${s.base}/install`);
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
    expect(headAlternates(after.text)).toEqual([
      ['en', `${B}/install`],
      ['es', `${B}/fr/install`],
      ['x-default', `${B}/install`],
    ]);

    // On a custom hostname the alternates, like the canonical URL, are on it, whichever base served the page.
    const host = `http://docs.lang.test:${new URL(t.baseUrl).port}`;
    const r = await t.api('PATCH', `/v1/orgs/${s.o.orgId}/sites/${s.siteId}`, {
      token: s.o.adminToken,
      body: { hostname: 'docs.lang.test' },
    });
    expect(r.status, r.text).toBe(200);
    const viaPath = await get(`${s.base}/install`);
    expect(viaPath.text).toContain(`<link rel="canonical" href="${host}/install">`);
    expect(headAlternates(viaPath.text)).toEqual([
      ['en', `${host}/install`],
      ['es', `${host}/fr/install`],
      ['x-default', `${host}/install`],
    ]);
  });
});
