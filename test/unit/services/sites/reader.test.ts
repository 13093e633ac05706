// What one reader sees of a published site (src/services/sites/reader.ts, reader-lists.ts) over
// in-memory repos and real page trees: published or previewed sites only, visitor tokens pinned to
// the site's key, conditions filtering navigation and URLs alike, hidden pages and variants.
import { SignJWT } from 'jose';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { previewToken } from '../../../../src/sites/preview.js';
import {
  locatePage,
  publishedSite,
  readerContext,
  readerStructure,
  verifyVisitorToken,
  type ServedSite,
} from '../../../../src/services/sites/reader.js';
import { openSiteUrlOfSpacePage, readerPages } from '../../../../src/services/sites/reader-lists.js';
import { getPublishingAuth, regeneratePublishingAuth } from '../../../../src/services/sites/settings.js';
import { getSite } from '../../../../src/db/repos/sites.js';
import { PUBLIC_URL, type FakeApp } from '../../../helpers/fakes/app.js';
import { tables } from '../../../helpers/fakes/store.js';
import { freshOrg, rejection, seedContent, seedSection, seedSite, seedSiteSpace, seedSpace } from '../../../helpers/fakes/seed.js';

vi.mock('../../../../src/db/repos/sites.js', () => import('../../../helpers/fakes/repos/sites.js'));
vi.mock('../../../../src/db/repos/site-structure.js', () => import('../../../helpers/fakes/repos/site-structure.js'));
vi.mock('../../../../src/db/repos/site-share-links.js', () => import('../../../helpers/fakes/repos/site-share-links.js'));
vi.mock('../../../../src/db/repos/site-permissions.js', () => import('../../../helpers/fakes/repos/site-permissions.js'));
vi.mock('../../../../src/db/repos/members.js', () => import('../../../helpers/fakes/repos/members.js'));
vi.mock('../../../../src/db/repos/organizations.js', () => import('../../../helpers/fakes/repos/organizations.js'));
vi.mock('../../../../src/db/repos/revisions.js', () => import('../../../helpers/fakes/repos/revisions.js'));
vi.mock('../../../../src/db/repos/content-objects.js', () => import('../../../helpers/fakes/repos/content-objects.js'));

let app: FakeApp;
let org: string;
const admin = { userId: 'u-admin', tokenId: 't' };
const anonymous = readerContext({}, {});
const pro = readerContext({ plan: 'pro' }, {});

beforeEach(() => {
  ({ app, org } = freshOrg(admin, 'admin'));
});

async function served(siteId: string): Promise<ServedSite> {
  return { ...(await getSite(app.db, siteId))!, base: `${PUBLIC_URL}/site/${siteId}` };
}

/**
 * A space with: "<title> intro", guide(install, secret [hidden]), private [noIndex](child),
 * folder [group](inside: its path skips the group), external [link].
 */
async function docsSpace(title: string) {
  const space = seedSpace(org, { title });
  await seedContent(space.id, (d) => {
    d.insertPage(null, { id: 'intro', title: `${title} intro`, markdown: 'Hello' });
    d.insertPage(null, { id: 'guide', title: 'Guide', markdown: 'Guide text' });
    d.insertPage('guide', { id: 'install', title: 'Install', markdown: 'Run it' });
    d.insertPage('guide', { id: 'secret', title: 'Secret', markdown: 'Hush', hidden: true });
    d.insertPage(null, { id: 'private', title: 'Private', markdown: 'x', noIndex: true });
    d.insertPage('private', { id: 'child', title: 'Child', markdown: 'y' });
    d.insertPage(null, { id: 'folder', title: 'Folder', type: 'group' });
    d.insertPage('folder', { id: 'inside', title: 'Inside', markdown: 'z' });
    d.insertPage(null, { id: 'external', title: 'External', type: 'link', href: 'https://example.test/' });
  });
  return space;
}

/**
 * A published site: a default section "Docs" (variants: main, a hidden "beta", a "pro" one for
 * plan=pro readers) and a section "Enterprise" shown to plan=pro readers only.
 */
