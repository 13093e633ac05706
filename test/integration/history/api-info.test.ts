import { expect, it } from 'vitest';
import { GitBookAPI } from '@gitbook/api';
import { useTestApp } from '../../helpers/app.js';
import { waitFor } from '../../helpers/http.js';
import { fixture } from '../../helpers/spec-server.js';
import { assertMatchesSpec } from '../../helpers/spec.js';

// getApiInformation and listOpenAPISpecVersions (issue 28, item 6) through the official client.
const { t } = useTestApp({ workers: ['openapi'] });

it('the API says its version; a spec lists its processed versions, newest first, paginated; non-members are refused', async () => {
  const org = await t.seedOrg('Versions org');
  const api: any = new GitBookAPI({ endpoint: t.baseUrl, authToken: org.adminToken });

  const info = await api.getApiInformation();
  assertMatchesSpec('GET', '/', 200, info.data);
  expect(info.data.version).toMatch(/^\d+\.\d+\.\d+/);
  expect(Number.isNaN(Date.parse(info.data.build))).toBe(false);
  expect((await t.api('GET', '/v1/')).status).toBe(401);

  const text = await fixture('petstore.yaml');
  await api.orgs.createOpenApiSpec(org.orgId, { slug: 'pets', source: { text } });
  const first = await waitFor(async () => {
    const s = (await api.orgs.getOpenApiSpecBySlug(org.orgId, 'pets')).data;
    return s.processingState === 'complete' && s.lastVersion ? s.lastVersion : null;
  });
  // A second version: the same spec, changed.
  await api.orgs.createOrUpdateOpenApiSpecBySlug(org.orgId, 'pets', { source: { text: text.replace(/title: .*/, 'title: Pets v2') } });
  const second = await waitFor(async () => {
    const s = (await api.orgs.getOpenApiSpecBySlug(org.orgId, 'pets')).data;
    return s.processingState === 'complete' && s.lastVersion && s.lastVersion !== first ? s.lastVersion : null;
  });

  const versions = await api.orgs.listOpenApiSpecVersions(org.orgId, 'pets');
  assertMatchesSpec('GET', '/orgs/{organizationId}/openapi/{specSlug}/versions', 200, versions.data);
  expect(versions.data.items.map((v: any) => v.id)).toEqual([second, first]);
  expect(versions.data.count).toBe(2);
  const one = await api.orgs.listOpenApiSpecVersions(org.orgId, 'pets', { limit: 1 });
  expect(one.data.items.map((v: any) => v.id)).toEqual([second]);
  const next = await api.orgs.listOpenApiSpecVersions(org.orgId, 'pets', { limit: 1, page: one.data.next.page });
  expect(next.data.items.map((v: any) => v.id)).toEqual([first]);
  expect(next.data.next).toBeUndefined();
  // Each listed version is the one its location reads.
  const loc = await t.api('GET', new URL(versions.data.items[1].urls.location).pathname, { token: org.adminToken });
  expect(loc.body.id).toBe(first);

  expect((await t.api('GET', `/v1/orgs/${org.orgId}/openapi/missing/versions`, { token: org.adminToken })).status).toBe(404);
  const outsider = await t.seedUser(undefined, undefined, 'Oscar Outsider');
  expect((await t.api('GET', `/v1/orgs/${org.orgId}/openapi/pets/versions`, { token: outsider.token })).status).toBe(403);
});
