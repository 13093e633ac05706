import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { assertMatchesSchema } from '../../helpers/spec.js';
import { checked, failure, newSpace, officialClient, SITE } from './helpers.js';

const { t } = useTestApp();

describe('sites: create, read, update, delete', () => {
  it('creates a site with space ids, reads, patches and deletes it through the official client', async () => {
    const o = await t.seedOrg();
    const api = officialClient(t, o.adminToken);
    const spaceA = await newSpace(t, o, 'Guides');
    const spaceB = await newSpace(t, o, 'API');
    const site = await checked(
      'POST',
      '/orgs/{organizationId}/sites',
      api.orgs.createSite(o.orgId, { title: 'Docs', visibility: 'unlisted', spaces: [spaceA, spaceB] }),
      201,
    );
    expect(site).toMatchObject({
      object: 'site',
      type: 'basic',
      appliedType: 'basic',
      title: 'Docs',
      visibility: 'unlisted',
      published: false,
      siteSpaces: 2,
      agentsContext: 'included',
      defaultLevel: 'inherit',
      permissions: { view: true, admin: true, editAdaptiveSchema: true },
    });
    expect(site.urls.published).toBeUndefined();
    expect(site.urls.location).toBe(`${t.baseUrl}/v1/orgs/${o.orgId}/sites/${site.id}`);
    expect(site.urls.preview).toMatch(/^http/);

    const got = await checked('GET', SITE, api.orgs.getSiteById(o.orgId, site.id), 200);
    expect(got.id).toBe(site.id);

    const spaces = await checked('GET', `${SITE}/site-spaces`, api.orgs.listSiteSpaces(o.orgId, site.id, {}), 200);
    expect(spaces.items.map((s: any) => [s.space.id, s.path, s.default])).toEqual([
      [spaceA, 'guides', true],
      [spaceB, 'api', false],
    ]);

    const patched = await checked(
      'PATCH',
      SITE,
      api.orgs.updateSiteById(o.orgId, site.id, {
        title: 'Renamed',
        basename: 'docs',
        adaptiveContent: { enabled: true },
        agentsContext: 'excluded',
        proxy: 'example.com/docs',
        defaultSiteSpace: spaces.items[1].id,
      }),
      200,
    );
    expect(patched).toMatchObject({
      title: 'Renamed',
      basename: 'docs',
      adaptiveContent: { enabled: true },
      agentsContext: 'excluded',
      proxy: { origin: 'example.com/docs' },
    });
    const defaults = await checked('GET', `${SITE}/site-spaces`, api.orgs.listSiteSpaces(o.orgId, site.id, { default: true }), 200);
    expect(defaults.items.map((s: any) => s.space.id)).toEqual([spaceB]);
    const others = await checked('GET', `${SITE}/site-spaces`, api.orgs.listSiteSpaces(o.orgId, site.id, { default: false }), 200);
    expect(others.items.map((s: any) => s.space.id)).toEqual([spaceA]);

    const noProxy = await checked('PATCH', SITE, api.orgs.updateSiteById(o.orgId, site.id, { proxy: null }), 200);
    expect(noProxy.proxy).toBeUndefined();

    const bad = await failure(api.orgs.updateSiteById(o.orgId, site.id, { defaultSiteSpace: 'nope' }));
    expect(bad.code).toBe(400);
    expect(bad.message).toContain('defaultSiteSpace');

    const del = await api.orgs.deleteSiteById(o.orgId, site.id);
    expect(del.status).toBe(204);
    expect((await api.orgs.deleteSiteById(o.orgId, site.id)).status).toBe(204);
    expect((await failure(api.orgs.getSiteById(o.orgId, site.id))).code).toBe(404);
    // The spaces stay.
    expect((await t.api('GET', `/v1/spaces/${spaceA}`, { token: o.adminToken })).status).toBe(200);
  });

  it('creates a site with "empty": a new blank space titled like the site', async () => {
    const o = await t.seedOrg();
    const api = officialClient(t, o.adminToken);
    const site = await checked(
      'POST',
      '/orgs/{organizationId}/sites',
      api.orgs.createSite(o.orgId, { title: 'Fresh', spaces: 'empty' }),
      201,
    );
    expect(site.siteSpaces).toBe(1);
    const list = await checked('GET', `${SITE}/site-spaces`, api.orgs.listSiteSpaces(o.orgId, site.id, {}), 200);
    expect(list.items[0].space.title).toBe('Fresh');
    const content = await t.api('GET', `/v1/spaces/${list.items[0].space.id}/content`, { token: o.adminToken });
    expect(content.status).toBe(200);
    expect(content.body.pages).toEqual([]);
    // "sample" uses a template; without a body the site is empty and basic.
    const sample = await checked('POST', '/orgs/{organizationId}/sites', api.orgs.createSite(o.orgId, { spaces: 'sample' }), 201);
    expect(sample.siteSpaces).toBe(1);
    const bare = await t.api('POST', `/v1/orgs/${o.orgId}/sites`, { token: o.adminToken });
    expect(bare.status).toBe(201);
    expect(bare.body).toMatchObject({ type: 'basic', siteSpaces: 0, visibility: 'public' });
  });

  it('refuses bad input with a 400 naming the field', async () => {
    const o = await t.seedOrg();
    const other = await t.seedOrg();
    const foreign = await newSpace(t, other, 'Theirs');
    const cases: [unknown, string][] = [
      [{ title: 'x' }, 'body.title'],
      [{ type: 'gold' }, 'body.type'],
      [{ spaces: 'lots' }, 'body.spaces'],
      [{ spaces: [foreign] }, 'body.spaces.0'],
      [{ visibility: 'secret' }, 'body.visibility'],
    ];
    for (const [body, field] of cases) {
      const r = await t.api('POST', `/v1/orgs/${o.orgId}/sites`, { token: o.adminToken, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.message).toContain(field);
    }
  });
});

describe('sites: list filters', () => {
  it('filters by space, title, published status and type', async () => {
    const o = await t.seedOrg();
    const api = officialClient(t, o.adminToken);
    const space = await newSpace(t, o, 'Shared');
    const a = (await api.orgs.createSite(o.orgId, { title: 'Alpha handbook', spaces: [space] })).data;
    const b = (await api.orgs.createSite(o.orgId, { title: 'Beta docs', type: 'premium' })).data;
    await api.orgs.publishSite(o.orgId, b.id);
    const ids = async (query: Record<string, unknown>) => {
      const r = await checked('GET', '/orgs/{organizationId}/sites', api.orgs.listSites(o.orgId, query), 200);
      return r.items.map((s: any) => s.id);
    };
    expect(await ids({})).toEqual([a.id, b.id]);
    expect(await ids({ space })).toEqual([a.id]);
    expect(await ids({ title: 'HANDBOOK' })).toEqual([a.id]);
    expect(await ids({ published: true })).toEqual([b.id]);
    expect(await ids({ published: false })).toEqual([a.id]);
    expect(await ids({ type: ['premium'] })).toEqual([b.id]);
    const raw = await t.api('GET', `/v1/orgs/${o.orgId}/sites?type=basic&type=premium&limit=1`, { token: o.adminToken });
    expect(raw.body.count).toBe(2);
    expect(raw.body.items).toHaveLength(1);
    expect((await t.api('GET', `/v1/orgs/${o.orgId}/sites?type=gold`, { token: o.adminToken })).status).toBe(400);
  });
});

describe('sites: publish and the published profile', () => {
  it('publishes, serves the profile with structure and customizations, and unpublishes', async () => {
    const o = await t.seedOrg();
    const api = officialClient(t, o.adminToken);
    const space = await newSpace(t, o, 'Guide');
    const site = (await api.orgs.createSite(o.orgId, { title: 'Pub', spaces: [space] })).data;
    expect((await failure(api.orgs.getPublishedContentSite(o.orgId, site.id, {}))).code).toBe(404);
    const published = await checked('POST', `${SITE}/publish`, api.orgs.publishSite(o.orgId, site.id), 200);
    expect(published.published).toBe(true);
    expect(published.urls.published).toBe(`${t.baseUrl}/site/${site.id}`);
    const profile = await checked('GET', `${SITE}/published`, api.orgs.getPublishedContentSite(o.orgId, site.id, {}), 200);
    expect(profile.object).toBe('published-content-site');
    expect(profile.structure.type).toBe('siteSpaces');
    expect(profile.structure.structure[0].space.id).toBe(space);
    expect(profile.structure.structure[0].urls.published).toBe(`${t.baseUrl}/site/${site.id}`);
    assertMatchesSchema('SiteCustomizationSettings', profile.customizations.site);
    expect(profile.customizations.site.pdf).toEqual({ enabled: true });
    expect(profile.scripts).toEqual([]);
    // A share key that is not one of the site's links is not threaded into URLs.
    const withBadKey = await checked(
      'GET',
      `${SITE}/published`,
      api.orgs.getPublishedContentSite(o.orgId, site.id, { shareKey: 'nope' }),
      200,
    );
    expect(withBadKey.site.urls.published).toBe(`${t.baseUrl}/site/${site.id}`);
    const un = await checked('POST', `${SITE}/unpublish`, api.orgs.unpublishSite(o.orgId, site.id), 200);
    expect(un.published).toBe(false);
    expect(un.urls.published).toBeUndefined();
  });
});

describe('sites: adaptive schema', () => {
  const schema = {
    type: 'object',
    properties: {
      isBeta: { type: 'boolean', description: 'Beta tester' },
      plan: { type: 'string', enum: ['free', 'pro'], description: 'Plan' },
      products: { type: 'array', items: { type: 'string', enum: ['a', 'b'], description: 'product' }, description: 'Products' },
      name: { type: 'string', description: 'Name' },
      account: {
        type: 'object',
        description: 'Account',
        properties: { admin: { type: 'boolean', description: 'Account admin' } },
        additionalProperties: false,
      },
      unsigned: {
        type: 'object',
        description: 'Unsigned claims of the site visitor.',
        properties: { lang: { type: 'string', enum: ['fr'], description: 'Language' } },
        additionalProperties: false,
      },
    },
    additionalProperties: false,
  };

  it('round-trips the schema exactly and derives template conditions from its claims', async () => {
    const o = await t.seedOrg();
    const api = officialClient(t, o.adminToken);
    const site = (await api.orgs.createSite(o.orgId, { title: 'Adaptive' })).data;
    const initial = await checked('GET', `${SITE}/adaptive-schema`, api.orgs.getSiteAdaptiveSchema(o.orgId, site.id), 200);
    expect(initial.jsonSchema.properties.unsigned.properties).toEqual({});
    const put = await checked(
      'PUT',
      `${SITE}/adaptive-schema`,
      api.orgs.updateSiteAdaptiveSchema(o.orgId, site.id, { jsonSchema: schema }),
      200,
    );
    expect(put.jsonSchema).toEqual(schema);
    const got = await t.api('GET', `/v1/orgs/${o.orgId}/sites/${site.id}/adaptive-schema`, { token: o.adminToken });
    expect(JSON.stringify(got.body.jsonSchema)).toBe(JSON.stringify(schema)); // key order kept
    const conditions = await checked(
      'GET',
      `${SITE}/adaptive-schema/template-conditions`,
      api.orgs.listSiteAdaptiveTemplateConditions(o.orgId, site.id),
      200,
    );
    expect(conditions.items.map((c: any) => c.condition)).toEqual([
      'visitor.claims.isBeta == true',
      'visitor.claims.plan == "free"',
      'visitor.claims.plan == "pro"',
      'visitor.claims.products.includes("a")',
      'visitor.claims.products.includes("b")',
      'visitor.claims.account.admin == true',
      'visitor.claims.unsigned.lang == "fr"',
    ]);
    expect(conditions.items[0].description).toContain('Beta tester');
  });

  it('refuses schemas the description refuses', async () => {
    const o = await t.seedOrg();
    const site = (await officialClient(t, o.adminToken).orgs.createSite(o.orgId, { title: 'Adaptive' })).data;
    const bad = [
      { ...schema, additionalProperties: true },
      { type: 'object', properties: { x: { type: 'date', description: '' } }, additionalProperties: false },
      { type: 'object', properties: { x: { type: 'boolean' } }, additionalProperties: false },
      {
        type: 'object',
        properties: { unsigned: { type: 'object', description: 'other', properties: {}, additionalProperties: false } },
        additionalProperties: false,
      },
      { type: 'object', properties: {}, additionalProperties: false, extra: 1 },
    ];
    for (const jsonSchema of bad) {
      const r = await t.api('PUT', `/v1/orgs/${o.orgId}/sites/${site.id}/adaptive-schema`, { token: o.adminToken, body: { jsonSchema } });
      expect(r.status, JSON.stringify(jsonSchema)).toBe(400);
      expect(r.body.error.message).toContain('body.jsonSchema');
    }
  });
});
