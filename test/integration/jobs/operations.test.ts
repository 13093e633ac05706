// GET /v1/operations/{id} (issue 8, item 7): an operation is readable only by someone who can see
// its target; anyone else gets the 404 of an unknown id.
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { setSpaceMember } from '../../../src/db/repos/spaces.js';
import { purgeNextSpace } from '../../../src/db/repos/purge.js';
import { withTx } from '../../../src/db/pool.js';

const { t, org } = useTestApp({ seedOrg: true }); // no workers: the operations stay queued, which is all these tests read
let privateSpace: string;
let importOp: string;
let crPdfOp: string;
let specOp: string;

const opPath = (location: string | null) => new URL(location!).pathname;

async function readOp(id: string, token: string) {
  return t.api('GET', `/v1/operations/${id}`, { token });
}

/** The exact answer for an id that does not exist: a refused one must be indistinguishable. */
async function expectUnknown(id: string, token: string) {
  const r = await readOp(id, token);
  expect(r.status).toBe(404);
  expect(r.body).toEqual({ error: { code: 404, message: `Operation "${id}" not found` } });
}

beforeAll(async () => {
  const s = await t.api('POST', `/v1/orgs/${org.orgId}/spaces`, { token: org.adminToken, body: { title: 'Private plans', empty: true } });
  expect(s.body.visibility).toBe('private');
  privateSpace = s.body.id;
  const imp = await t.api('POST', `/v1/spaces/${privateSpace}/content/import`, {
    token: org.adminToken,
    body: { source: 'website', url: 'http://127.0.0.1:9/plans' },
  });
  expect(imp.status).toBe(201);
  importOp = opPath(imp.headers.get('location')).split('/').pop()!;
  const cr = await t.api('POST', `/v1/spaces/${privateSpace}/change-requests`, { token: org.adminToken, body: { subject: 'Secret plan' } });
  const pdf = await t.api('GET', `/v1/spaces/${privateSpace}/change-requests/${cr.body.id}/pdf`, { token: org.adminToken });
  expect(pdf.status).toBe(200);
  crPdfOp = opPath(pdf.headers.get('location')).split('/').pop()!;
  const spec = await t.api('POST', `/v1/orgs/${org.orgId}/openapi`, {
    token: org.adminToken,
    body: { slug: 'api', source: { text: 'openapi: 3.0.3' } },
  });
  specOp = opPath(spec.headers.get('location')).split('/').pop()!;
});

describe('operation visibility', () => {
  it('lets an admin read the operations of a private space, its change requests and the organization specs', async () => {
    for (const id of [importOp, crPdfOp, specOp]) {
      const r = await readOp(id, org.adminToken);
      expect(r.status, id).toBe(200);
      expect(r.body).toMatchObject({ object: 'operation', id });
    }
    expect((await readOp(importOp, org.adminToken)).body.target).toEqual({ type: 'space', id: privateSpace });
    expect((await readOp(crPdfOp, org.adminToken)).body.target.type).toBe('change-request');
  });

  it('refuses a guest and a non-member the operations of a private space with the 404 of an unknown id', async () => {
    const guest = await t.seedUser(org.orgId, null);
    const outsider = await t.seedUser();
    await expectUnknown('noSuchOperation00001', org.adminToken);
    for (const who of [guest, outsider]) {
      await expectUnknown(importOp, who.token);
      await expectUnknown(crPdfOp, who.token);
    }
    // Organization specs: a non-member sees nothing of them either.
    await expectUnknown(specOp, outsider.token);
  });

  it('follows the space: a reader of the organization sees them, a guest invited to the space too', async () => {
    const reader = await t.seedUser(org.orgId, 'read');
    expect((await readOp(importOp, reader.token)).status).toBe(200);
    expect((await readOp(crPdfOp, reader.token)).status).toBe(200);
    const guest = await t.seedUser(org.orgId, null);
    await expectUnknown(importOp, guest.token);
    await setSpaceMember(t.app.db, privateSpace, guest.userId, 'read');
    expect((await readOp(importOp, guest.token)).status).toBe(200);
    expect((await readOp(crPdfOp, guest.token)).status).toBe(200);
  });

  it('takes the operation away from its creator once they lose access to the space', async () => {
    const editor = await t.seedUser(org.orgId, 'edit');
    const imp = await t.api('POST', `/v1/spaces/${privateSpace}/content/import`, {
      token: editor.token,
      body: { source: 'website', url: 'http://127.0.0.1:9/more' },
    });
    expect(imp.status).toBe(201);
    const id = opPath(imp.headers.get('location')).split('/').pop()!;
    expect((await readOp(id, editor.token)).status).toBe(200);
    expect((await t.api('DELETE', `/v1/orgs/${org.orgId}/members/${editor.userId}`, { token: org.adminToken })).status).toBe(204);
    await expectUnknown(id, editor.token);
    expect((await readOp(id, org.adminToken)).status).toBe(200);
  });

  it('keeps the operations of a deleted space readable by those who could see it', async () => {
    const s = await t.api('POST', `/v1/orgs/${org.orgId}/spaces`, { token: org.adminToken, body: { title: 'Soon gone', empty: true } });
    const imp = await t.api('POST', `/v1/spaces/${s.body.id}/content/import`, {
      token: org.adminToken,
      body: { source: 'website', url: 'http://127.0.0.1:9/gone' },
    });
    const id = opPath(imp.headers.get('location')).split('/').pop()!;
    expect((await t.api('DELETE', `/v1/spaces/${s.body.id}`, { token: org.adminToken })).status).toBe(204);
    const reader = await t.seedUser(org.orgId, 'read');
    expect((await readOp(id, org.adminToken)).status).toBe(200);
    expect((await readOp(id, reader.token)).status).toBe(200);
    await expectUnknown(id, (await t.seedUser(org.orgId, null)).token);

    // Purged for good: only the organization's admins still read what ran on it.
    const purged = await withTx(t.app.db, (c) => purgeNextSpace(c, new Date(Date.now() + 60_000)));
    expect(purged?.id).toBe(s.body.id);
    expect((await readOp(id, org.adminToken)).status).toBe(200);
    await expectUnknown(id, reader.token);
  });
});
