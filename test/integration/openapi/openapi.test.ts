import os from 'node:os';
import dns from 'node:dns/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPrivateAddress } from '../../../src/net/address-policy.js';
import { startTestApp, useTestApp } from '../../helpers/app.js';
import { waitFor } from '../../helpers/http.js';
import { operationSettled } from '../../helpers/operations.js';
import { OPENAPI_FIXTURES, requireFixtures } from '../../helpers/fixtures.js';
import { assertMatchesSpec } from '../../helpers/spec.js';
import { startSpecServer, fixture } from '../../helpers/spec-server.js';

let specs: Awaited<ReturnType<typeof startSpecServer>>;
beforeAll(async () => {
  specs = await startSpecServer();
});
afterAll(() => specs.close());
const { t, org } = useTestApp({ workers: ['openapi'], seedOrg: true });

const base = () => `/v1/orgs/${org.orgId}/openapi`;

/** Wait until the operation named by a Location header is final; returns it. */
const settle = (location: string, token = org.adminToken) => operationSettled(t, location, { token });

describe('OpenAPI spec processing lifecycle', () => {
  it('creates from a URL: 201 pending at once, then progress to complete with a stored version', async () => {
    const r = await t.api('POST', base(), {
      token: org.adminToken,
      body: { slug: 'petstore', source: { url: `${specs.url}/petstore.yaml` } },
    });
    expect(r.status).toBe(201);
    assertMatchesSpec('POST', '/orgs/{organizationId}/openapi', 201, r.body);
    expect(r.body).toMatchObject({
      object: 'openapi-spec',
      slug: 'petstore',
      processingState: 'pending',
      sourceURL: `${specs.url}/petstore.yaml`,
    });
    expect(r.body.lastVersion).toBeUndefined();
    const location = r.headers.get('location')!;
    expect(location).toMatch(new RegExp(`^${t.baseUrl}/v1/operations/\\w+$`));

    const op = await settle(location);
    expect(op).toMatchObject({
      object: 'operation',
      kind: 'openapi.process',
      status: 'succeeded',
      progress: 1,
      target: { type: 'openapi-spec', id: r.body.id },
    });
    expect(op.result).toMatchObject({ openapi: '3.0.3', title: 'Petstore' });

    const spec = await t.api('GET', `${base()}/petstore`, { token: org.adminToken });
    assertMatchesSpec('GET', '/orgs/{organizationId}/openapi/{specSlug}', 200, spec.body);
    expect(spec.body.processingState).toBe('complete');
    expect(spec.body.lastVersion).toBe(op.result.version);
    expect(Date.parse(spec.body.lastProcessedAt)).toBeGreaterThan(Date.parse(r.body.createdAt) - 1000);
    expect(spec.body.lastProcessErrorCode).toBeUndefined();

    // The processed content is in the BlobStore and served back.
    const keys = await t.app.blobs.list(`openapi/${r.body.id}/`);
    expect(keys).toEqual([`openapi/${r.body.id}/${op.result.version}/bundle.json`, `openapi/${r.body.id}/${op.result.version}/source.txt`]);
    const content = await t.api('GET', `${base()}/petstore/versions/latest/content`, { token: org.adminToken });
    expect(content.status).toBe(200);
    expect(content.body.filesystem.paths['/pets'].get.operationId).toBe('listPets');
    const raw = await t.api('GET', `${base()}/petstore/versions/latest/content/raw`, { token: org.adminToken });
    expect(raw.body).toEqual({ text: await fixture('petstore.yaml'), format: 'yaml' });
    const version = await t.api('GET', `${base()}/petstore/versions/latest`, { token: org.adminToken });
    expect(version.body).toMatchObject({ object: 'openapi-spec-version', id: op.result.version });
  });

  it('saw the spec in the progress state while the worker fetched it', async () => {
    // /flaky/ stalls on its first request; the spec sits in `progress` until the fetch times out.
    const r = await t.api('POST', base(), {
      token: org.adminToken,
      body: { slug: 'slow', source: { url: `${specs.url}/flaky/petstore.yaml` } },
    });
    await waitFor(async () => (await t.api('GET', `${base()}/slow`, { token: org.adminToken })).body.processingState === 'progress', {
      what: 'progress state',
    });
    const op = await settle(r.headers.get('location')!);
    expect(op.status).toBe('failed');
  });

  it('processes a real multi-file spec, bundling its relative $refs', async () => {
    const r = await t.api('PUT', `${base()}/bookshop`, {
      token: org.adminToken,
      body: { source: { url: `${specs.url}/multi/openapi.yaml` } },
    });
    expect(r.status).toBe(201);
    const op = await settle(r.headers.get('location')!);
    expect(op.status).toBe('succeeded');
    const content = await t.api('GET', `${base()}/bookshop/versions/latest/content`, { token: org.adminToken });
    const text = JSON.stringify(content.body.filesystem);
    expect(text).toContain('ISBN13Identifier');
    expect(text).toContain('AuthorFullName');
    expect(text).not.toContain('.yaml');
    expect(specs.hits.get('/multi/schemas/book.yaml')).toBeGreaterThanOrEqual(1);
    expect(specs.hits.get('/multi/paths/authors.yaml')).toBeGreaterThanOrEqual(1);
  });

  it('accepts Swagger 2.0 and OpenAPI 3.1 documents, and the inline-text source', async () => {
    const a = await t.api('PUT', `${base()}/legacy`, { token: org.adminToken, body: { source: { url: `${specs.url}/swagger2.json` } } });
    const b = await t.api('PUT', `${base()}/modern`, { token: org.adminToken, body: { source: { url: `${specs.url}/v31.json` } } });
    const c = await t.api('POST', base(), {
      token: org.adminToken,
      body: { slug: 'inline', source: { text: await fixture('petstore.yaml') } },
    });
    expect(c.status).toBe(201);
    expect(c.body.sourceURL).toBeUndefined();
    expect((await settle(a.headers.get('location')!)).result.openapi).toBe('2.0');
    expect((await settle(b.headers.get('location')!)).result.openapi).toBe('3.1.0');
    expect((await settle(c.headers.get('location')!)).result.title).toBe('Petstore');
    const raw = await t.api('GET', `${base()}/legacy/versions/latest/content/raw`, { token: org.adminToken });
    expect(raw.body.format).toBe('json');
  });

  it('processes a real description that breaks strict validation, with the problems readable as warnings', async () => {
    // GrowthBook's REST description: 119 responses without a description, `$ref` as an operation.
    requireFixtures(OPENAPI_FIXTURES);
    const r = await t.api('PUT', `${base()}/growthbook`, {
      token: org.adminToken,
      body: { source: { url: `${specs.url}/shared/growthbook-rest-api/openapi.yaml` } },
    });
    expect(r.status).toBe(201);
    const op = await settle(r.headers.get('location')!);
    expect(op.status, JSON.stringify(op.error ?? op)).toBe('succeeded');
    expect(op.result).toMatchObject({ openapi: '3.1.0', title: 'GrowthBook REST API' });
    expect(op.result.warnings).toBeGreaterThanOrEqual(100);

    const spec = (await t.api('GET', `${base()}/growthbook`, { token: org.adminToken })).body;
    assertMatchesSpec('GET', '/orgs/{organizationId}/openapi/{specSlug}', 200, spec);
    expect(spec).toMatchObject({
      processingState: 'complete',
      lastVersion: op.result.version,
      lastProcessedErrorCount: op.result.warnings,
    });
    expect(spec.lastProcessErrorCode).toBeUndefined();
    expect(spec.lastProcessedErrors).toHaveLength(100); // kept: the first 100; the count says how many in all
    expect(spec.lastProcessedErrors[0]).toEqual({
      code: 'SCHEMA_VALIDATION',
      message: "OpenAPI 3.1 schema: #/paths/~1features/get/responses/200 must have required property 'description'",
    });

    const version = await t.api('GET', `${base()}/growthbook/versions/latest`, { token: org.adminToken });
    assertMatchesSpec('GET', '/orgs/{organizationId}/openapi/{specSlug}/versions/latest', 200, version.body);
    expect(version.body.warningCount).toBe(op.result.warnings);
    expect(version.body.warnings[0].code).toBe('SCHEMA_VALIDATION');
    const content = await t.api('GET', `${base()}/growthbook/versions/latest/content`, { token: org.adminToken });
    expect(Object.keys(content.body.filesystem.paths)).toHaveLength(71);

    // A clean description processed afterwards clears the warnings.
    const again = await t.api('PUT', `${base()}/growthbook`, { token: org.adminToken, body: { source: { url: `${specs.url}/v31.json` } } });
    expect((await settle(again.headers.get('location')!)).status).toBe('succeeded');
    const clean = (await t.api('GET', `${base()}/growthbook`, { token: org.adminToken })).body;
    expect(clean).toMatchObject({ lastProcessedErrors: [], lastProcessedErrorCount: 0 });
  });

  it('gives FETCH_TIMEOUT for a server that stalls', async () => {
    const r = await t.api('POST', base(), { token: org.adminToken, body: { slug: 'stalls', source: { url: `${specs.url}/stall` } } });
    const op = await settle(r.headers.get('location')!);
    expect(op.status).toBe('failed');
    expect(op.error).toMatch(/^FETCH_TIMEOUT: Timed out/);
    const spec = (await t.api('GET', `${base()}/stalls`, { token: org.adminToken })).body;
    expect(spec).toMatchObject({ processingState: 'complete', lastProcessErrorCode: 'FETCH_TIMEOUT' });
    expect(spec.lastVersion).toBeUndefined();
    expect(spec.lastProcessedAt).toBeDefined();
    assertMatchesSpec('GET', '/orgs/{organizationId}/openapi/{specSlug}', 200, spec);
  });

  it('gives FETCH_ERROR for a server answering 500 and keeps the previous version', async () => {
    const good = (await t.api('GET', `${base()}/petstore`, { token: org.adminToken })).body;
    const r = await t.api('PUT', `${base()}/petstore`, { token: org.adminToken, body: { source: { url: `${specs.url}/error500` } } });
    expect(r.status).toBe(200);
    expect(r.body.processingState).toBe('pending');
    const op = await settle(r.headers.get('location')!);
    expect(op.status).toBe('failed');
    expect(op.error).toContain('FETCH_ERROR');
    expect(op.error).toContain('HTTP 500');
    const spec = (await t.api('GET', `${base()}/petstore`, { token: org.adminToken })).body;
    expect(spec).toMatchObject({ processingState: 'complete', lastProcessErrorCode: 'FETCH_ERROR', lastVersion: good.lastVersion });
    expect(spec.lastProcessedErrors[0].message).toContain('500');
    // The last good version is still served.
    const content = await t.api('GET', `${base()}/petstore/versions/latest/content`, { token: org.adminToken });
    expect(content.body.filesystem.info.title).toBe('Petstore');
  });

  it('gives PARSE_ERROR for malformed YAML and for an invalid document', async () => {
    const a = await t.api('POST', base(), {
      token: org.adminToken,
      body: { slug: 'malformed', source: { url: `${specs.url}/malformed.yaml` } },
    });
    const b = await t.api('POST', base(), {
      token: org.adminToken,
      body: { slug: 'invalid', source: { url: `${specs.url}/invalid.yaml` } },
    });
    const c = await t.api('POST', base(), { token: org.adminToken, body: { slug: 'not-openapi', source: { text: 'hello: world' } } });
    for (const [r, slug] of [
      [a, 'malformed'],
      [b, 'invalid'],
      [c, 'not-openapi'],
    ] as const) {
      const op = await settle(r.headers.get('location')!);
      expect(op.status).toBe('failed');
      expect(op.error).toMatch(/^PARSE_ERROR: /);
      const spec = (await t.api('GET', `${base()}/${slug}`, { token: org.adminToken })).body;
      expect(spec).toMatchObject({ processingState: 'complete', lastProcessErrorCode: 'PARSE_ERROR' });
      expect(await t.app.blobs.list(`openapi/${spec.id}/`)).toEqual([]);
    }
  });

  it('a newer PUT supersedes a run still in progress', async () => {
    const r1 = await t.api('PUT', `${base()}/racy`, { token: org.adminToken, body: { source: { url: `${specs.url}/stall` } } });
    await waitFor(async () => (await t.api('GET', `${base()}/racy`, { token: org.adminToken })).body.processingState === 'progress');
    const r2 = await t.api('PUT', `${base()}/racy`, { token: org.adminToken, body: { source: { url: `${specs.url}/v31.json` } } });
    expect(r2.status).toBe(200);
    const [op1, op2] = await Promise.all([settle(r1.headers.get('location')!), settle(r2.headers.get('location')!)]);
    expect(op2.status).toBe('succeeded');
    expect(op1.status).toBe('skipped');
    const spec = (await t.api('GET', `${base()}/racy`, { token: org.adminToken })).body;
    expect(spec).toMatchObject({ processingState: 'complete', lastVersion: op2.result.version });
    expect(spec.lastProcessErrorCode).toBeUndefined();
  });
});

