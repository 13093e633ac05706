// Site sections (src/services/sites/sections.ts) over in-memory repos: the default-section rules,
// the conversion of a site without sections, paths, conditions and the 100-section bound.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { DomainError } from '../../../../src/core/errors.js';
import {
  addSection,
  checkCondition,
  checkPath,
  deleteSection,
  listSections,
  MAX_SECTIONS,
  moveSection,
  updateSection,
} from '../../../../src/services/sites/sections.js';
import type { FakeApp } from '../../../helpers/fakes/app.js';
import { tables, transactions } from '../../../helpers/fakes/store.js';
import { addMember, freshOrg, rejection, seedOrg, seedSection, seedSite, seedSiteSpace, seedSpace } from '../../../helpers/fakes/seed.js';

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
// A new space has no merge rules (src/services/reviews.ts reads them when presenting it).
vi.mock('../../../../src/db/repos/reviews.js', () => ({ getMergeRules: async () => null }));

let app: FakeApp;
let org: string;
const admin = { userId: 'u-admin', tokenId: 't' };

beforeEach(() => {
  ({ app, org } = freshOrg(admin, 'admin'));
});

const sectionsOf = (siteId: string) =>
  [...tables.sections.values()].filter((s) => s.site_id === siteId).sort((a, b) => a.position - b.position);
const siteSpacesOf = (sectionId: string | null, siteId?: string) =>
  [...tables.siteSpaces.values()].filter((ss) => ss.section_id === sectionId && (!siteId || ss.site_id === siteId));

