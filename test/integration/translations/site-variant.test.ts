// A translated space added to a site as a variant of its source (issue 13, item 6): the result space of a
// run joins its source's section through the Sites API, gets the language code as its path, and both
// variants show in the site's structure and published profile.
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { waitFor } from '../../helpers/http.js';
import { editContent } from '../../helpers/content.js';
import { checked, officialClient, SITE } from '../sites/helpers.js';

const { t, org } = useTestApp({ workers: ['translation'], seedOrg: true });

describe('a translation as a site variant', () => {
  it('adds the result space next to its source, at the language code, visible in the structure', async () => {
    const as = { token: org.adminToken };
    const source = await t.api('POST', `/v1/orgs/${org.orgId}/spaces`, { ...as, body: { title: 'Product docs', empty: true } });
    expect(source.status).toBe(201);
    let pageId = '';
    await editContent(t, source.body.id, (d) => {
      pageId = d.insertPage(null, { title: 'Getting started', markdown: 'Install the product, then sign in.\n' });
    });

    const tr = await t.api('POST', `/v1/orgs/${org.orgId}/translations`, {
      ...as,
      body: { language: 'fr', source: { space: source.body.id, language: 'en' } },
    });
    expect(tr.status, tr.text).toBe(201);
    const done = await waitFor(
      async () => {
        const r = await t.api('GET', `/v1/orgs/${org.orgId}/translations/${tr.body.id}`, as);
        return r.body.status === 'completed' && r.body.result ? r.body : null;
      },
      { what: 'the first translation run' },
    );
    const translated = done.result.space as string;
    expect(translated).not.toBe(source.body.id);

    const api = officialClient(t, org.adminToken);
    const site = await checked('POST', '/orgs/{organizationId}/sites', api.orgs.createSite(org.orgId, { title: 'Docs' }), 201);
    const section = await checked(
      'POST',
      `${SITE}/sections`,
      api.orgs.addSectionToSite(org.orgId, site.id, { spaceId: source.body.id }),
      201,
    );
    const variant = await checked(
      'POST',
      `${SITE}/site-spaces`,
      api.orgs.addSpaceToSite(org.orgId, site.id, { spaceId: translated, sectionId: section.id }),
      201,
    );
    expect(variant.path).toBe('fr');
    expect(variant.default).toBe(false);
    expect(variant.space.id).toBe(translated);
    expect(variant.space.language).toBe('fr');

    // Both variants of the section, the source first and default, in the listing and the published profile.
    const listed = await checked('GET', `${SITE}/site-spaces`, api.orgs.listSiteSpaces(org.orgId, site.id, {}), 200);
    expect(listed.items.map((ss: any) => [ss.space.id, ss.default])).toEqual([
      [source.body.id, true],
      [translated, false],
    ]);
    await checked('POST', `${SITE}/publish`, api.orgs.publishSite(org.orgId, site.id), 200);
    const profile = await t.api('GET', `/v1/orgs/${org.orgId}/sites/${site.id}/published`, as);
    expect(profile.status, profile.text).toBe(200);
    const structureText = JSON.stringify(profile.body.structure);
    expect(structureText).toContain(translated);
    expect(structureText).toContain(source.body.id);

    // The translated space keeps the source's page ids, so a page reached in one variant exists in the other.
    const page = await t.api('GET', `/v1/spaces/${translated}/content/page/${pageId}`, as);
    expect(page.status, page.text).toBe(200);
    expect(page.body.title).not.toBe('Getting started');
  });
});
