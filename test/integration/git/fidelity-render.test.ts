// Real GitBook content imported from git renders as a reader expects, in the published view and in
// the PDF: tabs switchable (all shown in print), figures with their captions, details collapsible.
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { startGitServer, type GitServer } from '../../helpers/git-server.js';
import { operationSettled } from '../../helpers/operations.js';
import { GITBOOK_FIXTURES, requireFixtures } from '../../helpers/fixtures.js';
import { pdfText } from '../../helpers/pdf.js';

const GITBOOK = requireFixtures(GITBOOK_FIXTURES);

let g: GitServer;
beforeAll(async () => {
  g = await startGitServer();
});
afterAll(() => g?.close());
const { t, org } = useTestApp({ workers: ['git', 'pdf'], env: { WORKER_CONCURRENCY: '1' }, seedOrg: true });

const api = (method: string, p: string, body?: unknown) => t.api(method, p, { token: org.adminToken, body });

const settle = (location: string) => operationSettled(t, location, { token: org.adminToken, timeoutMs: 150_000 });

/** A public space imported from one space folder of a fixture. */
async function importSpace(fixture: string, dir: string): Promise<string> {
  const work = await mkdtemp(path.join(tmpdir(), 'dp-gitbook-'));
  await cp(path.join(GITBOOK, fixture, dir), work, { recursive: true });
  const url = await g.createRepo(`${fixture}-${dir}`.toLowerCase().replace(/[^a-z0-9-]/g, '-'), { dir: work });
  await rm(work, { recursive: true, force: true });
  const spaceId = (await api('POST', `/v1/orgs/${org.orgId}/spaces`, { title: fixture, empty: true })).body.id as string;
  const r = await api('POST', `/v1/spaces/${spaceId}/git/import`, { url, ref: 'refs/heads/main' });
  expect(r.status).toBe(204);
  const op = await settle(r.headers.get('location')!);
  expect(op.status, op.error).toBe('succeeded');
  await api('PATCH', `/v1/spaces/${spaceId}`, { visibility: 'public' });
  return spaceId;
}

const walk = (pages: any[]): any[] => pages.flatMap((p) => [p, ...walk(p.pages ?? [])]);

