// The renderer's URL lookup and site token on sites that are not open to everyone (issue 29 item
// 6): a visitor-auth site with adaptive content (the token carries the visitor's claims and opens
// only what they show, `{% if %}` branches included), and a share-link site (the token holds the
// key, and stops working when the link is revoked).
import { describe, expect, it } from 'vitest';
import { GitBookAPI } from '@gitbook/api';
import { SignJWT, decodeJwt } from 'jose';
import { useTestApp } from '../../helpers/app.js';
import { editContent } from '../../helpers/content.js';
import { docsSite } from '../reader/helpers.js';
import { checked, failure, officialClient, SITE } from './helpers.js';

const { t } = useTestApp();
const admin = (o: { orgId: string; adminToken: string }, method: string, path: string, body?: unknown) =>
  t.api(method, `/v1/orgs/${o.orgId}${path}`, { token: o.adminToken, body });
const visitorToken = (key: string, claims: Record<string, unknown>) =>
  new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime('1h').sign(new TextEncoder().encode(key));
const anonymous = () => new GitBookAPI({ endpoint: t.baseUrl }) as any;
const resolve = (body: Record<string, unknown>) =>
  checked('POST', '/urls/published', anonymous().urls.resolvePublishedContentByUrl(body), 200);

describe('a visitor-auth site with adaptive content', () => {
  it("scopes the token to the visitor's claims: sections, spaces and {% if %} branches", async () => {
    const d = await docsSite(t, await t.seedOrg(), 'visitor-auth');
    const key = (await admin(d.o, 'GET', `/sites/${d.siteId}/publishing/auth`)).body.privateKey as string;
    await admin(d.o, 'PATCH', `/sites/${d.siteId}`, { adaptiveContent: { enabled: true } });
    expect(
      (await admin(d.o, 'PATCH', `/sites/${d.siteId}/sections/${d.sections.api.id}`, { condition: 'visitor.claims.beta == true' })).status,
    ).toBe(200);
    await editContent(t, d.spaces.v1, (x) =>
      x.insertPage(null, { title: 'Plans', markdown: 'For all.\n\n{% if visitor.claims.beta %}\nBeta only text.\n{% endif %}\n' }),
    );
    const url = `${t.baseUrl}${d.base}/plans`;

    // No visitor token: 401, or the fallback login when asked to redirect.
    expect((await failure(anonymous().urls.resolvePublishedContentByUrl({ url }))).code).toBe(401);
    await admin(d.o, 'PATCH', `/sites/${d.siteId}/publishing/auth`, { fallbackURL: 'https://login.example.test/start' });
    const login = await resolve({ url, redirectOnError: true });
    expect(login.target).toBe('application');
    expect(new URL(login.redirect).origin).toBe('https://login.example.test');

    const plainJwt = await visitorToken(key, { sub: 'a' });
    const betaJwt = await visitorToken(key, { sub: 'b', beta: true });
    const plain = await resolve({ url, visitor: { jwtToken: plainJwt } });
    const beta = await resolve({ url, visitor: { jwtToken: betaJwt } });
    expect(plain.apiToken).not.toBe(beta.apiToken);
    expect(beta.contextId).toBeTruthy();
    // The site token never outlives the visitor token it came from.
    expect(decodeJwt(beta.apiToken).exp!).toBeLessThanOrEqual(decodeJwt(betaJwt).exp!);

    const asPlain = officialClient(t, plain.apiToken);
    const asBeta = officialClient(t, beta.apiToken);
    const sectionsOf = async (api: any) =>
      JSON.stringify((await checked('GET', `${SITE}/published`, api.orgs.getPublishedContentSite(d.o.orgId, d.siteId, {}), 200)).structure);
    expect(await sectionsOf(asBeta)).toContain(d.sections.api.id);
    expect(await sectionsOf(asPlain)).not.toContain(d.sections.api.id);
    // A section group whose sections are all hidden is not shown either.
    const sdk = JSON.parse(await sectionsOf(asBeta))
      .structure.flatMap((x: any) => (x.object === 'site-section-group' ? x.sections : [x]))
      .find((s: any) => s.title === 'SDKs');
    expect(sdk, 'the SDKs section in its group').toBeTruthy();
    await admin(d.o, 'PATCH', `/sites/${d.siteId}/sections/${sdk.id}`, { condition: 'visitor.claims.beta == true' });
    expect(await sectionsOf(asPlain)).not.toContain('Developers');
    expect(await sectionsOf(asBeta)).toContain('Developers');
    await checked('GET', '/spaces/{spaceId}', asBeta.spaces.getSpaceById(d.spaces.api, {}), 200);
    expect((await failure(asPlain.spaces.getSpaceById(d.spaces.api, {}))).code).toBe(403);

    const page = await checked(
      'GET',
      '/spaces/{spaceId}/revisions/{revisionId}/path/{pagePath}',
      asPlain.spaces.getPageInRevisionByPath(plain.space, plain.revision, 'plans', {}),
      200,
    );
    const documentFor = async (api: any, evaluated: boolean) =>
      JSON.stringify(
        await checked(
          'GET',
          '/spaces/{spaceId}/revisions/{revisionId}/page/{pageId}/document',
          api.spaces.getPageDocumentInRevisionById(plain.space, plain.revision, page.id, { evaluated }),
          200,
        ),
      );
    for (const evaluated of [true, false]) {
      expect(await documentFor(asBeta, evaluated)).toContain('Beta only text.');
      const hidden = await documentFor(asPlain, evaluated);
      expect(hidden).toContain('For all.');
      expect(hidden).not.toContain('Beta only text.');
    }
    const markdown = await asPlain.spaces.getPageInRevisionById(plain.space, plain.revision, page.id, { format: 'markdown' });
    expect(JSON.stringify(markdown.data)).not.toContain('Beta only text.');

    // Unsigned claims (adaptive content): only those the adaptive schema declares.
    await admin(d.o, 'PATCH', `/sites/${d.siteId}/site-spaces/${d.v2SiteSpace.id}`, { condition: 'visitor.claims.unsigned.lang == "fr"' });
    const v2Url = `${t.baseUrl}${d.base}/v2/getting-started`;
    const undeclared = await resolve({ url: url, visitor: { jwtToken: plainJwt, unsignedClaims: { lang: 'fr' } } });
    expect((await failure(officialClient(t, undeclared.apiToken).spaces.getSpaceById(d.spaces.v2, {}))).code).toBe(403);
    const schema = await admin(d.o, 'PUT', `/sites/${d.siteId}/adaptive-schema`, {
      jsonSchema: {
        type: 'object',
        properties: {
          unsigned: {
            type: 'object',
            description: 'Unsigned claims of the site visitor.',
            properties: { lang: { type: 'string', description: 'Language' } },
            additionalProperties: false,
          },
        },
        additionalProperties: false,
      },
    });
    expect(schema.status, schema.text).toBe(200);
    const french = await resolve({ url: v2Url, visitor: { jwtToken: plainJwt, unsignedClaims: { lang: 'fr' } } });
    expect(french).toMatchObject({ siteSpace: d.v2SiteSpace.id, space: d.spaces.v2 });
    await checked('GET', '/spaces/{spaceId}', officialClient(t, french.apiToken).spaces.getSpaceById(d.spaces.v2, {}), 200);
    const german = await resolve({ url, visitor: { jwtToken: plainJwt, unsignedClaims: { lang: 'de' } } });
    expect((await failure(officialClient(t, german.apiToken).spaces.getSpaceById(d.spaces.v2, {}))).code).toBe(403);

    // Regenerating the site's key ends the visitor's token, and the site tokens it gave.
    await admin(d.o, 'POST', `/sites/${d.siteId}/publishing/auth/regenerate`);
    expect((await failure(asBeta.spaces.getSpaceById(d.spaces.v1, {}))).code).toBe(401);
    expect((await failure(anonymous().urls.resolvePublishedContentByUrl({ url, visitor: { jwtToken: betaJwt } }))).code).toBe(401);
  });
});

