import { expect } from 'vitest';
import type { TestApp } from '../../helpers/app.js';
import { editContent } from '../../helpers/content.js';

export type Org = Awaited<ReturnType<TestApp['seedOrg']>>;

export interface DocsSite {
  o: Org;
  siteId: string;
  base: string;
  spaces: { v1: string; v2: string; api: string; sdk: string };
  sections: { guides: any; api: any };
  v2SiteSpace: any;
}

async function call(t: TestApp, o: Org, method: string, path: string, body?: unknown) {
  const r = await t.api(method, `/v1/orgs/${o.orgId}${path}`, { token: o.adminToken, body });
  expect(r.status, `${method} ${path}: ${r.text}`).toBeLessThan(300);
  return r.body;
}

async function space(t: TestApp, o: Org, title: string, pages: (d: any) => void): Promise<string> {
  const s = await call(t, o, 'POST', '/spaces', { title });
  await editContent(t, s.id, (d) => {
    for (const id of d.childIds(null)) d.deletePage(id); // the starter page of a new space
    pages(d);
  });
  return s.id;
}

/**
 * A published site with three sections ("Guides": variants v1 (default) and v2; "API" and "SDKs"
 * in the section group "Developers"), nested pages, a hidden page and headings.
 */
export async function docsSite(t: TestApp, o: Org, visibility = 'public'): Promise<DocsSite> {
  const v1 = await space(t, o, 'Guide v1', (d) => {
    const start = d.insertPage(null, {
      title: 'Getting started',
      description: 'First steps',
      markdown: 'Welcome to v1.\n\n# Install\n\nRun it.\n\n## Details\n\nMore.',
    });
    d.insertPage(start, { title: 'Nested page', markdown: 'Nested body.' });
    d.insertPage(null, { title: 'Second', markdown: 'Second body with [a link](https://example.test/x).' });
    d.insertPage(null, { title: 'Secret', hidden: true, markdown: 'Hidden body.' });
  });
  const v2 = await space(t, o, 'Guide v2', (d) => {
    d.insertPage(null, { title: 'Getting started', markdown: 'Welcome to v2.' });
    d.insertPage(null, { title: 'Only in v2', markdown: 'New things.' });
  });
  const api = await space(t, o, 'API', (d) => {
    d.insertPage(null, { title: 'Reference', markdown: 'Endpoints.' });
  });
  const sdk = await space(t, o, 'SDKs', (d) => {
    d.insertPage(null, { title: 'Install the SDK', markdown: 'npm install acme.' });
  });
  const site = await call(t, o, 'POST', '/sites', { title: 'Acme Docs', visibility });
  const guides = await call(t, o, 'POST', `/sites/${site.id}/sections`, { spaceId: v1, title: 'Guides' });
  const v2SiteSpace = await call(t, o, 'POST', `/sites/${site.id}/site-spaces`, { spaceId: v2, sectionId: guides.id, title: 'v2' });
  const apiSection = await call(t, o, 'POST', `/sites/${site.id}/sections`, { spaceId: api, title: 'API' });
  const sdkSection = await call(t, o, 'POST', `/sites/${site.id}/sections`, { spaceId: sdk, title: 'SDKs' });
  const group = await call(t, o, 'POST', `/sites/${site.id}/section-groups`, { title: 'Developers' });
  for (const s of [apiSection, sdkSection])
    await call(t, o, 'POST', `/sites/${site.id}/section-groups/${group.id}/sections`, { sectionId: s.id });
  await call(t, o, 'POST', `/sites/${site.id}/publish`);
  return {
    o,
    siteId: site.id,
    base: `/site/${site.id}`,
    spaces: { v1, v2, api, sdk },
    sections: { guides, api: apiSection },
    v2SiteSpace,
  };
}

/** hrefs of the anchors inside the first element matching `<tag class="cls"` … `</tag>`. */
export function linksIn(html: string, marker: string, close = '</nav>'): string[] {
  const start = html.indexOf(marker);
  if (start < 0) return [];
  const end = html.indexOf(close, start);
  return [...html.slice(start, end < 0 ? undefined : end).matchAll(/href="([^"]+)"/g)].map((m) => m[1].replace(/&amp;/g, '&'));
}

export const pathOf = (url: string) => new URL(url).pathname;
