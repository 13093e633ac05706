import { describe, expect, it } from 'vitest';
import { GitBookAPI } from '@gitbook/api';
import { useTestApp } from '../../helpers/app.js';
import { assertMatchesSpec } from '../../helpers/spec.js';
import type { Queryable } from '../../../src/db/pool.js';
import type { Role } from '../../../src/core/roles.js';
import type { DomainError } from '../../../src/core/errors.js';
import { authenticate } from '../../../src/services/identity.js';
import { requireSpace } from '../../../src/policies/spaces.js';

const { t } = useTestApp();

async function setup() {
  const org = await t.seedOrg();
  const as = { token: org.adminToken };
  const guest = await t.seedUser(org.orgId, null, 'Gus Guest');
  const team = (await t.api('PUT', `/v1/orgs/${org.orgId}/teams`, { ...as, body: { title: 'Readers', members: [guest.userId] } })).body.id;
  const space = (await t.api('POST', `/v1/orgs/${org.orgId}/spaces`, { ...as, body: { title: 'Private' } })).body.id;
  return { org, as, guest, team, space };
}

describe('team grants on spaces', () => {
  it('a team grant gives access; the highest grant wins; leaving the team or deleting it takes it back at once', async () => {
    const { org, as, guest, team, space } = await setup();
    const asGuest = { token: guest.token };
    expect((await t.api('GET', `/v1/spaces/${space}`, asGuest)).status).toBe(404);
    expect((await t.api('GET', `/v1/orgs/${org.orgId}/spaces`, asGuest)).body.items).toEqual([]);

    // Through the official client: invite the team with read.
    const api: any = new GitBookAPI({ endpoint: t.baseUrl, authToken: org.adminToken });
    expect((await api.spaces.inviteToSpace(space, { role: 'read', teams: [team] })).status).toBe(204);
    const seen = await t.api('GET', `/v1/spaces/${space}`, asGuest);
    expect(seen.status).toBe(200);
    expect(seen.body.permissions.view).toBe(true);
    expect(seen.body.permissions.edit).toBe(false);
    expect((await t.api('GET', `/v1/orgs/${org.orgId}/spaces`, asGuest)).body.items.map((s: any) => s.id)).toEqual([space]);
    expect((await t.api('PATCH', `/v1/spaces/${space}`, { ...asGuest, body: { title: 'No' } })).status).toBe(403);

    const teamGrants = await t.api('GET', `/v1/spaces/${space}/permissions/teams`, as);
    assertMatchesSpec('GET', '/spaces/{spaceId}/permissions/teams', 200, teamGrants.body);
    expect(teamGrants.body.items.map((x: any) => [x.team.id, x.permission, x.team.spaces])).toEqual([[team, 'read', 1]]);
    expect((await t.api('GET', `/v1/orgs/${org.orgId}/teams/${team}`, as)).body.spaces).toBe(1);
    expect((await t.api('GET', `/v1/orgs/${org.orgId}/members/${guest.userId}`, as)).body.spaces).toBe(1);

    // Team edit + own read: edit.
    expect((await t.api('POST', `/v1/spaces/${space}/permissions`, { ...as, body: { role: 'read', users: [guest.userId] } })).status).toBe(
      204,
    );
    expect((await t.api('PATCH', `/v1/spaces/${space}/permissions/teams/${team}`, { ...as, body: { role: 'edit' } })).status).toBe(204);
    expect((await t.api('GET', `/v1/spaces/${space}`, asGuest)).body.permissions.edit).toBe(true);
    const users = await t.api('GET', `/v1/spaces/${space}/permissions/users`, as);
    assertMatchesSpec('GET', '/spaces/{spaceId}/permissions/users', 200, users.body);
    expect(users.body.items.map((x: any) => [x.user.id, x.permission])).toEqual([[guest.userId, 'read']]);
    const agg = await t.api('GET', `/v1/spaces/${space}/permissions/aggregate`, as);
    assertMatchesSpec('GET', '/spaces/{spaceId}/permissions/aggregate', 200, agg.body);
    const effective = Object.fromEntries(agg.body.items.map((x: any) => [x.user.id, x.permission]));
    expect(effective).toEqual({ [org.adminId]: 'admin', [guest.userId]: 'edit' });
    const onlyEdit = await t.api('GET', `/v1/spaces/${space}/permissions/aggregate?role=edit`, as);
    expect(onlyEdit.body.items.map((x: any) => x.user.id)).toEqual([guest.userId]);
    // The member's space list shows the effective permission.
    const memberSpaces = await t.api('GET', `/v1/orgs/${org.orgId}/members/${guest.userId}/spaces`, as);
    expect(memberSpaces.body.items.map((x: any) => [x.space.id, x.permission])).toEqual([[space, 'edit']]);

    // Leaving the team: back to the own read grant; without it, 404 again.
    expect((await t.api('DELETE', `/v1/orgs/${org.orgId}/teams/${team}/members/${guest.userId}`, as)).status).toBe(204);
    expect((await t.api('GET', `/v1/spaces/${space}`, asGuest)).body.permissions.edit).toBe(false);
    expect((await t.api('DELETE', `/v1/spaces/${space}/permissions/users/${guest.userId}`, as)).status).toBe(205);
    expect((await t.api('DELETE', `/v1/spaces/${space}/permissions/users/${guest.userId}`, as)).status).toBe(204);
    expect((await t.api('GET', `/v1/spaces/${space}`, asGuest)).status).toBe(404);

    // Back in the team, then the team is deleted: 404 on the next request.
    await t.api('PUT', `/v1/orgs/${org.orgId}/teams/${team}/members/${guest.userId}`, as);
    expect((await t.api('GET', `/v1/spaces/${space}`, asGuest)).status).toBe(200);
    expect((await t.api('DELETE', `/v1/orgs/${org.orgId}/teams/${team}`, as)).status).toBe(204);
    expect((await t.api('GET', `/v1/spaces/${space}`, asGuest)).status).toBe(404);
    expect((await t.api('GET', `/v1/spaces/${space}/permissions/teams`, as)).body.items).toEqual([]);
    expect((await t.api('GET', `/v1/orgs/${org.orgId}/members/${guest.userId}`, as)).body.spaces).toBe(0);
  });

  it('removing a team grant, role null, and refusals', async () => {
    const { org, as, guest, team, space } = await setup();
    const other = await t.seedOrg();
    const foreignTeam = (await t.api('PUT', `/v1/orgs/${other.orgId}/teams`, { token: other.adminToken, body: { title: 'F' } })).body.id;
    const outsider = await t.seedUser();
    const member = await t.seedUser(org.orgId, 'edit');

    await t.api('POST', `/v1/spaces/${space}/permissions`, { ...as, body: { role: 'comment', teams: [team] } });
    expect((await t.api('GET', `/v1/spaces/${space}`, { token: guest.token })).body.permissions.comment).toBe(true);
    expect((await t.api('POST', `/v1/spaces/${space}/permissions`, { ...as, body: { role: null, teams: [team] } })).status).toBe(204);
    expect((await t.api('GET', `/v1/spaces/${space}`, { token: guest.token })).status).toBe(404);
    await t.api('POST', `/v1/spaces/${space}/permissions`, { ...as, body: { role: 'read', teams: [team] } });
    expect((await t.api('DELETE', `/v1/spaces/${space}/permissions/teams/${team}`, as)).status).toBe(205);
    expect((await t.api('DELETE', `/v1/spaces/${space}/permissions/teams/${team}`, as)).status).toBe(204);
    expect((await t.api('GET', `/v1/spaces/${space}`, { token: guest.token })).status).toBe(404);

    const bad = async (body: unknown, field: string) => {
      const r = await t.api('POST', `/v1/spaces/${space}/permissions`, { ...as, body });
      expect(r.status).toBe(400);
      expect(r.body.error.message).toContain(field);
    };
    await bad({ role: 'read', teams: [foreignTeam] }, 'body.teams');
    await bad({ role: 'read', users: [outsider.userId] }, 'body.users');
    await bad({ role: 'owner', users: [member.userId] }, 'body.role');
    await bad({ role: 'read' }, 'body');
    await bad({ role: 'read', teams: [] }, 'body.teams');
    expect((await t.api('PATCH', `/v1/spaces/${space}/permissions/teams/${foreignTeam}`, { ...as, body: { role: 'read' } })).status).toBe(
      404,
    );
    // Only space admins change grants (an editor sees the space but may not).
    expect(
      (await t.api('POST', `/v1/spaces/${space}/permissions`, { token: member.token, body: { role: 'admin', users: [member.userId] } }))
        .status,
    ).toBe(403);
    expect((await t.api('GET', `/v1/spaces/${space}/permissions/teams`, { token: outsider.token })).status).toBe(404);
  });
});

