import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { checked, failure, newSpace, officialClient, SITE, type Org } from './helpers.js';

const { t } = useTestApp();

/** The structure as titles: sections as "title", groups as {title: [children]}, site spaces as "space title". */
async function outline(o: Org, siteId: string): Promise<unknown[]> {
  const api = officialClient(t, o.adminToken);
  const s = await checked('GET', `${SITE}/structure`, api.orgs.getSiteStructure(o.orgId, siteId, {}), 200);
  const walk = (items: any[]): unknown[] =>
    items.map((i) =>
      i.object === 'site-section-group' ? { [i.title]: walk(i.children) } : i.object === 'site-section' ? i.title : i.title,
    );
  return [s.type, walk(s.structure)];
}

async function siteWith(o: Org, spaces: string[] = []) {
  const api = officialClient(t, o.adminToken);
  return (await api.orgs.createSite(o.orgId, { title: 'Site', spaces })).data;
}

describe('sections and site spaces', () => {
  it('adding the first section keeps root site spaces in a new default section; defaults move on delete', async () => {
    const o = await t.seedOrg();
    const api = officialClient(t, o.adminToken);
    const guides = await newSpace(t, o, 'Guides');
    const apiRef = await newSpace(t, o, 'API reference');
    const site = await siteWith(o, [guides]);
    expect(await outline(o, site.id)).toEqual(['siteSpaces', ['Guides']]);

    const section = await checked('POST', `${SITE}/sections`, api.orgs.addSectionToSite(o.orgId, site.id, { spaceId: apiRef }), 201);
    expect(section).toMatchObject({ object: 'site-section', title: 'API reference', path: 'api-reference', default: false, draft: false });
    expect(section.siteSpaces.map((s: any) => [s.space.id, s.default])).toEqual([[apiRef, true]]);
    expect(await outline(o, site.id)).toEqual(['sections', ['Site', 'API reference']]);

    const list = await checked('GET', `${SITE}/sections`, api.orgs.listSiteSections(o.orgId, site.id, {}), 200);
    expect(list.items.map((s: any) => [s.title, s.default])).toEqual([
      ['Site', true],
      ['API reference', false],
    ]);
    const first = list.items[0];
    expect(first.siteSpaces[0].space.id).toBe(guides);

    // A variant in the default section (sectionId omitted), then in a named section.
    const variant = await checked('POST', `${SITE}/site-spaces`, api.orgs.addSpaceToSite(o.orgId, site.id, { spaceId: apiRef }), 201);
    expect(variant).toMatchObject({ section: first.id, default: false, path: 'api-reference' });
    const dup = await failure(api.orgs.addSpaceToSite(o.orgId, site.id, { spaceId: apiRef, sectionId: section.id }));
    expect(dup.code).toBe(409);

    // Deleting the default section makes the next one default; the spaces stay.
    expect((await api.orgs.deleteSiteSectionById(o.orgId, site.id, first.id)).status).toBe(204);
    expect((await api.orgs.deleteSiteSectionById(o.orgId, site.id, first.id)).status).toBe(204);
    const after = await checked('GET', `${SITE}/sections`, api.orgs.listSiteSections(o.orgId, site.id, {}), 200);
    expect(after.items.map((s: any) => [s.title, s.default])).toEqual([['API reference', true]]);
    expect((await t.api('GET', `/v1/spaces/${guides}`, { token: o.adminToken })).status).toBe(200);
    const siteNow = await checked('GET', SITE, api.orgs.getSiteById(o.orgId, site.id), 200);
    expect(siteNow.siteSpaces).toBe(1);
  });

  it('patches a section: absent leaves a field, null removes it; paths are unique; conditions are parsed', async () => {
    const o = await t.seedOrg();
    const api = officialClient(t, o.adminToken);
    const a = await newSpace(t, o, 'One');
    const b = await newSpace(t, o, 'Two');
    const site = await siteWith(o);
    const s1 = (await api.orgs.addSectionToSite(o.orgId, site.id, { spaceId: a, title: 'First', icon: 'book' })).data;
    const s2 = (await api.orgs.addSectionToSite(o.orgId, site.id, { spaceId: b })).data;
    expect(s1.default).toBe(true);

    const set = await checked(
      'PATCH',
      `${SITE}/sections/{siteSectionId}`,
      api.orgs.updateSiteSectionById(o.orgId, site.id, s2.id, {
        title: 'Second',
        path: 'second',
        condition: 'visitor.claims.plan == "pro"',
        description: 'More',
      }),
      200,
    );
    expect(set).toMatchObject({ title: 'Second', path: 'second', condition: 'visitor.claims.plan == "pro"', description: 'More' });
    const kept = await checked(
      'PATCH',
      `${SITE}/sections/{siteSectionId}`,
      api.orgs.updateSiteSectionById(o.orgId, site.id, s2.id, { title: 'Again' }),
      200,
    );
    expect(kept.condition).toBe('visitor.claims.plan == "pro"');
    const removed = await checked(
      'PATCH',
      `${SITE}/sections/{siteSectionId}`,
      api.orgs.updateSiteSectionById(o.orgId, site.id, s2.id, { condition: null, description: null, icon: null }),
      200,
    );
    expect(removed.condition).toBeUndefined();
    expect(removed.description).toBeUndefined();

    const clash = await failure(api.orgs.updateSiteSectionById(o.orgId, site.id, s2.id, { path: s1.path }));
    expect(clash.code).toBe(409);
    const syntax = await failure(api.orgs.updateSiteSectionById(o.orgId, site.id, s2.id, { condition: 'visitor.claims.plan ==' }));
    expect(syntax.code).toBe(400);
    expect(syntax.message).toMatch(/body\.condition: .*character \d+/);
    const notAllowed = await failure(api.orgs.updateSiteSectionById(o.orgId, site.id, s2.id, { condition: 'a = 1' }));
    expect(notAllowed.code).toBe(400);
    const slash = await failure(api.orgs.updateSiteSectionById(o.orgId, site.id, s2.id, { path: 'a/b' }));
    expect(slash.code).toBe(400);

    // Site spaces: path and condition patches, the same rules.
    const variant = s2.siteSpaces[0];
    const ss = await checked(
      'PATCH',
      `${SITE}/site-spaces/{siteSpaceId}`,
      api.orgs.updateSiteSpaceById(o.orgId, site.id, variant.id, { path: 'v2', condition: 'visitor.claims.isBeta' }),
      200,
    );
    expect(ss).toMatchObject({ path: 'v2', condition: 'visitor.claims.isBeta' });
    const bad = await failure(api.orgs.updateSiteSpaceById(o.orgId, site.id, variant.id, { condition: '(' }));
    expect(bad.code).toBe(400);
    const cleared = await checked(
      'PATCH',
      `${SITE}/site-spaces/{siteSpaceId}`,
      api.orgs.updateSiteSpaceById(o.orgId, site.id, variant.id, { condition: null }),
      200,
    );
    expect(cleared.condition).toBeUndefined();
    const repointed = await checked(
      'PATCH',
      `${SITE}/site-spaces/{siteSpaceId}`,
      api.orgs.updateSiteSpaceById(o.orgId, site.id, variant.id, { spaceId: a }),
      200,
    );
    expect(repointed.space.id).toBe(a);

    // The site's default section, and its default site space (which must be in that section).
    const site2 = await checked('PATCH', SITE, api.orgs.updateSiteById(o.orgId, site.id, { defaultSiteSection: s2.id }), 200);
    expect(site2.id).toBe(site.id);
    const sectionsNow = (await api.orgs.listSiteSections(o.orgId, site.id, {})).data.items;
    expect(sectionsNow.map((x: any) => [x.id, x.default])).toEqual([
      [s1.id, false],
      [s2.id, true],
    ]);
    const notInDefault = await failure(api.orgs.updateSiteById(o.orgId, site.id, { defaultSiteSpace: s1.siteSpaces[0].id }));
    expect(notInDefault.code).toBe(400);
    expect((await failure(api.orgs.updateSiteById(o.orgId, site.id, { defaultSiteSection: 'nope' }))).code).toBe(400);
    // defaultSiteSpace of a section must be one of its site spaces.
    const other = await failure(api.orgs.updateSiteSectionById(o.orgId, site.id, s1.id, { defaultSiteSpace: variant.id }));
    expect(other.code).toBe(400);
  });

  it('keeps site spaces in order through adds, deletes and moves; the default moves to the first remaining', async () => {
    const o = await t.seedOrg();
    const api = officialClient(t, o.adminToken);
    const ids = [await newSpace(t, o, 'A'), await newSpace(t, o, 'B'), await newSpace(t, o, 'C')];
    const site = await siteWith(o, ids);
    const list = async () => (await checked('GET', `${SITE}/site-spaces`, api.orgs.listSiteSpaces(o.orgId, site.id, {}), 200)).items;
    const [a, b, c] = await list();
    const moved = await checked(
      'POST',
      `${SITE}/site-spaces/{siteSpaceId}/move`,
      api.orgs.moveSiteSpace(o.orgId, site.id, c.id, { position: { before: { type: 'site-space', siteSpace: a.id } } }),
      200,
    );
    expect(moved.id).toBe(c.id);
    expect((await list()).map((x: any) => x.space.title)).toEqual(['C', 'A', 'B']);
    expect((await api.orgs.deleteSiteSpaceById(o.orgId, site.id, a.id)).status).toBe(204);
    const rest = await list();
    expect(rest.map((x: any) => [x.space.title, x.default])).toEqual([
      ['C', true],
      ['B', false],
    ]);
    expect((await api.orgs.deleteSiteSpaceById(o.orgId, site.id, a.id)).status).toBe(204);
    const wrong = await failure(
      api.orgs.moveSiteSpace(o.orgId, site.id, b.id, { position: { after: { type: 'site-space', siteSpace: 'zzz' } } }),
    );
    expect(wrong.code).toBe(400);
  });

  it('adds a section with spaceId null: a new space is created for it', async () => {
    const o = await t.seedOrg();
    const api = officialClient(t, o.adminToken);
    const site = await siteWith(o);
    const section = await checked(
      'POST',
      `${SITE}/sections`,
      api.orgs.addSectionToSite(o.orgId, site.id, { spaceId: null, title: 'Brand new' }),
      201,
    );
    expect(section.siteSpaces[0].space.title).toBe('Brand new');
  });
});

