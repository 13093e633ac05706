import { describe, expect, it } from 'vitest';
import { GitBookAPI, GitBookAPIError } from '@gitbook/api';
import { useTestApp } from '../../helpers/app.js';
import { assertMatchesSpec } from '../../helpers/spec.js';

const { t } = useTestApp();

// The package's typings cannot be followed under NodeNext (see official-client.test.ts): untyped here.
const client = (token: string): any => new GitBookAPI({ endpoint: t.baseUrl, authToken: token });

describe('teams through the official client', () => {
  it('creates, lists, gets, renames and deletes teams; manages members', async () => {
    const org = await t.seedOrg('Teams org');
    const eve = await t.seedUser(org.orgId, 'edit', 'Eve Editor');
    const rob = await t.seedUser(org.orgId, 'read', 'Rob Reader');
    const api = client(org.adminToken);

    const created = await api.orgs.createOrganizationTeam(org.orgId, { title: 'Writers', members: [eve.userId] });
    expect(created.status).toBe(201);
    assertMatchesSpec('PUT', '/orgs/{organizationId}/teams', 201, created.data);
    expect(created.data).toMatchObject({
      object: 'team',
      title: 'Writers',
      members: 1,
      spaces: 0,
      permissions: { admin: true, view: true },
    });
    const teamId = created.data.id;

    const got = await api.orgs.getTeamInOrganizationById(org.orgId, teamId);
    assertMatchesSpec('GET', '/orgs/{organizationId}/teams/{teamId}', 200, got.data);
    expect(got.data.title).toBe('Writers');

    const renamed = await api.orgs.updateTeamInOrganizationById(org.orgId, teamId, { title: 'Authors' });
    assertMatchesSpec('PATCH', '/orgs/{organizationId}/teams/{teamId}', 200, renamed.data);
    expect(renamed.data.title).toBe('Authors');

    // One member by id with a role, another by e-mail in bulk.
    const added = await api.orgs.addMemberToOrganizationTeamById(org.orgId, teamId, eve.userId, { role: 'owner' });
    expect(added.status).toBe(204);
    const bulk = await api.orgs.updateMembersInOrganizationTeam(org.orgId, teamId, { add: [rob.email.toUpperCase()] });
    expect(bulk.status).toBe(204);
    const members = await api.orgs.listTeamMembersInOrganizationById(org.orgId, teamId);
    assertMatchesSpec('GET', '/orgs/{organizationId}/teams/{teamId}/members', 200, members.data);
    expect(members.data.count).toBe(2);
    expect(members.data.items.map((m: any) => [m.organization.user.displayName, m.team.role])).toEqual([
      ['Eve Editor', 'owner'],
      ['Rob Reader', 'member'],
    ]);

    const list = await api.orgs.listTeamsInOrganizationById(org.orgId);
    assertMatchesSpec('GET', '/orgs/{organizationId}/teams', 200, list.data);
    expect(list.data.items.map((x: any) => [x.title, x.members])).toEqual([['Authors', 2]]);

    // Member.teams and GET .../members/{userId}/teams follow.
    const eveMember = await t.api('GET', `/v1/orgs/${org.orgId}/members/${eve.userId}`, { token: org.adminToken });
    expect(eveMember.body.teams).toBe(1);
    const eveTeams = await t.api('GET', `/v1/orgs/${org.orgId}/members/${eve.userId}/teams`, { token: eve.token });
    expect(eveTeams.body.items.map((x: any) => [x.team.title, x.member.role, x.team.permissions.admin])).toEqual([
      ['Authors', 'owner', true],
    ]);

    const removed = await api.orgs.deleteMemberFromOrganizationTeamById(org.orgId, teamId, rob.userId);
    expect(removed.status).toBe(204);
    const again = await api.orgs.deleteMemberFromOrganizationTeamById(org.orgId, teamId, rob.userId);
    expect(again.status).toBe(204);
    expect((await api.orgs.getTeamInOrganizationById(org.orgId, teamId)).data.members).toBe(1);

    const deleted = await api.orgs.removeTeamFromOrganizationById(org.orgId, teamId);
    expect(deleted.status).toBe(204);
    expect((await api.orgs.removeTeamFromOrganizationById(org.orgId, teamId)).status).toBe(204);
    const gone = await api.orgs.getTeamInOrganizationById(org.orgId, teamId).catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(GitBookAPIError);
    expect(gone.code).toBe(404);
    expect((await t.api('GET', `/v1/orgs/${org.orgId}/members/${eve.userId}`, { token: org.adminToken })).body.teams).toBe(0);
  });
});

