import { spawn } from 'node:child_process';
import { png } from '../../helpers/png.js';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { assertMatchesSpec } from '../../helpers/spec.js';
import { editContent } from '../../helpers/content.js';
import { serve } from '../../helpers/http.js';
import { operationSettled } from '../../helpers/operations.js';
import { pdfUrl } from '../../../src/services/pdf.js';

// PDF exports rendered by the real Chromium (CHROMIUM_PATH, /usr/bin/chromium) in in-process
// workers; the PDFs' text is read back with poppler's pdftotext and their images with pdfimages.
// Workers start only after the first link has been checked, so that "not ready yet" is seen.

const { t, org } = useTestApp({ seedOrg: true });

const api = (method: string, path: string, body?: unknown, token: string | null = org.adminToken) => t.api(method, path, { token, body });

async function space(title: string) {
  const r = await api('POST', `/v1/orgs/${org.orgId}/spaces`, { title, empty: true });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.id as string;
}

async function cr(spaceId: string, subject: string) {
  const r = await api('POST', `/v1/spaces/${spaceId}/change-requests`, { subject });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body as { id: string; number: number };
}

async function batch(spaceId: string, crId: string, changes: unknown[]) {
  const r = await api('POST', `/v1/spaces/${spaceId}/change-requests/${crId}/content?compat=false`, { changes });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body as { changes: { page: { id: string } }[]; insertedFiles: { id: string }[] };
}

function run(cmd: string, args: string[], input: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args);
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`${cmd} exited with ${code}: ${err}`))));
    // A tool that does not read its input (pdfimages) may exit first: the pipe breaks, its exit code tells.
    child.stdin.on('error', () => {});
    child.stdin.end(input);
  });
}

/** The PDF's text, whitespace collapsed (pdftotext reads stdin with `-`). */
const pdfText = async (pdf: Buffer) => (await run('pdftotext', ['-', '-'], pdf)).replace(/\s+/g, ' ');

