// Site spaces (src/services/sites/spaces.ts) over in-memory repos: where a new one goes, its
// default and path (language variants), the 500 bound, one space per section, and the default
// moving on when the default leaves.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { addSiteSpace, deleteSiteSpace, listSiteSpaces, MAX_SITE_SPACES, updateSiteSpace } from '../../../../src/services/sites/spaces.js';
import type { FakeApp } from '../../../helpers/fakes/app.js';
import { tables } from '../../../helpers/fakes/store.js';
import { freshOrg, rejection, seedSection, seedSite, seedSiteSpace, seedSpace } from '../../../helpers/fakes/seed.js';

vi.mock('../../../../src/db/repos/sites.js', () => import('../../../helpers/fakes/repos/sites.js'));
vi.mock('../../../../src/db/repos/site-structure.js', () => import('../../../helpers/fakes/repos/site-structure.js'));
vi.mock('../../../../src/db/repos/site-share-links.js', () => import('../../../helpers/fakes/repos/site-share-links.js'));
vi.mock('../../../../src/db/repos/site-permissions.js', () => import('../../../helpers/fakes/repos/site-permissions.js'));
vi.mock('../../../../src/db/repos/members.js', () => import('../../../helpers/fakes/repos/members.js'));
vi.mock('../../../../src/db/repos/organizations.js', () => import('../../../helpers/fakes/repos/organizations.js'));
vi.mock('../../../../src/db/repos/access.js', () => import('../../../helpers/fakes/repos/access.js'));
vi.mock('../../../../src/db/repos/spaces.js', () => import('../../../helpers/fakes/repos/spaces.js'));
vi.mock('../../../../src/db/repos/siblings.js', () => import('../../../helpers/fakes/repos/siblings.js'));
vi.mock('../../../../src/db/repos/revisions.js', () => import('../../../helpers/fakes/repos/revisions.js'));
vi.mock('../../../../src/db/repos/content-objects.js', () => import('../../../helpers/fakes/repos/content-objects.js'));
vi.mock('../../../../src/services/content-hooks.js', () => import('../../../helpers/fakes/content-hooks.js'));

let app: FakeApp;
let org: string;
let site: ReturnType<typeof seedSite>;
const admin = { userId: 'u-admin', tokenId: 't' };

beforeEach(() => {
  ({ app, org } = freshOrg(admin, 'admin'));
  site = seedSite(org);
});

const inSection = (sectionId: string | null) =>
  [...tables.siteSpaces.values()]
    .filter((ss) => ss.site_id === site.id && ss.section_id === sectionId)
    .sort((a, b) => a.position - b.position);

describe('addSiteSpace', () => {
  it('adds to the root of a site without sections; the first is the default, later ones go last', async () => {
    const a = seedSpace(org, { title: 'Version 1' });
    const b = seedSpace(org, { title: 'Version 2' });
    const first = await addSiteSpace(app, admin, org, site.id, { spaceId: a.id });
    const second = await addSiteSpace(app, admin, org, site.id, { spaceId: b.id, title: 'Latest', hidden: true });
    expect(first).toMatchObject({ object: 'site-space', default: true, path: 'version-1' });
    expect(second).toMatchObject({ default: false, path: 'latest', title: 'Latest', hidden: true });
    expect(inSection(null).map((ss) => ss.space_id)).toEqual([a.id, b.id]);
  });

  it("goes into the default section when none is named, and refuses a section that is not the site's", async () => {
    const s1 = seedSection(site.id, { path: 'one' });
    const s2 = seedSection(site.id, { path: 'two', is_default: true });
    const space = seedSpace(org);
    await addSiteSpace(app, admin, org, site.id, { spaceId: space.id });
    expect(inSection(s2.id)).toHaveLength(1);
    expect(inSection(s1.id)).toHaveLength(0);
    expect(await rejection(addSiteSpace(app, admin, org, site.id, { spaceId: space.id, sectionId: 'elsewhere' }))).toMatchObject({
      kind: 'invalid',
      message: expect.stringContaining('body.sectionId'),
    });
  });

  it('shows a space once per section (409), but the same space may appear in another section', async () => {
    const s1 = seedSection(site.id, { path: 'one', is_default: true });
    const s2 = seedSection(site.id, { path: 'two' });
    const space = seedSpace(org);
    await addSiteSpace(app, admin, org, site.id, { spaceId: space.id, sectionId: s1.id });
    expect(await rejection(addSiteSpace(app, admin, org, site.id, { spaceId: space.id, sectionId: s1.id }))).toMatchObject({
      kind: 'conflict',
    });
    await addSiteSpace(app, admin, org, site.id, { spaceId: space.id, sectionId: s2.id });
    expect([inSection(s1.id).length, inSection(s2.id).length]).toEqual([1, 1]);
  });

  it("names a translation of a section's space by its language code, a plain variant by its title", async () => {
    const english = seedSpace(org, { title: 'Docs', language: 'en' });
    const french = seedSpace(org, { title: 'Docs (fr)', language: 'fr' });
    const v2 = seedSpace(org, { title: 'Docs v2', language: 'en' });
    seedSiteSpace(site.id, english.id, { path: 'docs', is_default: true });
    expect(await addSiteSpace(app, admin, org, site.id, { spaceId: v2.id })).toMatchObject({ path: 'docs-v2' });
    expect(await addSiteSpace(app, admin, org, site.id, { spaceId: french.id })).toMatchObject({ path: 'fr' });
  });

  it('keeps paths unique within the section, counting site spaces whose space is in the trash', async () => {
    const trashed = seedSpace(org, { title: 'Guide', deleted_at: new Date() });
    seedSiteSpace(site.id, trashed.id, { path: 'guide', is_default: true });
    const live = seedSpace(org, { title: 'Guide' });
    const out = await addSiteSpace(app, admin, org, site.id, { spaceId: live.id });
    // The trashed one still holds the default and its path (it comes back when restored).
    expect(out).toMatchObject({ path: 'guide-2', default: false });
  });

  it(`refuses a site space beyond ${MAX_SITE_SPACES}, before creating a space for it`, async () => {
    const space = seedSpace(org);
    for (let i = 0; i < MAX_SITE_SPACES; i++) seedSiteSpace(site.id, space.id, { path: `p${i}`, space_id: `s${i}` });
    const spaces = tables.spaces.size;
    const err = await rejection(addSiteSpace(app, admin, org, site.id, { spaceId: null, title: 'New' }));
    expect(err).toMatchObject({ kind: 'invalid', message: `Invalid request: a site has at most ${MAX_SITE_SPACES} site spaces` });
    expect(tables.spaces.size).toBe(spaces);
  });
});