describe('filters', () => {
  it('title is a case-insensitive contains; owner keeps the teams that member can manage', async () => {
    const org = await t.seedOrg();
    const owner = await t.seedUser(org.orgId, 'edit');
    const plain = await t.seedUser(org.orgId, 'edit');
    const as = { token: org.adminToken };
    const ids: Record<string, string> = {};
    for (const title of ['Backend', 'Frontend', 'Design', 'Docs 100%']) {
      ids[title] = (await t.api('PUT', `/v1/orgs/${org.orgId}/teams`, { ...as, body: { title } })).body.id;
    }
    await t.api('PUT', `/v1/orgs/${org.orgId}/teams/${ids.Backend}/members/${owner.userId}`, { ...as, body: { role: 'owner' } });
    await t.api('PUT', `/v1/orgs/${org.orgId}/teams/${ids.Design}/members/${owner.userId}`, { ...as, body: {} });
    await t.api('PUT', `/v1/orgs/${org.orgId}/teams/${ids.Design}/members/${plain.userId}`, { ...as });

    const titles = async (q: string, token = org.adminToken) => {
      const r = await t.api('GET', `/v1/orgs/${org.orgId}/teams${q}`, { token });
      expect(r.status).toBe(200);
      assertMatchesSpec('GET', '/orgs/{organizationId}/teams', 200, r.body);
      return r.body.items.map((x: any) => x.title);
    };
    expect(await titles('?title=END')).toEqual(['Backend', 'Frontend']);
    expect(await titles('?title=%25')).toEqual(['Docs 100%']); // LIKE wildcards are literal
    expect(await titles(`?owner=${owner.userId}`)).toEqual(['Backend']);
    expect(await titles(`?owner=${plain.userId}`)).toEqual([]);
    expect(await titles(`?owner=${org.adminId}`)).toHaveLength(4);
    expect(await titles(`?owner=${owner.userId}&title=front`)).toEqual([]);
    // Paging.
    const p1 = await t.api('GET', `/v1/orgs/${org.orgId}/teams?limit=3`, as);
    expect(p1.body.items).toHaveLength(3);
    expect(p1.body.count).toBe(4);
    const p2 = await t.api('GET', `/v1/orgs/${org.orgId}/teams?limit=3&page=${p1.body.next.page}`, as);
    expect(p2.body.items.map((x: any) => x.title)).toEqual(['Docs 100%']);
    // permissions.admin says who manages: the owner on their team only.
    const asOwner = await t.api('GET', `/v1/orgs/${org.orgId}/teams`, { token: owner.token });
    expect(asOwner.body.items.map((x: any) => [x.title, x.permissions.admin])).toEqual([
      ['Backend', true],
      ['Frontend', false],
      ['Design', false],
      ['Docs 100%', false],
    ]);
  });
});

