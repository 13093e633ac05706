import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitBookAPI } from '@gitbook/api';
import { useTestApp } from '../../helpers/app.js';
import { assertMatchesSpec } from '../../helpers/spec.js';
import { parseAuthnRequest, startTestIdp, type TestIdp } from '../../helpers/saml-idp.js';
import { startTestSmtp, type TestSmtp } from '../../helpers/smtp.js';
import { purgeExpiredAuditEvents, recordAudit } from '../../../src/services/audit.js';

let idp: TestIdp;
let smtp: TestSmtp;
beforeAll(async () => {
  idp = await startTestIdp();
  smtp = await startTestSmtp();
});
afterAll(async () => {
  await idp?.close();
  await smtp?.close();
});
const { t } = useTestApp(() => ({ env: { SMTP_URL: smtp.url } }));

const client = (token: string): any => new GitBookAPI({ endpoint: t.baseUrl, authToken: token });

async function events(orgId: string, token: string, query: Record<string, string> = {}) {
  const r = await t.api('GET', `/v1/orgs/${orgId}/audit-events?${new URLSearchParams(query)}`, { token });
  expect(r.status).toBe(200);
  assertMatchesSpec('GET', '/orgs/{organizationId}/audit-events', 200, r.body);
  return r.body.items as any[];
}

async function ssoProvider(orgId: string, token: string, defaultRole = 'read') {
  const r = await t.api('POST', `/v1/orgs/${orgId}/saml`, {
    token,
    body: { label: 'Test IdP', entityID: idp.entityId, certificate: idp.keys.cert, ssoURL: idp.ssoUrl, defaultRole },
  });
  expect(r.status).toBe(201);
  return r.body.id as string;
}