/** Embedded images as [width, height] (pdfimages -list; soft masks left out). */
async function pdfImages(pdf: Buffer): Promise<[number, number][]> {
  // pdfimages does not read stdin: go through a temporary file.
  const { mkdtemp, writeFile, rm } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const dir = await mkdtemp(`${tmpdir()}/pdfimages-`);
  try {
    await writeFile(`${dir}/x.pdf`, pdf);
    const out = await run('pdfimages', ['-list', `${dir}/x.pdf`], Buffer.alloc(0));
    return out
      .split('\n')
      .slice(2)
      .map((l) => l.trim().split(/\s+/))
      .filter((f) => f[2] === 'image')
      .map((f) => [Number(f[3]), Number(f[4])]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** GET a PDF link as a browser would: no token. */
async function fetchLink(url: string) {
  const res = await fetch(url);
  const buf = Buffer.from(await res.arrayBuffer());
  const json = (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(buf.toString('utf8')) : undefined;
  return { status: res.status, headers: res.headers, buf, json };
}

const opId = (location: string | null) => {
  expect(location).toMatch(/\/v1\/operations\/[A-Za-z0-9]+$/);
  return location!.split('/').pop()!;
};

const finished = (id: string) => operationSettled(t, id, { token: org.adminToken, timeoutMs: 150_000, intervalMs: 200 });

/** Request a PDF, wait for its operation and download it. */
async function exportPdf(path: string, token = org.adminToken) {
  const r = await api('GET', path, undefined, token);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  const op = await finished(opId(r.headers.get('location')));
  expect(op.status, JSON.stringify(op)).toBe('succeeded');
  const link = await fetchLink(r.body.url);
  expect(link.status).toBe(200);
  return { url: r.body.url as string, op, pdf: link.buf };
}

const renderIdOf = (url: string) => new URL(url).pathname.split('/').pop()!;
const countRenderOps = async (targetId: string) =>
  Number((await t.app.db.query(`SELECT count(*) AS n FROM operations WHERE kind = 'pdf.render' AND target_id = $1`, [targetId])).rows[0].n);

const DIAGRAM = png(40, 20, [200, 30, 30]);

// Three pages (one nested) with headings, a code block, a table and an image.
async function handbook() {
  const s = await space('Team Handbook');
  const c = await cr(s, 'Rewrite the handbook');
  const first = await batch(s, c.id, [
    {
      operation: 'insert_page',
      ref: 'start',
      title: 'Getting Started',
      document: {
        markdown:
          '## Install the tools\n\nRun the installer:\n\n```sh\nnpm install --global handbook-cli\n```\n\n## Configure the project\n\nSee [the reference](./reference.md).',
      },
    },
    {
      operation: 'insert_page',
      ref: 'reference',
      title: 'API Reference',
      document: {
        markdown:
          '## Endpoints table\n\n| Method | Path |\n| --- | --- |\n| GET | /widgets |\n| POST | /gadgets |\n\n![Architecture diagram](./diagram)',
      },
    },
    {
      operation: 'insert_files',
      files: [{ ref: 'diagram', name: 'diagram.png', contentType: 'image/png', base64: DIAGRAM.toString('base64') }],
    },
  ]);
  const [start, reference] = first.changes.map((x) => x.page.id);
  const second = await batch(s, c.id, [
    {
      operation: 'insert_page',
      into: start,
      title: 'Troubleshooting',
      document: { markdown: '## Common errors\n\nRestart the `widget` service.' },
    },
  ]);
  return { s, c, start, reference, trouble: second.changes[0].page.id };
}

describe('PDF export', () => {
  let hb: Awaited<ReturnType<typeof handbook>>;
  let firstUrl: string;

  it('answers {url} at once; the link says "not ready yet" until a worker has rendered it', async () => {
    hb = await handbook();
    const r = await api('GET', `/v1/spaces/${hb.s}/change-requests/${hb.c.id}/pdf`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    assertMatchesSpec('GET', '/spaces/{spaceId}/change-requests/{changeRequestId}/pdf', 200, r.body);
    expect(Object.keys(r.body)).toEqual(['url']);
    firstUrl = r.body.url;
    expect(firstUrl).toMatch(new RegExp(`^${t.baseUrl}/pdf/[A-Za-z0-9]+\\?exp=\\d+&sig=`));
    const exp = Number(new URL(firstUrl).searchParams.get('exp'));
    expect(exp * 1000 - Date.now()).toBeGreaterThan(3500_000); // valid for one hour
    expect(exp * 1000 - Date.now()).toBeLessThanOrEqual(3600_000);
    const op = await api('GET', `/v1/operations/${opId(r.headers.get('location'))}`);
    expect(op.body).toMatchObject({ kind: 'pdf.render', status: 'queued', target: { type: 'change-request', id: hb.c.id } });

    // No worker runs yet: not ready.
    const early = await fetchLink(firstUrl);
    expect(early.status).toBe(202);
    expect(early.headers.get('retry-after')).toBe('2');
    expect(early.json.error.code).toBe(202);
    expect(early.json.error.message).toMatch(/not ready yet/);
    expect(early.headers.get('location')).toBe(r.headers.get('location'));
  });

  it('renders the change request with Chromium: cover, contents, every page, heading, code block, table and image', async () => {
    t.startWorkers(['pdf']);
    const r = await api('GET', `/v1/spaces/${hb.s}/change-requests/${hb.c.id}/pdf`);
    const op = await finished(opId(r.headers.get('location')));
    expect(op, JSON.stringify(op)).toMatchObject({ status: 'succeeded', progress: 1, result: { sections: 3 } });

    // The link handed out before the render now serves the PDF.
    const link = await fetchLink(firstUrl);
    expect(link.status).toBe(200);
    expect(link.headers.get('content-type')).toBe('application/pdf');
    expect(link.headers.get('content-disposition')).toContain('team-handbook-cr-1.pdf');
    expect(link.buf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(Number(link.headers.get('content-length'))).toBe(link.buf.length);

    const text = await pdfText(link.buf);
    expect(text).toContain('Team Handbook');
    expect(text).toContain('Change request #1: Rewrite the handbook');
    for (const s of [
      'Getting Started',
      'Troubleshooting',
      'API Reference',
      'Install the tools',
      'Configure the project',
      'Endpoints table',
      'Common errors',
    ]) {
      expect(text).toContain(s);
    }
    expect(text).toContain('npm install --global handbook-cli');
    expect(text).toMatch(/Method Path GET \/widgets POST \/gadgets/);
    // The table of contents lists the pages in tree order before the pages themselves.
    const toc = text.slice(text.indexOf('Contents'));
    expect(toc).toMatch(/^Contents Getting Started Troubleshooting API Reference /);
    const body = toc.slice('Contents Getting Started Troubleshooting API Reference'.length);
    expect(body.indexOf('Install the tools')).toBeLessThan(body.indexOf('Common errors'));
    expect(body.indexOf('Common errors')).toBeLessThan(body.indexOf('Endpoints table'));
    // The image is embedded from the BlobStore at its own size.
    expect(await pdfImages(link.buf)).toContainEqual([40, 20]);
  });

  it('renders the same revision and selection once: later and concurrent requests reuse it', async () => {
    const again = await Promise.all(Array.from({ length: 4 }, () => api('GET', `/v1/spaces/${hb.s}/change-requests/${hb.c.number}/pdf`)));
    for (const r of again) {
      expect(r.status).toBe(200);
      expect(renderIdOf(r.body.url)).toBe(renderIdOf(firstUrl));
      expect((await fetchLink(r.body.url)).status).toBe(200);
    }
    expect(new Set(again.map((r) => r.headers.get('location'))).size).toBe(1);
    expect(await countRenderOps(hb.c.id)).toBe(1);

    // Concurrent first requests for a new selection: one render, one operation.
    const first = await Promise.all(
      Array.from({ length: 4 }, () => api('GET', `/v1/spaces/${hb.s}/change-requests/${hb.c.id}/pdf?page=${hb.start}`)),
    );
    expect(new Set(first.map((r) => renderIdOf(r.body.url))).size).toBe(1);
    expect(new Set(first.map((r) => r.headers.get('location'))).size).toBe(1);
    expect(await countRenderOps(hb.c.id)).toBe(2);

    // New content is a new revision: a new render that shows it.
    await batch(hb.s, hb.c.id, [{ operation: 'update_page', page: hb.reference, title: 'API Reference v2' }]);
    const next = await exportPdf(`/v1/spaces/${hb.s}/change-requests/${hb.c.id}/pdf`);
    expect(renderIdOf(next.url)).not.toBe(renderIdOf(firstUrl));
    expect(await pdfText(next.pdf)).toContain('API Reference v2');
    const { rows } = await t.app.db.query('SELECT status FROM pdf_renders WHERE change_request_id = $1 ORDER BY created_at', [hb.c.id]);
    expect(rows.map((x) => x.status)).toEqual(['ready', expect.any(String), 'ready']);

    // A PDF stored by an older version's look (its key has no layout version) is rendered again, not served.
    await t.app.db.query("UPDATE pdf_renders SET scope = 'all' WHERE id = $1", [renderIdOf(next.url)]);
    const redone = await exportPdf(`/v1/spaces/${hb.s}/change-requests/${hb.c.id}/pdf`);
    expect(renderIdOf(redone.url)).not.toBe(renderIdOf(next.url));
    expect(await pdfText(redone.pdf)).toContain('API Reference v2');
  });

  it('scopes the export: only=true&page= renders that page alone, page= alone that page and its sub-pages', async () => {
    const only = await exportPdf(`/v1/spaces/${hb.s}/change-requests/${hb.c.id}/pdf?only=true&page=${hb.trouble}`);
    const onlyText = await pdfText(only.pdf);
    expect(onlyText).toContain('Troubleshooting');
    expect(onlyText).toContain('Common errors');
    for (const other of ['Getting Started', 'Install the tools', 'API Reference', 'Endpoints table']) expect(onlyText).not.toContain(other);
    expect(only.op.result.sections).toBe(1);

    const section = await exportPdf(`/v1/spaces/${hb.s}/change-requests/${hb.c.id}/pdf?page=${hb.start}`);
    const sectionText = await pdfText(section.pdf);
    for (const s of ['Getting Started', 'Install the tools', 'Troubleshooting', 'Common errors']) expect(sectionText).toContain(s);
    expect(sectionText).not.toContain('Endpoints table');

    const noPage = await api('GET', `/v1/spaces/${hb.s}/change-requests/${hb.c.id}/pdf?only=true`);
    expect(noPage.status).toBe(400);
    expect(noPage.body.error.message).toContain('query.page');
    expect((await api('GET', `/v1/spaces/${hb.s}/change-requests/${hb.c.id}/pdf?page=nosuchpage`)).status).toBe(404);
    expect((await api('GET', `/v1/spaces/${hb.s}/change-requests/${hb.c.id}/pdf?only=maybe&page=${hb.start}`)).status).toBe(400);
    expect((await api('GET', `/v1/spaces/${hb.s}/change-requests/999/pdf`)).status).toBe(404);
  });

  it('refuses tampered and expired links', async () => {
    const u = new URL(firstUrl);
    const sig = u.searchParams.get('sig')!;
    const tampered = new URL(u);
    tampered.searchParams.set('sig', `${sig[0] === 'A' ? 'B' : 'A'}${sig.slice(1)}`);
    const bad = await fetchLink(tampered.toString());
    expect(bad.status).toBe(403);
    expect(bad.json.error.message).toMatch(/signature/);
    const longer = new URL(u);
    longer.searchParams.set('exp', String(Number(u.searchParams.get('exp')) + 86_400));
    expect((await fetchLink(longer.toString())).status).toBe(403);
    const other = new URL(u);
    other.pathname = `/pdf/${'x'.repeat(20)}`;
    expect((await fetchLink(other.toString())).status).toBe(403);
    // A link signed two hours ago expired an hour ago.
    const expired = await fetchLink(pdfUrl(t.app, renderIdOf(firstUrl), Date.now() - 2 * 3600_000));
    expect(expired.status).toBe(410);
    expect(expired.json.error.message).toMatch(/expired/);
    expect((await fetchLink(`${t.baseUrl}/pdf/${renderIdOf(firstUrl)}`)).status).toBe(400);
  });

  it('lets readers export, hides invisible spaces and needs a token to ask', async () => {
    const reader = await t.seedUser(org.orgId, 'read');
    const r = await api('GET', `/v1/spaces/${hb.s}/change-requests/${hb.c.id}/pdf`, undefined, reader.token);
    expect(r.status).toBe(200);
    expect((await fetchLink(r.body.url)).status).toBe(200);
    const outsider = await t.seedUser();
    const hidden = await api('GET', `/v1/spaces/${hb.s}/change-requests/${hb.c.id}/pdf`, undefined, outsider.token);
    expect(hidden.status).toBe(404);
    expect((await api('GET', `/v1/spaces/${hb.s}/pdf`, undefined, outsider.token)).status).toBe(404);
    expect((await api('GET', `/v1/spaces/${hb.s}/change-requests/${hb.c.id}/pdf`, undefined, null)).status).toBe(401);
  });

  it("exports a space's main content with GET /v1/spaces/{id}/pdf", async () => {
    const s = await space('Runbook');
    await editContent(t, s, (d) => {
      d.insertPage(null, { title: 'Incident response', markdown: '## Page the on-call engineer\n\nUse the pager.' });
    });
    const r = await exportPdf(`/v1/spaces/${s}/pdf`);
    assertMatchesSpec('GET', '/spaces/{spaceId}/pdf', 200, { url: r.url });
    expect(r.op.target).toEqual({ type: 'space', id: s });
    const text = await pdfText(r.pdf);
    for (const x of ['Runbook', 'Main content', 'Incident response', 'Page the on-call engineer']) expect(text).toContain(x);
  });

  it('loads nothing from the network: external images become placeholders', async () => {
    let hits = 0;
    const tracker = await serve((_req, res) => {
      hits++;
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(DIAGRAM);
    });
    try {
      const s = await space('Offline');
      const c = await cr(s, 'External image');
      await batch(s, c.id, [
        {
          operation: 'insert_page',
          title: 'Tracked',
          document: { markdown: `## Remote picture\n\n![pixel](${tracker.url}/pixel.png)\n\n[home](${tracker.url}/)` },
        },
      ]);
      const r = await exportPdf(`/v1/spaces/${s}/change-requests/${c.id}/pdf`);
      const text = await pdfText(r.pdf);
      expect(text).toContain('Remote picture');
      expect(text).toContain(`pixel: external image not embedded: ${tracker.url}/pixel.png`);
      expect(await pdfImages(r.pdf)).toEqual([]);
      expect(hits).toBe(0);
    } finally {
      await tracker.close();
    }
  });

  it('fails the operation with the page and its reason when an image file is missing from storage; a later request renders again', async () => {
    const s = await space('Broken');
    const c = await cr(s, 'Missing bytes');
    const lost = png(3, 3, [1, 2, 3]);
    const b = await batch(s, c.id, [
      { operation: 'insert_page', title: 'Fine page', document: { markdown: 'All good.' } },
      { operation: 'insert_page', title: 'Broken diagram', document: { markdown: '## Flow\n\n![flow](./flow)' } },
      { operation: 'insert_files', files: [{ ref: 'flow', name: 'flow.png', contentType: 'image/png', base64: lost.toString('base64') }] },
    ]);
    const fileId = b.insertedFiles[0].id;
    const blobKey = `files/sha256/${createHash('sha256').update(lost).digest('hex')}`;
    await t.app.blobs.delete(blobKey);

    const r = await api('GET', `/v1/spaces/${s}/change-requests/${c.id}/pdf`);
    expect(r.status).toBe(200);
    const op = await finished(opId(r.headers.get('location')));
    expect(op.status).toBe('failed');
    expect(op.error).toBe(`page 'Broken diagram': image file ${fileId} is missing`);
    expect(op.attempts).toBe(1); // a content failure is not retried
    const link = await fetchLink(r.body.url);
    expect(link.status).toBe(422);
    expect(link.json.error.message).toBe(`The PDF could not be rendered: page 'Broken diagram': image file ${fileId} is missing`);
    // Nothing half-written: no PDF stored, the render is marked failed with the reason.
    expect(await t.app.blobs.list(`pdf/${s}/`)).toEqual([]);
    const row = (await t.app.db.query('SELECT status, error, blob_key FROM pdf_renders WHERE space_id = $1', [s])).rows;
    expect(row).toEqual([{ status: 'failed', error: `page 'Broken diagram': image file ${fileId} is missing`, blob_key: null }]);

    // The bytes come back; asking again starts a new attempt of the same render, which succeeds.
    await t.app.blobs.put(blobKey, lost, { contentType: 'image/png' });
    const retry = await api('GET', `/v1/spaces/${s}/change-requests/${c.id}/pdf`);
    expect(renderIdOf(retry.body.url)).toBe(renderIdOf(r.body.url));
    expect(retry.headers.get('location')).not.toBe(r.headers.get('location'));
    expect((await finished(opId(retry.headers.get('location')))).status).toBe('succeeded');
    const ok = await fetchLink(r.body.url); // the first link works too: same render
    expect(ok.status).toBe(200);
    expect(await pdfText(ok.buf)).toContain('Broken diagram');
    expect(await t.app.blobs.list(`pdf/${s}/`)).toHaveLength(1);
  });
});

describe('the offline browser', () => {
  it('blocks every network request of the printed HTML (only data: URLs load)', async () => {
    const { printPdf } = await import('../../../src/render/pdf.js');
    const { closeBrowser } = await import('../../../src/render/browser.js');
    let hits = 0;
    const site = await serve((_req, res) => {
      hits++;
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(DIAGRAM);
    });
    try {
      const html = `<!doctype html><html><head><link rel="stylesheet" href="${site.url}/style.css"></head><body>
        <h1>Offline heading</h1><img src="${site.url}/remote.png" width="40" height="20">
        <img src="data:image/png;base64,${png(6, 4, [0, 90, 200]).toString('base64')}">
        <iframe src="${site.url}/frame"></iframe><script src="${site.url}/x.js"></script></body></html>`;
      const pdf = await printPdf(html, { executablePath: t.config.chromiumPath, timeoutMs: 60_000 });
      expect(await pdfText(pdf)).toContain('Offline heading');
      const images = await pdfImages(pdf);
      expect(images).toContainEqual([6, 4]);
      expect(images).not.toContainEqual([40, 20]);
      expect(hits).toBe(0);
    } finally {
      await site.close();
      await closeBrowser(); // launched by this test, not by a worker pool
    }
  });
});