describe('deleteSiteSpace', () => {
  it('hands the default to the next site space of the same section only', async () => {
    const s1 = seedSection(site.id, { path: 'one', is_default: true });
    const s2 = seedSection(site.id, { path: 'two' });
    const [x, y, z] = [seedSpace(org), seedSpace(org), seedSpace(org)];
    const def = seedSiteSpace(site.id, x.id, { section_id: s1.id, path: 'x', is_default: true });
    const next = seedSiteSpace(site.id, y.id, { section_id: s1.id, path: 'y' });
    const other = seedSiteSpace(site.id, z.id, { section_id: s2.id, path: 'z', is_default: false });
    await deleteSiteSpace(app, admin, org, site.id, def.id);
    expect(tables.siteSpaces.has(def.id)).toBe(false);
    expect(tables.siteSpaces.get(next.id)!.is_default).toBe(true);
    expect(tables.siteSpaces.get(other.id)!.is_default).toBe(false);
  });

  it('answers quietly for a site space that does not exist', async () => {
    await deleteSiteSpace(app, admin, org, site.id, 'missing');
    expect(tables.sites.get(site.id)!.version).toBe(1);
  });
});

describe('updateSiteSpace', () => {
  it('refuses a path or a space a sibling already has (409), and a bad condition (400), writing nothing', async () => {
    const [a, b] = [seedSpace(org), seedSpace(org)];
    const one = seedSiteSpace(site.id, a.id, { path: 'one', is_default: true });
    seedSiteSpace(site.id, b.id, { path: 'two' });
    expect(await rejection(updateSiteSpace(app, admin, org, site.id, one.id, { path: 'two' }))).toMatchObject({ kind: 'conflict' });
    expect(await rejection(updateSiteSpace(app, admin, org, site.id, one.id, { spaceId: b.id }))).toMatchObject({ kind: 'conflict' });
    expect(await rejection(updateSiteSpace(app, admin, org, site.id, one.id, { condition: '1 +' }))).toMatchObject({
      kind: 'invalid',
      message: expect.stringContaining('body.condition'),
    });
    expect(tables.siteSpaces.get(one.id)).toMatchObject({ path: 'one', space_id: a.id, condition: null });
  });

  it('changes the fields given and clears those given as null', async () => {
    const a = seedSpace(org);
    const one = seedSiteSpace(site.id, a.id, { path: 'one', is_default: true, title: 'Old', condition: 'true' });
    const out = await updateSiteSpace(app, admin, org, site.id, one.id, { path: 'renamed', title: null, hidden: true });
    expect(out).toMatchObject({ path: 'renamed', hidden: true, condition: 'true' });
    expect(tables.siteSpaces.get(one.id)).toMatchObject({ path: 'renamed', title: null, hidden: true, condition: 'true' });
  });

  it('is a 404 for a site space of another site', async () => {
    const other = seedSiteSpace(seedSite(org).id, seedSpace(org).id, { path: 'x', is_default: true });
    expect(await rejection(updateSiteSpace(app, admin, org, site.id, other.id, { path: 'y' }))).toMatchObject({ kind: 'not-found' });
  });
});

describe('listSiteSpaces', () => {
  it('lists in reading order, section by section, and filters the default of the default section', async () => {
    const s1 = seedSection(site.id, { path: 'one', position: 2 });
    const s2 = seedSection(site.id, { path: 'two', position: 1, is_default: true });
    const [x, y, z] = [seedSpace(org), seedSpace(org), seedSpace(org)];
    const a = seedSiteSpace(site.id, x.id, { section_id: s1.id, path: 'a', is_default: true });
    const b = seedSiteSpace(site.id, y.id, { section_id: s2.id, path: 'b', is_default: true });
    const c = seedSiteSpace(site.id, z.id, { section_id: s2.id, path: 'c' });
    const ids = async (q = {}) => (await listSiteSpaces(app, admin, org, site.id, q)).items.map((ss: any) => ss.id);
    expect(await ids()).toEqual([b.id, c.id, a.id]);
    expect(await ids({ default: true })).toEqual([b.id]);
    expect(await ids({ default: false })).toEqual([c.id, a.id]);
  });
});
