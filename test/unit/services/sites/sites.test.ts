// Sites (src/services/sites/sites.ts) over in-memory repos: create with its site spaces, the
// update rules (hostnames, basenames, defaults), delete, publish, the list a member sees, and the
// adaptive schema.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import {
  createSite,
  deleteSite,
  getPublishedSite,
  listSites,
  putAdaptiveSchema,
  setPublished,
  updateSite,
} from '../../../../src/services/sites/sites.js';
import { PUBLIC_URL, type FakeApp } from '../../../helpers/fakes/app.js';
import { key, tables } from '../../../helpers/fakes/store.js';
import { addMember, freshOrg, rejection, seedOrg, seedSection, seedSite, seedSiteSpace, seedSpace } from '../../../helpers/fakes/seed.js';

vi.mock('../../../../src/db/repos/sites.js', () => import('../../../helpers/fakes/repos/sites.js'));
vi.mock('../../../../src/db/repos/site-structure.js', () => import('../../../helpers/fakes/repos/site-structure.js'));
vi.mock('../../../../src/db/repos/site-external-links.js', () => import('../../../helpers/fakes/repos/site-external-links.js'));
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
// A new space has no merge rules (src/services/reviews.ts reads them when presenting it).
vi.mock('../../../../src/db/repos/reviews.js', () => ({ getMergeRules: async () => null }));

let app: FakeApp;
let org: string;
const admin = { userId: 'u-admin', tokenId: 't' };

beforeEach(() => {
  ({ app, org } = freshOrg(admin, 'admin'));
});

const siteSpacesOf = (siteId: string) =>
  [...tables.siteSpaces.values()].filter((ss) => ss.site_id === siteId).sort((a, b) => a.position - b.position);

describe('createSite', () => {
  it('adds the given spaces at the root, the first as default, each at a path of its own', async () => {
    const creator = addMember(org, 'u-creator', 'create');
    const a = seedSpace(org, { title: 'Guides' });
    const b = seedSpace(org, { title: 'Guides' });
    const site = await createSite(app, creator, org, { title: 'Docs', spaces: [a.id, b.id, a.id] });
    expect(site).toMatchObject({ object: 'site', title: 'Docs', type: 'basic', visibility: 'public', published: false, siteSpaces: 2 });
    expect(siteSpacesOf(site.id).map((ss) => [ss.space_id, ss.path, ss.is_default, ss.section_id])).toEqual([
      [a.id, 'guides', true, null],
      [b.id, 'guides-2', false, null],
    ]);
    // Whoever creates a site administers it, whatever the site's default level says.
    expect(tables.siteUserGrants.get(key(site.id, creator.userId))).toBe('admin');
    expect(site.permissions.admin).toBe(true);
  });

  it('creates an empty space titled like the site for "empty"', async () => {
    const site = await createSite(app, admin, org, { title: 'Handbook', spaces: 'empty' });
    const [ss] = siteSpacesOf(site.id);
    expect(tables.spaces.get(ss.space_id)).toMatchObject({ title: 'Handbook', organization_id: org });
  });

  it('refuses a space that is not in the organization, naming its position, and creates no site', async () => {
    const mine = seedSpace(org);
    const theirs = seedSpace(seedOrg());
    const err = await rejection(createSite(app, admin, org, { spaces: [mine.id, theirs.id] }));
    expect(err).toMatchObject({ kind: 'invalid', message: expect.stringContaining(`body.spaces.1: space "${theirs.id}"`) });
    expect(tables.sites.size).toBe(0);
  });

  it('refuses more than 100 spaces in one call', async () => {
    const ids = Array.from({ length: 101 }, () => seedSpace(org).id);
    expect(await rejection(createSite(app, admin, org, { spaces: ids }))).toMatchObject({ kind: 'invalid' });
    expect(tables.sites.size).toBe(0);
  });

  it('is forbidden to members who may not create content', async () => {
    const reader = addMember(org, 'u-reader', 'read');
    expect(await rejection(createSite(app, reader, org, { title: 'x' }))).toMatchObject({ kind: 'forbidden' });
  });
});

