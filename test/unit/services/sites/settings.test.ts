// Site settings (src/services/sites/settings.ts) over in-memory repos: customization replaced by
// PUT, per-site-space overrides, and the visitor-token signing key of publishing auth.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import {
  deleteSiteSpaceCustomization,
  getCustomization,
  getPublishingAuth,
  getSiteSpaceCustomization,
  patchSiteSpaceCustomization,
  putCustomization,
  regeneratePublishingAuth,
  updatePublishingAuth,
  visitorSigningKey,
} from '../../../../src/services/sites/settings.js';
import { getSite } from '../../../../src/db/repos/sites.js';
import type { FakeApp } from '../../../helpers/fakes/app.js';
import { tables } from '../../../helpers/fakes/store.js';
import { addMember, freshOrg, rejection, seedSite, seedSiteSpace, seedSpace } from '../../../helpers/fakes/seed.js';

vi.mock('../../../../src/db/repos/sites.js', () => import('../../../helpers/fakes/repos/sites.js'));
vi.mock('../../../../src/db/repos/site-structure.js', () => import('../../../helpers/fakes/repos/site-structure.js'));
vi.mock('../../../../src/db/repos/site-permissions.js', () => import('../../../helpers/fakes/repos/site-permissions.js'));
vi.mock('../../../../src/db/repos/members.js', () => import('../../../helpers/fakes/repos/members.js'));
vi.mock('../../../../src/db/repos/organizations.js', () => import('../../../helpers/fakes/repos/organizations.js'));

let app: FakeApp;
let org: string;
let site: ReturnType<typeof seedSite>;
const admin = { userId: 'u-admin', tokenId: 't' };

beforeEach(() => {
  ({ app, org } = freshOrg(admin, 'admin'));
  site = seedSite(org, { visibility: 'visitor-auth' });
});

describe('customization', () => {
  it('reads the defaults before any PUT, and a PUT replaces the whole object (fields left out take their defaults)', async () => {
    const before = await getCustomization(app, admin, org, site.id);
    expect(before).toMatchObject({ styling: { theme: 'clean' }, themes: { default: 'light' } });
    expect(before).not.toHaveProperty('updatedAt');

    await putCustomization(app, admin, org, site.id, { styling: { theme: 'bold' } } as never);
    const second = await putCustomization(app, admin, org, site.id, { themes: { default: 'dark', toggeable: false } } as never);
    expect(second).toMatchObject({ styling: { theme: 'clean' }, themes: { default: 'dark', toggeable: false } });
    expect(second.updatedAt).toEqual(expect.any(String));
  });

  it('lays site-space overrides over the site (PATCH merges, null clears one, DELETE drops all)', async () => {
    const ss = seedSiteSpace(site.id, seedSpace(org).id, { path: 'v2', is_default: true });
    await putCustomization(app, admin, org, site.id, { styling: { theme: 'muted' } } as never);

    await patchSiteSpaceCustomization(app, admin, org, site.id, ss.id, {
      styling: { primaryColor: { light: '#111111', dark: '#222222' } },
    });
    const merged = await patchSiteSpaceCustomization(app, admin, org, site.id, ss.id, { themes: { default: 'dark', toggeable: true } });
    expect(merged).toMatchObject({ styling: { theme: 'muted', primaryColor: { light: '#111111' } }, themes: { default: 'dark' } });

    const cleared = await patchSiteSpaceCustomization(app, admin, org, site.id, ss.id, { styling: null });
    expect(cleared).toMatchObject({ styling: { theme: 'muted', primaryColor: { light: '#346DDB' } }, themes: { default: 'dark' } });

    await deleteSiteSpaceCustomization(app, admin, org, site.id, ss.id);
    expect(tables.siteSpaces.get(ss.id)!.customization).toBeNull();
    expect(await getSiteSpaceCustomization(app, admin, org, site.id, ss.id)).toMatchObject({ themes: { default: 'light' } });
  });

  it("is a 404 for a site space that is not the site's, and changes are for site admins only", async () => {
    const theirs = seedSiteSpace(seedSite(org).id, seedSpace(org).id, { path: 'x', is_default: true });
    expect(await rejection(patchSiteSpaceCustomization(app, admin, org, site.id, theirs.id, { styling: null }))).toMatchObject({
      kind: 'not-found',
    });
    const editor = addMember(org, 'u-editor', 'edit');
    expect(await rejection(putCustomization(app, editor, org, site.id, {} as never))).toMatchObject({ kind: 'forbidden' });
    expect(tables.sites.get(site.id)!.customization).toBeNull();
  });
});

describe('publishing auth', () => {
  it('makes a signing key on first read, keeps it, and stores it only sealed', async () => {
    expect(await visitorSigningKey(app, (await getSite(app.db, site.id))!)).toBeNull();
    const first = await getPublishingAuth(app, admin, org, site.id);
    expect(first).toMatchObject({ object: 'publishing-auth', backend: 'custom' });
    expect(Buffer.from(first.privateKey, 'base64url')).toHaveLength(32);
    expect((await getPublishingAuth(app, admin, org, site.id)).privateKey).toBe(first.privateKey);
    expect(tables.sites.get(site.id)!.auth_key_sealed).not.toContain(first.privateKey);
    // The reader side verifies tokens with the same key.
    expect(await visitorSigningKey(app, (await getSite(app.db, site.id))!)).toBe(first.privateKey);
  });

  it('opens the sealed key only with the server secret it was sealed with', async () => {
    await getPublishingAuth(app, admin, org, site.id);
    const other = { ...app, secret: 'another-secret-0123456789abcdef' };
    await expect(visitorSigningKey(other, (await getSite(app.db, site.id))!)).rejects.toThrow();
  });

  it('replaces the key on regenerate', async () => {
    const before = (await getPublishingAuth(app, admin, org, site.id)).privateKey;
    const after = (await regeneratePublishingAuth(app, admin, org, site.id)).privateKey;
    expect(after).not.toBe(before);
    expect(await visitorSigningKey(app, (await getSite(app.db, site.id))!)).toBe(after);
  });

  it('sets the fallback and logout URLs: null clears one, an absent one stays, the key stays', async () => {
    const { privateKey } = await getPublishingAuth(app, admin, org, site.id);
    await updatePublishingAuth(app, admin, org, site.id, { fallbackURL: 'https://login.acme.test', logoutURL: 'https://acme.test/bye' });
    const out = await updatePublishingAuth(app, admin, org, site.id, { fallbackURL: null });
    expect(out).toEqual({ object: 'publishing-auth', backend: 'custom', privateKey, logoutURL: 'https://acme.test/bye' });
  });

  it('shows the key to site admins only', async () => {
    const editor = addMember(org, 'u-editor', 'edit');
    expect(await rejection(getPublishingAuth(app, editor, org, site.id))).toMatchObject({ kind: 'forbidden' });
    expect(tables.sites.get(site.id)!.auth_key_sealed).toBeNull();
  });
});
