import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { editContent } from '../../helpers/content.js';
import { startGitServer, type GitServer } from '../../helpers/git-server.js';
import { serve } from '../../helpers/http.js';
import { operationSettled } from '../../helpers/operations.js';
import { pdfText } from '../../helpers/pdf.js';

// Jobs meeting content beyond the limits: a PDF export and a git import finish once, bounded, and
// the API answers /healthz meanwhile; a SUMMARY.md beyond them fails its import once, saying why.

let g: GitServer;

beforeAll(async () => {
  g = await startGitServer();
});
afterAll(() => g?.close());
const { t, org } = useTestApp({ workers: ['pdf', 'git', 'import'], seedOrg: true });

const api = (method: string, path: string, body?: unknown) => t.api(method, path, { token: org.adminToken, body });

async function newSpace(title: string) {
  const r = await api('POST', `/v1/orgs/${org.orgId}/spaces`, { title, empty: true });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.id as string;
}

const finished = (location: string | null) => operationSettled(t, location, { token: org.adminToken, timeoutMs: 150_000, intervalMs: 200 });

/** /healthz answers while the operation runs: before it is final. */
async function healthzWhileRunning(location: string | null) {
  const order: string[] = [];
  const op = finished(location).then((o) => {
    order.push('operation');
    return o;
  });
  expect((await fetch(`${t.baseUrl}/healthz`)).status).toBe(200);
  order.push('healthz');
  const done = await op;
  expect(order).toEqual(['healthz', 'operation']);
  return done;
}

const attempts = async (operationId: string) =>
  (await t.app.db.query('SELECT attempts FROM operations WHERE id = $1', [operationId])).rows[0].attempts;

const nested = (levels: number) => Array.from({ length: levels }, (_, i) => `${'  '.repeat(i)}- level ${i + 1}`).join('\n');

