// The reader page cache follows what a page shows of its spaces' rows (a space renamed shows at the
// next request), and every page has one URL: the canonical URL, sitemap.xml and the hreflang
// alternates agree, a variant's first page being at the variant's home (`/`, `/fr`) however reached.
// Over HTTP against a site with language variants built through the API (lang-site.ts).
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { editContent } from '../../helpers/content.js';
import { headAlternates, langSite, sitemapEntries, type LangSite } from './lang-site.js';

const { t } = useTestApp();

let s: LangSite;
let B: string; // the site's absolute (canonical) base
beforeAll(async () => {
  s = await langSite(t, await t.seedOrg());
  B = `${t.baseUrl}${s.base}`;
}, 120_000);

const get = (path: string) => t.api('GET', path, { headers: { accept: 'text/html' } });

const canonicalOf = (html: string) => /<link rel="canonical" href="([^"]+)">/.exec(html)?.[1];

/** The variant switcher's entries: [title, href]. */
function switcher(html: string): [string, string][] {
  const menu = /<details class="variant">(.*?)<\/details>/.exec(html)?.[1] ?? '';
  return [...menu.matchAll(/<a href="([^"]+)"[^>]*>([^<]*)<\/a>/g)].map((m) => [m[2], m[1]]);
}

describe('one URL per page', () => {
  it("gives a variant's first page its home as canonical URL, by its root or its own path", async () => {
    for (const [path, canonical] of [
      ['/', `${B}/`],
      ['/getting-started', `${B}/`],
      ['/fr', `${B}/fr`],
      ['/fr/', `${B}/fr`],
      ['/fr/getting-started', `${B}/fr`],
      ['/api', `${B}/api`],
      ['/api/reference', `${B}/api`],
      ['/install', `${B}/install`],
      ['/fr/install', `${B}/fr/install`],
    ]) {
      const r = await get(`${s.base}${path}`);
      expect(r.status, path).toBe(200);
      expect(canonicalOf(r.text), path).toBe(canonical);
    }
    const home = [
      ['en', `${B}/`],
      ['fr', `${B}/fr`],
      ['x-default', `${B}/`],
    ];
    expect(headAlternates((await get(`${s.base}/fr/getting-started`)).text)).toEqual(home);
    expect(headAlternates((await get(`${s.base}/getting-started`)).text)).toEqual(home);
  });

  it('lists in sitemap.xml each page at its canonical URL, with the alternates its head carries', async () => {
    const entries = sitemapEntries((await t.api('GET', `${s.base}/sitemap.xml`)).text);
    expect([...entries.keys()].sort()).toEqual(
      [`${B}/`, `${B}/install`, `${B}/only-in-english`, `${B}/fr`, `${B}/fr/install`, `${B}/api`].sort(),
    );
    expect(entries.get(`${B}/fr`)).toEqual([
      ['en', `${B}/`],
      ['fr', `${B}/fr`],
      ['x-default', `${B}/`],
    ]);
    await expectHeadsAgree(entries);
  });

  it("names a page by its variant's home wherever it is that variant's first page only", async () => {
    // The French variant now opens on "Install"; the English one still on "Getting started".
    await editContent(t, s.spaces.fr, (d) => {
      const install = d.childIds(null).find((id) => d.page(id)?.title === 'Install')!;
      d.movePage(install, null, 0);
    });
    expect(canonicalOf((await get(`${s.base}/fr/install`)).text)).toBe(`${B}/fr`);
    expect(headAlternates((await get(`${s.base}/install`)).text)).toEqual([
      ['en', `${B}/install`],
      ['fr', `${B}/fr`],
      ['x-default', `${B}/install`],
    ]);
    const frStart = await get(`${s.base}/fr/getting-started`);
    expect(canonicalOf(frStart.text)).toBe(`${B}/fr/getting-started`);
    expect(headAlternates(frStart.text)).toEqual([
      ['en', `${B}/`],
      ['fr', `${B}/fr/getting-started`],
      ['x-default', `${B}/`],
    ]);
    const entries = sitemapEntries((await t.api('GET', `${s.base}/sitemap.xml`)).text);
    expect([...entries.keys()].filter((u) => u.startsWith(`${B}/fr`)).sort()).toEqual([`${B}/fr`, `${B}/fr/getting-started`]);
    await expectHeadsAgree(entries);
  });
});

/** Each sitemap entry's page has that URL as canonical and the entry's alternates in its head. */
async function expectHeadsAgree(entries: Map<string, [string, string][]>) {
  for (const [loc, alts] of entries) {
    const page = await get(loc.slice(t.baseUrl.length));
    expect(page.status, loc).toBe(200);
    expect(canonicalOf(page.text), loc).toBe(loc);
    expect(headAlternates(page.text), loc).toEqual(alts);
  }
}

describe('the page cache', () => {
  it("shows a space's new title at the next request, after the old one was served and cached", async () => {
    const before = await get(`${s.base}/install`);
    expect(before.status).toBe(200);
    // The default variant's site space has no title of its own: the switcher shows its space's.
    expect(switcher(before.text)).toContainEqual(['Docs', `${B}/install`]);
    const etag = before.headers.get('etag')!;
    expect((await t.api('GET', `${s.base}/install`, { headers: { accept: 'text/html', 'if-none-match': etag } })).status).toBe(304);

    const patched = await t.api('PATCH', `/v1/spaces/${s.spaces.en}`, { token: s.o.adminToken, body: { title: 'Handbook' } });
    expect(patched.status, patched.text).toBe(200);
    const after = await get(`${s.base}/install`);
    expect(after.status).toBe(200);
    expect(after.headers.get('etag')).not.toBe(etag);
    expect(switcher(after.text)).toContainEqual(['Handbook', `${B}/install`]);
    expect(switcher(after.text).map(([title]) => title)).not.toContain('Docs');
    // A client revalidating its old copy gets the new page, not a 304.
    const revalidated = await t.api('GET', `${s.base}/install`, { headers: { accept: 'text/html', 'if-none-match': etag } });
    expect(revalidated.status).toBe(200);
    expect(revalidated.text).toContain('>Handbook</a>');
    // The French page lists the English variant under its new title too.
    expect(switcher((await get(`${s.base}/fr/install`)).text)).toContainEqual(['Handbook', `${B}/install`]);
  });
});
