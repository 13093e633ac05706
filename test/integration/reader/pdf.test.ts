// The `pdf` page action of the reader site: a shared render of the page (the existing pdf.render
// job on in-process workers), its text read back with pdftotext.
import { beforeAll, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { docsSite, pathOf, type DocsSite } from './helpers.js';
import { pdfText } from '../../helpers/pdf.js';

const { t } = useTestApp();
let d: DocsSite;
beforeAll(async () => {
  d = await docsSite(t, await t.seedOrg(), 'unlisted');
  t.startWorkers(['pdf']);
}, 120_000);

it('exports the page as a PDF from its page action, and not when the customization turns PDFs off', async () => {
  const page = await t.api('GET', `${d.base}/second`, { headers: { accept: 'text/html' } });
  const action = /<a href="([^"]+\/~site\/pdf\?path=second)" rel="nofollow">Export as PDF<\/a>/.exec(page.text);
  expect(action, 'the PDF page action').not.toBeNull();
  const href = action![1].replace(/&amp;/g, '&');
  const start = await t.api('GET', pathOf(href) + new URL(href).search);
  expect(start.status).toBe(302);
  const link = new URL(start.headers.get('location')!);
  expect(link.pathname).toMatch(/^\/pdf\//);
  let pdf: Buffer | null = null;
  for (let i = 0; i < 120 && !pdf; i++) {
    const r = await fetch(`${t.baseUrl}${link.pathname}${link.search}`);
    if (r.status === 200) pdf = Buffer.from(await r.arrayBuffer());
    else {
      expect(r.status).toBe(202);
      await new Promise((res) => setTimeout(res, 500));
    }
  }
  expect(pdf!.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  expect(await pdfText(pdf!)).toContain('Second body');
  // The same page again: the same render.
  expect((await t.api('GET', `${d.base}/~site/pdf?path=second`)).headers.get('location')!.split('?')[0]).toBe(
    start.headers.get('location')!.split('?')[0],
  );

  await t.api('PUT', `/v1/orgs/${d.o.orgId}/sites/${d.siteId}/customization`, { token: d.o.adminToken, body: { pdf: { enabled: false } } });
  expect((await t.api('GET', `${d.base}/~site/pdf?path=second`)).status).toBe(404);
  expect((await t.api('GET', `${d.base}/second`, { headers: { accept: 'text/html' } })).text).not.toContain('Export as PDF');
}, 120_000);
