import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitBookAPI } from '@gitbook/api';
import { useTestApp } from '../../helpers/app.js';
import { assertMatchesSpec } from '../../helpers/spec.js';
import { startTestSmtp, type TestSmtp } from '../../helpers/smtp.js';

let smtp: TestSmtp;
beforeAll(async () => {
  smtp = await startTestSmtp();
});
afterAll(() => smtp?.close());
const { t } = useTestApp(() => ({ env: { SMTP_URL: smtp.url, MAIL_FROM: 'Docs <docs@example.test>' } }));

const client = (token: string): any => new GitBookAPI({ endpoint: t.baseUrl, authToken: token });
const inviteLink = (text: string) => /(https?:\/\/\S+\/invites\/(inv_[A-Za-z0-9_-]+))/.exec(text);

describe('invites by e-mail', () => {
  it('are delivered over SMTP with text and HTML bodies; the link signs the invitee in with the role, teams and spaces given; once', async () => {
    const org = await t.seedOrg('Acme Docs');
    const as = { token: org.adminToken };
    const team = (await t.api('PUT', `/v1/orgs/${org.orgId}/teams`, { ...as, body: { title: 'Writers' } })).body.id;
    const space = (await t.api('POST', `/v1/orgs/${org.orgId}/spaces`, { ...as, body: { title: 'Handbook' } })).body.id;

    const res = await client(org.adminToken).orgs.inviteUsersToOrganization(org.orgId, {
      emails: ['new.writer@example.com', { email: 'reader@example.com', role: 'read' }],
      role: 'edit',
      teams: [team],
      spaces: [{ space, role: 'comment' }],
    });
    expect(res.status).toBe(200);
    assertMatchesSpec('POST', '/orgs/{organizationId}/invites', 200, res.data);
    expect(res.data.invited).toBe(2);
    expect(res.data.users).toHaveLength(2);

    const mail = await smtp.waitFor('new.writer@example.com');
    expect(mail.subject).toContain('Acme Docs');
    expect(mail.from?.text).toContain('docs@example.test');
    const fromText = inviteLink(mail.text ?? '');
    expect(fromText).toBeTruthy();
    expect(String(mail.html)).toContain(fromText![1]);
    const [url, token] = [fromText![1], fromText![2]];
    expect(url.startsWith(t.baseUrl)).toBe(true);
    // Stored hashed: the token is nowhere in the database in clear.
    const { rows } = await t.app.db.query('SELECT token_hash FROM email_invites WHERE organization_id = $1', [org.orgId]);
    expect(rows).toHaveLength(2);
    for (const r of rows) expect(r.token_hash).not.toContain(token);
    const dump = await t.app.db.query(`SELECT count(*)::int AS n FROM email_invites WHERE row_to_json(email_invites)::text LIKE $1`, [
      `%${token}%`,
    ]);
    expect(dump.rows[0].n).toBe(0);

    // Opening the link shows the invite and accepts nothing.
    const path = new URL(url).pathname;
    const page = await t.api('GET', path);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Acme Docs');
    expect((await t.api('GET', path)).status).toBe(200);

    // Accepting signs the invitee in: a token shown once.
    const accepted = await t.api('POST', path, { rawBody: '', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(accepted.status).toBe(200);
    const apiToken = /<code id="token">([^<]+)</.exec(accepted.text)?.[1];
    expect(apiToken).toBeTruthy();
    const me = await t.api('GET', '/v1/user', { token: apiToken });
    expect(me.body.email).toBe('new.writer@example.com');
    const member = await t.api('GET', `/v1/orgs/${org.orgId}/members/${me.body.id}`, as);
    expect(member.body).toMatchObject({ role: 'edit', teams: 1 });
    const seen = await t.api('GET', `/v1/spaces/${space}`, { token: apiToken });
    expect(seen.status).toBe(200);

    // Single use.
    const again = await t.api('POST', path, { rawBody: '', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(again.status).toBe(410);
    expect((await t.api('GET', path)).status).toBe(410);
    expect((await t.api('GET', '/invites/inv_nothing')).status).toBe(404);

    // The other invite is for the reader's address only: another user's join is refused; theirs works.
    const readerMail = await smtp.waitFor('reader@example.com');
    const readerToken = inviteLink(readerMail.text ?? '')![2];
    const stranger = await t.seedUser();
    const refused = await t.api('POST', `/v1/orgs/${org.orgId}/invites/${readerToken}`, { token: stranger.token });
    expect(refused.status).toBe(403);
    const readerId = res.data.users[1];
    const readerApiToken = await (await import('../../../src/services/identity.js')).createToken(t.app.db, readerId);
    const joined = await client(readerApiToken).orgs.joinOrganizationWithInvite(org.orgId, readerToken);
    expect(joined.status).toBe(200);
    expect((await t.api('GET', `/v1/orgs/${org.orgId}/members/${readerId}`, as)).body.role).toBe('read');
    expect((await t.api('POST', `/v1/orgs/${org.orgId}/invites/${readerToken}`, { token: readerApiToken })).status).toBe(410);
  });

  it('are for admins only, and bounded', async () => {
    const org = await t.seedOrg();
    const editor = await t.seedUser(org.orgId, 'edit');
    const r = await t.api('POST', `/v1/orgs/${org.orgId}/invites`, { token: editor.token, body: { emails: ['x@example.com'] } });
    expect(r.status).toBe(403);
    const many = Array.from({ length: 101 }, (_, i) => `u${i}@example.com`);
    expect((await t.api('POST', `/v1/orgs/${org.orgId}/invites`, { token: org.adminToken, body: { emails: many } })).status).toBe(400);
    expect(
      (await t.api('POST', `/v1/orgs/${org.orgId}/invites`, { token: org.adminToken, body: { emails: ['not-an-address'] } })).status,
    ).toBe(400);
    const badTeam = await t.api('POST', `/v1/orgs/${org.orgId}/invites`, {
      token: org.adminToken,
      body: { emails: ['y@example.com'], teams: ['noSuchTeam'] },
    });
    expect(badTeam.status).toBe(400);
  });
});

describe('invite links', () => {
  it('follow the inviteLinks setting: refused while disabled, created, listed, read, updated, joined, deleted', async () => {
    const org = await t.seedOrg();
    const api = client(org.adminToken);
    // Disabled by default: creation refused.
    const off = await t.api('POST', `/v1/orgs/${org.orgId}/link-invites`, { token: org.adminToken, body: { role: 'read' } });
    expect(off.status).toBe(403);
    expect(off.body.error.message).toContain('inviteLinks');

    expect((await t.api('PATCH', `/v1/orgs/${org.orgId}`, { token: org.adminToken, body: { inviteLinks: true } })).status).toBe(200);
    const made = await api.orgs.createOrganizationInvite(org.orgId, { role: 'comment' });
    expect(made.status).toBe(201);
    assertMatchesSpec('POST', '/orgs/{organizationId}/link-invites', 201, made.data);
    const { id, token } = made.data;
    expect(token).toMatch(/^inv_/);
    expect(id).not.toBe(token);
    const { rows } = await t.app.db.query('SELECT token_hash FROM link_invites WHERE id = $1', [id]);
    expect(rows[0].token_hash).not.toBe(token);

    const list = await api.orgs.listOrganizationInviteLinks(org.orgId, {});
    assertMatchesSpec('GET', '/orgs/{organizationId}/link-invites', 200, list.data);
    expect(list.data.items.map((i: any) => [i.id, i.role, i.token])).toEqual([[id, 'comment', undefined]]);
    const got = await api.orgs.getOrganizationInviteLink(org.orgId, id);
    assertMatchesSpec('GET', '/orgs/{organizationId}/link-invites/{inviteId}', 200, got.data);
    const updated = await api.orgs.updateOrganizationInviteById(org.orgId, id, { role: 'edit' });
    assertMatchesSpec('PATCH', '/orgs/{organizationId}/link-invites/{inviteId}', 200, updated.data);
    expect(updated.data.role).toBe('edit');

    // Joining with the token (not the public id).
    const newcomer = await t.seedUser();
    expect((await t.api('POST', `/v1/orgs/${org.orgId}/invites/${id}`, { token: newcomer.token })).status).toBe(404);
    expect((await client(newcomer.token).orgs.joinOrganizationWithInvite(org.orgId, token)).status).toBe(200);
    expect((await t.api('GET', `/v1/orgs/${org.orgId}/members/${newcomer.userId}`, { token: org.adminToken })).body.role).toBe('edit');
    // The audit log names the link by its public id, never by its token.
    const log = await t.api('GET', `/v1/orgs/${org.orgId}/audit-events?action=invites.accept`, { token: org.adminToken });
    expect(log.body.items.map((e: any) => [e.actor.id, e.target.id])).toEqual([[newcomer.userId, id]]);
    const all = await t.app.db.query('SELECT count(*)::int AS n FROM audit_events WHERE row_to_json(audit_events)::text LIKE $1', [
      `%${token}%`,
    ]);
    expect(all.rows[0].n).toBe(0);

    // Disabled again: joining with the link is refused.
    await t.api('PATCH', `/v1/orgs/${org.orgId}`, { token: org.adminToken, body: { inviteLinks: false } });
    const late = await t.seedUser();
    const refused = await t.api('POST', `/v1/orgs/${org.orgId}/invites/${token}`, { token: late.token });
    expect(refused.status).toBe(403);
    expect((await t.api('GET', `/v1/orgs/${org.orgId}/members/${late.userId}`, { token: org.adminToken })).status).toBe(404);

    // Non-admins see no links; delete answers 204 whether or not it existed.
    expect((await t.api('GET', `/v1/orgs/${org.orgId}/link-invites`, { token: newcomer.token })).status).toBe(403);
    expect((await t.api('DELETE', `/v1/orgs/${org.orgId}/link-invites/${id}`, { token: org.adminToken })).status).toBe(204);
    expect((await t.api('GET', `/v1/orgs/${org.orgId}/link-invites/${id}`, { token: org.adminToken })).status).toBe(404);
  });
});

describe('invite links to a space', () => {
  it('make the joiner a guest of the organization with the level on that space', async () => {
    const org = await t.seedOrg();
    const as = { token: org.adminToken };
    await t.api('PATCH', `/v1/orgs/${org.orgId}`, { ...as, body: { inviteLinks: true } });
    const space = (await t.api('POST', `/v1/orgs/${org.orgId}/spaces`, { ...as, body: { title: 'Shared' } })).body.id;
    const made = await client(org.adminToken).orgs.createOrganizationInvite(org.orgId, { level: 'comment', space });
    expect(made.status).toBe(201);
    assertMatchesSpec('POST', '/orgs/{organizationId}/link-invites', 201, made.data);
    expect(made.data).toMatchObject({ level: 'comment', space: { id: space } });
    const other = (await t.api('POST', `/v1/orgs/${org.orgId}/spaces`, { ...as, body: { title: 'Other' } })).body.id;
    const guest = await t.seedUser();
    expect((await client(guest.token).orgs.joinOrganizationWithInvite(org.orgId, made.data.token)).status).toBe(200);
    expect((await t.api('GET', `/v1/orgs/${org.orgId}/members/${guest.userId}`, as)).body.role).toBeNull();
    const seen = await t.api('GET', `/v1/spaces/${space}`, { token: guest.token });
    expect(seen.status).toBe(200);
    expect(seen.body.permissions.comment).toBe(true);
    expect(seen.body.permissions.edit).toBe(false);
    expect((await t.api('GET', `/v1/spaces/${other}`, { token: guest.token })).status).toBe(404);
    const collection = await t.api('POST', `/v1/orgs/${org.orgId}/link-invites`, { ...as, body: { level: 'read', collection: 'c1' } });
    expect(collection.status).toBe(400);
  });
});

describe('users', () => {
  it('getUserById for oneself and a colleague; updateUserById on oneself only', async () => {
    const org = await t.seedOrg();
    const colleague = await t.seedUser(org.orgId, 'read', 'Colin Colleague');
    const stranger = await t.seedUser(undefined, undefined, 'Stan Stranger');
    const api = client(org.adminToken);
    const got = await api.users.getUserById(colleague.userId);
    assertMatchesSpec('GET', '/users/{userId}', 200, got.data);
    expect(got.data.displayName).toBe('Colin Colleague');
    expect((await t.api('GET', `/v1/users/${stranger.userId}`, { token: org.adminToken })).status).toBe(404);

    const mine = await api.users.updateUserById(org.adminId, { displayName: 'Ada Lovelace', photoURL: 'https://example.com/ada.png' });
    assertMatchesSpec('PATCH', '/users/{userId}', 200, mine.data);
    expect(mine.data).toMatchObject({ displayName: 'Ada Lovelace', photoURL: 'https://example.com/ada.png' });
    expect((await t.api('GET', `/v1/users/${org.adminId}`, { token: colleague.token })).body.displayName).toBe('Ada Lovelace');

    const other = await t.api('PATCH', `/v1/users/${colleague.userId}`, { token: org.adminToken, body: { displayName: 'Hijacked' } });
    expect(other.status).toBe(403);
    expect((await t.api('GET', `/v1/users/${colleague.userId}`, { token: colleague.token })).body.displayName).toBe('Colin Colleague');
    expect((await t.api('PATCH', `/v1/users/${org.adminId}`, { token: org.adminToken, body: {} })).status).toBe(400);
    expect(
      (await t.api('PATCH', `/v1/users/${org.adminId}`, { token: org.adminToken, body: { displayName: 'x'.repeat(65) } })).status,
    ).toBe(400);
  });
});
