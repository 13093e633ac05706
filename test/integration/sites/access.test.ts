import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { assertMatchesSchema, assertMatchesSpec } from '../../helpers/spec.js';
import { editContent } from '../../helpers/content.js';
import { addTeamMember, insertTeam } from '../../../src/db/repos/teams.js';
import { checked, failure, newSpace, officialClient, SITE, type Org } from './helpers.js';

const { t } = useTestApp();

async function publishedSite(o: Org, spaces: string[] = []) {
  const api = officialClient(t, o.adminToken);
  const site = (await api.orgs.createSite(o.orgId, { title: 'Private docs', visibility: 'share-link', spaces })).data;
  await api.orgs.publishSite(o.orgId, site.id);
  return site;
}

describe('share links', () => {
  it('creates links with a secret key in urls.published, stored only hashed and sealed; deactivation takes effect at once', async () => {
    const o = await t.seedOrg();
    const api = officialClient(t, o.adminToken);
    const space = await newSpace(t, o, 'Guide');
    const site = await publishedSite(o, [space]);
    const link = await checked('POST', `${SITE}/share-links`, api.orgs.createSiteShareLink(o.orgId, site.id, { name: 'Partners' }), 201);
    expect(link).toMatchObject({ object: 'share-link', name: 'Partners', active: true });
    const key = new URL(link.urls.published).searchParams.get('share')!;
    expect(Buffer.from(key, 'base64url').length).toBeGreaterThanOrEqual(16);
    const { rows } = await t.app.db.query('SELECT * FROM site_share_links WHERE id = $1', [link.id]);
    expect(JSON.stringify(rows[0])).not.toContain(key);

    const list = await checked('GET', `${SITE}/share-links`, api.orgs.listSiteShareLinks(o.orgId, site.id, {}), 200);
    expect(list.items.map((l: any) => l.urls.published)).toEqual([link.urls.published]);

    // The key threads into every published URL while the link is active.
    const profile = await checked('GET', `${SITE}/published`, api.orgs.getPublishedContentSite(o.orgId, site.id, { shareKey: key }), 200);
    expect(profile.site.urls.published).toBe(link.urls.published);
    expect(profile.structure.structure[0].urls.published).toContain(`share=${key}`);
    const variants = await checked('GET', `${SITE}/site-spaces`, api.orgs.listSiteSpaces(o.orgId, site.id, { shareKey: key }), 200);
    expect(variants.items[0].urls.published).toContain(`share=${key}`);

    const off = await checked(
      'PATCH',
      `${SITE}/share-links/{shareLinkId}`,
      api.orgs.updateSiteShareLinkById(o.orgId, site.id, link.id, { active: false, name: 'Old' }),
      200,
    );
    expect(off).toMatchObject({ active: false, name: 'Old' });
    const after = await checked('GET', `${SITE}/published`, api.orgs.getPublishedContentSite(o.orgId, site.id, { shareKey: key }), 200);
    expect(after.site.urls.published).not.toContain(key);

    expect((await api.orgs.deleteSiteShareLinkById(o.orgId, site.id, link.id)).status).toBe(204);
    expect((await api.orgs.deleteSiteShareLinkById(o.orgId, site.id, link.id)).status).toBe(204);
    expect((await failure(api.orgs.updateSiteShareLinkById(o.orgId, site.id, link.id, { active: true }))).code).toBe(404);
    const long = await t.api('POST', `/v1/orgs/${o.orgId}/sites/${site.id}/share-links`, {
      token: o.adminToken,
      body: { name: 'x'.repeat(51) },
    });
    expect(long.status).toBe(400);
  });
});