describe('updateSite', () => {
  it("refuses the API's own host, and a hostname another site uses", async () => {
    const site = seedSite(org);
    seedSite(org, { hostname: 'docs.acme.test' });
    const own = await rejection(updateSite(app, admin, org, site.id, { hostname: new URL(PUBLIC_URL).hostname }));
    expect(own).toMatchObject({ kind: 'invalid', message: expect.stringContaining('PUBLIC_URL') });
    expect(await rejection(updateSite(app, admin, org, site.id, { hostname: 'docs.acme.test' }))).toMatchObject({ kind: 'conflict' });
    expect(tables.sites.get(site.id)!.hostname).toBeNull();
  });

  it('keeps basenames unique within the organization only', async () => {
    const site = seedSite(org);
    seedSite(org, { basename: 'docs' });
    seedSite(seedOrg(), { basename: 'help' });
    expect(await rejection(updateSite(app, admin, org, site.id, { basename: 'docs' }))).toMatchObject({ kind: 'conflict' });
    const out = await updateSite(app, admin, org, site.id, { basename: 'help', title: 'Help' });
    expect(out).toMatchObject({ basename: 'help', title: 'Help' });
  });

  it('moves the default section, and the default site space within the default section only', async () => {
    const site = seedSite(org);
    const space = seedSpace(org);
    const s1 = seedSection(site.id, { path: 'one', is_default: true });
    const s2 = seedSection(site.id, { path: 'two' });
    const in1 = seedSiteSpace(site.id, space.id, { section_id: s1.id, path: 'a', is_default: true });
    const in2a = seedSiteSpace(site.id, space.id, { section_id: s2.id, path: 'a', is_default: true });
    const in2b = seedSiteSpace(site.id, seedSpace(org).id, { section_id: s2.id, path: 'b' });

    // s1 is the default section: a site space of s2 cannot become the default.
    const err = await rejection(updateSite(app, admin, org, site.id, { defaultSiteSpace: in2b.id }));
    expect(err).toMatchObject({ kind: 'invalid', message: expect.stringContaining('default section') });
    // Both in one call: the new default section is where the default site space is looked for.
    await updateSite(app, admin, org, site.id, { defaultSiteSection: s2.id, defaultSiteSpace: in2b.id });
    expect([tables.sections.get(s1.id)!.is_default, tables.sections.get(s2.id)!.is_default]).toEqual([false, true]);
    expect([in1, in2a, in2b].map((ss) => tables.siteSpaces.get(ss.id)!.is_default)).toEqual([true, false, true]);
  });

  it('writes nothing when a later part of the patch is refused', async () => {
    const site = seedSite(org, { title: 'Before' });
    const s1 = seedSection(site.id, { path: 'one', is_default: true });
    const s2 = seedSection(site.id, { path: 'two' });
    const err = await rejection(
      updateSite(app, admin, org, site.id, { title: 'After', defaultSiteSection: s2.id, defaultSiteSpace: 'nope' }),
    );
    expect(err).toMatchObject({ kind: 'invalid' });
    expect(tables.sites.get(site.id)!.title).toBe('Before');
    expect(tables.sections.get(s1.id)!.is_default).toBe(true);
    expect(tables.sections.get(s2.id)!.is_default).toBe(false);
  });

  it('refuses a default section that is not in the site', async () => {
    const site = seedSite(org);
    const other = seedSection(seedSite(org).id, { path: 'x', is_default: true });
    expect(await rejection(updateSite(app, admin, org, site.id, { defaultSiteSection: other.id }))).toMatchObject({
      kind: 'invalid',
      message: expect.stringContaining('body.defaultSiteSection'),
    });
  });
});

describe('deleteSite', () => {
  it('removes the site with its structure and keeps the spaces', async () => {
    const site = seedSite(org);
    const space = seedSpace(org);
    seedSiteSpace(site.id, space.id, { path: 'docs', is_default: true });
    await deleteSite(app, admin, org, site.id);
    expect(tables.sites.has(site.id)).toBe(false);
    expect(tables.siteSpaces.size).toBe(0);
    expect(tables.spaces.has(space.id)).toBe(true);
  });

  it('answers quietly for an absent site or one of another organization (which stays)', async () => {
    await deleteSite(app, admin, org, 'missing');
    const theirs = seedSite(seedOrg());
    await deleteSite(app, admin, org, theirs.id);
    expect(tables.sites.has(theirs.id)).toBe(true);
  });

  it('is forbidden to a member who only edits the site', async () => {
    const site = seedSite(org, { default_level: 'edit' });
    const editor = addMember(org, 'u-editor', 'edit');
    expect(await rejection(deleteSite(app, editor, org, site.id))).toMatchObject({ kind: 'forbidden' });
    expect(tables.sites.has(site.id)).toBe(true);
  });
});

describe('listSites and publishing', () => {
  it("lists only the sites a member has a role on, with that role's permissions", async () => {
    const open = seedSite(org, { title: 'Open', default_level: 'read' });
    const closed = seedSite(org, { title: 'Closed', default_level: null });
    const granted = seedSite(org, { title: 'Granted', default_level: null });
    const member = addMember(org, 'u-member', 'edit');
    tables.siteUserGrants.set(key(granted.id, member.userId), 'admin');

    const page = await listSites(app, member, org, {});
    expect(page.items.map((s: any) => [s.title, s.permissions.admin, s.permissions.view])).toEqual([
      ['Open', false, true],
      ['Granted', true, true],
    ]);
    expect((await listSites(app, admin, org, {})).items.map((s: any) => s.id)).toEqual([open.id, closed.id, granted.id]);
  });

  it('shows a published URL once published, and only a published site has published content', async () => {
    const site = seedSite(org);
    expect(await rejection(getPublishedSite(app, admin, org, site.id, {}))).toMatchObject({ kind: 'not-found' });
    const out = await setPublished(app, admin, org, site.id, true);
    expect(out.urls.published).toBe(`${PUBLIC_URL}/site/${site.id}`);
    const published = await getPublishedSite(app, admin, org, site.id, {});
    expect(published).toMatchObject({ object: 'published-content-site', structure: { type: 'siteSpaces', structure: [] } });
  });
});

describe('putAdaptiveSchema', () => {
  it('refuses a schema the description does not allow, naming the path, and keeps the previous one', async () => {
    const site = seedSite(org);
    const good = { type: 'object', properties: { plan: { type: 'string', description: 'Plan' } }, additionalProperties: false };
    expect((await putAdaptiveSchema(app, admin, org, site.id, good)).jsonSchema).toEqual(good);
    const bad = { type: 'object', properties: { plan: { type: 'date', description: 'x' } }, additionalProperties: false };
    const err = await rejection(putAdaptiveSchema(app, admin, org, site.id, bad));
    expect(err).toMatchObject({ kind: 'invalid', message: expect.stringMatching(/^Invalid request: body\.jsonSchema\.properties/) });
    expect(tables.sites.get(site.id)!.adaptive_schema).toEqual(good);
  });
});