describe('section groups and sorting', () => {
  it("creates groups, sorts the structure, moves groups and puts sections back at a deleted group's place", async () => {
    const o = await t.seedOrg();
    const api = officialClient(t, o.adminToken);
    const site = await siteWith(o);
    const sections: any[] = [];
    for (const title of ['S1', 'S2', 'S3', 'S4']) {
      sections.push((await api.orgs.addSectionToSite(o.orgId, site.id, { spaceId: await newSpace(t, o, title), title })).data);
    }
    const [s1, s2, s3, s4] = sections;
    const group = await checked(
      'POST',
      `${SITE}/section-groups`,
      api.orgs.addSectionGroupToSite(o.orgId, site.id, { title: 'Group', sections: [s2.id, s3.id] }),
      201,
    );
    expect(group.sections.map((s: any) => s.title)).toEqual(['S2', 'S3']);
    expect(group.children.map((s: any) => s.title)).toEqual(['S2', 'S3']);
    expect(await outline(o, site.id)).toEqual(['sections', ['S1', 'S4', { Group: ['S2', 'S3'] }]]);

    // sortSiteStructure at the root, then inside the group.
    await checked(
      'PATCH',
      `${SITE}/structure/sort`,
      api.orgs.sortSiteStructure(o.orgId, site.id, {
        item: { type: 'site-section-group', id: group.id },
        position: { after: { type: 'site-section', id: s1.id } },
      }),
      200,
    );
    await checked(
      'PATCH',
      `${SITE}/structure/sort`,
      api.orgs.sortSiteStructure(o.orgId, site.id, {
        item: { type: 'site-section', id: s3.id },
        position: { before: { type: 'site-section', id: s2.id } },
      }),
      200,
    );
    expect(await outline(o, site.id)).toEqual(['sections', ['S1', { Group: ['S3', 'S2'] }, 'S4']]);
    // Across levels is refused: move with the item's update first.
    const across = await failure(
      api.orgs.sortSiteStructure(o.orgId, site.id, {
        item: { type: 'site-section', id: s4.id },
        position: { before: { type: 'site-section', id: s2.id } },
      }),
    );
    expect(across.code).toBe(400);
    const minimal = await t.api('PATCH', `/v1/orgs/${o.orgId}/sites/${site.id}/structure/sort`, {
      token: o.adminToken,
      headers: { prefer: 'return=minimal' },
      body: { item: { type: 'site-section', id: s4.id }, position: { before: { type: 'site-section', id: s1.id } } },
    });
    expect(minimal.status).toBe(204);
    expect(await outline(o, site.id)).toEqual(['sections', ['S4', 'S1', { Group: ['S3', 'S2'] }]]);

    // Deprecated moves use the same order.
    await checked(
      'POST',
      `${SITE}/section-groups/{siteSectionGroupId}/move`,
      api.orgs.moveSiteSectionGroup(o.orgId, site.id, group.id, { position: { before: { type: 'site-section', id: s4.id } } }),
      200,
    );
    await checked(
      'POST',
      `${SITE}/sections/{siteSectionId}/move`,
      api.orgs.moveSiteSection(o.orgId, site.id, s1.id, { position: { before: { type: 'site-section', siteSection: s4.id } } }),
      200,
    );
    expect(await outline(o, site.id)).toEqual(['sections', [{ Group: ['S3', 'S2'] }, 'S1', 'S4']]);

    // A section joins a group with siteSectionGroupId (0.202.0) and leaves it with null.
    await checked(
      'PATCH',
      `${SITE}/sections/{siteSectionId}`,
      api.orgs.updateSiteSectionById(o.orgId, site.id, s4.id, { siteSectionGroupId: group.id }),
      200,
    );
    expect(await outline(o, site.id)).toEqual(['sections', [{ Group: ['S3', 'S2', 'S4'] }, 'S1']]);
    await api.orgs.updateSiteSectionById(o.orgId, site.id, s4.id, { siteSectionGroupId: null });
    expect(await outline(o, site.id)).toEqual(['sections', [{ Group: ['S3', 'S2'] }, 'S1', 'S4']]);

    const renamed = await checked(
      'PATCH',
      `${SITE}/section-groups/{siteSectionGroupId}`,
      api.orgs.updateSiteSectionGroupById(o.orgId, site.id, group.id, { title: 'Renamed', icon: 'star' }),
      200,
    );
    expect(renamed).toMatchObject({ title: 'Renamed', icon: 'star' });
    const groups = await checked('GET', `${SITE}/section-groups`, api.orgs.listSiteSectionGroups(o.orgId, site.id, {}), 200);
    expect(groups.items.map((g: any) => g.id)).toEqual([group.id]);

    // Deleting the group puts S3, S2 at its place, before S1.
    expect((await api.orgs.deleteSiteSectionGroupById(o.orgId, site.id, group.id)).status).toBe(204);
    expect((await api.orgs.deleteSiteSectionGroupById(o.orgId, site.id, group.id)).status).toBe(204);
    expect(await outline(o, site.id)).toEqual(['sections', ['S3', 'S2', 'S1', 'S4']]);
  });

  it('adds and removes sections with the two 0.137.0 operations (raw HTTP)', async () => {
    const o = await t.seedOrg();
    const api = officialClient(t, o.adminToken);
    const site = await siteWith(o);
    const s1 = (await api.orgs.addSectionToSite(o.orgId, site.id, { spaceId: await newSpace(t, o, 'S1'), title: 'S1' })).data;
    const s2 = (await api.orgs.addSectionToSite(o.orgId, site.id, { spaceId: await newSpace(t, o, 'S2'), title: 'S2' })).data;
    const group = (await api.orgs.addSectionGroupToSite(o.orgId, site.id, { title: 'G' })).data;
    const base = `/v1/orgs/${o.orgId}/sites/${site.id}/section-groups/${group.id}/sections`;
    const added = await t.api('POST', base, { token: o.adminToken, body: { sectionId: s1.id } });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ object: 'site-section-group', id: group.id });
    expect(added.body.sections.map((s: any) => s.id)).toEqual([s1.id]);
    expect(await outline(o, site.id)).toEqual(['sections', ['S2', { G: ['S1'] }]]);
    expect((await t.api('POST', base, { token: o.adminToken, body: { sectionId: 'nope' } })).status).toBe(400);
    expect((await t.api('DELETE', `${base}/${s1.id}`, { token: o.adminToken })).status).toBe(204);
    expect((await t.api('DELETE', `${base}/${s1.id}`, { token: o.adminToken })).status).toBe(204);
    expect(await outline(o, site.id)).toEqual(['sections', ['S2', { G: [] }, 'S1']]);
    void s2;
  });
});
