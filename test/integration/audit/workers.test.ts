// The worker side of the audit log: a job that changes things, run by a real worker, is recorded
// when it ends, as the user who asked for it.
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { operationSettled } from '../../helpers/operations.js';

const { t } = useTestApp({ workers: ['openapi'] });

const SPEC =
  'openapi: 3.0.3\ninfo: {title: Pets, version: 1.0.0}\npaths:\n  /pets:\n    get:\n      responses:\n        "200": {description: OK}\n';

async function eventsOf(orgId: string, token: string, action: string) {
  // The runner records the end after the operation's final write: wait for it.
  for (let i = 0; i < 200; i++) {
    const r = await t.api('GET', `/v1/orgs/${orgId}/audit-events?action=${action}`, { token });
    if (r.body.items.length) return r.body.items;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return [];
}

describe('audit events of worker jobs', () => {
  it('an OpenAPI processing run is recorded when it succeeds, beside the API call that asked for it', async () => {
    const org = await t.seedOrg();
    const r = await t.api('POST', `/v1/orgs/${org.orgId}/openapi`, {
      token: org.adminToken,
      body: { slug: 'pets', source: { text: SPEC } },
    });
    expect(r.status).toBe(201);
    const op = await operationSettled(t, r.headers.get('location'), { token: org.adminToken });
    expect(op.status).toBe('succeeded');

    const [created] = await eventsOf(org.orgId, org.adminToken, 'openapi.create');
    expect(created).toMatchObject({ source: 'api', actor: { id: org.adminId } });
    const [ran] = await eventsOf(org.orgId, org.adminToken, 'jobs.openapi.process.succeeded');
    expect(ran).toMatchObject({ source: 'workflow', actor: { type: 'user', id: org.adminId } });
    const details = await t.api('GET', `/v1/orgs/${org.orgId}/audit-events/${ran.id}`, { token: org.adminToken });
    expect(details.body.executionId).toBe(op.id);
  });
});
