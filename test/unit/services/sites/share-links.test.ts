// Share links (src/services/sites/share-links.ts) over in-memory repos: the key is stored only as
// its hash and sealed, shown only inside the published URL, checked on every call.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import {
  createShareLink,
  deleteShareLink,
  listShareLinks,
  updateShareLink,
  validShareKey,
} from '../../../../src/services/sites/share-links.js';
import { sha256Hex } from '../../../../src/util/ids.js';
import { PUBLIC_URL, type FakeApp } from '../../../helpers/fakes/app.js';
import { tables } from '../../../helpers/fakes/store.js';
import { addMember, freshOrg, rejection, seedSite } from '../../../helpers/fakes/seed.js';

vi.mock('../../../../src/db/repos/sites.js', () => import('../../../helpers/fakes/repos/sites.js'));
vi.mock('../../../../src/db/repos/site-share-links.js', () => import('../../../helpers/fakes/repos/site-share-links.js'));
vi.mock('../../../../src/db/repos/site-permissions.js', () => import('../../../helpers/fakes/repos/site-permissions.js'));
vi.mock('../../../../src/db/repos/members.js', () => import('../../../helpers/fakes/repos/members.js'));
vi.mock('../../../../src/db/repos/organizations.js', () => import('../../../helpers/fakes/repos/organizations.js'));

let app: FakeApp;
let org: string;
let site: ReturnType<typeof seedSite>;
const admin = { userId: 'u-admin', tokenId: 't' };

beforeEach(() => {
  ({ app, org } = freshOrg(admin, 'admin'));
  site = seedSite(org, { published: true });
});

/** The key a share link's published URL carries. */
const keyOf = (link: { urls: { published: string } }) => new URL(link.urls.published).searchParams.get('share')!;

describe('createShareLink', () => {
  it('shows a random key only inside the published URL, and stores it only hashed and sealed', async () => {
    const link = await createShareLink(app, admin, org, site.id, { name: 'Partners' });
    const key = keyOf(link);
    expect(link).toMatchObject({ object: 'share-link', name: 'Partners', active: true });
    expect(link.urls.published).toBe(`${PUBLIC_URL}/site/${site.id}?share=${key}`);
    expect(Buffer.from(key, 'base64url')).toHaveLength(32);
    const row = tables.shareLinks.get(link.id)!;
    expect(row.key_hash).toBe(sha256Hex(key));
    expect(JSON.stringify(row)).not.toContain(key);
    // Two links never share a key.
    expect(keyOf(await createShareLink(app, admin, org, site.id, { name: 'Other' }))).not.toBe(key);
  });

  it('is for site admins only', async () => {
    const editor = addMember(org, 'u-editor', 'edit');
    expect(await rejection(createShareLink(app, editor, org, site.id, { name: 'x' }))).toMatchObject({ kind: 'forbidden' });
    expect(tables.shareLinks.size).toBe(0);
  });
});

describe('validShareKey', () => {
  it("opens the site with an active link's key only: not another site's, not a deactivated or deleted one", async () => {
    const link = await createShareLink(app, admin, org, site.id, { name: 'Partners' });
    const key = keyOf(link);
    const other = seedSite(org);
    expect(await validShareKey(app.db, site.id, key)).toBe(true);
    expect(await validShareKey(app.db, other.id, key)).toBe(false);

    await updateShareLink(app, admin, org, site.id, link.id, { active: false });
    expect(await validShareKey(app.db, site.id, key)).toBe(false);
    await updateShareLink(app, admin, org, site.id, link.id, { active: true });
    expect(await validShareKey(app.db, site.id, key)).toBe(true);

    await deleteShareLink(app, admin, org, site.id, link.id);
    expect(await validShareKey(app.db, site.id, key)).toBe(false);
  });

  it('refuses an empty key and one longer than 256 characters without looking it up', async () => {
    const long = 'k'.repeat(257);
    tables.shareLinks.set('l', {
      id: 'l',
      site_id: site.id,
      name: '',
      key_hash: sha256Hex(long),
      key_sealed: 'x',
      active: true,
      created_at: new Date(),
    });
    expect(await validShareKey(app.db, site.id, '')).toBe(false);
    expect(await validShareKey(app.db, site.id, long)).toBe(false);
  });
});

describe('updateShareLink and deleteShareLink', () => {
  it('renames and deactivates, keeping the key, and moves the site version', async () => {
    const link = await createShareLink(app, admin, org, site.id, { name: 'Partners' });
    const version = tables.sites.get(site.id)!.version;
    const out = await updateShareLink(app, admin, org, site.id, link.id, { name: 'Resellers', active: false });
    expect(out).toMatchObject({ name: 'Resellers', active: false });
    expect(keyOf(out)).toBe(keyOf(link));
    expect(tables.sites.get(site.id)!.version).toBe(version + 1);
  });

  it("is a 404 for a link that does not exist or is another site's", async () => {
    const theirs = await createShareLink(app, admin, org, seedSite(org).id, { name: 'x' });
    expect(await rejection(updateShareLink(app, admin, org, site.id, theirs.id, { active: false }))).toMatchObject({ kind: 'not-found' });
    expect(tables.shareLinks.get(theirs.id)!.active).toBe(true);
  });

  it("deletes quietly whether or not the link exists, and never another site's link", async () => {
    const theirs = await createShareLink(app, admin, org, seedSite(org).id, { name: 'x' });
    await deleteShareLink(app, admin, org, site.id, 'missing');
    await deleteShareLink(app, admin, org, site.id, theirs.id);
    expect(tables.shareLinks.has(theirs.id)).toBe(true);
  });
});

describe('listShareLinks', () => {
  it('finds links by a part of their name (any case) or by their exact key, not by a part of the key', async () => {
    const partners = await createShareLink(app, admin, org, site.id, { name: 'Partners' });
    const press = await createShareLink(app, admin, org, site.id, { name: 'Press kit' });
    const names = async (search?: string) => (await listShareLinks(app, admin, org, site.id, { search })).items.map((l: any) => l.name);
    expect(await names()).toEqual(['Partners', 'Press kit']);
    expect(await names('PART')).toEqual(['Partners']);
    expect(await names(keyOf(press))).toEqual(['Press kit']);
    expect(await names(keyOf(partners).slice(0, 10))).toEqual([]);
  });
});
