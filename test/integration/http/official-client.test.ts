import { expect, it } from 'vitest';
import { GitBookAPI, GitBookAPIError } from '@gitbook/api';
import { useTestApp } from '../../helpers/app.js';
import { waitFor } from '../../helpers/http.js';
import { fixture } from '../../helpers/spec-server.js';

// The official TypeScript client of the public API, pointed at our server: what an existing
// integration would do.
const { t } = useTestApp({ workers: ['openapi'] });

it('works for organizations, members and OpenAPI specs', async () => {
  const org = await t.seedOrg('Client org');
  await t.seedUser(org.orgId, 'edit', 'Eve Editor');
  // The package's typings import './client' without an extension, which NodeNext resolution
  // cannot follow, so its methods are untyped here; the runtime client is the real one.
  const api: any = new GitBookAPI({ endpoint: t.baseUrl, authToken: org.adminToken });

  const orgs = await api.orgs.listOrganizationsForAuthenticatedUser();
  expect(orgs.data.items.map((o: { id: string }) => o.id)).toEqual([org.orgId]);
  const patched = await api.orgs.updateOrganizationById(org.orgId, { title: 'Renamed by client' });
  expect(patched.data.title).toBe('Renamed by client');
  const members = await api.orgs.listMembersInOrganizationById(org.orgId, { order: 'asc' });
  expect(members.data.items.map((m: any) => m.user.displayName)).toEqual(['Ada Admin', 'Eve Editor']);

  const created = await api.orgs.createOpenApiSpec(org.orgId, { slug: 'client-spec', source: { text: await fixture('petstore.yaml') } });
  expect(created.status).toBe(201);
  expect(created.data.processingState).toBe('pending');
  const done = await waitFor(async () => {
    const s = await api.orgs.getOpenApiSpecBySlug(org.orgId, 'client-spec');
    return s.data.processingState === 'complete' ? s.data : null;
  });
  expect(done.lastVersion).toBeDefined();

  // Errors reach the client as its own error type with our status and message.
  const err = await api.orgs.getOpenApiSpecBySlug(org.orgId, 'missing-spec').catch((e: unknown) => e);
  expect(err).toBeInstanceOf(GitBookAPIError);
  expect(err.code).toBe(404);
  expect(err.message).toContain('missing-spec');
});