async function conditionalSite() {
  const site = seedSite(org, { published: true });
  const main = await docsSpace('Main');
  const beta = await docsSpace('Beta');
  const proSpace = await docsSpace('Pro');
  const enterprise = await docsSpace('Enterprise');
  const docs = seedSection(site.id, { path: 'docs', title: 'Docs', is_default: true });
  const ent = seedSection(site.id, { path: 'enterprise', title: 'Enterprise', condition: 'visitor.claims.plan == "pro"' });
  seedSiteSpace(site.id, main.id, { section_id: docs.id, path: 'main', is_default: true });
  seedSiteSpace(site.id, beta.id, { section_id: docs.id, path: 'beta', hidden: true });
  seedSiteSpace(site.id, proSpace.id, { section_id: docs.id, path: 'pro', condition: 'visitor.claims.plan == "pro"' });
  seedSiteSpace(site.id, enterprise.id, { section_id: ent.id, path: 'ent', is_default: true });
  return { site: await served(site.id), main, beta, proSpace, enterprise };
}

describe('publishedSite', () => {
  it('serves a published site, an unpublished one only with a valid preview token of that very site', async () => {
    const live = seedSite(org, { published: true });
    const draft = seedSite(org);
    expect((await publishedSite(app, live.id)).id).toBe(live.id);
    expect(await rejection(publishedSite(app, draft.id))).toMatchObject({ kind: 'not-found' });
    expect(await rejection(publishedSite(app, draft.id, previewToken(app.secret, live.id)))).toMatchObject({ kind: 'not-found' });
    expect(await rejection(publishedSite(app, draft.id, previewToken('another secret', draft.id)))).toMatchObject({ kind: 'not-found' });
    expect((await publishedSite(app, draft.id, previewToken(app.secret, draft.id))).id).toBe(draft.id);
    expect(await rejection(publishedSite(app, 'missing'))).toMatchObject({ kind: 'not-found' });
  });
});

describe('verifyVisitorToken', () => {
  const sign = (key: string, claims: Record<string, unknown>, alg = 'HS256', exp: number | null = Math.floor(Date.now() / 1000) + 600) => {
    const jwt = new SignJWT(claims).setProtectedHeader({ alg });
    if (exp !== null) jwt.setExpirationTime(exp);
    return jwt.sign(new TextEncoder().encode(key));
  };

  it("accepts an HS256 token with an expiry signed with the site's current key, and nothing else", async () => {
    const site = seedSite(org, { visibility: 'visitor-auth', published: true });
    const row = async () => (await getSite(app.db, site.id))!;
    expect(await verifyVisitorToken(app, await row(), await sign('k'.repeat(43), { plan: 'pro' }))).toEqual({
      ok: false,
      reason: 'the site has no signing key',
    });

    const { privateKey } = await getPublishingAuth(app, admin, org, site.id);
    const good = await sign(privateKey, { plan: 'pro' });
    expect(await verifyVisitorToken(app, await row(), good)).toMatchObject({ ok: true, payload: { plan: 'pro' } });
    expect(await verifyVisitorToken(app, await row(), await sign(privateKey, { plan: 'pro' }, 'HS512'))).toMatchObject({ ok: false });
    expect(await verifyVisitorToken(app, await row(), await sign(privateKey, { plan: 'pro' }, 'HS256', null))).toMatchObject({ ok: false });
    expect(await verifyVisitorToken(app, await row(), await sign(privateKey, {}, 'HS256', 1_000_000))).toMatchObject({ ok: false });
    expect(await verifyVisitorToken(app, await row(), await sign('x'.repeat(43), { plan: 'pro' }))).toMatchObject({ ok: false });
    expect(await verifyVisitorToken(app, await row(), 'a'.repeat(9000))).toEqual({ ok: false, reason: 'missing or too large' });

    // A new key: tokens signed with the old one stop working at once.
    await regeneratePublishingAuth(app, admin, org, site.id);
    expect(await verifyVisitorToken(app, await row(), good)).toMatchObject({ ok: false });
  });
});

describe('readerStructure', () => {
  it("shows sections and variants by the reader's claims and leaves spaces in the trash out", async () => {
    const { site, proSpace, beta } = await conditionalSite();
    const titles = async (ctx = anonymous) => {
      const { visible } = await readerStructure(app, site, ctx);
      return {
        sections: visible.sections.map((s) => s.title),
        docs: [...visible.variants.values()][0].map((ss) => ss.path),
      };
    };
    expect(await titles()).toEqual({ sections: ['Docs'], docs: ['main', 'beta'] });
    expect(await titles(pro)).toEqual({ sections: ['Docs', 'Enterprise'], docs: ['main', 'beta', 'pro'] });

    tables.spaces.get(beta.id)!.deleted_at = new Date();
    tables.spaces.get(proSpace.id)!.deleted_at = new Date();
    expect(await titles(pro)).toEqual({ sections: ['Docs', 'Enterprise'], docs: ['main'] });
  });
});