describe('OpenAPI spec operations', () => {
  it('lists specs with pagination', async () => {
    const p1 = await t.api('GET', `${base()}?limit=2`, { token: org.adminToken });
    expect(p1.status).toBe(200);
    assertMatchesSpec('GET', '/orgs/{organizationId}/openapi', 200, p1.body);
    expect(p1.body.items).toHaveLength(2);
    const all: string[] = [...p1.body.items.map((s: any) => s.slug)];
    let page = p1;
    while (page.body.next) {
      page = await t.api('GET', `${base()}?limit=2&page=${page.body.next.page}`, { token: org.adminToken });
      all.push(...page.body.items.map((s: any) => s.slug));
    }
    expect(all.length).toBe(p1.body.count);
    expect(all.slice(0, 2)).toEqual(['petstore', 'slow']);
  });

  it('enforces the slug pattern and length, the URL limit and the source shape', async () => {
    const cases: [unknown, string][] = [
      [{ slug: 'MySpec', source: { url: `${specs.url}/v31.json` } }, 'body.slug'],
      [{ slug: 'double--hyphen', source: { url: `${specs.url}/v31.json` } }, 'body.slug'],
      [{ slug: 'a'.repeat(101), source: { url: `${specs.url}/v31.json` } }, 'body.slug'],
      [{ slug: '', source: { url: `${specs.url}/v31.json` } }, 'body.slug'],
      [{ slug: 'long-url', source: { url: `https://example.com/${'a'.repeat(2040)}` } }, 'body.source'],
      [{ slug: 'ftp', source: { url: 'ftp://example.com/spec.yaml' } }, 'body.source'],
      [{ slug: 'both', source: { url: `${specs.url}/v31.json`, text: 'x' } }, 'body.source'],
      [{ slug: 'empty-text', source: { text: '' } }, 'body.source'],
      [{ source: { url: `${specs.url}/v31.json` } }, 'body.slug'],
    ];
    for (const [body, field] of cases) {
      const r = await t.api('POST', base(), { token: org.adminToken, body });
      expect(r.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(r.body.error.message).toContain(field);
    }
    const ok = await t.api('POST', base(), {
      token: org.adminToken,
      body: { slug: 'a'.repeat(100), source: { url: `${specs.url}/v31.json` } },
    });
    expect(ok.status).toBe(201);
    expect((await t.api('GET', `${base()}/Not-Lower`, { token: org.adminToken })).status).toBe(400);
  });

  it('never shows credentials of a source URL', async () => {
    const url = `${specs.url.replace('http://', 'http://user:s3cret@')}/petstore.yaml`;
    const r = await t.api('POST', base(), { token: org.adminToken, body: { slug: 'with-creds', source: { url } } });
    expect(r.status).toBe(201);
    expect(r.text).not.toContain('s3cret');
    expect(r.body.sourceURL).toBe(`${specs.url}/petstore.yaml`);
    const op = await settle(r.headers.get('location')!);
    expect(op.status).toBe('succeeded');
    const got = await t.api('GET', `${base()}/with-creds`, { token: org.adminToken });
    expect(got.text).not.toContain('s3cret');
  });

  it('refuses a duplicate slug on POST with 409', async () => {
    const r = await t.api('POST', base(), { token: org.adminToken, body: { slug: 'petstore', source: { url: `${specs.url}/v31.json` } } });
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe(409);
  });

  it('checks permissions: readers read, creators write, outsiders nothing', async () => {
    const reader = await t.seedUser(org.orgId, 'read');
    const creator = await t.seedUser(org.orgId, 'create');
    const outsider = await t.seedUser();
    const list = await t.api('GET', base(), { token: reader.token });
    expect(list.status).toBe(200);
    expect(list.body.items[0].permissions).toEqual({ view: true, edit: false });
    expect((await t.api('POST', base(), { token: reader.token, body: { slug: 'nope', source: { text: 'x' } } })).status).toBe(403);
    expect((await t.api('PUT', `${base()}/petstore`, { token: reader.token, body: { source: { text: 'x' } } })).status).toBe(403);
    expect((await t.api('PATCH', `${base()}/petstore`, { token: reader.token, body: { visibility: 'public' } })).status).toBe(403);
    expect((await t.api('DELETE', `${base()}/petstore`, { token: reader.token })).status).toBe(403);
    expect((await t.api('GET', `${base()}/petstore`, { token: outsider.token })).status).toBe(403);
    expect((await t.api('GET', base(), { token: null })).status).toBe(401);
    const c = await t.api('POST', base(), {
      token: creator.token,
      body: { slug: 'by-creator', source: { text: await fixture('petstore.yaml') } },
    });
    expect(c.status).toBe(201);
    expect(c.body.permissions).toEqual({ view: true, edit: true });
    // An outsider cannot read the organization's operations either: the 404 of an unknown id.
    expect((await t.api('GET', new URL(c.headers.get('location')!).pathname, { token: outsider.token })).status).toBe(404);
    expect((await t.api('GET', '/v1/operations/nonexistent', { token: org.adminToken })).status).toBe(404);
  });

  it('patches visibility; a public spec is served at its published URL without a token', async () => {
    const r = await t.api('PATCH', `${base()}/petstore`, { token: org.adminToken, body: { visibility: 'public' } });
    expect(r.status).toBe(200);
    assertMatchesSpec('PATCH', '/orgs/{organizationId}/openapi/{specSlug}', 200, r.body);
    expect(r.body.visibility).toBe('public');
    const published = await fetch(r.body.urls.published);
    expect(published.status).toBe(200);
    expect((await published.json()).info.title).toBe('Petstore');
    const priv = await t.api('PATCH', `${base()}/petstore`, { token: org.adminToken, body: { visibility: 'private' } });
    expect(priv.body.urls.published).toBeUndefined();
    expect((await fetch(r.body.urls.published)).status).toBe(404);
    expect((await t.api('PATCH', `${base()}/petstore`, { token: org.adminToken, body: { visibility: 'secret' } })).status).toBe(400);
    expect((await t.api('PATCH', `${base()}/nothing`, { token: org.adminToken, body: { visibility: 'public' } })).status).toBe(404);
  });

  it('deletes a spec with its stored versions; 204 also when absent', async () => {
    const spec = (await t.api('GET', `${base()}/bookshop`, { token: org.adminToken })).body;
    expect((await t.app.blobs.list(`openapi/${spec.id}/`)).length).toBeGreaterThan(0);
    expect((await t.api('DELETE', `${base()}/bookshop`, { token: org.adminToken })).status).toBe(204);
    expect((await t.api('GET', `${base()}/bookshop`, { token: org.adminToken })).status).toBe(404);
    expect(await t.app.blobs.list(`openapi/${spec.id}/`)).toEqual([]);
    const { rows } = await t.app.db.query('SELECT count(*) AS n FROM openapi_spec_versions WHERE spec_id = $1', [spec.id]);
    expect(rows[0].n).toBe(0);
    expect((await t.api('DELETE', `${base()}/bookshop`, { token: org.adminToken })).status).toBe(204);
  });
});

describe('fetch policy', () => {
  it('refuses loopback and private sources unless configuration allows them', async () => {
    const strict = await startTestApp({ workers: ['openapi'], env: { ALLOW_PRIVATE_FETCH: 'false' } });
    try {
      const o = await strict.seedOrg();
      const before = specs.hits.get('/petstore.yaml') ?? 0;
      // A literal loopback address is refused at once (400), before any operation exists.
      const r = await strict.api('POST', `/v1/orgs/${o.orgId}/openapi`, {
        token: o.adminToken,
        body: { slug: 'ssrf', source: { url: `${specs.url}/petstore.yaml` } },
      });
      expect(r.status).toBe(400);
      expect(r.body.error.message).toMatch(/body\.source\.url: Refusing to fetch .*private and loopback/);
      expect((await strict.api('GET', `/v1/orgs/${o.orgId}/openapi/ssrf`, { token: o.adminToken })).status).toBe(404);
      // A name that resolves to loopback (this machine's own hostname, via /etc/hosts) is refused
      // by the DNS guard at connect time, not only by the literal-address check.
      const host = os.hostname();
      const resolved = await dns.lookup(host, { all: true });
      expect(
        resolved.some((a) => isPrivateAddress(a.address)),
        `${host} should resolve to a private address`,
      ).toBe(true);
      const r2 = await strict.api('POST', `/v1/orgs/${o.orgId}/openapi`, {
        token: o.adminToken,
        body: { slug: 'ssrf-dns', source: { url: `http://${host}:${new URL(specs.url).port}/petstore.yaml` } },
      });
      const op2 = await waitFor(async () => {
        const x = await strict.api('GET', new URL(r2.headers.get('location')!).pathname, { token: o.adminToken });
        return x.body.status === 'failed' ? x.body : null;
      });
      expect(op2.error).toMatch(/FETCH_ERROR: Refusing to fetch .*resolves to a private address/);
      expect(specs.hits.get('/petstore.yaml') ?? 0).toBe(before);
    } finally {
      await strict.close();
    }
  });
});