describe('customization and publishing auth', () => {
  it('puts the customization (unset fields take defaults) and reads it back in both description shapes', async () => {
    const o = await t.seedOrg();
    const api = officialClient(t, o.adminToken);
    const space = await newSpace(t, o, 'Guide');
    const site = (await api.orgs.createSite(o.orgId, { title: 'Branded', spaces: [space] })).data;
    const initial = await checked('GET', `${SITE}/customization`, api.orgs.getSiteCustomizationById(o.orgId, site.id, {}), 200);
    assertMatchesSchema('SiteCustomizationSettings', initial);
    const put = await checked(
      'PUT',
      `${SITE}/customization`,
      api.orgs.updateSiteCustomizationById(o.orgId, site.id, {
        styling: { primaryColor: { light: '#ff0000', dark: '#00ff00' }, corners: 'straight' },
        announcement: { enabled: true, message: 'Hello readers', style: 'info' },
        header: {
          preset: 'bold',
          links: [{ title: 'Home', to: { kind: 'url', url: 'https://example.com' }, condition: 'visitor.claims.isBeta' }],
        },
        pagination: { enabled: false },
        externalLinks: { target: 'blank' },
        pageActions: { items: ['external-ai', 'git'] },
        themes: { default: 'dark', toggeable: false },
      }),
      200,
    );
    const got = await checked('GET', `${SITE}/customization`, api.orgs.getSiteCustomizationById(o.orgId, site.id, {}), 200);
    expect(got).toEqual(put);
    expect(got.styling).toMatchObject({ primaryColor: { light: '#ff0000', dark: '#00ff00' }, corners: 'straight', theme: 'clean' });
    expect(got.announcement).toMatchObject({ enabled: true, message: 'Hello readers' });
    expect(got.header.links).toEqual([
      { title: 'Home', to: { kind: 'url', url: 'https://example.com' }, condition: 'visitor.claims.isBeta', links: [] },
    ]);
    expect(got.pageActions).toEqual({ items: ['external-ai', 'git'], externalAI: true, markdown: false });
    expect(got.pdf).toEqual({ enabled: false });
    expect(got.git).toEqual({ showEditLink: true });
    expect(got.updatedAt).toBeDefined();
    // 0.137.0 booleans switch the same actions; a PUT replaces what it does not give.
    const old = await checked(
      'PUT',
      `${SITE}/customization`,
      api.orgs.updateSiteCustomizationById(o.orgId, site.id, {
        pageActions: { externalAI: true, markdown: false },
        pdf: { enabled: false },
      }),
      200,
    );
    expect(old.pageActions.items).toEqual(['external-ai']);
    expect(old.pagination).toEqual({ enabled: true });
    const bad = await t.api('PUT', `/v1/orgs/${o.orgId}/sites/${site.id}/customization`, {
      token: o.adminToken,
      body: { styling: { primaryColor: { light: 'red', dark: '#000' } } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('body.styling.primaryColor.light');
    for (const header of [
      { links: [{ title: 'Beta', to: null, condition: 'visitor.claims ==' }] },
      { links: [{ title: 'Where', to: { kind: 'somewhere' } }] },
    ]) {
      const r = await t.api('PUT', `/v1/orgs/${o.orgId}/sites/${site.id}/customization`, { token: o.adminToken, body: { header } });
      expect(r.status, JSON.stringify(header)).toBe(400);
      expect(r.body.error.message).toContain('body.header.links.0');
    }

    // Per-site-space overrides: PATCH merges, null clears, DELETE drops them; the profile shows them.
    const ss = (await api.orgs.listSiteSpaces(o.orgId, site.id, {})).data.items[0];
    const over = await checked(
      'PATCH',
      `${SITE}/site-spaces/{siteSpaceId}/customization`,
      api.orgs.overrideSiteSpaceCustomizationById(o.orgId, site.id, ss.id, {
        styling: { corners: 'circular' },
        pagination: { enabled: false },
      }),
      200,
    );
    expect(over.styling.corners).toBe('circular');
    expect(over.styling.theme).toBe('clean');
    await api.orgs.publishSite(o.orgId, site.id);
    const profile = await checked('GET', `${SITE}/published`, api.orgs.getPublishedContentSite(o.orgId, site.id, {}), 200);
    expect(profile.customizations.siteSpaces[ss.id].styling.corners).toBe('circular');
    const cleared = await checked(
      'PATCH',
      `${SITE}/site-spaces/{siteSpaceId}/customization`,
      api.orgs.overrideSiteSpaceCustomizationById(o.orgId, site.id, ss.id, { styling: null }),
      200,
    );
    expect(cleared.styling.corners).toBe('rounded'); // the site's own value (the last PUT reset it)
    expect(cleared.pagination.enabled).toBe(false);
    expect((await api.orgs.deleteSiteSpaceCustomizationById(o.orgId, site.id, ss.id)).status).toBe(204);
    const back = await checked(
      'GET',
      `${SITE}/site-spaces/{siteSpaceId}/customization`,
      api.orgs.getSiteSpaceCustomizationById(o.orgId, site.id, ss.id, {}),
      200,
    );
    expect(back.pagination.enabled).toBe(true);
  });

  it('keeps the visitor-token key sealed, shows it to admins, and regenerates it', async () => {
    const o = await t.seedOrg();
    const api = officialClient(t, o.adminToken);
    const site = (await api.orgs.createSite(o.orgId, { title: 'Members only', visibility: 'visitor-auth' })).data;
    expect(site.urls.login).toMatch(/^http/);
    const auth = await checked('GET', `${SITE}/publishing/auth`, api.orgs.getSitePublishingAuthById(o.orgId, site.id), 200);
    expect(Buffer.from(auth.privateKey, 'base64url').length).toBe(32);
    const { rows } = await t.app.db.query('SELECT auth_key_sealed FROM sites WHERE id = $1', [site.id]);
    expect(rows[0].auth_key_sealed).not.toContain(auth.privateKey);
    const patched = await checked(
      'PATCH',
      `${SITE}/publishing/auth`,
      api.orgs.updateSitePublishingAuthById(o.orgId, site.id, { backend: 'custom', fallbackURL: 'https://login.example.com/start' }),
      200,
    );
    expect(patched).toMatchObject({ privateKey: auth.privateKey, fallbackURL: 'https://login.example.com/start' });
    const again = await checked(
      'POST',
      `${SITE}/publishing/auth/regenerate`,
      api.orgs.regenerateSitePublishingAuthById(o.orgId, site.id),
      200,
    );
    expect(again.privateKey).not.toBe(auth.privateKey);
    expect(again.fallbackURL).toBe('https://login.example.com/start');
    const unset = await checked(
      'PATCH',
      `${SITE}/publishing/auth`,
      api.orgs.updateSitePublishingAuthById(o.orgId, site.id, { backend: 'custom', fallbackURL: null }),
      200,
    );
    expect(unset.fallbackURL).toBeUndefined();
  });
});

describe('site search', () => {
  it('searches the spaces of the site', async () => {
    const o = await t.seedOrg();
    const api = officialClient(t, o.adminToken);
    const inSite = await newSpace(t, o, 'Inside');
    const outside = await newSpace(t, o, 'Outside');
    await editContent(t, inSite, (d) => void d.insertPage(null, { title: 'Zebras', markdown: 'Striped zebras live here.' }));
    await editContent(t, outside, (d) => void d.insertPage(null, { title: 'Zebras too', markdown: 'More zebras.' }));
    const site = (await api.orgs.createSite(o.orgId, { title: 'Search', spaces: [inSite] })).data;
    const r = await api.orgs.searchSiteContent(o.orgId, site.id, { query: 'zebras', scope: { mode: 'all' } }, {});
    expect(r.status).toBe(200);
    assertMatchesSpec('POST', `${SITE}/search`, 200, r.data);
    expect(r.data.items.map((i: any) => i.id)).toEqual([inSite]);
    const blank = await t.api('POST', `/v1/orgs/${o.orgId}/sites/${site.id}/search`, { token: o.adminToken, body: { query: ' ' } });
    expect(blank.status).toBe(400);
  });
});

describe('site permissions', () => {
  it('lets only site admins change a site; members see it per its default level; grants for users and teams raise roles', async () => {
    const o = await t.seedOrg();
    const api = officialClient(t, o.adminToken);
    const site = (await api.orgs.createSite(o.orgId, { title: 'Guarded' })).data;
    const editor = await t.seedUser(o.orgId, 'edit');
    const guest = await t.seedUser(o.orgId, null);
    const stranger = await t.seedUser();
    const asEditor = officialClient(t, editor.token);

    const seen = await checked('GET', SITE, asEditor.orgs.getSiteById(o.orgId, site.id), 200);
    expect(seen.permissions).toMatchObject({ view: true, edit: true, admin: false, editAdaptiveSchema: false });
    const denials: [string, () => Promise<unknown>][] = [
      ['patch', () => asEditor.orgs.updateSiteById(o.orgId, site.id, { title: 'Mine' })],
      ['publish', () => asEditor.orgs.publishSite(o.orgId, site.id)],
      ['delete', () => asEditor.orgs.deleteSiteById(o.orgId, site.id)],
      ['section', () => asEditor.orgs.addSectionToSite(o.orgId, site.id, { spaceId: null })],
      ['share link', () => asEditor.orgs.createSiteShareLink(o.orgId, site.id, { name: 'x' })],
      ['customization', () => asEditor.orgs.updateSiteCustomizationById(o.orgId, site.id, {})],
      ['auth', () => asEditor.orgs.getSitePublishingAuthById(o.orgId, site.id)],
      [
        'schema',
        () =>
          asEditor.orgs.updateSiteAdaptiveSchema(o.orgId, site.id, {
            jsonSchema: { type: 'object', properties: {}, additionalProperties: false },
          }),
      ],
      ['sort', () => asEditor.orgs.sortSiteStructure(o.orgId, site.id, { item: { type: 'site-section', id: 'x' }, position: {} })],
    ];
    for (const [what, call] of denials) expect((await failure(call())).code, what).toBe(403);
    expect((await t.api('GET', `/v1/orgs/${o.orgId}/sites/${site.id}`, { token: guest.token })).status).toBe(404);
    expect((await t.api('GET', `/v1/orgs/${o.orgId}/sites/${site.id}`, { token: stranger.token })).status).toBe(404);
    // Nobody deletes a site they cannot see.
    expect((await t.api('DELETE', `/v1/orgs/${o.orgId}/sites/${site.id}`, { token: guest.token })).status).toBe(404);
    expect((await t.api('DELETE', `/v1/orgs/${o.orgId}/sites/${site.id}`, { token: stranger.token })).status).toBe(404);
    expect((await api.orgs.getSiteById(o.orgId, site.id)).status).toBe(200);
    const guestList = await t.api('GET', `/v1/orgs/${o.orgId}/sites`, { token: guest.token });
    expect(guestList.body.items).toEqual([]);

    // A user grant makes the editor a site admin.
    expect((await api.orgs.inviteToSite(o.orgId, site.id, { role: 'admin', users: [editor.userId] })).status).toBe(204);
    expect((await checked('PATCH', SITE, asEditor.orgs.updateSiteById(o.orgId, site.id, { title: 'Mine now' }), 200)).title).toBe(
      'Mine now',
    );
    const users = await checked('GET', `${SITE}/permissions/users`, api.orgs.listUserPermissionsInSite(o.orgId, site.id, {}), 200);
    expect(users.items.map((u: any) => [u.user.id, u.permission])).toContainEqual([editor.userId, 'admin']);
    expect((await api.orgs.updateUserPermissionInSite(o.orgId, site.id, editor.userId, { role: 'read' })).status).toBe(204);
    expect((await checked('GET', SITE, asEditor.orgs.getSiteById(o.orgId, site.id), 200)).permissions.admin).toBe(false);
    expect((await failure(api.orgs.updateUserPermissionInSite(o.orgId, site.id, guest.userId, { role: 'read' }))).code).toBe(404);
    expect((await api.orgs.removeUserFromSite(o.orgId, site.id, editor.userId)).status).toBe(204);
    expect((await failure(asEditor.orgs.updateSiteById(o.orgId, site.id, { title: 'Again' }))).code).toBe(403);

    // A team grant lets the guest in; leaving the grant removes it.
    const teamId = 'team' + Date.now();
    await insertTeam(t.app.db, { id: teamId, orgId: o.orgId, title: 'Readers' });
    await addTeamMember(t.app.db, teamId, guest.userId, 'member');
    expect((await api.orgs.inviteToSite(o.orgId, site.id, { role: 'read', teams: [teamId] })).status).toBe(204);
    const asGuest = await t.api('GET', `/v1/orgs/${o.orgId}/sites/${site.id}`, { token: guest.token });
    expect(asGuest.status).toBe(200);
    expect(asGuest.body.permissions).toMatchObject({ view: true, edit: false });
    const teams = await checked('GET', `${SITE}/permissions/teams`, api.orgs.listTeamPermissionsInSite(o.orgId, site.id, {}), 200);
    expect(teams.items.map((x: any) => [x.team.id, x.permission])).toEqual([[teamId, 'read']]);
    const aggregate = await checked(
      'GET',
      `${SITE}/permissions/aggregate`,
      api.orgs.listPermissionsAggregateInSite(o.orgId, site.id, { sort: 'name', order: 'asc' }),
      200,
    );
    const byUser = new Map(aggregate.items.map((x: any) => [x.user.id, [x.permission, x.origin.type, x.origin.reason]]));
    expect(byUser.get(o.adminId)).toEqual(['admin', 'organization', undefined]);
    expect(byUser.get(editor.userId)).toEqual(['edit', 'site', 'default']);
    expect(byUser.get(guest.userId)).toEqual(['read', 'site', 'team']);
    expect(byUser.has(stranger.userId)).toBe(false);
    const inTeam = await checked(
      'GET',
      `${SITE}/permissions/aggregate`,
      api.orgs.listPermissionsAggregateInSite(o.orgId, site.id, { team: teamId }),
      200,
    );
    expect(inTeam.items.map((x: any) => x.user.id)).toEqual([guest.userId]);
    expect((await api.orgs.updateTeamPermissionInSite(o.orgId, site.id, teamId, { role: 'edit' })).status).toBe(204);
    expect((await t.api('GET', `/v1/orgs/${o.orgId}/sites/${site.id}`, { token: guest.token })).body.permissions.edit).toBe(true);
    expect((await api.orgs.removeTeamFromSite(o.orgId, site.id, teamId)).status).toBe(204);
    expect((await t.api('GET', `/v1/orgs/${o.orgId}/sites/${site.id}`, { token: guest.token })).status).toBe(404);

    // Bad grants are 400s naming the field; a default level of null hides the site from members.
    const badUser = await t.api('POST', `/v1/orgs/${o.orgId}/sites/${site.id}/permissions`, {
      token: o.adminToken,
      body: { role: 'read', users: [stranger.userId] },
    });
    expect(badUser.status).toBe(400);
    expect(badUser.body.error.message).toContain('body.users');
    await api.orgs.updateSiteById(o.orgId, site.id, { defaultLevel: null });
    expect((await t.api('GET', `/v1/orgs/${o.orgId}/sites/${site.id}`, { token: editor.token })).status).toBe(404);
  });
});