/** start -> IdP -> ACS -> welcome page: the session and the API token the sign-in minted. */
async function ssoSignIn(providerId: string, email: string) {
  const start = await t.api('GET', `/sso/saml/${providerId}/start`);
  const req = parseAuthnRequest(start.headers.get('location')!);
  const made = idp.response({ inResponseTo: req.id, acsUrl: req.acsUrl, audience: req.issuer, email });
  const acs = await t.api('POST', `/sso/saml/${providerId}/acs`, {
    rawBody: new URLSearchParams({ SAMLResponse: made.samlResponse }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  expect(acs.status).toBe(303);
  const session = /dp_session=([^;]+)/.exec(acs.headers.get('set-cookie') ?? '')![1];
  const welcome = await t.api('GET', '/sso/welcome', { headers: { cookie: `dp_session=${session}` } });
  return /<code id="token">([^<]+)</.exec(welcome.text)![1];
}

describe('the audit log', () => {
  it('records a permission change with who, what, on what, when and from where; filters; admins only', async () => {
    const org = await t.seedOrg();
    const as = { token: org.adminToken };
    const editor = await t.seedUser(org.orgId, 'edit');
    const outsider = await t.seedUser();
    const space = (await t.api('POST', `/v1/orgs/${org.orgId}/spaces`, { ...as, body: { title: 'Policies' } })).body.id;
    const before = new Date().toISOString();
    expect((await client(org.adminToken).spaces.inviteToSpace(space, { role: 'comment', users: [editor.userId] })).status).toBe(204);
    expect((await t.api('PATCH', `/v1/orgs/${org.orgId}/members/${editor.userId}`, { ...as, body: { role: 'review' } })).status).toBe(200);

    const api = client(org.adminToken);
    const list = await api.orgs.listOrganizationAuditEvents(org.orgId, {});
    assertMatchesSpec('GET', '/orgs/{organizationId}/audit-events', 200, list.data);
    const actions = list.data.items.map((e: any) => e.action);
    // Newest first: the role change, the grant, the space's creation.
    expect(actions.slice(0, 3)).toEqual(['members.update', 'spaces.permissions.create', 'spaces.create']);
    const grant = list.data.items[1];
    expect(grant).toMatchObject({
      object: 'audit-event',
      actor: { type: 'user', id: org.adminId, label: 'Ada Admin' },
      source: 'api',
      target: { type: 'space', id: space },
    });
    expect(Date.parse(grant.occurredAt)).toBeGreaterThanOrEqual(Date.parse(before) - 1000);
    expect(list.data.items[2].target).toMatchObject({ type: 'space', id: space, label: 'Policies' });
    expect(list.data.items[0].target).toMatchObject({ type: 'user', id: editor.userId });

    const details = await api.orgs.getOrganizationAuditEvent(org.orgId, grant.id);
    assertMatchesSpec('GET', '/orgs/{organizationId}/audit-events/{auditEventId}', 200, details.data);
    expect(details.data.payload).toMatchObject({ method: 'POST', route: '/spaces/:spaceId/permissions', clientAddress: '127.0.0.1' });
    expect(details.data.schemaVersion).toBe(1);
    expect(details.data.correlationId).toBeTruthy();

    // Filters: action, actor, target, time.
    expect((await events(org.orgId, org.adminToken, { action: 'spaces.permissions.create' })).map((e) => e.id)).toEqual([grant.id]);
    expect((await events(org.orgId, org.adminToken, { target: editor.userId })).map((e) => e.action)).toEqual(['members.update']);
    expect((await events(org.orgId, org.adminToken, { actor: editor.userId })).length).toBe(0);
    expect((await events(org.orgId, org.adminToken, { from: new Date(Date.now() + 60_000).toISOString() })).length).toBe(0);
    expect((await events(org.orgId, org.adminToken, { to: before })).map((e) => e.action)).toEqual(['spaces.create']);
    // Pages.
    const first = await t.api('GET', `/v1/orgs/${org.orgId}/audit-events?limit=2`, as);
    expect(first.body.items).toHaveLength(2);
    const second = await t.api('GET', `/v1/orgs/${org.orgId}/audit-events?limit=2&page=${first.body.next.page}`, as);
    expect(second.body.items[0].action).toBe('spaces.create');
    expect((await t.api('GET', `/v1/orgs/${org.orgId}/audit-events?limit=101`, as)).status).toBe(400);

    const catalogue = await api.orgs.listOrganizationAuditEventActions(org.orgId);
    assertMatchesSpec('GET', '/orgs/{organizationId}/audit-event-actions', 200, catalogue.data);
    const ids = catalogue.data.items.map((a: any) => a.id);
    for (const a of ['spaces.permissions.create', 'members.update', 'sso.signin', 'tokens.create', 'invites.create'])
      expect(ids).toContain(a);

    // Invisible to anyone but the organization's admins.
    expect((await t.api('GET', `/v1/orgs/${org.orgId}/audit-events`, { token: editor.token })).status).toBe(403);
    expect((await t.api('GET', `/v1/orgs/${org.orgId}/audit-events/${grant.id}`, { token: editor.token })).status).toBe(403);
    expect((await t.api('GET', `/v1/orgs/${org.orgId}/audit-event-actions`, { token: editor.token })).status).toBe(403);
    expect([403, 404]).toContain((await t.api('GET', `/v1/orgs/${org.orgId}/audit-events`, { token: outsider.token })).status);
    // Another organization's admin cannot read this one's event through their own organization.
    const other = await t.seedOrg();
    expect((await t.api('GET', `/v1/orgs/${other.orgId}/audit-events/${grant.id}`, { token: other.adminToken })).status).toBe(404);
    expect((await t.api('GET', `/v1/orgs/${org.orgId}/audit-events/not-a-uuid`, as)).status).toBe(404);
    // Reads are not recorded; refused changes neither.
    expect(
      (await t.api('PATCH', `/v1/orgs/${org.orgId}/members/${org.adminId}`, { token: editor.token, body: { role: 'read' } })).status,
    ).toBe(403);
    expect((await events(org.orgId, org.adminToken)).map((e) => e.action)).toEqual([
      'members.update',
      'spaces.permissions.create',
      'spaces.create',
    ]);
  });

  it('records an SSO sign-in and the token it issues, in the organization of the sign-in', async () => {
    const org = await t.seedOrg('SSO audited');
    const provider = await ssoProvider(org.orgId, org.adminToken);
    const token = await ssoSignIn(provider, 'auditee@example.com');
    const me = (await t.api('GET', '/v1/user', { token })).body;

    const signIn = await events(org.orgId, org.adminToken, { action: 'sso.signin' });
    expect(signIn).toHaveLength(1);
    expect(signIn[0]).toMatchObject({ actor: { type: 'user', id: me.id }, source: 'ui', target: { type: 'saml-provider', id: provider } });
    const issued = await events(org.orgId, org.adminToken, { action: 'tokens.create' });
    expect(issued).toHaveLength(1);
    expect(issued[0]).toMatchObject({ actor: { id: me.id }, target: { type: 'api-token' } });
    const details = (await t.api('GET', `/v1/orgs/${org.orgId}/audit-events/${issued[0].id}`, { token: org.adminToken })).body;
    // Never the token itself.
    expect(JSON.stringify(details)).not.toContain(token);
    // The new member cannot read the log.
    expect((await t.api('GET', `/v1/orgs/${org.orgId}/audit-events`, { token })).status).toBe(403);
  });

  it('an invitee of an SSO-enforced organization comes in through SSO and lands with the invited role', async () => {
    const org = await t.seedOrg('Enforced');
    const as = { token: org.adminToken };
    const provider = await ssoProvider(org.orgId, org.adminToken, 'read');
    await t.api('PATCH', `/v1/orgs/${org.orgId}`, { ...as, body: { sso: true } });
    const res = await t.api('POST', `/v1/orgs/${org.orgId}/invites`, {
      ...as,
      body: { emails: ['sso.invitee@example.com'], role: 'edit' },
    });
    expect(res.status).toBe(200);
    const mail = await smtp.waitFor('sso.invitee@example.com');
    const path = new URL(/(https?:\/\/\S+\/invites\/inv_[A-Za-z0-9_-]+)/.exec(mail.text ?? '')![1]).pathname;
    // The e-mail link sends to the organization's sign-in page instead of signing in.
    const accept = await t.api('POST', path, { rawBody: '', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(accept.status).toBe(303);
    expect(accept.headers.get('location')).toBe(`/sso/orgs/${org.orgId}`);
    const token = await ssoSignIn(provider, 'sso.invitee@example.com');
    const me = (await t.api('GET', '/v1/user', { token })).body;
    expect((await t.api('GET', `/v1/orgs/${org.orgId}/members/${me.id}`, as)).body).toMatchObject({ role: 'edit', sso: true });
    // Used up by the sign-in.
    expect((await t.api('GET', path)).status).toBe(410);
    const signIn = await events(org.orgId, org.adminToken, { action: 'sso.signin' });
    expect(signIn[0].actor.id).toBe(me.id);
  });

  it('is append-only, and the maintenance purge removes events past the retention', async () => {
    const org = await t.seedOrg();
    await t.api('PATCH', `/v1/orgs/${org.orgId}`, { token: org.adminToken, body: { title: 'Renamed org' } });
    const all = await events(org.orgId, org.adminToken);
    expect(all.map((e) => e.action)).toEqual(['orgs.update']);
    await expect(t.app.db.query(`UPDATE audit_events SET action = 'forged' WHERE organization_id = $1`, [org.orgId])).rejects.toThrow(
      /append-only/,
    );
    await expect(t.app.db.query('DELETE FROM audit_events WHERE organization_id = $1', [org.orgId])).rejects.toThrow(/append-only/);

    // An old event (recorded, then aged: the table refuses updates, so it is written old).
    await recordAudit(t.app.db, {
      organizationIds: [org.orgId],
      action: 'spaces.delete',
      actor: { type: 'system', id: 'test' },
      source: 'script',
      target: { type: 'space', id: 'old' },
    });
    const purged = await purgeExpiredAuditEvents(t.app, Date.now() + (t.app.config.auditRetentionDays + 1) * 86_400_000);
    expect(purged).toBeGreaterThanOrEqual(2);
    expect(await events(org.orgId, org.adminToken)).toEqual([]);
  });
});
