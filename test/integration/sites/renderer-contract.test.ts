// GitBook's renderer (GitbookIO/gitbook) on our API (issue 29 item 6): the calls it makes to show
// a page, replayed through the official client with schema validation, with the `apiToken` of the
// URL lookup as the client's token. Then what the token must not do: read another site, write,
// outlive its site's publication; and what it must be: the same all day, with file links that
// work while the revision is published.
import { beforeAll, describe, expect, it } from 'vitest';
import { GitBookAPI } from '@gitbook/api';
import { useTestApp } from '../../helpers/app.js';
import { addFile, editContent, PNG_2x1 } from '../../helpers/content.js';
import { operationSettled } from '../../helpers/operations.js';
import { fixture } from '../../helpers/spec-server.js';
import { docsSite, type DocsSite } from '../reader/helpers.js';
import { checked, failure, officialClient, SITE } from './helpers.js';
import { signSiteToken, verifySiteToken } from '../../../src/auth/site-token.js';
import { assertMatchesSpec } from '../../helpers/spec.js';

const { t } = useTestApp({ workers: ['openapi'] });
let d: DocsSite;
let other: DocsSite;
let anonymous: any;
let admin: any;

beforeAll(async () => {
  d = await docsSite(t, await t.seedOrg());
  other = await docsSite(t, d.o);
  const spec = await t.api('POST', `/v1/orgs/${d.o.orgId}/openapi`, {
    token: d.o.adminToken,
    body: { slug: 'pets', source: { text: await fixture('petstore.yaml') } },
  });
  expect(spec.status, spec.text).toBe(201);
  const op = await operationSettled(t, spec.headers.get('location'), { token: d.o.adminToken, what: 'processing of pets' });
  expect(op.status, JSON.stringify(op)).toBe('succeeded');
  const fileId = await addFile(t, d.spaces.v2, 'diagram.png', 'image/png', PNG_2x1);
  await editContent(t, d.spaces.v2, (x) => {
    x.insertPage(null, { title: 'Picture', markdown: `A picture.\n\n{% file src="diagram.png" %}\n` });
  });
  await editContent(t, d.spaces.api, (x) => {
    x.insertPage(null, {
      title: 'List pets',
      markdown: 'The pets.\n\n{% openapi-operation spec="pets" path="/pets" method="get" %}\n{% endopenapi-operation %}\n',
    });
  });
  expect(fileId).toBeTruthy();
  anonymous = new GitBookAPI({ endpoint: t.baseUrl });
  admin = officialClient(t, d.o.adminToken);
  await checked(
    'POST',
    `${SITE}/redirects`,
    admin.orgs.createSiteRedirect(d.o.orgId, d.siteId, {
      source: '/old-start',
      destination: { kind: 'path', spaceId: d.spaces.v1, path: 'second' },
    }),
    201,
  );
});

const url = (site: DocsSite, path: string) => `${t.baseUrl}${site.base}/${path}`;
const resolve = (u: string, body: Record<string, unknown> = {}) =>
  checked('POST', '/urls/published', anonymous.urls.resolvePublishedContentByUrl({ url: u, ...body }), 200);

/**
 * getRevisionById with `metadata`, as the renderer reads it. Its pages are checked without their
 * list, as test/integration/history does: the description's page schemas require a `document` or
 * `markdown` that no revision listing of GitBook's carries.
 */
async function revisionOf(api: any, found: { space: string; revision: string }) {
  const r = await api.spaces.getRevisionById(found.space, found.revision, { metadata: true });
  expect(r.status).toBe(200);
  assertMatchesSpec('GET', '/spaces/{spaceId}/revisions/{revisionId}', 200, { ...r.data, pages: [] });
  return r.data;
}

