import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { addFile, editContent, PNG_2x1 } from '../../helpers/content.js';

const { t, org } = useTestApp({ seedOrg: true });
let spaceId: string;

beforeAll(async () => {
  spaceId = (await t.api('POST', `/v1/orgs/${org.orgId}/spaces`, { token: org.adminToken, body: { title: 'Handbook', empty: true } })).body
    .id;
  const fileId = await addFile(t, spaceId, 'logo.png', 'image/png', PNG_2x1);
  await editContent(t, spaceId, (d) => {
    const intro = d.insertPage(null, {
      id: 'introPage',
      title: 'Introduction',
      markdown: `Welcome. See [setup](/pages/setupPage#step-2).\n\n![Logo](/files/${fileId})`,
    });
    d.insertPage(intro, { id: 'setupPage', title: 'Setup', markdown: '## Step 1\n\nInstall.\n\n## Step 2\n\n```bash\nnpm ci\n```' });
  });
});

describe('published view', () => {
  it('is a 404 while the space is private, and HTML once public, at urls.published', async () => {
    expect((await fetch(`${t.baseUrl}/s/${spaceId}`)).status).toBe(404);
    const s = (await t.api('PATCH', `/v1/spaces/${spaceId}`, { token: org.adminToken, body: { visibility: 'public' } })).body;
    expect(s.urls.published).toBe(`${t.baseUrl}/s/${spaceId}`);
    const res = await fetch(s.urls.published);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    const html = await res.text();
    expect(html).toContain('<h1>Introduction</h1>');
    // Internal links go to published pages, images to signed download URLs that serve the bytes.
    expect(html).toContain(`href="${t.baseUrl}/s/${spaceId}/introduction/setup#step-2"`);
    const img = /<img[^>]+src="([^"]+)"/.exec(html)![1].replace(/&amp;|&#x26;/g, '&');
    expect(Buffer.from(await (await fetch(img)).arrayBuffer()).equals(PNG_2x1)).toBe(true);
    const setup = await (await fetch(`${t.baseUrl}/s/${spaceId}/introduction/setup`)).text();
    expect(setup).toContain('<h1>Setup</h1>');
    // The code block, highlighted on the server as on the site and in the PDF (its words in coloured spans).
    expect(setup.replace(/<[^>]+>/g, '')).toContain('npm ci');
    expect(setup).toMatch(/<span class="hl-[0-9a-f]{6}[^"]*">npm<\/span>/);
    expect((await fetch(`${t.baseUrl}/s/${spaceId}/no/such/page`)).status).toBe(404);
  });

  it('share-link spaces need the share key; app URLs redirect', async () => {
    const s = (await t.api('PATCH', `/v1/spaces/${spaceId}`, { token: org.adminToken, body: { visibility: 'share-link' } })).body;
    expect((await fetch(`${t.baseUrl}/s/${spaceId}`)).status).toBe(404);
    expect(s.urls.published).toMatch(/\?share=/);
    const html = await (await fetch(s.urls.published)).text();
    expect(html).toContain('?share=');
    const app = await fetch(s.urls.app, { redirect: 'manual' });
    expect(app.status).toBe(302);
    expect(app.headers.get('location')).toBe(`${t.baseUrl}/v1/spaces/${spaceId}`);
    await t.api('PATCH', `/v1/spaces/${spaceId}`, { token: org.adminToken, body: { visibility: 'public' } });
    const pageApp = await fetch(`${t.baseUrl}/app/s/${spaceId}/page/setupPage`, { redirect: 'manual' });
    expect(pageApp.headers.get('location')).toBe(`${t.baseUrl}/s/${spaceId}/introduction/setup`);
    const orgApp = await fetch(`${t.baseUrl}/app/o/${org.orgId}`, { redirect: 'manual' });
    expect(orgApp.headers.get('location')).toBe(`${t.baseUrl}/v1/orgs/${org.orgId}`);
  });
});
