// A run asked for while one is still queued joins it: one more run, not one per request.
import { expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { waitFor } from '../../helpers/http.js';

const { t } = useTestApp(); // no workers until the test starts them

it('coalesces runs requested while one is queued, then runs once', async () => {
  const org = await t.seedOrg();
  const space = await t.api('POST', `/v1/orgs/${org.orgId}/spaces`, { token: org.adminToken, body: { title: 'Docs' } });
  const created = await t.api('POST', `/v1/orgs/${org.orgId}/translations`, {
    token: org.adminToken,
    body: { language: 'es', source: { space: space.body.id, language: 'en' } },
  });
  expect(created.status).toBe(201);
  const tr = `/v1/orgs/${org.orgId}/translations/${created.body.id}`;
  const first = created.headers.get('operation-location');
  const runs = await Promise.all([1, 2, 3].map(() => t.api('POST', `${tr}/run`, { token: org.adminToken })));
  for (const r of runs) {
    expect(r.status).toBe(204);
    expect(r.headers.get('location')).toBe(first);
  }
  t.startWorkers(['translation']);
  const done = await waitFor(async () => {
    const r = await t.api('GET', tr, { token: org.adminToken });
    return r.body.status === 'completed' ? r.body : null;
  });
  expect(done.stats.runs).toBe(1);
  expect(done.stats.latestPages).toBe(1); // the new space's "Introduction" page
  const { rows } = await t.app.db.query(`SELECT count(*)::int AS n FROM operations WHERE kind = 'translation.run'`);
  expect(rows[0].n).toBe(1);
});
