// External links in the answers the 0.202.0 description shapes with SiteStructure and
// SiteSectionGroup.children (getSiteStructure, the section group answers, getPublishedContentSite):
// root links in `structure`, a group's links in its `children`, after the level's sections and
// groups, in the site's order, each exactly as addExternalLinkToSite answered it. Members see every
// link; a site token (GitBook's renderer) only the live ones whose condition holds for its claims.
import { beforeAll, describe, expect, it } from 'vitest';
import { GitBookAPI } from '@gitbook/api';
import { useTestApp } from '../../helpers/app.js';
import { docsSite, type DocsSite } from '../reader/helpers.js';
import { checked, newSpace, officialClient, SITE } from './helpers.js';

const { t } = useTestApp();
let d: DocsSite;
let api: any;
let group: any;
const links: Record<string, any> = {};

const addLink = (body: Record<string, unknown>) =>
  checked('POST', `${SITE}/external-links`, api.orgs.addExternalLinkToSite(d.o.orgId, d.siteId, body), 201);

/** Items as `object:title`, groups with their children. */
function outline(items: any[]): unknown[] {
  return items.map((i) =>
    i.object === 'site-section-group' ? { [`group:${i.title}`]: outline(i.children) } : `${i.object.replace('site-', '')}:${i.title}`,
  );
}

const linksOf = (items: any[]): any[] =>
  items.flatMap((i) => (i.object === 'site-external-link' ? [i] : i.object === 'site-section-group' ? linksOf(i.children) : []));

beforeAll(async () => {
  // Sections Guides, then the group Developers (API, SDKs).
  d = await docsSite(t, await t.seedOrg());
  api = officialClient(t, d.o.adminToken);
  const groups = await checked('GET', `${SITE}/section-groups`, api.orgs.listSiteSectionGroups(d.o.orgId, d.siteId, {}), 200);
  group = groups.items[0];
  expect(group.title).toBe('Developers');
  links.status = await addLink({ title: 'Status', url: 'https://status.example.test/', description: 'Uptime', icon: 'signal' });
  links.forum = await addLink({ title: 'Forum', url: 'https://forum.example.test/', parent: group.id });
  links.soon = await addLink({ title: 'Coming soon', url: 'https://soon.example.test/', draft: true });
  links.pro = await addLink({ title: 'Pro support', url: 'https://pro.example.test/', condition: 'visitor.claims.unsigned.plan == "pro"' });
  links.sdkNews = await addLink({
    title: 'SDK news',
    url: 'https://sdk.example.test/',
    parent: group.id,
    condition: 'visitor.claims.unsigned.plan == "pro"',
  });
});

describe('getSiteStructure and the section group answers (members)', () => {
  it('lists every link where it belongs, in order, after the sections and groups of its level, as addExternalLinkToSite answered it', async () => {
    const s = await checked('GET', `${SITE}/structure`, api.orgs.getSiteStructure(d.o.orgId, d.siteId, {}), 200);
    expect(s.type).toBe('sections');
    expect(outline(s.structure)).toEqual([
      'section:Guides',
      { 'group:Developers': ['section:API', 'section:SDKs', 'external-link:Forum', 'external-link:SDK news'] },
      'external-link:Status',
      'external-link:Coming soon',
      'external-link:Pro support',
    ]);
    const shown = linksOf(s.structure);
    // Drafts and conditional links included, each exactly as its creation answered it.
    expect(shown).toEqual([links.forum, links.sdkNews, links.status, links.soon, links.pro]);
    expect(links.forum.sectionGroup).toBe(group.id);
    expect(links.status).not.toHaveProperty('sectionGroup');
    expect(links.soon.draft).toBe(true);

    // The group answers carry the links in `children` too (not in the deprecated `sections`).
    const groups = await checked('GET', `${SITE}/section-groups`, api.orgs.listSiteSectionGroups(d.o.orgId, d.siteId, {}), 200);
    expect(groups.items[0].children.filter((c: any) => c.object === 'site-external-link')).toEqual([links.forum, links.sdkNews]);
    expect(groups.items[0].sections.map((x: any) => x.object)).toEqual(['site-section', 'site-section']);
    const renamed = await checked(
      'PATCH',
      `${SITE}/section-groups/{siteSectionGroupId}`,
      api.orgs.updateSiteSectionGroupById(d.o.orgId, d.siteId, group.id, { title: 'Developers' }),
      200,
    );
    expect(linksOf(renamed.children)).toEqual([links.forum, links.sdkNews]);
  });

  it('shows a changed link as it is now, and no deleted link', async () => {
    const extra = await addLink({ title: 'Temporary', url: 'https://tmp.example.test/' });
    const moved = await checked(
      'PATCH',
      `${SITE}/external-links/{siteExternalLinkId}`,
      api.orgs.updateSiteExternalLinkById(d.o.orgId, d.siteId, extra.id, { parent: group.id, title: 'Moved' }),
      200,
    );
    let s = await checked('GET', `${SITE}/structure`, api.orgs.getSiteStructure(d.o.orgId, d.siteId, {}), 200);
    const dev = s.structure.find((i: any) => i.id === group.id);
    expect(linksOf(dev.children)).toEqual([links.forum, links.sdkNews, moved]);
    expect(s.structure.some((i: any) => i.id === extra.id)).toBe(false);
    expect((await api.orgs.deleteSiteExternalLinkById(d.o.orgId, d.siteId, extra.id)).status).toBe(205);
    s = await checked('GET', `${SITE}/structure`, api.orgs.getSiteStructure(d.o.orgId, d.siteId, {}), 200);
    expect(JSON.stringify(s)).not.toContain(extra.id);
  });

  it('leaves links out of a site without sections (a siteSpaces structure has no place for them)', async () => {
    const space = await newSpace(t, d.o, 'Handbook');
    const flat = (await api.orgs.createSite(d.o.orgId, { title: 'Flat', spaces: [space] })).data;
    await checked(
      'POST',
      `${SITE}/external-links`,
      api.orgs.addExternalLinkToSite(d.o.orgId, flat.id, { title: 'Blog', url: 'https://blog.example.test/' }),
      201,
    );
    const s = await checked('GET', `${SITE}/structure`, api.orgs.getSiteStructure(d.o.orgId, flat.id, {}), 200);
    expect(s.type).toBe('siteSpaces');
    expect(s.structure.map((x: any) => x.object)).toEqual(['site-space']);
  });
});