describe('bulk membership', () => {
  it('add and remove by id or e-mail, roles, remove wins, all or nothing', async () => {
    const org = await t.seedOrg();
    const a = await t.seedUser(org.orgId, 'edit');
    const b = await t.seedUser(org.orgId, 'read');
    const c = await t.seedUser(org.orgId, null);
    const outsider = await t.seedUser();
    const as = { token: org.adminToken };
    const team = (await t.api('PUT', `/v1/orgs/${org.orgId}/teams`, { ...as, body: { title: 'Bulk' } })).body.id;
    const put = (body: unknown) => t.api('PUT', `/v1/orgs/${org.orgId}/teams/${team}/members`, { ...as, body });
    const roster = async () =>
      (await t.api('GET', `/v1/orgs/${org.orgId}/teams/${team}/members`, as)).body.items
        .map((m: any) => `${m.organization.id}:${m.team.role}`)
        .sort();

    expect(
      (await put({ add: [a.userId, b.email, c.userId], remove: [c.email], memberships: { [a.userId]: { role: 'owner' } } })).status,
    ).toBe(204);
    expect(await roster()).toEqual([`${a.userId}:owner`, `${b.userId}:member`].sort());

    // An unknown user fails the whole request and changes nothing.
    const bad = await put({ add: [c.userId, outsider.userId] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain(outsider.userId);
    const badMail = await put({ add: ['nobody@example.com'], remove: [a.userId] });
    expect(badMail.status).toBe(400);
    expect(badMail.body.error.message).toContain('body.add');
    expect(await roster()).toEqual([`${a.userId}:owner`, `${b.userId}:member`].sort());

    expect((await put({ remove: [a.userId], memberships: { [b.email]: { role: 'owner' } } })).status).toBe(204);
    expect(await roster()).toEqual([`${b.userId}:owner`]);
    expect((await put({ memberships: { [b.userId]: { role: 'boss' } } })).status).toBe(400);
    expect((await put({ add: 'nope' })).status).toBe(400);

    // One member: role must be owner or member; the user must belong to the organization.
    expect((await t.api('PUT', `/v1/orgs/${org.orgId}/teams/${team}/members/${c.userId}`, { ...as, body: { role: 'admin' } })).status).toBe(
      400,
    );
    expect((await t.api('PUT', `/v1/orgs/${org.orgId}/teams/${team}/members/${outsider.userId}`, { ...as, body: {} })).status).toBe(404);
  });
});

describe('who manages a team', () => {
  it('admins and team owners; members see; guests see only their own teams; strangers get 404', async () => {
    const org = await t.seedOrg();
    const owner = await t.seedUser(org.orgId, 'read');
    const member = await t.seedUser(org.orgId, 'edit');
    const guest = await t.seedUser(org.orgId, null);
    const stranger = await t.seedUser();
    const as = { token: org.adminToken };
    const team = (await t.api('PUT', `/v1/orgs/${org.orgId}/teams`, { ...as, body: { title: 'Managed' } })).body.id;
    const other = (await t.api('PUT', `/v1/orgs/${org.orgId}/teams`, { ...as, body: { title: 'Other' } })).body.id;
    await t.api('PUT', `/v1/orgs/${org.orgId}/teams/${team}/members/${owner.userId}`, { ...as, body: { role: 'owner' } });
    await t.api('PUT', `/v1/orgs/${org.orgId}/teams/${team}/members/${guest.userId}`, as);

    // Only admins create teams.
    expect((await t.api('PUT', `/v1/orgs/${org.orgId}/teams`, { token: member.token, body: { title: 'X' } })).status).toBe(403);
    // The owner manages their team.
    const byOwner = await t.api('PATCH', `/v1/orgs/${org.orgId}/teams/${team}`, { token: owner.token, body: { title: 'Owned' } });
    expect(byOwner.status).toBe(200);
    expect(byOwner.body.permissions).toEqual({ admin: true, view: true });
    expect((await t.api('PUT', `/v1/orgs/${org.orgId}/teams/${team}/members/${member.userId}`, { token: owner.token })).status).toBe(204);
    // ... but not another team, and a plain member manages nothing.
    expect((await t.api('PATCH', `/v1/orgs/${org.orgId}/teams/${other}`, { token: owner.token, body: { title: 'no' } })).status).toBe(403);
    expect((await t.api('DELETE', `/v1/orgs/${org.orgId}/teams/${team}`, { token: member.token })).status).toBe(403);
    expect((await t.api('DELETE', `/v1/orgs/${org.orgId}/teams/${team}/members/${owner.userId}`, { token: member.token })).status).toBe(
      403,
    );
    const seen = await t.api('GET', `/v1/orgs/${org.orgId}/teams/${team}`, { token: member.token });
    expect(seen.body.permissions).toEqual({ admin: false, view: true });
    // Guests: their own team only.
    expect((await t.api('GET', `/v1/orgs/${org.orgId}/teams`, { token: guest.token })).body.items.map((x: any) => x.id)).toEqual([team]);
    expect((await t.api('GET', `/v1/orgs/${org.orgId}/teams/${other}`, { token: guest.token })).status).toBe(404);
    expect((await t.api('GET', `/v1/orgs/${org.orgId}/teams/${team}/members`, { token: guest.token })).status).toBe(200);
    // Not a member of the organization.
    expect((await t.api('GET', `/v1/orgs/${org.orgId}/teams/${team}`, { token: stranger.token })).status).toBe(403);
    // Validation.
    expect((await t.api('PUT', `/v1/orgs/${org.orgId}/teams`, { ...as, body: { title: '' } })).status).toBe(400);
    expect((await t.api('PUT', `/v1/orgs/${org.orgId}/teams`, { ...as, body: { title: 'x'.repeat(65) } })).status).toBe(400);
    expect((await t.api('PATCH', `/v1/orgs/${org.orgId}/teams/${team}`, { ...as, body: {} })).status).toBe(400);
    const unknown = await t.api('PUT', `/v1/orgs/${org.orgId}/teams`, { ...as, body: { title: 'Y', members: [stranger.userId] } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toContain('body.members');
    // A member leaving the organization leaves its teams.
    await t.api('DELETE', `/v1/orgs/${org.orgId}/members/${member.userId}`, as);
    expect((await t.api('GET', `/v1/orgs/${org.orgId}/teams/${team}`, as)).body.members).toBe(2);
  });
});
