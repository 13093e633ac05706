import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { assertMatchesSpec } from '../../helpers/spec.js';
import { insertTeam, addTeamMember } from '../../../src/db/repos/teams.js';
import { insertLinkInvite } from '../../../src/db/repos/organizations.js';
import { createOrganization, addMember } from '../../../src/services/identity.js';

const { t, org } = useTestApp({ seedOrg: 'Acme Docs' });

describe('organizations', () => {
  it('lists the caller’s organizations and gets one, matching the public description', async () => {
    const list = await t.api('GET', '/v1/orgs', { token: org.adminToken });
    expect(list.status).toBe(200);
    assertMatchesSpec('GET', '/orgs', 200, list.body);
    expect(list.body.count).toBe(1);
    expect(list.body.items[0]).toMatchObject({ object: 'organization', id: org.orgId, title: 'Acme Docs' });
    const one = await t.api('GET', `/v1/orgs/${org.orgId}`, { token: org.adminToken });
    assertMatchesSpec('GET', '/orgs/{organizationId}', 200, one.body);
    expect(one.body.urls.location).toBe(`${t.baseUrl}/v1/orgs/${org.orgId}`);
    // The location URL works.
    expect((await fetch(one.body.urls.location, { headers: { authorization: `Bearer ${org.adminToken}` } })).status).toBe(200);
  });

  it('computes permissions from the caller’s role', async () => {
    const admin = (await t.api('GET', `/v1/orgs/${org.orgId}`, { token: org.adminToken })).body.permissions;
    expect(admin).toMatchObject({ view: true, admin: true, createContent: true, listMembers: true, viewBilling: true });
    const editor = await t.seedUser(org.orgId, 'edit');
    const e = (await t.api('GET', `/v1/orgs/${org.orgId}`, { token: editor.token })).body.permissions;
    expect(e).toMatchObject({ view: true, admin: false, createContent: false, createOpenAPISpec: false, listMembers: true });
    const creator = await t.seedUser(org.orgId, 'create');
    const c = (await t.api('GET', `/v1/orgs/${org.orgId}`, { token: creator.token })).body.permissions;
    expect(c).toMatchObject({ admin: false, createContent: true, createOpenAPISpec: true });
    const guest = await t.seedUser(org.orgId, null);
    const g = (await t.api('GET', `/v1/orgs/${org.orgId}`, { token: guest.token })).body.permissions;
    expect(g).toMatchObject({ view: true, access: false, listMembers: false, admin: false });
  });

  it('patches every listed field and reads them back', async () => {
    const patch = {
      title: 'Acme Documentation',
      emailDomains: ['Acme.test', 'acme-corp.test'],
      hostname: 'acme-docs',
      defaultRole: 'comment',
      defaultContent: { type: 'site', site: 'site123' },
      logo: 'https://cdn.acme.test/logo.png',
      sso: true,
      ai: true,
      inviteLinks: true,
    };
    const r = await t.api('PATCH', `/v1/orgs/${org.orgId}`, { token: org.adminToken, body: patch });
    expect(r.status).toBe(200);
    assertMatchesSpec('PATCH', '/orgs/{organizationId}', 200, r.body);
    expect(r.body).toMatchObject({
      title: 'Acme Documentation',
      emailDomains: ['acme.test', 'acme-corp.test'],
      hostname: 'acme-docs',
      defaultRole: 'comment',
      defaultContent: { type: 'site', site: 'site123' },
      sso: true,
      ai: true,
      inviteLinks: true,
    });
    expect(r.body.urls.logo).toBe('https://cdn.acme.test/logo.png');
    const cleared = await t.api('PATCH', `/v1/orgs/${org.orgId}`, {
      token: org.adminToken,
      body: { logo: null, defaultRole: null, defaultContent: null },
    });
    expect(cleared.body.urls.logo).toBeUndefined();
    expect(cleared.body.defaultRole).toBeNull();
    expect(cleared.body.defaultContent).toBeUndefined();
  });

  it('refuses invalid patches and a hostname taken by another organization', async () => {
    const bad = await t.api('PATCH', `/v1/orgs/${org.orgId}`, { token: org.adminToken, body: { defaultRole: 'owner' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('body.defaultRole');
    const title = await t.api('PATCH', `/v1/orgs/${org.orgId}`, { token: org.adminToken, body: { title: 'x' } });
    expect(title.status).toBe(400);
    const other = await t.seedOrg('Other');
    const taken = await t.api('PATCH', `/v1/orgs/${other.orgId}`, { token: other.adminToken, body: { hostname: 'acme-docs' } });
    expect(taken.status).toBe(409);
    expect(taken.body.error.code).toBe(409);
  });

  it('finds organizations by email domain', async () => {
    const r = await t.api('GET', '/v1/email-domains/acme.test/orgs', { token: org.adminToken });
    expect(r.status).toBe(200);
    assertMatchesSpec('GET', '/email-domains/{emailDomain}/orgs', 200, r.body);
    expect(r.body.organizations.map((o: { id: string }) => o.id)).toEqual([org.orgId]);
    const none = await t.api('GET', '/v1/email-domains/nobody.test/orgs', { token: org.adminToken });
    expect(none.body).toEqual({ organizations: [] });
    expect((await t.api('GET', '/v1/email-domains/not_a_domain/orgs', { token: org.adminToken })).status).toBe(400);
    // Without invite links an organization is not offered to outsiders.
    await t.api('PATCH', `/v1/orgs/${org.orgId}`, { token: org.adminToken, body: { inviteLinks: false } });
    const outsider = await t.seedUser();
    expect((await t.api('GET', '/v1/email-domains/acme.test/orgs', { token: outsider.token })).body).toEqual({ organizations: [] });
    expect((await t.api('GET', '/v1/email-domains/acme.test/orgs', { token: org.adminToken })).body.organizations).toHaveLength(1);
    await t.api('PATCH', `/v1/orgs/${org.orgId}`, { token: org.adminToken, body: { inviteLinks: true } });
    expect((await t.api('GET', '/v1/email-domains/acme.test/orgs', { token: outsider.token })).body.organizations).toHaveLength(1);
  });

  it('deletes a link invite (admins only), 204 also when absent', async () => {
    await insertLinkInvite(t.app.db, { id: 'invite1', orgId: org.orgId, role: 'read', createdBy: org.adminId });
    const reader = await t.seedUser(org.orgId, 'read');
    expect((await t.api('DELETE', `/v1/orgs/${org.orgId}/link-invites/invite1`, { token: reader.token })).status).toBe(403);
    expect((await t.api('DELETE', `/v1/orgs/${org.orgId}/link-invites/invite1`, { token: org.adminToken })).status).toBe(204);
    const { rows } = await t.app.db.query('SELECT * FROM link_invites WHERE id = $1', ['invite1']);
    expect(rows).toHaveLength(0);
    expect((await t.api('DELETE', `/v1/orgs/${org.orgId}/link-invites/invite1`, { token: org.adminToken })).status).toBe(204);
  });

  it('searches an organization (no spaces yet: empty result)', async () => {
    const r = await t.api('GET', `/v1/orgs/${org.orgId}/search?query=install`, { token: org.adminToken });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ items: [], count: 0 });
    const outsider = await t.seedUser();
    expect((await t.api('GET', `/v1/orgs/${org.orgId}/search?query=x`, { token: outsider.token })).status).toBe(403);
  });
});

describe('members', () => {
  let m: { orgId: string; adminId: string; adminToken: string };
  const users: Record<string, { userId: string; token: string; email: string }> = {};

  beforeAll(async () => {
    m = await t.seedOrg('Members org');
    users.alice = await t.seedUser(m.orgId, 'edit', 'Alice Liddell');
    users.bob = await t.seedUser(m.orgId, 'read', 'Bob Builder');
    users.carol = await t.seedUser(m.orgId, 'admin', 'Carol Danvers');
    users.dan = await t.seedUser(m.orgId, null, 'Dan Guest');
  });

  it('lists members newest first by default, matching the public description', async () => {
    const r = await t.api('GET', `/v1/orgs/${m.orgId}/members`, { token: m.adminToken });
    expect(r.status).toBe(200);
    assertMatchesSpec('GET', '/orgs/{organizationId}/members', 200, r.body);
    expect(r.body.count).toBe(5);
    expect(r.body.items.map((x: any) => x.user.displayName)).toEqual([
      'Dan Guest',
      'Carol Danvers',
      'Bob Builder',
      'Alice Liddell',
      'Ada Admin',
    ]);
    const asc = await t.api('GET', `/v1/orgs/${m.orgId}/members?order=asc`, { token: m.adminToken });
    expect(asc.body.items[0].user.displayName).toBe('Ada Admin');
  });

  it('filters by role (and guest), searches name and email, sorts by name', async () => {
    const admins = await t.api('GET', `/v1/orgs/${m.orgId}/members?role=admin&order=asc`, { token: m.adminToken });
    expect(admins.body.items.map((x: any) => x.id)).toEqual([m.adminId, users.carol.userId]);
    expect(admins.body.count).toBe(2);
    const guests = await t.api('GET', `/v1/orgs/${m.orgId}/members?role=guest`, { token: m.adminToken });
    expect(guests.body.items.map((x: any) => x.id)).toEqual([users.dan.userId]);
    expect(guests.body.items[0].role).toBeNull();
    const byName = await t.api('GET', `/v1/orgs/${m.orgId}/members?search=lidd`, { token: m.adminToken });
    expect(byName.body.items.map((x: any) => x.id)).toEqual([users.alice.userId]);
    const byEmail = await t.api('GET', `/v1/orgs/${m.orgId}/members?search=${users.bob.email.slice(0, 12)}`, { token: m.adminToken });
    expect(byEmail.body.items.map((x: any) => x.id)).toEqual([users.bob.userId]);
    const sorted = await t.api('GET', `/v1/orgs/${m.orgId}/members?sort=name&order=asc`, { token: m.adminToken });
    expect(sorted.body.items.map((x: any) => x.user.displayName)).toEqual([
      'Ada Admin',
      'Alice Liddell',
      'Bob Builder',
      'Carol Danvers',
      'Dan Guest',
    ]);
    expect((await t.api('GET', `/v1/orgs/${m.orgId}/members?role=owner`, { token: m.adminToken })).status).toBe(400);
    expect((await t.api('GET', `/v1/orgs/${m.orgId}/members?sort=age`, { token: m.adminToken })).status).toBe(400);
  });

  it('ping updates last seen; sorting by lastSeenAt lists only active members', async () => {
    const ping = await t.api('POST', `/v1/orgs/${m.orgId}/ping`, { token: users.bob.token });
    expect(ping.status).toBe(200);
    const jwt = ping.body.serviceVisitorClaims as string;
    expect(jwt.split('.')).toHaveLength(3);
    const claims = JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString());
    expect(claims).toMatchObject({ sub: users.bob.userId, org: m.orgId, role: 'read' });
    await t.api('POST', `/v1/orgs/${m.orgId}/ping`, { token: users.alice.token });
    const active = await t.api('GET', `/v1/orgs/${m.orgId}/members?sort=lastSeenAt`, { token: m.adminToken });
    expect(active.body.count).toBe(2);
    expect(active.body.items.map((x: any) => x.id)).toEqual([users.alice.userId, users.bob.userId]);
    expect(active.body.items[0].lastSeenAt).toMatch(/^\d{4}-/);
    const outsider = await t.seedUser();
    expect((await t.api('POST', `/v1/orgs/${m.orgId}/ping`, { token: outsider.token })).status).toBe(403);
  });

  it('paginates with an opaque cursor that stays correct when members join between page reads', async () => {
    const p = await t.seedOrg('Paging org');
    const first: string[] = [];
    for (let i = 0; i < 7; i++) first.push((await t.seedUser(p.orgId, 'read', `Pager ${i}`)).userId);
    const seen: string[] = [];
    let page = await t.api('GET', `/v1/orgs/${p.orgId}/members?limit=3&order=asc`, { token: p.adminToken });
    expect(page.body.count).toBe(8);
    seen.push(...page.body.items.map((x: any) => x.id));
    // Newcomers join (at the end of the asc order) and the cursor must neither repeat nor skip.
    const late = [(await t.seedUser(p.orgId, 'read', 'Late 1')).userId, (await t.seedUser(p.orgId, 'read', 'Late 2')).userId];
    while (page.body.next) {
      expect(typeof page.body.next.page).toBe('string');
      page = await t.api('GET', `/v1/orgs/${p.orgId}/members?limit=3&order=asc&page=${encodeURIComponent(page.body.next.page)}`, {
        token: p.adminToken,
      });
      expect(page.status).toBe(200);
      seen.push(...page.body.items.map((x: any) => x.id));
    }
    expect(seen).toEqual([p.adminId, ...first, ...late]);
    expect(new Set(seen).size).toBe(seen.length);
    // Descending: inserts at the head do not shift later pages.
    const d1 = await t.api('GET', `/v1/orgs/${p.orgId}/members?limit=4`, { token: p.adminToken });
    expect(d1.body.items.map((x: any) => x.id)).toEqual([late[1], late[0], first[6], first[5]]);
    await t.seedUser(p.orgId, 'read', 'Even later');
    const d2 = await t.api('GET', `/v1/orgs/${p.orgId}/members?limit=4&page=${d1.body.next.page}`, { token: p.adminToken });
    expect(d2.body.items.map((x: any) => x.id)).toEqual([first[4], first[3], first[2], first[1]]);
  });

  it('gets a member; a read member cannot list members of another org', async () => {
    const r = await t.api('GET', `/v1/orgs/${m.orgId}/members/${users.alice.userId}`, { token: users.bob.token });
    expect(r.status).toBe(200);
    assertMatchesSpec('GET', '/orgs/{organizationId}/members/{userId}', 200, r.body);
    expect(r.body).toMatchObject({ object: 'member', id: users.alice.userId, role: 'edit', user: { displayName: 'Alice Liddell' } });
    expect((await t.api('GET', `/v1/orgs/${m.orgId}/members/nobody`, { token: m.adminToken })).status).toBe(404);
    // A guest cannot list members but can read themself.
    expect((await t.api('GET', `/v1/orgs/${m.orgId}/members`, { token: users.dan.token })).status).toBe(403);
    expect((await t.api('GET', `/v1/orgs/${m.orgId}/members/${users.dan.userId}`, { token: users.dan.token })).status).toBe(200);
  });

  it('patches a role (admins only) and keeps at least one admin', async () => {
    const r = await t.api('PATCH', `/v1/orgs/${m.orgId}/members/${users.bob.userId}`, { token: m.adminToken, body: { role: 'review' } });
    expect(r.status).toBe(200);
    assertMatchesSpec('PATCH', '/orgs/{organizationId}/members/{userId}', 200, r.body);
    expect(r.body.role).toBe('review');
    const toGuest = await t.api('PATCH', `/v1/orgs/${m.orgId}/members/${users.bob.userId}`, { token: m.adminToken, body: { role: null } });
    expect(toGuest.body.role).toBeNull();
    expect(
      (await t.api('PATCH', `/v1/orgs/${m.orgId}/members/${users.bob.userId}`, { token: users.alice.token, body: { role: 'admin' } }))
        .status,
    ).toBe(403);
    const solo = await t.seedOrg('Solo');
    const last = await t.api('PATCH', `/v1/orgs/${solo.orgId}/members/${solo.adminId}`, { token: solo.adminToken, body: { role: 'read' } });
    expect(last.status).toBe(409);
    expect((await t.api('GET', `/v1/orgs/${solo.orgId}/members/${solo.adminId}`, { token: solo.adminToken })).body.role).toBe('admin');
  });

  it('two admins demoting each other at once: one succeeds, the other gets 409, never a 500', async () => {
    for (let round = 0; round < 5; round++) {
      const o = await t.seedOrg(`Duel ${round}`);
      const second = await t.seedUser(o.orgId, 'admin');
      const [a, b] = await Promise.all([
        t.api('PATCH', `/v1/orgs/${o.orgId}/members/${second.userId}`, { token: o.adminToken, body: { role: 'read' } }),
        t.api('PATCH', `/v1/orgs/${o.orgId}/members/${o.adminId}`, { token: second.token, body: { role: 'read' } }),
      ]);
      // Serialized: the first wins; the second is refused (no other admin left: 409; or, if its
      // permission check ran after the first commit, it is no longer an admin: 403).
      const statuses = [a.status, b.status];
      expect(statuses.filter((x) => x === 200)).toHaveLength(1);
      expect([403, 409]).toContain(statuses.find((x) => x !== 200));
      const { rows } = await t.app.db.query(`SELECT count(*) AS n FROM members WHERE organization_id = $1 AND role = 'admin'`, [o.orgId]);
      expect(rows[0].n).toBeGreaterThanOrEqual(1);
    }
  });

  it('sets a member as SSO member', async () => {
    const r = await t.api('POST', `/v1/orgs/${m.orgId}/members/${users.alice.userId}/sso`, { token: m.adminToken });
    expect(r.status).toBe(200);
    expect(r.body.sso).toBe(true);
    expect((await t.api('POST', `/v1/orgs/${m.orgId}/members/${users.alice.userId}/sso`, { token: users.bob.token })).status).toBe(403);
    expect((await t.api('POST', `/v1/orgs/${m.orgId}/members/nobody/sso`, { token: m.adminToken })).status).toBe(404);
  });

  it('lists a member’s teams with the title filter, and their spaces', async () => {
    await insertTeam(t.app.db, { id: 'teamWriters', orgId: m.orgId, title: 'Technical Writers' });
    await insertTeam(t.app.db, { id: 'teamEng', orgId: m.orgId, title: 'Engineering' });
    await addTeamMember(t.app.db, 'teamWriters', users.alice.userId, 'owner');
    await addTeamMember(t.app.db, 'teamEng', users.alice.userId, 'member');
    await addTeamMember(t.app.db, 'teamEng', users.carol.userId, 'member');
    const r = await t.api('GET', `/v1/orgs/${m.orgId}/members/${users.alice.userId}/teams`, { token: users.alice.token });
    expect(r.status).toBe(200);
    assertMatchesSpec('GET', '/orgs/{organizationId}/members/{userId}/teams', 200, r.body);
    expect(r.body.items.map((x: any) => [x.team.title, x.member.role, x.team.members])).toEqual([
      ['Technical Writers', 'owner', 1],
      ['Engineering', 'member', 2],
    ]);
    const filtered = await t.api('GET', `/v1/orgs/${m.orgId}/members/${users.alice.userId}/teams?title=WRIT`, { token: m.adminToken });
    expect(filtered.body.items.map((x: any) => x.team.id)).toEqual(['teamWriters']);
    expect(filtered.body.count).toBe(1);
    const member = await t.api('GET', `/v1/orgs/${m.orgId}/members/${users.alice.userId}`, { token: m.adminToken });
    expect(member.body.teams).toBe(2);
    // Another non-admin member may not look.
    expect((await t.api('GET', `/v1/orgs/${m.orgId}/members/${users.alice.userId}/teams`, { token: users.bob.token })).status).toBe(403);
    const spaces = await t.api('GET', `/v1/orgs/${m.orgId}/members/${users.alice.userId}/spaces`, { token: m.adminToken });
    expect(spaces.status).toBe(200);
    expect(spaces.body).toMatchObject({ items: [], count: 0 });
  });

  it('removes a member: 204, gone afterwards, 204 again when absent; members may leave', async () => {
    expect((await t.api('DELETE', `/v1/orgs/${m.orgId}/members/${users.bob.userId}`, { token: users.alice.token })).status).toBe(403);
    expect((await t.api('DELETE', `/v1/orgs/${m.orgId}/members/${users.bob.userId}`, { token: m.adminToken })).status).toBe(204);
    expect((await t.api('GET', `/v1/orgs/${m.orgId}/members/${users.bob.userId}`, { token: m.adminToken })).status).toBe(404);
    expect((await t.api('GET', `/v1/orgs/${m.orgId}`, { token: users.bob.token })).status).toBe(403);
    expect((await t.api('DELETE', `/v1/orgs/${m.orgId}/members/${users.bob.userId}`, { token: m.adminToken })).status).toBe(204);
    expect((await t.api('DELETE', `/v1/orgs/${m.orgId}/members/${users.dan.userId}`, { token: users.dan.token })).status).toBe(204);
  });

  it('lists only organizations the user belongs to, paginated', async () => {
    const u = await t.seedUser();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const o = await createOrganization(t.app.db, { title: `Org ${i}` });
      await addMember(t.app.db, o.id, u.userId, 'read');
      ids.push(o.id);
    }
    const p1 = await t.api('GET', '/v1/orgs?limit=2', { token: u.token });
    expect(p1.body.count).toBe(3);
    const p2 = await t.api('GET', `/v1/orgs?limit=2&page=${p1.body.next.page}`, { token: u.token });
    expect([...p1.body.items, ...p2.body.items].map((o: any) => o.id)).toEqual(ids);
    expect(p2.body.next).toBeUndefined();
  });
});
