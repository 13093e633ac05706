// A site's structure as the API shows it (src/services/sites/structure.ts) over in-memory repos:
// the two shapes, groups, trashed spaces, share keys in URLs, and reordering siblings.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { getStructure, sortStructure } from '../../../../src/services/sites/structure.js';
import { createShareLink } from '../../../../src/services/sites/share-links.js';
import { PUBLIC_URL, type FakeApp } from '../../../helpers/fakes/app.js';
import { tables } from '../../../helpers/fakes/store.js';
import { addMember, freshOrg, rejection, seedSection, seedSite, seedSiteSpace, seedSpace } from '../../../helpers/fakes/seed.js';

vi.mock('../../../../src/db/repos/sites.js', () => import('../../../helpers/fakes/repos/sites.js'));
vi.mock('../../../../src/db/repos/site-structure.js', () => import('../../../helpers/fakes/repos/site-structure.js'));
vi.mock('../../../../src/db/repos/site-external-links.js', () => import('../../../helpers/fakes/repos/site-external-links.js'));
vi.mock('../../../../src/db/repos/site-share-links.js', () => import('../../../helpers/fakes/repos/site-share-links.js'));
vi.mock('../../../../src/db/repos/site-permissions.js', () => import('../../../helpers/fakes/repos/site-permissions.js'));
vi.mock('../../../../src/db/repos/members.js', () => import('../../../helpers/fakes/repos/members.js'));
vi.mock('../../../../src/db/repos/organizations.js', () => import('../../../helpers/fakes/repos/organizations.js'));
vi.mock('../../../../src/db/repos/access.js', () => import('../../../helpers/fakes/repos/access.js'));

let app: FakeApp;
let org: string;
let site: ReturnType<typeof seedSite>;
const admin = { userId: 'u-admin', tokenId: 't' };

beforeEach(() => {
  ({ app, org } = freshOrg(admin, 'admin'));
  site = seedSite(org, { published: true });
});

describe('getStructure', () => {
  it('lists root site spaces of a site without sections, leaving out those whose space is in the trash', async () => {
    const live = seedSpace(org, { title: 'Live' });
    const trashed = seedSpace(org, { title: 'Trashed', deleted_at: new Date() });
    seedSiteSpace(site.id, live.id, { path: 'live', is_default: true });
    seedSiteSpace(site.id, trashed.id, { path: 'trashed' });
    const out = (await getStructure(app, admin, org, site.id, {})) as any;
    expect(out.type).toBe('siteSpaces');
    expect(out.structure.map((ss: any) => [ss.title, ss.default, ss.urls.published])).toEqual([
      ['Live', true, `${PUBLIC_URL}/site/${site.id}`],
    ]);
  });

  it('lists sections and groups in one sibling order, each section with its variants and URLs', async () => {
    const space = seedSpace(org, { title: 'Docs' });
    const v2 = seedSpace(org, { title: 'Docs v2' });
    const group = { id: 'g1', site_id: site.id, parent_group_id: null, title: 'Products', icon: null, position: 2, created_at: new Date() };
    tables.groups.set(group.id, group);
    const home = seedSection(site.id, { path: 'home', title: 'Home', is_default: true, position: 1 });
    const api = seedSection(site.id, { path: 'api', title: 'API', group_id: 'g1', position: 1 });
    seedSiteSpace(site.id, space.id, { section_id: home.id, path: 'docs', is_default: true });
    seedSiteSpace(site.id, space.id, { section_id: api.id, path: 'v1', is_default: true });
    seedSiteSpace(site.id, v2.id, { section_id: api.id, path: 'v2' });

    const out = (await getStructure(app, admin, org, site.id, {})) as any;
    expect(out.type).toBe('sections');
    expect(out.structure.map((x: any) => [x.object, x.title])).toEqual([
      ['site-section', 'Home'],
      ['site-section-group', 'Products'],
    ]);
    const [apiSection] = out.structure[1].sections;
    expect(apiSection).toMatchObject({ title: 'API', sectionGroup: 'g1', urls: { published: `${PUBLIC_URL}/site/${site.id}/api` } });
    // The default variant of a section lives at the section's URL, the others one segment below.
    expect(apiSection.siteSpaces.map((ss: any) => ss.urls.published)).toEqual([
      `${PUBLIC_URL}/site/${site.id}/api`,
      `${PUBLIC_URL}/site/${site.id}/api/v2`,
    ]);
  });

  it("threads a share key into the URLs only when it opens one of the site's active links", async () => {
    seedSiteSpace(site.id, seedSpace(org).id, { path: 'docs', is_default: true });
    const link = await createShareLink(app, admin, org, site.id, { name: 'x' });
    const key = new URL(link.urls.published).searchParams.get('share')!;
    const url = async (shareKey: string) =>
      ((await getStructure(app, admin, org, site.id, { shareKey })) as any).structure[0].urls.published;
    expect(await url(key)).toBe(`${PUBLIC_URL}/site/${site.id}?share=${key}`);
    expect(await url('made-up')).toBe(`${PUBLIC_URL}/site/${site.id}`);
  });

  it('is a 404 for a member without a role on the site', async () => {
    const outsider = addMember(org, 'u-guest', null);
    expect(await rejection(getStructure(app, outsider, org, site.id, {}))).toMatchObject({ kind: 'not-found' });
  });
});

describe('sortStructure', () => {
  it('puts an item before or after a sibling, renumbering when neighbours leave no room', async () => {
    const [a, b, c] = ['a', 'b', 'c'].map((path) => seedSiteSpace(site.id, seedSpace(org).id, { path, position: 1 }));
    tables.siteSpaces.get(a.id)!.is_default = true;
    // Equal positions: placing c right after a (before b) has to renumber them first.
    await sortStructure(app, admin, org, site.id, {
      item: { type: 'site-space', id: c.id },
      position: { after: { type: 'site-space', id: a.id } },
    });
    const order = [...tables.siteSpaces.values()].sort((x, y) => x.position - y.position).map((ss) => ss.path);
    expect(order).toEqual(['a', 'c', 'b']);
    expect([a, b].map((x) => tables.siteSpaces.get(x.id)!.position)).toEqual([1, 2]);
  });

  it('is a 404 for an item not in the site (external links included) and a 400 for a pointer that is not a sibling', async () => {
    const s1 = seedSection(site.id, { path: 'one', is_default: true });
    const ss = seedSiteSpace(site.id, seedSpace(org).id, { section_id: s1.id, path: 'x', is_default: true });
    expect(
      await rejection(sortStructure(app, admin, org, site.id, { item: { type: 'site-external-link', id: 'l' }, position: {} })),
    ).toMatchObject({ kind: 'not-found' });
    expect(
      await rejection(sortStructure(app, admin, org, site.id, { item: { type: 'site-space', id: 'nope' }, position: {} })),
    ).toMatchObject({
      kind: 'not-found',
    });
    // A section and a site space are never siblings.
    const err = await rejection(
      sortStructure(app, admin, org, site.id, {
        item: { type: 'site-section', id: s1.id },
        position: { before: { type: 'site-space', id: ss.id } },
      }),
    );
    expect(err).toMatchObject({ kind: 'invalid' });
    expect(tables.sites.get(site.id)!.version).toBe(1);
  });
});