describe('checkCondition and checkPath', () => {
  it('accept absent, null and well-formed values', () => {
    expect(() => checkCondition(undefined, 'body.condition')).not.toThrow();
    expect(() => checkCondition(null, 'body.condition')).not.toThrow();
    expect(() => checkCondition('visitor.claims.plan == "pro"', 'body.condition')).not.toThrow();
    expect(() => checkPath(undefined, 'body.path')).not.toThrow();
    expect(() => checkPath('getting-started', 'body.path')).not.toThrow();
  });

  it('refuse a condition that does not parse, naming the field', () => {
    const err = (() => {
      try {
        checkCondition('visitor.claims.plan ==', 'body.condition');
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(DomainError);
    expect(err).toMatchObject({ kind: 'invalid', message: expect.stringMatching(/^Invalid request: body\.condition: /) });
  });

  it('refuse a path that is not one URL segment', () => {
    for (const bad of ['a/b', 'a b', 'a?b', 'a#b', 'a%20', '']) expect(() => checkPath(bad, 'body.path'), bad).toThrow(DomainError);
  });
});

describe('addSection', () => {
  it('makes the first section of an empty site its default, with a default site space', async () => {
    const space = seedSpace(org, { title: 'Guides' });
    const site = seedSite(org);
    const section = await addSection(app, admin, org, site.id, { spaceId: space.id, title: 'User guide' });
    expect(section).toMatchObject({ object: 'site-section', title: 'User guide', path: 'user-guide', default: true });
    const [row] = sectionsOf(site.id);
    expect(row.is_default).toBe(true);
    expect(siteSpacesOf(row.id)).toMatchObject([{ space_id: space.id, is_default: true, path: 'guides' }]);
    expect(tables.sites.get(site.id)!.version).toBeGreaterThan(1);
  });

  it('turns the root site spaces of a site without sections into a default section titled like the site', async () => {
    const site = seedSite(org, { title: 'Acme Docs' });
    const a = seedSpace(org, { title: 'A' });
    const b = seedSpace(org, { title: 'B' });
    const rootA = seedSiteSpace(site.id, a.id, { path: 'a', is_default: true });
    const rootB = seedSiteSpace(site.id, b.id, { path: 'b' });
    const api = seedSpace(org, { title: 'API reference' });

    await addSection(app, admin, org, site.id, { spaceId: api.id });

    const [first, second] = sectionsOf(site.id);
    expect(first).toMatchObject({ title: 'Acme Docs', path: 'acme-docs', is_default: true });
    expect(second).toMatchObject({ title: 'API reference', path: 'api-reference', is_default: false });
    // Nothing was lost: the old root entries now belong to the default section, defaults kept.
    expect(siteSpacesOf(null, site.id)).toEqual([]);
    expect(siteSpacesOf(first.id).map((ss) => [ss.id, ss.is_default])).toEqual([
      [rootA.id, true],
      [rootB.id, false],
    ]);
    expect(siteSpacesOf(second.id)).toMatchObject([{ space_id: api.id, is_default: true }]);
  });

  it('titles a section after its space, and gives it a path no other section has', async () => {
    const site = seedSite(org);
    seedSection(site.id, { path: 'guides', is_default: true });
    const space = seedSpace(org, { title: 'Guides' });
    await addSection(app, admin, org, site.id, { spaceId: space.id });
    expect(sectionsOf(site.id).map((s) => s.path)).toEqual(['guides', 'guides-2']);
  });

  it(`refuses a section beyond ${MAX_SECTIONS} before creating a space for it`, async () => {
    const site = seedSite(org);
    for (let i = 0; i < MAX_SECTIONS; i++) seedSection(site.id, { path: `s${i}`, is_default: i === 0 });
    const spacesBefore = tables.spaces.size;
    const err = await rejection(addSection(app, admin, org, site.id, { spaceId: null, title: 'One too many' }));
    expect(err).toMatchObject({ kind: 'invalid', message: `Invalid request: a site has at most ${MAX_SECTIONS} sections` });
    expect(tables.spaces.size).toBe(spacesBefore);
    expect(sectionsOf(site.id)).toHaveLength(MAX_SECTIONS);
  });

  it('creates a new space titled like the section when no space is given', async () => {
    const site = seedSite(org);
    const section = (await addSection(app, admin, org, site.id, { spaceId: null, title: 'Changelog' })) as any;
    const created = [...tables.spaces.values()].find((s) => s.title === 'Changelog');
    expect(created).toBeDefined();
    expect(section.siteSpaces).toMatchObject([{ space: { id: created!.id } }]);
  });

  it('refuses a space of another organization and a group that is not in the site, naming the field', async () => {
    const site = seedSite(org);
    const elsewhere = seedSpace(seedOrg());
    expect(await rejection(addSection(app, admin, org, site.id, { spaceId: elsewhere.id }))).toMatchObject({
      kind: 'invalid',
      message: expect.stringContaining('body.spaceId'),
    });
    const space = seedSpace(org);
    expect(await rejection(addSection(app, admin, org, site.id, { spaceId: space.id, siteSectionGroupId: 'nope' }))).toMatchObject({
      kind: 'invalid',
      message: expect.stringContaining('body.siteSectionGroupId'),
    });
    expect(sectionsOf(site.id)).toEqual([]);
  });

  it('lets only site admins change the structure, and hides the site from those without a role', async () => {
    const site = seedSite(org, { default_level: 'edit' });
    const space = seedSpace(org);
    const editor = addMember(org, 'u-editor', 'edit');
    expect(await rejection(addSection(app, editor, org, site.id, { spaceId: space.id }))).toMatchObject({ kind: 'forbidden' });
    const hidden = seedSite(org, { default_level: null });
    expect(await rejection(addSection(app, editor, org, hidden.id, { spaceId: space.id }))).toMatchObject({ kind: 'not-found' });
    expect(tables.sections.size).toBe(0);
  });
});

describe('deleteSection', () => {
  it('gives the default to the first remaining section in reading order, and takes its site spaces along', async () => {
    const site = seedSite(org);
    const space = seedSpace(org);
    const first = seedSection(site.id, { path: 'first', is_default: true, position: 1 });
    const second = seedSection(site.id, { path: 'second', position: 3 });
    const third = seedSection(site.id, { path: 'third', position: 2 });
    seedSiteSpace(site.id, space.id, { section_id: first.id, path: 'docs', is_default: true });
    seedSiteSpace(site.id, space.id, { section_id: second.id, path: 'docs', is_default: true });

    await deleteSection(app, admin, org, site.id, first.id);

    expect(tables.sections.has(first.id)).toBe(false);
    expect(tables.sections.get(third.id)!.is_default).toBe(true);
    expect(tables.sections.get(second.id)!.is_default).toBe(false);
    expect(siteSpacesOf(first.id)).toEqual([]);
    expect(siteSpacesOf(second.id)).toHaveLength(1);
  });

  it('answers quietly for a section that does not exist, without bumping the site version', async () => {
    const site = seedSite(org);
    await deleteSection(app, admin, org, site.id, 'missing');
    expect(tables.sites.get(site.id)!.version).toBe(1);
  });
});

describe('updateSection', () => {
  let site: ReturnType<typeof seedSite>;
  let guides: ReturnType<typeof seedSection>;
  let api: ReturnType<typeof seedSection>;
  beforeEach(() => {
    site = seedSite(org);
    guides = seedSection(site.id, { path: 'guides', is_default: true, condition: 'visitor.claims.beta' });
    api = seedSection(site.id, { path: 'api' });
  });

  it('changes the given fields, removes those given as null and leaves absent ones alone', async () => {
    const out = await updateSection(app, admin, org, site.id, guides.id, { title: 'How-to', condition: null });
    expect(out).toMatchObject({ title: 'How-to', path: 'guides' });
    expect(out).not.toHaveProperty('condition');
    expect(tables.sections.get(guides.id)).toMatchObject({ title: 'How-to', condition: null, path: 'guides' });
  });

  it('refuses a condition that does not parse and writes nothing', async () => {
    const err = await rejection(updateSection(app, admin, org, site.id, guides.id, { title: 'x', condition: 'a ==' }));
    expect(err).toMatchObject({ kind: 'invalid', message: expect.stringContaining('body.condition') });
    expect(tables.sections.get(guides.id)).toMatchObject({ title: 'guides', condition: 'visitor.claims.beta' });
  });

  it("refuses another section's path (409) and rolls back", async () => {
    const err = await rejection(updateSection(app, admin, org, site.id, api.id, { title: 'Reference', path: 'guides' }));
    expect(err).toMatchObject({ kind: 'conflict' });
    expect(tables.sections.get(api.id)).toMatchObject({ title: 'api', path: 'api' });
    expect(transactions.rolledBack).toBe(1);
  });

  it('is a 404 for a section of another site', async () => {
    const other = seedSite(org);
    const theirs = seedSection(other.id, { path: 'x', is_default: true });
    expect(await rejection(updateSection(app, admin, org, site.id, theirs.id, { title: 'y' }))).toMatchObject({ kind: 'not-found' });
  });

  it('moves the default site space only to a site space of the same section', async () => {
    const space = seedSpace(org);
    const space2 = seedSpace(org);
    const a = seedSiteSpace(site.id, space.id, { section_id: guides.id, path: 'a', is_default: true });
    const b = seedSiteSpace(site.id, space2.id, { section_id: guides.id, path: 'b' });
    const inApi = seedSiteSpace(site.id, space.id, { section_id: api.id, path: 'a', is_default: true });

    expect(await rejection(updateSection(app, admin, org, site.id, guides.id, { defaultSiteSpace: inApi.id }))).toMatchObject({
      kind: 'invalid',
      message: expect.stringContaining('body.defaultSiteSpace'),
    });
    await updateSection(app, admin, org, site.id, guides.id, { defaultSiteSpace: b.id });
    expect([tables.siteSpaces.get(a.id)!.is_default, tables.siteSpaces.get(b.id)!.is_default]).toEqual([false, true]);
    expect(tables.siteSpaces.get(inApi.id)!.is_default).toBe(true);
  });
});

describe('listSections and moveSection', () => {
  it('lists sections in their sibling order and moves one before another', async () => {
    const site = seedSite(org);
    const space = seedSpace(org);
    const a = seedSection(site.id, { path: 'a', is_default: true });
    const b = seedSection(site.id, { path: 'b' });
    const c = seedSection(site.id, { path: 'c' });
    for (const s of [a, b, c]) seedSiteSpace(site.id, space.id, { section_id: s.id, path: 'docs', is_default: true });
    const paths = async () => (await listSections(app, admin, org, site.id, {})).items.map((s: any) => s.path);
    expect(await paths()).toEqual(['a', 'b', 'c']);

    await moveSection(app, admin, org, site.id, c.id, { before: { type: 'site-section', siteSection: a.id } });
    expect(await paths()).toEqual(['c', 'a', 'b']);
  });

  it('refuses a pointer that is not a sibling', async () => {
    const site = seedSite(org);
    const a = seedSection(site.id, { path: 'a', is_default: true });
    const err = await rejection(moveSection(app, admin, org, site.id, a.id, { after: { type: 'site-section', siteSection: 'elsewhere' } }));
    expect(err).toMatchObject({ kind: 'invalid', message: expect.stringContaining('is not a sibling') });
  });
});