describe('team grants on collections', () => {
  it('reach every space and collection inside', async () => {
    const { org, as, guest, team, space } = await setup();
    const top = (await t.api('POST', `/v1/orgs/${org.orgId}/collections`, { ...as, body: { title: 'Top' } })).body.id;
    const inner = (await t.api('POST', `/v1/orgs/${org.orgId}/collections`, { ...as, body: { title: 'Inner', parent: top } })).body.id;
    const deep = (await t.api('POST', `/v1/orgs/${org.orgId}/spaces`, { ...as, body: { title: 'Deep', parent: inner } })).body.id;
    const asGuest = { token: guest.token };
    expect((await t.api('GET', `/v1/spaces/${deep}`, asGuest)).status).toBe(404);
    expect((await t.api('GET', `/v1/collections/${inner}`, asGuest)).status).toBe(404);

    const api: any = new GitBookAPI({ endpoint: t.baseUrl, authToken: org.adminToken });
    expect((await api.collections.inviteToCollection(top, { role: 'edit', teams: [team] })).status).toBe(204);
    const got = await t.api('GET', `/v1/spaces/${deep}`, asGuest);
    expect(got.status).toBe(200);
    expect(got.body.permissions.edit).toBe(true);
    expect((await t.api('GET', `/v1/collections/${inner}`, asGuest)).status).toBe(200);
    expect((await t.api('GET', `/v1/spaces/${space}`, asGuest)).status).toBe(404); // outside the collection
    expect((await t.api('GET', `/v1/orgs/${org.orgId}/teams/${team}`, as)).body.spaces).toBe(1);

    const list = await t.api('GET', `/v1/collections/${top}/permissions/teams`, as);
    assertMatchesSpec('GET', '/collections/{collectionId}/permissions/teams', 200, list.body);
    expect(list.body.items.map((x: any) => [x.team.id, x.permission])).toEqual([[team, 'edit']]);
    const agg = await t.api('GET', `/v1/spaces/${deep}/permissions/aggregate`, as);
    expect(agg.body.items.find((x: any) => x.user.id === guest.userId)?.permission).toBe('edit');
    const cagg = await t.api('GET', `/v1/collections/${inner}/permissions/aggregate`, as);
    assertMatchesSpec('GET', '/collections/{collectionId}/permissions/aggregate', 200, cagg.body);
    expect(cagg.body.items.find((x: any) => x.user.id === guest.userId)?.permission).toBe('edit');

    // A user grant on a collection works the same way.
    const solo = await t.seedUser(org.orgId, null);
    await t.api('PATCH', `/v1/collections/${inner}/permissions/users/${solo.userId}`, { ...as, body: { role: 'read' } });
    expect((await t.api('GET', `/v1/spaces/${deep}`, { token: solo.token })).body.permissions.edit).toBe(false);
    const users = await t.api('GET', `/v1/collections/${inner}/permissions/users`, as);
    assertMatchesSpec('GET', '/collections/{collectionId}/permissions/users', 200, users.body);
    expect(users.body.items.map((x: any) => x.user.id)).toEqual([solo.userId]);

    expect((await t.api('DELETE', `/v1/collections/${top}/permissions/teams/${team}`, as)).status).toBe(205);
    expect((await t.api('GET', `/v1/spaces/${deep}`, asGuest)).status).toBe(404);
  });
});