describe("the renderer's page flow", () => {
  it('resolves a variant page and reads it with the apiToken: site, space, revision, page, document, meta links, search, redirect', async () => {
    const found = await resolve(url(d, 'v2/getting-started'));
    expect(found).toMatchObject({
      site: d.siteId,
      siteSection: d.sections.guides.id,
      siteSpace: d.v2SiteSpace.id,
      space: d.spaces.v2,
      organization: d.o.orgId,
      pathname: 'getting-started',
      complete: true,
      siteBasePath: `${d.base}/`,
      basePath: `${d.base}/v2/`,
      canonicalUrl: `${t.config.publicUrl}${d.base}/v2/getting-started`,
    });
    const api = officialClient(t, found.apiToken);
    const site = await checked('GET', `${SITE}/published`, api.orgs.getPublishedContentSite(d.o.orgId, d.siteId, {}), 200);
    expect(site.site.id).toBe(d.siteId);
    expect(site.structure.type).toBe('sections');
    const space = await checked('GET', '/spaces/{spaceId}', api.spaces.getSpaceById(found.space, {}), 200);
    expect(space.revision).toBe(found.revision);
    const revision = await revisionOf(api, found);
    expect(revision.id).toBe(found.revision);
    expect(revision.pages.map((p: any) => p.title)).toContain('Getting started');
    const page = await checked(
      'GET',
      '/spaces/{spaceId}/revisions/{revisionId}/path/{pagePath}',
      api.spaces.getPageInRevisionByPath(found.space, found.revision, encodeURIComponent(found.pathname), {}),
      200,
    );
    expect(page.title).toBe('Getting started');
    const doc = await checked(
      'GET',
      '/spaces/{spaceId}/revisions/{revisionId}/page/{pageId}/document',
      api.spaces.getPageDocumentInRevisionById(found.space, found.revision, page.id, {
        evaluated: 'deterministic-only',
        dereferenced: 'reusable-contents',
      }),
      200,
    );
    expect(JSON.stringify(doc)).toContain('Welcome to v2.');
    const byId = await checked(
      'GET',
      '/spaces/{spaceId}/documents/{documentId}',
      api.spaces.getDocumentById(found.space, revision.pages.find((p: any) => p.id === page.id).documentId, {}),
      200,
    );
    expect(JSON.stringify(byId)).toContain('Welcome to v2.');
    await checked(
      'GET',
      '/spaces/{spaceId}/revisions/{revisionId}/page/{pageId}/meta-links',
      api.spaces.listRevisionPageMetaLinks(found.space, found.revision, page.id),
      200,
    );
    const hits = await checked('POST', `${SITE}/search`, api.orgs.searchSiteContent(d.o.orgId, d.siteId, { query: 'Welcome' }), 200);
    expect(hits.items.length).toBeGreaterThan(0);
    const moved = await checked(
      'GET',
      `${SITE}/redirect`,
      api.orgs.getSiteRedirectBySource(d.o.orgId, d.siteId, { source: '/old-start' }),
      200,
    );
    expect(moved.target).toBe(`${t.config.publicUrl}${d.base}/second`);
  });

  it('resolves a page of another section and reads its OpenAPI block and the spec version content with its filesystem', async () => {
    const found = await resolve(url(d, `${d.sections.api.path}/list-pets`));
    expect(found).toMatchObject({ siteSection: d.sections.api.id, space: d.spaces.api, pathname: 'list-pets' });
    const api = officialClient(t, found.apiToken);
    const page = await checked(
      'GET',
      '/spaces/{spaceId}/revisions/{revisionId}/path/{pagePath}',
      api.spaces.getPageInRevisionByPath(found.space, found.revision, 'list-pets', {}),
      200,
    );
    const doc = await checked(
      'GET',
      '/spaces/{spaceId}/revisions/{revisionId}/page/{pageId}/document',
      api.spaces.getPageDocumentInRevisionById(found.space, found.revision, page.id, { evaluated: true }),
      200,
    );
    expect(JSON.stringify(doc)).toContain('"openapi-operation"');
    const spec = await checked(
      'GET',
      '/orgs/{organizationId}/openapi/{specSlug}/versions/latest/content',
      api.orgs.getLatestOpenApiSpecVersionContent(d.o.orgId, 'pets'),
      200,
    );
    expect(JSON.stringify(spec.filesystem)).toContain('/pets');
  });

  it('gives file links that do not expire while the revision is published, and stop once it is not', async () => {
    const found = await resolve(url(d, 'v2/picture'));
    const api = officialClient(t, found.apiToken);
    const revision = await revisionOf(api, found);
    const file = revision.files.find((f: any) => f.name === 'diagram.png');
    const link = new URL(file.downloadURL);
    expect(link.pathname).toMatch(new RegExp(`^/files/site/${d.siteId}/${d.spaces.v2}/${found.revision}/[0-9a-f]{64}$`));
    expect(link.searchParams.has('exp')).toBe(false);
    const bytes = await fetch(`${t.baseUrl}${link.pathname}${link.search}`);
    expect(bytes.status).toBe(200);
    expect(Buffer.from(await bytes.arrayBuffer()).equals(PNG_2x1)).toBe(true);
    // A tampered link is refused.
    const forged = await fetch(`${t.baseUrl}${link.pathname}${link.search.replace('image%2Fpng', 'text%2Fhtml')}`);
    expect(forged.status).toBe(403);
    // A newer revision is published: the old revision's link is gone, its reads refused.
    await editContent(t, d.spaces.v2, (x) => x.insertPage(null, { title: 'Later', markdown: 'Later.' }));
    expect((await fetch(`${t.baseUrl}${link.pathname}${link.search}`)).status).toBe(410);
    const stale = await failure(api.spaces.getRevisionById(found.space, found.revision, {}));
    expect(stale.code).toBe(403);
  });

  it('reads a nested page by its path as the renderer encodes it (one component, slashes encoded)', async () => {
    const found = await resolve(url(d, 'getting-started/nested-page'));
    expect(found).toMatchObject({ space: d.spaces.v1, pathname: 'getting-started/nested-page' });
    const api = officialClient(t, found.apiToken);
    const page = await checked(
      'GET',
      '/spaces/{spaceId}/revisions/{revisionId}/path/{pagePath}',
      api.spaces.getPageInRevisionByPath(found.space, found.revision, encodeURIComponent(found.pathname), {}),
      200,
    );
    expect(page.title).toBe('Nested page');
  });

  it('tells whether a shorter URL is complete (no section or variant segment could follow)', async () => {
    // The renderer also looks up prefixes of a URL, and keeps one only when it is complete.
    expect((await resolve(`${t.baseUrl}${d.base}`)).complete).toBe(false);
    expect(await resolve(url(d, 'v2'))).toMatchObject({ siteSpace: d.v2SiteSpace.id, pathname: '', complete: true });
    expect(await resolve(url(d, d.sections.api.path))).toMatchObject({ siteSection: d.sections.api.id, complete: true });
  });

  it('answers a moved path with the redirect, and an unknown URL with 404', async () => {
    const r = await resolve(url(d, 'old-start'));
    expect(r).toEqual({ target: 'content', redirect: `${t.config.publicUrl}${d.base}/second` });
    const none = await failure(anonymous.urls.resolvePublishedContentByUrl({ url: `${t.baseUrl}/site/nosuchsite/page` }));
    expect(none.code).toBe(404);
    const bad = await t.api('POST', '/v1/urls/published', { body: { url: 'not a url' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe(400);
    // Odd input is a 400 or a 404 with the API's error body, never a 500.
    for (const odd of [
      'http://[::1]/x',
      'ftp://docs.example.test/',
      `http://${'a'.repeat(300)}.test/`,
      'http://a.b:99999/',
      `${t.baseUrl}/site/../v1/orgs`,
    ]) {
      const r = await t.api('GET', `/v1/urls/published?url=${encodeURIComponent(odd)}`);
      expect([400, 404], `${odd} -> ${r.status}`).toContain(r.status);
      expect(r.body.error.code).toBe(r.status);
    }
    const long = await t.api('POST', '/v1/urls/published', { body: { url: `${t.baseUrl}/${'x'.repeat(3000)}` } });
    expect(long.status).toBe(400);
    for (const bad of ['..', '%2e%2e', 'a%2Fb']) {
      const r = await t.api('GET', `/files/site/${bad}/${d.spaces.v2}/x/${'a'.repeat(64)}?name=a&type=b&sig=c`);
      expect([400, 404], `${bad} -> ${r.status}`).toContain(r.status);
    }
    // The deprecated GET form resolves the same way.
    const get = await t.api('GET', `/v1/urls/published?url=${encodeURIComponent(url(d, 'v2/getting-started'))}`);
    expect(get.status).toBe(200);
    expect(get.body.siteSpace).toBe(d.v2SiteSpace.id);
  });
});

describe('the site token', () => {
  it('is the same across two resolutions of the day, and stable for a whole UTC day', async () => {
    const a = await resolve(url(d, 'v2/getting-started'));
    const b = await resolve(url(d, 'second'));
    expect(b.apiToken).toBe(a.apiToken);
    const grant = { site: d.siteId, organization: d.o.orgId, signed: {}, unsigned: { b: 1, a: 2 } };
    const day = Date.UTC(2026, 0, 10);
    const early = await signSiteToken(t.app.secret, grant, day + 60_000);
    const late = await signSiteToken(t.app.secret, { ...grant, unsigned: { a: 2, b: 1 } }, day + 86_340_000);
    expect(late).toBe(early);
    expect(await signSiteToken(t.app.secret, grant, day + 86_400_000)).not.toBe(early);
    // Another algorithm or key is not a site token.
    expect(await verifySiteToken('another secret', early)).toBeNull();
  });

  it("is refused for another site's content and for any write", async () => {
    const { apiToken } = await resolve(url(d, 'v2/getting-started'));
    const api = officialClient(t, apiToken);
    expect((await failure(api.orgs.getPublishedContentSite(d.o.orgId, other.siteId, {}))).code).toBe(403);
    expect((await failure(api.spaces.getSpaceById(other.spaces.v1, {}))).code).toBe(403);
    const otherSpace = (await t.api('GET', `/v1/spaces/${other.spaces.v1}`, { token: d.o.adminToken })).body;
    expect((await failure(api.spaces.getRevisionById(other.spaces.v1, otherSpace.revision, {}))).code).toBe(403);
    const write = await t.api('PATCH', `/v1/spaces/${d.spaces.v2}`, { token: apiToken, body: { title: 'Taken over' } });
    expect(write.status).toBe(403);
    expect(write.body.error.message).toMatch(/site token/);
    const list = await t.api('GET', `/v1/orgs/${d.o.orgId}/spaces`, { token: apiToken });
    expect(list.status).toBe(403);
    // Token-free routes ignore it like any bearer: the URL lookup and the reader site answer as without it.
    const lookup = await t.api('POST', '/v1/urls/published', { token: apiToken, body: { url: url(d, 'second') } });
    expect(lookup.status).toBe(200);
    expect((await t.api('GET', `${d.base}/second`, { token: apiToken })).status).toBe(200);
    const forged = await t.api('GET', `/v1/spaces/${d.spaces.v2}`, { token: `${apiToken.slice(0, -4)}AAAA` });
    expect(forged.status).toBe(401);
  });

  it('is refused once the site is unpublished, and works again when it is published', async () => {
    const { apiToken } = await resolve(url(other, 'getting-started'));
    const api = officialClient(t, apiToken);
    await checked('GET', '/spaces/{spaceId}', api.spaces.getSpaceById(other.spaces.v1, {}), 200);
    const off = await t.api('POST', `/v1/orgs/${d.o.orgId}/sites/${other.siteId}/unpublish`, { token: d.o.adminToken });
    expect(off.status, off.text).toBe(200);
    const refused = await failure(api.spaces.getSpaceById(other.spaces.v1, {}));
    expect(refused.code).toBe(401);
    expect((await failure(anonymous.urls.resolvePublishedContentByUrl({ url: url(other, 'getting-started') }))).code).toBe(404);
    await t.api('POST', `/v1/orgs/${d.o.orgId}/sites/${other.siteId}/publish`, { token: d.o.adminToken });
    await checked('GET', '/spaces/{spaceId}', api.spaces.getSpaceById(other.spaces.v1, {}), 200);
  });
});
