import type { TestApp } from './app.js';
import { editContent } from './content.js';
import { makeKeyPair } from './saml-idp.js';

/**
 * One real resource of each kind (a space with a page, a comment and its reply, a change request, a
 * collection) and an id for every path parameter name of the route table, so a test can fill any
 * route's path with valid ids and tamper with one segment only. Names without a seeded resource get
 * well-formed ids of nothing.
 */
export async function seedRouteIds(
  t: TestApp,
  org: { orgId: string; adminId: string; adminToken: string },
): Promise<Record<string, string>> {
  const as = { token: org.adminToken };
  const space = await t.api('POST', `/v1/orgs/${org.orgId}/spaces`, { ...as, body: { title: 'Routes' } });
  if (space.status !== 201) throw new Error(`seed space: ${space.status} ${space.text}`);
  let pageId = '';
  await editContent(t, space.body.id, (d) => {
    pageId = d.insertPage(null, { title: 'Guide', markdown: '# Guide\n\nText and a [link](https://example.com).\n' });
  });
  const comment = await t.api('POST', `/v1/spaces/${space.body.id}/comments`, { ...as, body: { body: { markdown: 'Hello' } } });
  const reply = await t.api('POST', `/v1/spaces/${space.body.id}/comments/${comment.body.id}/replies`, {
    ...as,
    body: { body: { markdown: 'Hi' } },
  });
  const cr = await t.api('POST', `/v1/spaces/${space.body.id}/change-requests`, { ...as, body: { subject: 'CR' } });
  const collection = await t.api('POST', `/v1/orgs/${org.orgId}/collections`, { ...as, body: { title: 'Coll' } });
  const translation = await t.api('POST', `/v1/orgs/${org.orgId}/translations`, {
    ...as,
    body: { language: 'fr', source: { space: space.body.id, language: 'en' } },
  });
  const glossary = await t.api('PUT', `/v1/orgs/${org.orgId}/translations-glossary`, {
    ...as,
    body: { operations: [{ type: 'insert', translations: { en: 'space', fr: 'espace' } }] },
  });
  const entries = await t.api('GET', `/v1/orgs/${org.orgId}/translations-glossary`, as);
  const team = await t.api('PUT', `/v1/orgs/${org.orgId}/teams`, { ...as, body: { title: 'Team', members: [org.adminId] } });
  const saml = await t.api('POST', `/v1/orgs/${org.orgId}/saml`, {
    ...as,
    body: { label: 'IdP', entityID: 'https://idp.example', certificate: makeKeyPair().cert, ssoURL: 'https://idp.example/sso' },
  });
  for (const r of [comment, reply, cr, collection, translation, glossary, entries, team, saml])
    if (r.status >= 300) throw new Error(`seed: ${r.status} ${r.text}`);
  const site = await seedSite(t, org.orgId, as, space.body.id);
  return {
    organizationId: org.orgId,
    userId: org.adminId,
    spaceId: space.body.id,
    pageId,
    commentId: comment.body.id,
    commentReplyId: reply.body.id,
    changeRequestId: cr.body.id,
    collectionId: collection.body.id,
    emailDomain: 'example.com',
    inviteId: 'invite1',
    specSlug: 'petstore',
    versionId: 'v1',
    operationId: 'op1',
    fileId: 'file1',
    sha256: 'a'.repeat(64),
    renderId: 'render1',
    translationId: translation.body.id,
    glossaryEntryId: entries.body.items[0].id,
    teamId: team.body.id,
    samlProviderId: saml.body.id,
    ...site,
  };
}

/** A site with a section (showing `spaceId`) inside a group, and a share link. */
async function seedSite(t: TestApp, orgId: string, as: { token: string }, spaceId: string): Promise<Record<string, string>> {
  const base = `/v1/orgs/${orgId}/sites`;
  const site = await t.api('POST', base, { ...as, body: { title: 'Routes site' } });
  const section = await t.api('POST', `${base}/${site.body.id}/sections`, { ...as, body: { spaceId } });
  const group = await t.api('POST', `${base}/${site.body.id}/section-groups`, { ...as, body: { title: 'G', sections: [section.body.id] } });
  const link = await t.api('POST', `${base}/${site.body.id}/share-links`, { ...as, body: { name: 'Routes' } });
  for (const r of [site, section, group, link]) if (r.status >= 300) throw new Error(`seed site: ${r.status} ${r.text}`);
  return {
    siteId: site.body.id,
    siteSectionId: section.body.id,
    siteSpaceId: section.body.siteSpaces[0].id,
    siteSectionGroupId: group.body.id,
    shareLinkId: link.body.id,
  };
}