describe('getPublishedContentSite', () => {
  it('for a member: the live links (no draft), whatever their condition', async () => {
    const p = await checked('GET', `${SITE}/published`, api.orgs.getPublishedContentSite(d.o.orgId, d.siteId, {}), 200);
    expect(linksOf(p.structure.structure).map((l: any) => l.title)).toEqual(['Forum', 'SDK news', 'Status', 'Pro support']);
  });

  it("for a site token: the live links whose condition holds for its claims; a hidden group's link shows at the root", async () => {
    const r = await t.api('PATCH', `/v1/orgs/${d.o.orgId}/sites/${d.siteId}`, {
      token: d.o.adminToken,
      body: { adaptiveContent: { enabled: true } },
    });
    expect(r.status, r.text).toBe(200);
    const schema = await t.api('PUT', `/v1/orgs/${d.o.orgId}/sites/${d.siteId}/adaptive-schema`, {
      token: d.o.adminToken,
      body: {
        jsonSchema: {
          type: 'object',
          properties: {
            unsigned: {
              type: 'object',
              description: 'Unsigned claims of the site visitor.',
              properties: { plan: { type: 'string', description: 'Plan' } },
              additionalProperties: false,
            },
          },
          additionalProperties: false,
        },
      },
    });
    expect(schema.status, schema.text).toBe(200);
    const anonymous = new GitBookAPI({ endpoint: t.baseUrl }) as any;
    const publishedFor = async (plan: string) => {
      const lookup = await checked(
        'POST',
        '/urls/published',
        anonymous.urls.resolvePublishedContentByUrl({ url: `${t.baseUrl}${d.base}/`, visitor: { unsignedClaims: { plan } } }),
        200,
      );
      const asReader = officialClient(t, lookup.apiToken);
      return (await checked('GET', `${SITE}/published`, asReader.orgs.getPublishedContentSite(d.o.orgId, d.siteId, {}), 200)).structure;
    };

    const free = await publishedFor('free');
    expect(outline(free.structure)).toEqual([
      'section:Guides',
      { 'group:Developers': ['section:API', 'section:SDKs', 'external-link:Forum'] },
      'external-link:Status',
    ]);
    expect(linksOf(free.structure)).toEqual([links.forum, links.status]);
    const pro = await publishedFor('pro');
    expect(outline(pro.structure)).toEqual([
      'section:Guides',
      { 'group:Developers': ['section:API', 'section:SDKs', 'external-link:Forum', 'external-link:SDK news'] },
      'external-link:Status',
      'external-link:Pro support',
    ]);
    expect(linksOf(pro.structure)).toEqual([links.forum, links.sdkNews, links.status, links.pro]);

    // The group's sections hidden from free readers: the group goes, its link shows with the root links.
    for (const title of ['API', 'SDKs']) {
      const section = (await api.orgs.listSiteSections(d.o.orgId, d.siteId, {})).data.items.find((s: any) => s.title === title);
      await checked(
        'PATCH',
        `${SITE}/sections/{siteSectionId}`,
        api.orgs.updateSiteSectionById(d.o.orgId, d.siteId, section.id, { condition: 'visitor.claims.unsigned.plan == "pro"' }),
        200,
      );
    }
    const hidden = await publishedFor('free');
    expect(outline(hidden.structure)).toEqual(['section:Guides', 'external-link:Status', 'external-link:Forum']);
    const { sectionGroup: _, ...forumAtRoot } = links.forum;
    expect(linksOf(hidden.structure)).toEqual([links.status, forumAtRoot]);
    expect(JSON.stringify(hidden)).not.toContain(group.id);
    expect(outline((await publishedFor('pro')).structure)).toEqual(outline(pro.structure));
  });
});