describe('locatePage', () => {
  it('leads a reader only where they may look: a section or variant hidden by conditions is a 404 for them', async () => {
    const { site } = await conditionalSite();
    expect(await rejection(locatePage(app, site, ['enterprise'], anonymous))).toMatchObject({ kind: 'not-found' });
    expect(await rejection(locatePage(app, site, ['pro', 'guide'], anonymous))).toMatchObject({ kind: 'not-found' });
    const ent = await locatePage(app, site, ['enterprise'], pro);
    expect([ent.space.title, ent.page.node.id, ent.path]).toEqual(['Enterprise', 'intro', 'enterprise']);
    const proPage = await locatePage(app, site, ['pro', 'guide', 'install'], pro);
    expect([proPage.space.title, proPage.path]).toEqual(['Pro', 'pro/guide/install']);
  });

  it('reaches a hidden variant by its URL, and refuses link pages, group paths and unknown paths', async () => {
    const { site } = await conditionalSite();
    expect((await locatePage(app, site, ['beta', 'guide'], anonymous)).space.title).toBe('Beta');
    expect((await locatePage(app, site, [], anonymous)).page.node.id).toBe('intro');
    expect((await locatePage(app, site, ['inside'], anonymous)).page.node.id).toBe('inside');
    expect(await rejection(locatePage(app, site, ['external'], anonymous))).toMatchObject({ kind: 'not-found' });
    expect(await rejection(locatePage(app, site, ['folder'], anonymous))).toMatchObject({ kind: 'not-found' });
    expect(await rejection(locatePage(app, site, ['guide', 'nowhere'], anonymous))).toMatchObject({ kind: 'not-found' });
  });

  it('keys the rendered page by what the reader sees: same page, another audience, another key', async () => {
    const { site } = await conditionalSite();
    const a = await locatePage(app, site, ['guide'], anonymous);
    const b = await locatePage(app, site, ['guide'], anonymous);
    const c = await locatePage(app, site, ['guide'], pro);
    expect(a.key).toBe(b.key);
    expect(c.key).not.toBe(a.key);
  });
});

describe('readerPages', () => {
  it('lists the readable pages of the variants a reader can switch to, with noIndex inherited by subpages', async () => {
    const { site } = await conditionalSite();
    const pages = await readerPages(app, site, anonymous);
    // Not the hidden "beta" variant, not the "pro" one, not hidden pages, not group or link pages.
    expect(pages.map((p) => [p.variant, p.url.slice(site.base.length), p.noIndex])).toEqual([
      ['Main', '/main-intro', false],
      ['Main', '/guide', false],
      ['Main', '/guide/install', false],
      ['Main', '/private', true],
      ['Main', '/private/child', true],
      ['Main', '/inside', false],
    ]);
    const forPro = await readerPages(app, site, pro);
    expect(new Set(forPro.map((p) => p.variant))).toEqual(new Set(['Main', 'Pro', 'Enterprise']));
    expect(forPro.find((p) => p.variant === 'Enterprise')!.url).toBe(`${site.base}/enterprise/enterprise-intro`);
  });

  it('stops at the limit', async () => {
    const { site } = await conditionalSite();
    expect(await readerPages(app, site, pro, 4)).toHaveLength(4);
  });
});

describe('openSiteUrlOfSpacePage', () => {
  it('sends readers of a space to its page on a published site open to anyone, never through a condition', async () => {
    const { site, main, proSpace } = await conditionalSite();
    expect(await openSiteUrlOfSpacePage(app, main.id, 'guide/install')).toBe(`${site.base}/guide/install`);
    expect(await openSiteUrlOfSpacePage(app, main.id, '')).toBe(site.base);
    // Only plan=pro readers see the "pro" variant: an anonymous reader has no site to go to.
    expect(await openSiteUrlOfSpacePage(app, proSpace.id, 'guide')).toBeNull();
    tables.sites.get(site.id)!.visibility = 'visitor-auth';
    expect(await openSiteUrlOfSpacePage(app, main.id, 'guide')).toBeNull();
  });
});