describe('rendering real GitBook content', () => {
  it('Lawnchair help: tabs, details and hints in the document format, the published view and the PDF', async () => {
    const s = await importSpace('LawnchairLauncher--docs', 'help');
    const pages = walk((await api('GET', `/v1/spaces/${s}/content/pages`)).body.pages);
    const verify = pages.find((p) => p.git?.path === 'getting-started/install-and-setup/verify.md');
    expect(verify).toBeDefined();
    // ?format=document: the tabs are a tabs block with titled items.
    const doc = (await api('GET', `/v1/spaces/${s}/content/page/${verify.id}?format=document`)).body.document;
    const tabs = doc.nodes.find((n: any) => n.type === 'tabs');
    expect(tabs.nodes.map((i: any) => i.data.title)).toEqual(['Play Store version', 'GitHub version']);
    expect(JSON.stringify(doc)).not.toContain('{% tab');
    // Published view: switchable without scripts.
    const html = await (await fetch(`${t.baseUrl}/s/${s}/${verify.path}`)).text();
    expect(html).toMatch(/<input type="radio"[^>]*class="tab-radio" checked>/);
    expect(html).toContain('>GitHub version</label>');
    expect(html).not.toContain('{% tab');
    // PDF of the whole space: both tabs' content printed, details content printed, no raw tags.
    const r = await api('GET', `/v1/spaces/${s}/pdf`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const op = await settle(r.headers.get('location')!);
    expect(op.status, JSON.stringify(op)).toBe('succeeded');
    const text = await pdfText(Buffer.from(await (await fetch(r.body.url)).arrayBuffer()));
    expect(text).toContain('Play Store version');
    expect(text).toContain('GitHub version');
    expect(text).toContain('74:7C:36:45');
    expect(text).not.toMatch(/\{%\s*(tabs|tab|hint|endtab)/);
    // Reusable content: the included file's body (front matter dropped) stands in the tag's place,
    // for readers and in the PDF; the page itself keeps the tag.
    expect(text).toContain('Tap Restart Lawnchair');
    expect(text).not.toContain('{% include');
    const lawnicons = pages.find((p) => p.git?.path === 'integrations/lawnicons.md');
    const shown = await (await fetch(`${t.baseUrl}/s/${s}/${lawnicons.path}`)).text();
    expect(shown).toContain('This feature works on top of your selected icon pack.');
    expect(shown).toMatch(/<details[^>]*><summary>How to turn on themed icons<\/summary>/);
    expect(shown).not.toContain('title: Turn on themed icons');
    const raw = (await api('GET', `/v1/spaces/${s}/content/page/${lawnicons.id}`)).body.markdown;
    expect(raw).toContain('{% include "../.gitbook/includes/turn-on-themed-icons.md" %}');
  }, 300_000);

  it('WDK: card grids written as HTML tables show as cards with their covers and targets', async () => {
    const s = await importSpace('tetherto--wdk-docs', '.');
    const pages = walk((await api('GET', `/v1/spaces/${s}/content/pages`)).body.pages);
    const page = pages.find((p) => p.git?.path === 'overview/about.md');
    expect(page).toBeDefined();
    const html = await (await fetch(`${t.baseUrl}/s/${s}/${page.path}`)).text();
    const main = html.slice(html.indexOf('</nav>'));
    // Two card grids on the page (five and four cards), covers from the repository's assets.
    expect(main.match(/<div class="cards">/g) ?? [], main.slice(0, 3000)).toHaveLength(2);
    expect((main.match(/<div class="card">/g) ?? []).length).toBeGreaterThanOrEqual(9);
    expect(main).toContain('<strong>Runs Anywhere</strong>');
    const sdk = main.slice(main.indexOf('Modular SDK') - 400, main.indexOf('Modular SDK') + 40);
    expect(sdk).toMatch(
      /<div class="card"><img src="[^"]+" alt=""><p class="card-title"><a href="[^"]*"><strong>Modular SDK<\/strong><\/a>/,
    );
    expect(main).not.toContain('image-placeholder');

    // `{% openapi src="./openapi.json" %}` names a description kept in the repository: each block
    // shows its whole operation (parameters, responses) from that file, in the view and the PDF.
    const ref = pages.find((p) => p.git?.path === 'tools/indexer-api/api-reference.md');
    expect(ref).toBeDefined();
    const shown = await (await fetch(`${t.baseUrl}/s/${s}/${ref.path}`)).text();
    const transfers = shown.slice(shown.indexOf('Get token transfers for an address'));
    expect(transfers).toMatch(/<code>blockchain<\/code><\/td>\s*<td>path<\/td>/);
    expect(transfers).toContain('<code>x-api-key</code>');
    expect(transfers).toContain('<code>transfers[].transactionHash</code>');
    expect(shown.match(/<div class="openapi-operation">/g)?.length).toBeGreaterThanOrEqual(5);
    const r = await api('GET', `/v1/spaces/${s}/pdf?page=${ref.id}&only=true`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const op = await settle(r.headers.get('location')!);
    expect(op.status, JSON.stringify(op)).toBe('succeeded');
    const text = await pdfText(Buffer.from(await (await fetch(r.body.url)).arrayBuffer()));
    expect(text).toContain('transfers[].transactionHash');
    expect(text).toContain('Retrieve the token transfer history for a specific address');
  }, 300_000);

  it('PACE: figures keep their images and captions in the published view', async () => {
    const s = await importSpace('getstrm--pace', 'docs');
    const pages = walk((await api('GET', `/v1/spaces/${s}/content/pages`)).body.pages);
    const page = pages.find((p) => p.git?.path === 'docs/tutorials/detokenization.md' || p.git?.path === 'tutorials/detokenization.md');
    expect(page).toBeDefined();
    const doc = (await api('GET', `/v1/spaces/${s}/content/page/${page.id}?format=document`)).body.document;
    // Nine figures, most inside tabs: each an images block whose image is the imported file.
    const json = JSON.stringify(doc);
    expect((json.match(/"type":"images"/g) ?? []).length).toBeGreaterThanOrEqual(5);
    expect(json).not.toContain('<figure');
    const html = await (await fetch(`${t.baseUrl}/s/${s}/${page.path}`)).text();
    expect((html.match(/<figure><img /g) ?? []).length).toBeGreaterThanOrEqual(5);
    expect(html).toContain('<figcaption>The first few rows in the original table.</figcaption>');
    expect(html).not.toContain('image-placeholder');

    // `{% swagger src="../../.gitbook/assets/openapi.yaml" %}`: a YAML description among the assets.
    const rest = pages.find((p) => /reference\/api-reference\/rest\.md$/.test(p.git?.path ?? ''));
    expect(rest).toBeDefined();
    const shown = await (await fetch(`${t.baseUrl}/s/${s}/${rest.path}`)).text();
    const databases = shown.slice(shown.indexOf('Lists all databases for the given catalog.'));
    expect(shown).toContain('Lists all databases for the given catalog.');
    expect(databases).toMatch(/<code>catalogId<\/code><\/td>\s*<td>path<\/td>/);
    expect(databases).toContain('<code>databases[].catalog.id</code>');
  }, 300_000);

  it('Stacks: math as MathML, attachments to download, steppers numbered, in the view and the PDF', async () => {
    const learn = await importSpace('stacks-network--docs', 'docs/learn');
    const pages = walk((await api('GET', `/v1/spaces/${learn}/content/pages`)).body.pages);
    const model = pages.find((p) => p.git?.path === 'dual-stacking/economic-model.md');
    expect(model).toBeDefined();
    const html = await (await fetch(`${t.baseUrl}/s/${learn}/${model.path}`)).text();
    // Three display formulas, as MathML (no raw TeX left for readers).
    expect((html.match(/<div class="math"><span class="katex"><math [^>]*display="block"/g) ?? []).length).toBeGreaterThanOrEqual(3);
    expect(html).toContain('<mfrac>');
    expect(html).not.toContain('$$');
    // `{% file src="../.gitbook/assets/….pdf" %}`: a download link to the imported file.
    const audits = pages.find((p) => p.git?.path === 'network-fundamentals/audits.md');
    const shown = await (await fetch(`${t.baseUrl}/s/${learn}/${audits.path}`)).text();
    const link = /<p class="attachment"><a href="([^"]+)" download="Quantstamp_Network State Machine.pdf">/.exec(shown);
    expect(link, shown.slice(shown.indexOf('Quantstamp') - 300, shown.indexOf('Quantstamp') + 200)).not.toBeNull();
    const file = await fetch(link![1].replace(/&amp;|&#x26;/g, '&'));
    expect(file.status, `${link![1]} ${await file.clone().text()}`).toBe(200);
    // The bytes of the repository's file (the fixture keeps a placeholder in place of the PDF).
    const original = await readFile(
      path.join(GITBOOK, 'stacks-network--docs/docs/learn/.gitbook/assets/Quantstamp_Network State Machine.pdf'),
    );
    expect(Buffer.from(await file.arrayBuffer()).equals(original)).toBe(true);

    const build = await importSpace('stacks-network--docs', 'docs/build');
    const buildPages = walk((await api('GET', `/v1/spaces/${build}/content/pages`)).body.pages);
    const connect = buildPages.find((p) => p.git?.path === 'stacks-connect/connect-wallet.md');
    expect(connect).toBeDefined();
    const steps = await (await fetch(`${t.baseUrl}/s/${build}/${connect.path}`)).text();
    const stepper = steps.slice(steps.indexOf('<ol class="stepper">'));
    expect(steps).toContain('<ol class="stepper">');
    expect(stepper.indexOf('Install package')).toBeLessThan(stepper.indexOf('Connect and authenticate'));
    expect(stepper.indexOf('Connect and authenticate')).toBeLessThan(stepper.indexOf('Access user data'));
    expect(steps).not.toMatch(/\{%\s*(stepper|step|endstep)/);
    const r = await api('GET', `/v1/spaces/${build}/pdf?page=${connect.id}&only=true`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const op = await settle(r.headers.get('location')!);
    expect(op.status, JSON.stringify(op)).toBe('succeeded');
    const text = await pdfText(Buffer.from(await (await fetch(r.body.url)).arrayBuffer()));
    expect(text).toMatch(/1\.? ?Install package/);
    expect(text).toMatch(/2\.? ?Connect and authenticate/);
    expect(text).not.toMatch(/\{%\s*(stepper|step)/);

    // `cover: .gitbook/assets/theses.svg` front matter: the page's cover, shown on a site.
    const press = await importSpace('stacks-network--docs', 'docs/press-and-reports');
    const content = (await api('GET', `/v1/spaces/${press}/content`)).body;
    const theses = walk(content.pages).find((p) => p.git?.path === 'README.md' || p.title === 'Bitcoin Theses');
    const home = (await api('GET', `/v1/spaces/${press}/content/page/${theses.id}`)).body;
    expect(home.layout?.cover, JSON.stringify(home).slice(0, 600)).toBe(true);
    const coverFile = content.files.find((f: any) => f.id === home.cover?.ref?.file);
    expect(coverFile?.name, JSON.stringify(home.cover)).toBe('theses.svg');
    const site = (await api('POST', `/v1/orgs/${org.orgId}/sites`, { title: 'Stacks press', visibility: 'public' })).body;
    await api('POST', `/v1/orgs/${org.orgId}/sites/${site.id}/site-spaces`, { spaceId: press });
    expect((await api('POST', `/v1/orgs/${org.orgId}/sites/${site.id}/publish`)).status).toBeLessThan(300);
    const landing = await (await fetch(`${t.baseUrl}/site/${site.id}/${theses.path}`, { headers: { accept: 'text/html' } })).text();
    const cover = /<div class="cover cover-full"><img (?:class="[^"]*" )?src="([^"]+)"/.exec(landing);
    expect(cover, landing.slice(0, 2000)).not.toBeNull();
    const svg = await fetch(cover![1].replace(/&amp;|&#x26;/g, '&'));
    expect(svg.status).toBe(200);
    expect(svg.headers.get('content-type')).toBe('image/svg+xml');
  }, 300_000);
});