describe('PDF export', () => {
  it('prints pages beyond the limits as plain text, in one attempt, while /healthz answers', async () => {
    const s = await newSpace('Export');
    await editContent(t, s, (d) => {
      d.insertPage(null, { title: 'Normal', markdown: 'Just **text**.' });
      d.insertPage(null, { title: 'Quotes', markdown: `quotedword ${'>'.repeat(50_000)}` });
      d.insertPage(null, { title: 'Lists', markdown: `listedword\n\n${nested(200)}` });
    });
    const r = await api('GET', `/v1/spaces/${s}/pdf`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const op = await healthzWhileRunning(r.headers.get('location'));
    expect(op.status, JSON.stringify(op)).toBe('succeeded');
    expect(await attempts(op.id)).toBe(1);
    const pdf = await fetch(r.body.url);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    const text = await pdfText(Buffer.from(await pdf.arrayBuffer()));
    expect(text).toContain('Just text.');
    expect(text).toContain('This page is shown as plain text: it exceeds the content limits (nesting deeper than 32 levels');
    expect(text).toContain('quotedword >>>>');
    expect(text).toContain('listedword - level 1 - level 2');
  });
});

describe('git import', () => {
  it('imports pages beyond the limits as written, read back as plain text', async () => {
    const deep = `See [the start](README.md).\n\n${'>'.repeat(50_000)} deep\n`;
    const url = await g.createRepo('hostile-pages', {
      files: {
        'README.md': '# Welcome\n\nRead [the deep page](deep.md) and [the lists](lists.md).\n',
        'deep.md': `# Deep\n\n${deep}`,
        'lists.md': `# Lists\n\n${nested(300)}\n`,
      },
    });
    const s = await newSpace('Imported');
    const r = await api('POST', `/v1/spaces/${s}/git/import`, { url, ref: 'refs/heads/main' });
    expect(r.status, JSON.stringify(r.body)).toBe(204);
    const op = await healthzWhileRunning(r.headers.get('location'));
    expect(op.status, op.error).toBe('succeeded');
    expect(await attempts(op.id)).toBe(1);
    const pages = (await api('GET', `/v1/spaces/${s}/content/pages`)).body.pages;
    expect(pages.map((p: any) => p.title)).toEqual(['Welcome', 'Deep', 'Lists']);
    const deepPage = pages[1];
    // Stored as written (its title taken from its heading), and read as plain text.
    expect((await api('GET', `/v1/spaces/${s}/content/page/${deepPage.id}`)).body.markdown).toBe(deep);
    const doc = (await api('GET', `/v1/spaces/${s}/content/page/${deepPage.id}?format=document`)).body.document;
    expect(doc.nodes[0]).toMatchObject({ type: 'code', data: { syntax: 'markdown' } });
    // Links: those of pages within the limits resolve; a page beyond them has none (not parsed).
    const backlinks = (await api('GET', `/v1/spaces/${s}/content/page/${deepPage.id}/backlinks`)).body;
    expect(backlinks.items.map((i: any) => i.page.id)).toEqual([pages[0].id]);
    expect((await api('GET', `/v1/spaces/${s}/content/page/${deepPage.id}/links`)).body.items).toEqual([]);
  });

  it('skips the SUMMARY.md entries beyond its limits with a warning naming them, and imports the rest', async () => {
    const url = await g.createRepo('hostile-summary', {
      files: {
        'README.md': '# Welcome\n',
        'SUMMARY.md': `# Summary\n\n${Array.from({ length: 40 }, (_, i) => `${'  '.repeat(i)}* [Welcome](README.md)`).join('\n')}\n`,
      },
    });
    const s = await newSpace('Summary');
    const r = await api('POST', `/v1/spaces/${s}/git/import`, { url, ref: 'refs/heads/main' });
    expect(r.status, JSON.stringify(r.body)).toBe(204);
    const op = await finished(r.headers.get('location'));
    expect(op.status).toBe('succeeded');
    expect(op.result.warnings).toEqual(['SUMMARY.md lines 3-43: nesting deeper than 32 levels (line 35); the entries there are ignored']);
    expect(await attempts(op.id)).toBe(1);
    expect((await api('GET', `/v1/spaces/${s}/content`)).body.pages.map((p: any) => p.title)).toEqual(['Welcome']);
  });
});

describe('website import', () => {
  it('skips pages nested too deeply to convert, and fails once when the start page is one', async () => {
    const deepHtml = `<html><body><main><h1>Deep</h1>${'<blockquote>'.repeat(20_000)}x${'</blockquote>'.repeat(20_000)}</main></body></html>`;
    const site = await serve((req, res) => {
      const pages: Record<string, string> = {
        '/site/':
          '<html><head><title>Start</title></head><body><main><h1>Start</h1><a href="/site/ok.html">ok</a> <a href="/site/deep.html">deep</a></main></body></html>',
        '/site/ok.html': '<html><head><title>Fine</title></head><body><main><h1>Fine</h1><p>Plain page.</p></main></body></html>',
        '/site/deep.html': deepHtml,
        '/deep/': deepHtml,
      };
      const html = pages[req.url ?? ''];
      res.writeHead(html ? 200 : 404, { 'content-type': 'text/html' }).end(html ?? 'not found');
    });
    try {
      const s = await newSpace('Website');
      const r = await api('POST', `/v1/spaces/${s}/content/import`, { url: `${site.url}/site/`, source: 'website' });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      const op = await healthzWhileRunning(r.headers.get('location'));
      expect(op.status, op.error).toBe('succeeded');
      expect(op.result).toMatchObject({ importedResources: 2, totalResources: 3 });
      const titles = (await api('GET', `/v1/spaces/${s}/content/pages`)).body.pages.flatMap((p: any) => [
        p.title,
        ...(p.pages ?? []).map((c: any) => c.title),
      ]);
      expect(titles).toContain('Fine');
      expect(titles).not.toContain('Deep');

      const failing = await api('POST', `/v1/spaces/${s}/content/import`, { url: `${site.url}/deep/`, source: 'website' });
      const failed = await finished(failing.headers.get('location'));
      expect(failed.status).toBe('failed');
      expect(failed.error).toBe(`Could not import ${site.url}/deep/: its elements nest deeper than 512 levels`);
      expect(await attempts(failed.id)).toBe(1);
    } finally {
      await site.close();
    }
  });
});
