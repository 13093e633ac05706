// A public site with language variants, a hidden and a conditional variant, a section group and
// external links (root, in the group, draft, conditional): the set-up of alternates.test.ts and
// section-links-browser.test.ts.
import { expect } from 'vitest';
import type { TestApp } from '../../helpers/app.js';
import { editContent } from '../../helpers/content.js';
import type { Org } from './helpers.js';

async function call(t: TestApp, o: Org, method: string, path: string, body?: unknown) {
  const r = await t.api(method, `/v1/orgs/${o.orgId}${path}`, { token: o.adminToken, body });
  expect(r.status, `${method} ${path}: ${r.text}`).toBeLessThan(300);
  return r.body;
}

async function space(t: TestApp, o: Org, title: string, language: string | null, pages: string[]): Promise<string> {
  const s = await call(t, o, 'POST', '/spaces', { title, ...(language ? { language } : {}) });
  await editContent(t, s.id, (d) => {
    for (const id of d.childIds(null)) d.deletePage(id); // the starter page of a new space
    for (const title of pages) d.insertPage(null, { title, markdown: `${title} in ${language ?? 'no language'}.` });
  });
  return s.id;
}

export interface LangSite {
  o: Org;
  siteId: string;
  base: string;
  groupId: string;
  spaces: { en: string; fr: string };
}

/**
 * A public site: section "Docs" with variants en (default), fr, de (shown only to readers with the
 * unsigned claim `beta: "yes"`) and pt-br (hidden), "Only in English" missing in fr; section "API"
 * (a space without a language) in the group "Developers". External links: "Forum" at the root,
 * "Status" in the group, and in the group a draft one and one for beta readers only.
 */
export async function langSite(t: TestApp, o: Org): Promise<LangSite> {
  const en = await space(t, o, 'Docs', 'en', ['Getting started', 'Install', 'Only in English']);
  const fr = await space(t, o, 'Docs (fr)', 'fr', ['Getting started', 'Install']);
  const de = await space(t, o, 'Docs (de)', 'de', ['Getting started', 'Install', 'Only in English']);
  const pt = await space(t, o, 'Docs (pt-BR)', 'pt-br', ['Getting started', 'Install', 'Only in English']);
  const api = await space(t, o, 'API', null, ['Reference']);
  const site = await call(t, o, 'POST', '/sites', { title: 'Lang Docs', visibility: 'public' });
  const docs = await call(t, o, 'POST', `/sites/${site.id}/sections`, { spaceId: en, title: 'Docs' });
  for (const [spaceId, title] of [
    [fr, 'Français'],
    [de, 'Deutsch'],
    [pt, 'Português'],
  ]) {
    const ss = await call(t, o, 'POST', `/sites/${site.id}/site-spaces`, { spaceId, sectionId: docs.id, title });
    if (spaceId === de)
      await call(t, o, 'PATCH', `/sites/${site.id}/site-spaces/${ss.id}`, { condition: 'visitor.claims.unsigned.beta == "yes"' });
    if (spaceId === pt) await call(t, o, 'PATCH', `/sites/${site.id}/site-spaces/${ss.id}`, { hidden: true });
  }
  const apiSection = await call(t, o, 'POST', `/sites/${site.id}/sections`, { spaceId: api, title: 'API' });
  const group = await call(t, o, 'POST', `/sites/${site.id}/section-groups`, { title: 'Developers' });
  await call(t, o, 'POST', `/sites/${site.id}/section-groups/${group.id}/sections`, { sectionId: apiSection.id });
  await call(t, o, 'PATCH', `/sites/${site.id}`, { adaptiveContent: { enabled: true } });
  await call(t, o, 'PUT', `/sites/${site.id}/adaptive-schema`, {
    jsonSchema: {
      type: 'object',
      properties: {
        unsigned: {
          type: 'object',
          description: 'Unsigned claims of the site visitor.',
          properties: { beta: { type: 'string', description: 'Beta reader' } },
          additionalProperties: false,
        },
      },
      additionalProperties: false,
    },
  });
  const link = (body: Record<string, unknown>) => call(t, o, 'POST', `/sites/${site.id}/external-links`, body);
  await link({ title: 'Forum', url: 'https://forum.example.test/' });
  await link({ title: 'Status', url: 'https://status.example.test/', parent: group.id });
  await link({ title: 'Draft link', url: 'https://draft.example.test/', parent: group.id, draft: true });
  await link({
    title: 'Beta link',
    url: 'https://beta.example.test/',
    parent: group.id,
    condition: 'visitor.claims.unsigned.beta == "yes"',
  });
  await call(t, o, 'POST', `/sites/${site.id}/publish`);
  return { o, siteId: site.id, base: `/site/${site.id}`, groupId: group.id, spaces: { en, fr } };
}

/** Every hreflang alternate of a page head, in order: [hreflang, href]. */
export function headAlternates(html: string): [string, string][] {
  const head = html.slice(0, html.indexOf('</head>'));
  return [...head.matchAll(/<link rel="alternate" hreflang="([^"]+)" href="([^"]+)">/g)].map((m) => [m[1], m[2].replace(/&amp;/g, '&')]);
}

/** The `<url>` entries of a sitemap: loc → its xhtml:link alternates. */
export function sitemapEntries(xml: string): Map<string, [string, string][]> {
  return new Map(
    [...xml.matchAll(/<url><loc>([^<]+)<\/loc>(.*?)<\/url>/g)].map((m) => [
      m[1],
      [...m[2].matchAll(/<xhtml:link rel="alternate" hreflang="([^"]+)" href="([^"]+)"\/>/g)].map((x) => [x[1], x[2]] as [string, string]),
    ]),
  );
}
