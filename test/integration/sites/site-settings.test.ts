// Issue 29 items 1 and 2 through the official client, each answer checked against the 0.202.0
// description: site redirects (with loops refused and what the reader site answers), external
// links, duplicateSiteSpace, and custom fonts uploaded through generateStorageUploadURL's signed
// URL and used by a site's customization. Non-admins are refused as for the rest of the site API.
import { fileURLToPath } from 'node:url';
import { readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { docsSite, type DocsSite } from '../reader/helpers.js';
import { assertMatchesSpec } from '../../helpers/spec.js';
import { checked, failure, officialClient, SITE } from './helpers.js';
import { purgeDeletedSpaces } from '../../../src/services/purge.js';

const { t } = useTestApp();
const FONT = fileURLToPath(new URL('../../fixtures/fonts/LiberationSans-Regular.ttf', import.meta.url));
let d: DocsSite;
let api: any;
beforeAll(async () => {
  d = await docsSite(t, await t.seedOrg());
  api = officialClient(t, d.o.adminToken);
}, 120_000);

const reader = (p: string) => fetch(`${t.baseUrl}${d.base}${p}`, { redirect: 'manual', headers: { accept: 'text/html' } });

describe('site redirects', () => {
  it('creates, lists, resolves, updates and deletes redirects; the reader follows them with the query kept', async () => {
    const org = d.o.orgId;
    const page = await checked(
      'POST',
      `${SITE}/redirects`,
      api.orgs.createSiteRedirect(org, d.siteId, {
        source: '/old-start',
        destination: { kind: 'path', spaceId: d.spaces.v1, path: 'getting-started/nested-page' },
      }),
      201,
    );
    expect(page).toMatchObject({ object: 'site-redirect', source: '/old-start', draft: false, permanent: false, captureWildcard: false });
    expect(page.destination).toMatchObject({ kind: 'site-page', siteSpaceId: expect.any(String), pageId: expect.any(String) });
    const wild = await checked(
      'POST',
      `${SITE}/redirects`,
      api.orgs.createSiteRedirect(org, d.siteId, {
        source: '/legacy/*',
        captureWildcard: true,
        permanent: true,
        destination: { kind: 'external', url: 'https://example.test/new' },
      }),
      201,
    );
    await checked(
      'POST',
      `${SITE}/redirects`,
      api.orgs.createSiteRedirect(org, d.siteId, {
        source: '/to-api',
        destination: { kind: 'site-section', siteSectionId: d.sections.api.id },
      }),
      201,
    );

    const list = await checked('GET', `${SITE}/redirects`, api.orgs.listSiteRedirects(org, d.siteId, { orderBy: 'source' }), 200);
    expect(list.items.map((r: any) => r.source)).toEqual(['/legacy/*', '/old-start', '/to-api']);
    const searched = await checked('GET', `${SITE}/redirects`, api.orgs.listSiteRedirects(org, d.siteId, { search: 'legacy' }), 200);
    expect(searched.items.map((r: any) => r.id)).toEqual([wild.id]);

    const found = await checked('GET', `${SITE}/redirect`, api.orgs.getSiteRedirectBySource(org, d.siteId, { source: '/old-start' }), 200);
    expect(found.target).toBe(`${t.baseUrl}${d.base}/getting-started/nested-page`);
    const caught = await checked(
      'GET',
      `${SITE}/redirect`,
      api.orgs.getSiteRedirectBySource(org, d.siteId, { source: '/legacy/a/b' }),
      200,
    );
    expect(caught).toMatchObject({ redirect: { id: wild.id }, target: 'https://example.test/new/a/b' });
    expect((await failure(api.orgs.getSiteRedirectBySource(org, d.siteId, { source: '/nothing' }))).code).toBe(404);

    // The reader: before any 404, the query string kept; permanent ones 308, others 307.
    let r = await reader('/old-start?utm_source=mail&x=1');
    expect(r.status).toBe(307);
    expect(r.headers.get('location')).toBe(`${t.baseUrl}${d.base}/getting-started/nested-page?utm_source=mail&x=1`);
    const followed = await fetch(`${t.baseUrl}${d.base}/old-start`, { headers: { accept: 'text/html' } });
    expect(followed.status).toBe(200);
    expect(await followed.text()).toContain('Nested body.');
    r = await reader('/legacy/a/b?q=2');
    expect(r.status).toBe(308);
    expect(r.headers.get('location')).toBe('https://example.test/new/a/b?q=2');
    r = await reader('/to-api');
    expect(r.headers.get('location')).toBe(`${t.baseUrl}${d.base}/api`);
    expect((await reader('/still-nothing')).status).toBe(404);

    // Update: made permanent; then deleted (205), and again (204).
    const updated = await checked(
      'PATCH',
      `${SITE}/redirects/{siteRedirectId}`,
      api.orgs.updateSiteRedirectById(org, d.siteId, page.id, { permanent: true }),
      200,
    );
    expect(updated.permanent).toBe(true);
    expect(updated.updatedAt).toEqual(expect.any(String));
    expect((await reader('/old-start')).status).toBe(308);
    expect((await api.orgs.deleteSiteRedirectById(org, d.siteId, page.id)).status).toBe(205);
    expect((await api.orgs.deleteSiteRedirectById(org, d.siteId, page.id)).status).toBe(204);
    expect((await reader('/old-start')).status).toBe(404);
  });

  it('bulk upserts: created, updated, deleted, draft and published, each reported; drafts are not live', async () => {
    const org = d.o.orgId;
    const ext = (u: string) => ({ kind: 'external', url: `https://example.test/${u}` });
    const first = await checked(
      'PUT',
      `${SITE}/redirects`,
      api.orgs.bulkUpsertSiteRedirects(org, d.siteId, {
        redirects: [
          { source: '/b1', destination: ext('1') },
          { source: '/b2', intent: 'draft', destination: ext('2') },
          { source: '/b3', destination: { kind: 'path', spaceId: d.spaces.v1, path: 'no/such/page' } },
        ],
      }),
      200,
    );
    expect(first.results.map((x: any) => [x.status, x.source, x.draft])).toEqual([
      ['created', '/b1', false],
      ['created', '/b2', true],
      ['error', '/b3', false],
    ]);
    expect(first.results[2].error).toMatch(/no page/);
    expect(
      (await failure(api.orgs.bulkUpsertSiteRedirects(org, d.siteId, { redirects: [{ source: 'no-slash', destination: ext('3') }] }))).code,
    ).toBe(400);
    expect((await reader('/b2')).status).toBe(404);
    const drafts = await checked('GET', `${SITE}/redirects`, api.orgs.listSiteRedirects(org, d.siteId, { draft: true }), 200);
    expect(drafts.items.map((x: any) => x.source)).toEqual(['/b2']);
    const second = await checked(
      'PUT',
      `${SITE}/redirects`,
      api.orgs.bulkUpsertSiteRedirects(org, d.siteId, {
        redirects: [
          { source: '/b1', destination: ext('1b') },
          { source: '/b2', intent: 'publish' },
          { source: '/b1', destination: null },
        ],
      }),
      200,
    );
    expect(second.results.map((x: any) => x.status)).toEqual(['updated', 'published', 'deleted']);
    expect((await reader('/b1')).status).toBe(404);
    expect((await reader('/b2')).headers.get('location')).toBe('https://example.test/2');
  });

  it('refuses a loop (400), alone or through a chain, and bad sources; nothing is written', async () => {
    const org = d.o.orgId;
    const onSite = (p: string) => ({ kind: 'external', url: `${t.baseUrl}${d.base}${p}` });
    await checked(
      'POST',
      `${SITE}/redirects`,
      api.orgs.createSiteRedirect(org, d.siteId, { source: '/loop-a', destination: onSite('/loop-b') }),
      201,
    );
    await checked(
      'POST',
      `${SITE}/redirects`,
      api.orgs.createSiteRedirect(org, d.siteId, { source: '/loop-b', destination: onSite('/loop-c') }),
      201,
    );
    const loop = await failure(api.orgs.createSiteRedirect(org, d.siteId, { source: '/loop-c', destination: onSite('/loop-a?x=1') }));
    expect(loop.code).toBe(400);
    expect(loop.message).toMatch(/loop/);
    expect((await failure(api.orgs.createSiteRedirect(org, d.siteId, { source: '/self', destination: onSite('/self/') }))).code).toBe(400);
    const bulk = await failure(
      api.orgs.bulkUpsertSiteRedirects(org, d.siteId, {
        redirects: [
          { source: '/x', destination: onSite('/y') },
          { source: '/y', destination: onSite('/x') },
        ],
      }),
    );
    expect(bulk.code).toBe(400);
    const all = await checked('GET', `${SITE}/redirects`, api.orgs.listSiteRedirects(org, d.siteId, { search: '/', limit: 1000 }), 200);
    const sources = all.items.map((x: any) => x.source);
    expect(sources).not.toContain('/loop-c');
    expect(sources).not.toContain('/x');
    expect(
      (await failure(api.orgs.createSiteRedirect(org, d.siteId, { source: `/${'a'.repeat(600)}`, destination: onSite('/') }))).code,
    ).toBe(400);
    expect(
      (
        await failure(
          api.orgs.createSiteRedirect(org, d.siteId, { source: '/j', destination: { kind: 'external', url: 'javascript:alert(1)' } }),
        )
      ).code,
    ).toBe(400);
    expect(
      (
        await failure(
          api.orgs.createSiteRedirect(org, d.siteId, {
            source: '/p',
            destination: { kind: 'path', spaceId: d.spaces.v1, path: 'no/such' },
          }),
        )
      ).code,
    ).toBe(400);
  });

  it('refuses non-admins as the rest of the site API does', async () => {
    const org = d.o.orgId;
    const member = await t.seedUser(org, 'read');
    const outsider = await t.seedUser();
    const asMember = officialClient(t, member.token);
    const body = { source: '/m', destination: { kind: 'external', url: 'https://example.test/' } };
    expect((await failure(asMember.orgs.createSiteRedirect(org, d.siteId, body))).code).toBe(403);
    expect((await failure(asMember.orgs.listSiteRedirects(org, d.siteId, {}))).code).toBe(403);
    expect((await failure(asMember.orgs.addExternalLinkToSite(org, d.siteId, { title: 'Blog', url: 'https://example.test' }))).code).toBe(
      403,
    );
    expect(
      (await failure(asMember.orgs.createCustomFont(org, { fontFamily: 'X', fontFaces: [{ weight: 400, storageKey: 'k' }] }))).code,
    ).toBe(403);
    const asOutsider = officialClient(t, outsider.token);
    expect((await failure(asOutsider.orgs.createSiteRedirect(org, d.siteId, body))).code).toBe(404);
  });
});

describe('external links and duplicated site spaces', () => {
  it('adds, updates and deletes an external link; the reader shows it in the header and the mobile menu', async () => {
    const org = d.o.orgId;
    const link = await checked(
      'POST',
      `${SITE}/external-links`,
      api.orgs.addExternalLinkToSite(org, d.siteId, { title: 'Status page', url: 'https://status.example.test/' }),
      201,
    );
    expect(link).toMatchObject({ object: 'site-external-link', title: 'Status page', url: 'https://status.example.test/', draft: false });
    let html = await (await reader('/')).text();
    expect(html).toMatch(/<nav class="external-links"[^>]*><ul><li><a href="https:\/\/status\.example\.test\/"/);
    expect(html).toMatch(/<details class="mobile-menu">.*Status page/s);
    // The 404 and search pages have the same header.
    expect(await (await reader('/no-such-page')).text()).toMatch(/<nav class="external-links".*Status page/s);
    expect(await (await reader('/search?q=install')).text()).toMatch(/<nav class="external-links".*Status page/s);

    const renamed = await checked(
      'PATCH',
      `${SITE}/external-links/{siteExternalLinkId}`,
      api.orgs.updateSiteExternalLinkById(org, d.siteId, link.id, { title: 'Service status', description: 'Uptime' }),
      200,
    );
    expect(renamed).toMatchObject({ title: 'Service status', description: 'Uptime' });
    html = await (await reader('/')).text();
    expect(html).toContain('Service status');
    // A draft or a link whose condition is false is not shown.
    await api.orgs.updateSiteExternalLinkById(org, d.siteId, link.id, { condition: 'visitor.claims.beta === true' });
    expect(await (await reader('/')).text()).not.toContain('Service status');
    expect((await failure(api.orgs.updateSiteExternalLinkById(org, d.siteId, link.id, { url: 'ftp://x' }))).code).toBe(400);
    expect((await failure(api.orgs.updateSiteExternalLinkById(org, d.siteId, 'nope', { title: 'Nope' }))).code).toBe(404);
    expect((await api.orgs.deleteSiteExternalLinkById(org, d.siteId, link.id)).status).toBe(205);
    expect((await api.orgs.deleteSiteExternalLinkById(org, d.siteId, link.id)).status).toBe(204);
  });

  it('duplicates a site space: a copy of its space beside it, in the same section', async () => {
    const org = d.o.orgId;
    const copy = await checked(
      'POST',
      `${SITE}/site-spaces/{siteSpaceId}/duplicate`,
      api.orgs.duplicateSiteSpace(org, d.siteId, d.v2SiteSpace.id, {}),
      201,
    );
    expect(copy.id).not.toBe(d.v2SiteSpace.id);
    expect(copy.space.id).not.toBe(d.spaces.v2);
    expect(copy.space.title).toBe('Guide v2 (copy)');
    const list = await checked('GET', `${SITE}/site-spaces`, api.orgs.listSiteSpaces(org, d.siteId, {}), 200);
    const ids = list.items.map((s: any) => s.id);
    expect(ids.indexOf(copy.id)).toBe(ids.indexOf(d.v2SiteSpace.id) + 1);
    const pages = await t.api('GET', `/v1/spaces/${copy.space.id}/content`, { token: d.o.adminToken });
    expect(pages.body.pages.map((p: any) => p.title)).toEqual(['Getting started', 'Only in v2']);
    expect((await failure(api.orgs.duplicateSiteSpace(org, d.siteId, 'missing', {}))).code).toBe(404);
    // Text a database could not store is refused up front.
    const nul = { kind: 'external', url: 'https://example.test/\u0000x' };
    expect((await failure(api.orgs.createSiteRedirect(org, d.siteId, { source: '/nul', destination: nul }))).code).toBe(400);
    const link = { title: 'Nul\u0000', url: 'https://example.test/' };
    expect((await failure(api.orgs.addExternalLinkToSite(org, d.siteId, link))).code).toBe(400);
  });
});

describe('custom fonts', () => {
  async function upload(type: string, bytes: Buffer, putType = type) {
    const signed = await checked(
      'POST',
      '/orgs/{organizationId}/storage/upload',
      api.orgs.generateStorageUploadUrl(d.o.orgId, {
        file: { name: 'Font File.ttf', type, size: bytes.length },
        kind: 'customization_font',
      }),
      201,
    );
    const put = await fetch(signed.url, { method: 'PUT', body: new Uint8Array(bytes), headers: { 'content-type': putType } });
    return { signed, put };
  }

  it('uploads a font through the signed URL, defines it, and a site uses and serves it', async () => {
    const org = d.o.orgId;
    const bytes = await readFile(FONT);
    const { signed, put } = await upload('font/ttf', bytes);
    expect(signed.object).toBe('storage-signed-url');
    expect(put.status).toBe(200);
    // The URL takes its bytes once.
    expect((await fetch(signed.url, { method: 'PUT', body: new Uint8Array(bytes), headers: { 'content-type': 'font/ttf' } })).status).toBe(
      409,
    );

    // Without its regular weight: 412, as the description answers it.
    const noRegular = await t.api('PUT', `/v1/orgs/${org}/fonts`, {
      token: d.o.adminToken,
      body: { fontFamily: 'Brand Sans', fontFaces: [{ weight: 700, storageKey: signed.key }] },
    });
    expect(noRegular.status).toBe(412);
    assertMatchesSpec('PUT', '/orgs/{organizationId}/fonts', 412, noRegular.body);
    expect(
      (await failure(api.orgs.createCustomFont(org, { fontFamily: 'Brand Sans', fontFaces: [{ weight: 400, storageKey: 'fonts/x' }] })))
        .code,
    ).toBe(400);
    const font = await checked(
      'PUT',
      '/orgs/{organizationId}/fonts',
      api.orgs.createCustomFont(org, { fontFamily: 'Brand Sans', fontFaces: [{ weight: 400, storageKey: signed.key }] }),
      201,
    );
    expect(font).toMatchObject({ custom: true, fontFamily: 'Brand Sans', permissions: { edit: true } });
    const fileUrl = font.fontFaces[0].sources[0].url;
    const file = await fetch(fileUrl);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('font/ttf');
    expect(Buffer.from(await file.arrayBuffer()).equals(bytes)).toBe(true);

    const list = await checked('GET', '/orgs/{organizationId}/fonts', api.orgs.listCustomFonts(org), 200);
    expect(list.items.map((f: any) => f.id)).toEqual([font.id]);
    const renamed = await checked(
      'POST',
      '/orgs/{organizationId}/fonts/{fontId}',
      api.orgs.updateCustomFont(org, font.id, { fontFamily: 'Brand Sans 2' }),
      201,
    );
    expect(renamed.fontFamily).toBe('Brand Sans 2');
    expect((await failure(api.orgs.updateCustomFont(org, font.id, { fontFaces: [{ weight: 400, storageKey: null }] }))).code).toBe(412);
    const got = await checked('GET', '/orgs/{organizationId}/fonts/{fontId}', api.orgs.getCustomFont(org, font.id), 200);
    expect(got.fontFamily).toBe('Brand Sans 2');

    // Used by the site's customization: its stylesheet declares and uses it; the site serves the file.
    await api.orgs.updateSiteCustomizationById(org, d.siteId, { styling: { font: got } });
    const page = await (await reader('/')).text();
    const css = page.match(/href="([^"]*~site\/theme\/[^"]+\.css)"/)![1];
    const sheet = await (await fetch(new URL(css, t.baseUrl))).text();
    expect(sheet).toContain(`@font-face{font-family:"Brand Sans 2";font-weight:400`);
    expect(sheet).toContain(`src:url(../fonts/${font.id}/400)`);
    expect(sheet).toMatch(/--font:"Brand Sans 2",/);
    const served = await fetch(new URL(`../fonts/${font.id}/400`, new URL(css, t.baseUrl)));
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('font/ttf');

    expect((await api.orgs.deleteCustomFont(org, font.id)).status).toBe(205);
    expect((await api.orgs.deleteCustomFont(org, font.id)).status).toBe(204);
    expect((await failure(api.orgs.getCustomFont(org, font.id))).code).toBe(404);
  });

  it('the purge sweeps uploads no font uses after a day (never used, or their font deleted), bytes included', async () => {
    const org = d.o.orgId;
    const bytes = await readFile(FONT);
    const [used, unused, ofDeleted, recent] = await Promise.all([1, 2, 3, 4].map(() => upload('font/ttf', bytes)));
    for (const u of [used, unused, ofDeleted, recent]) expect(u.put.status).toBe(200);
    const kept = (await api.orgs.createCustomFont(org, { fontFamily: 'Kept', fontFaces: [{ weight: 400, storageKey: used.signed.key }] }))
      .data;
    const gone = (
      await api.orgs.createCustomFont(org, { fontFamily: 'Gone', fontFaces: [{ weight: 400, storageKey: ofDeleted.signed.key }] })
    ).data;
    expect((await api.orgs.deleteCustomFont(org, gone.id)).status).toBe(205);
    const keys = [used, unused, ofDeleted].map((u) => u.signed.key as string);
    await t.app.db.query(`UPDATE storage_uploads SET created_at = now() - interval '2 days' WHERE key = ANY($1)`, [keys]);
    const blobOf = async (key: string) =>
      (await t.app.db.query('SELECT blob_key FROM storage_uploads WHERE key = $1', [key])).rows[0]?.blob_key as string | undefined;
    const blobs = Object.fromEntries(await Promise.all(keys.map(async (k) => [k, (await blobOf(k))!])));

    const result = await purgeDeletedSpaces(t.app, {}, { log: t.app.log, progress: async () => {} });
    expect(result.fontUploads).toBe(2);
    // The font in use and the recent upload stay; the two others went, rows and bytes.
    expect(await blobOf(used.signed.key)).toBe(blobs[used.signed.key]);
    expect(await blobOf(recent.signed.key)).toBeDefined();
    for (const u of [unused, ofDeleted]) {
      expect(await blobOf(u.signed.key)).toBeUndefined();
      expect(await t.app.blobs.head(blobs[u.signed.key])).toBeNull();
    }
    expect(await t.app.blobs.head(blobs[used.signed.key])).not.toBeNull();
    const served = await fetch(kept.fontFaces[0].sources[0].url);
    expect(served.status).toBe(200);
    expect(Buffer.from(await served.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it('refuses what is not a font, a type other than announced, a bad signature, and oversize', async () => {
    const notFont = Buffer.from('<html>definitely not a font file</html>');
    expect((await upload('font/woff2', notFont)).put.status).toBe(400);
    const bytes = await readFile(FONT);
    expect((await upload('font/ttf', bytes, 'font/woff2')).put.status).toBe(400);
    expect((await upload('font/woff2', bytes)).put.status).toBe(400); // a ttf is not the woff2 announced
    const { signed } = await upload('font/ttf', Buffer.alloc(0)).catch(() => ({ signed: null as any }));
    expect(signed).toBeNull();
    const ok = await checked(
      'POST',
      '/orgs/{organizationId}/storage/upload',
      api.orgs.generateStorageUploadUrl(d.o.orgId, {
        file: { name: 'a.ttf', type: 'font/ttf', size: bytes.length },
        kind: 'customization_font',
      }),
      201,
    );
    const forged = ok.url.replace(/sig=[^&]+/, 'sig=AAAA');
    expect((await fetch(forged, { method: 'PUT', body: new Uint8Array(bytes), headers: { 'content-type': 'font/ttf' } })).status).toBe(403);
    expect(
      (
        await failure(
          api.orgs.generateStorageUploadUrl(d.o.orgId, {
            file: { name: 'big.ttf', type: 'font/ttf', size: 50 * 1024 * 1024 },
            kind: 'customization_font',
          }),
        )
      ).code,
    ).toBe(400);
    expect(
      (
        await failure(
          api.orgs.generateStorageUploadUrl(d.o.orgId, {
            file: { name: 'x.png', type: 'image/png', size: 100 },
            kind: 'customization_font',
          }),
        )
      ).code,
    ).toBe(400);
  });
});