describe('a site on its own hostname', () => {
  it('resolves URLs of that host, as the renderer serving it sends them', async () => {
    const d = await docsSite(t, await t.seedOrg());
    expect((await admin(d.o, 'PATCH', `/sites/${d.siteId}`, { hostname: 'docs.renderer.test' })).status).toBe(200);
    const found = await resolve({ url: 'https://docs.renderer.test/v2/getting-started' });
    expect(found).toMatchObject({
      site: d.siteId,
      siteSpace: d.v2SiteSpace.id,
      pathname: 'getting-started',
      siteBasePath: '/',
      basePath: '/v2/',
      canonicalUrl: 'https://docs.renderer.test/v2/getting-started',
    });
    const api = officialClient(t, found.apiToken);
    await checked('GET', '/spaces/{spaceId}', api.spaces.getSpaceById(found.space, {}), 200);
    expect((await failure(anonymous().urls.resolvePublishedContentByUrl({ url: 'https://unknown.renderer.test/' }))).code).toBe(404);
  });
});

describe('a share-link site', () => {
  it('needs the key in the URL; the token holds it and stops working when the link is revoked', async () => {
    const d = await docsSite(t, await t.seedOrg(), 'share-link');
    const link = (await admin(d.o, 'POST', `/sites/${d.siteId}/share-links`, { name: 'Renderer' })).body;
    const key = new URL(link.urls.published).searchParams.get('share')!;
    const url = `${t.baseUrl}${d.base}/second`;
    expect((await failure(anonymous().urls.resolvePublishedContentByUrl({ url }))).code).toBe(404);
    const found = await resolve({ url: `${url}?share=${encodeURIComponent(key)}` });
    expect(found).toMatchObject({ site: d.siteId, shareKey: key, pathname: 'second' });
    const api = officialClient(t, found.apiToken);
    await checked('GET', `${SITE}/published`, api.orgs.getPublishedContentSite(d.o.orgId, d.siteId, { shareKey: key }), 200);
    // GitBook's form, which the renderer sends (it drops query strings): the key as the first segment.
    const inPath = await resolve({ url: `${t.baseUrl}${d.base}/${encodeURIComponent(key)}/second` });
    expect(inPath).toMatchObject({ shareKey: key, pathname: 'second', siteBasePath: `${d.base}/${encodeURIComponent(key)}/` });
    expect(inPath.apiToken).toBe(found.apiToken);
    await admin(d.o, 'PATCH', `/sites/${d.siteId}/share-links/${link.id}`, { active: false });
    expect((await failure(api.spaces.getSpaceById(d.spaces.v1, {}))).code).toBe(401);
  });
});