describe('the access check of a space request', () => {
  it('reads the space and the caller’s access in one statement, with the role grants give', async () => {
    const { org, as, guest, team, space } = await setup();
    const outsider = await t.seedUser(undefined, undefined, 'Olga Outsider');
    let statements = 0;
    const counting = { query: (...args: unknown[]) => (statements++, (t.app.db.query as any)(...args)) } as Queryable;
    const check = async (token: string, needed: Role = 'read') => {
      const p = (await authenticate(t.app.db, token))!;
      statements = 0;
      try {
        return { role: (await requireSpace(counting, p, space, needed)).role, statements };
      } catch (err) {
        return { kind: (err as DomainError).kind, statements };
      }
    };
    expect(await check(org.adminToken)).toEqual({ role: 'admin', statements: 1 });
    expect(await check(guest.token)).toEqual({ kind: 'not-found', statements: 1 });
    expect(await check(outsider.token)).toEqual({ kind: 'not-found', statements: 1 });
    expect((await t.api('POST', `/v1/spaces/${space}/permissions`, { ...as, body: { role: 'read', teams: [team] } })).status).toBe(204);
    expect(await check(guest.token)).toEqual({ role: 'read', statements: 1 });
    expect(await check(guest.token, 'edit')).toEqual({ kind: 'forbidden', statements: 1 });
    expect((await t.api('DELETE', `/v1/spaces/${space}`, as)).status).toBeLessThan(300);
    expect(await check(org.adminToken)).toEqual({ kind: 'not-found', statements: 1 });
  });
});
