// Code blocks and icons as a reader sees them, on a real GitBook repository (tetherto/wdk-docs,
// "start-building") imported from git and published: tokens colored in light and dark mode, the
// copy button copying the code as written (line numbers not copied), titles, hint icons, page
// icons in the sidebar and the title; without JavaScript no button; the PDF carries the code.
// Every run asserts zero off-origin requests, zero console errors and zero CSP violations.
import { cp, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'puppeteer-core';
import { useTestApp } from '../../helpers/app.js';
import { expectClean, useBrowser, watchedTab } from '../../helpers/browser.js';
import { GITBOOK_FIXTURES, requireFixtures } from '../../helpers/fixtures.js';
import { startGitServer, type GitServer } from '../../helpers/git-server.js';
import { operationSettled } from '../../helpers/operations.js';
import { editContent } from '../../helpers/content.js';
import { pdfText } from '../../helpers/pdf.js';

const ARTIFACTS = process.env.SITE_ARTIFACTS ?? path.resolve('data/test-artifacts/site');
const FOLDER = path.join(requireFixtures(GITBOOK_FIXTURES), 'tetherto--wdk-docs', 'start-building');

let g: GitServer;
beforeAll(async () => {
  g = await startGitServer();
});
afterAll(() => g?.close());
const { t, org } = useTestApp({ workers: ['git', 'pdf'], env: { WORKER_CONCURRENCY: '1' }, seedOrg: true });
const browser = useBrowser();

const api = async (method: string, p: string, body?: unknown) => {
  const r = await t.api(method, p, { token: org.adminToken, body });
  expect(r.status, `${method} ${p}: ${r.text}`).toBeLessThan(300);
  return r;
};
const settle = async (location: string) => {
  const op = await operationSettled(t, location, { token: org.adminToken, timeoutMs: 150_000 });
  expect(op.status, JSON.stringify(op)).toBe('succeeded');
};

/** The code of the first `{% code title="app.js" %}` fence of the quickstart, as written. */
async function firstAppJs(): Promise<string> {
  const md = await readFile(path.join(FOLDER, 'nodejs-bare-quickstart.md'), 'utf8');
  const m = /\{% code title="app\.js" lineNumbers="true" %\}\n```\w+\n([\s\S]*?)\n```/.exec(md);
  if (!m) throw new Error('fixture changed: no app.js code block');
  return m[1];
}

let spaceId = '';
let base = '';
let quickstart = '';
beforeAll(async () => {
  const work = await mkdtemp(path.join(tmpdir(), 'dp-code-'));
  await cp(FOLDER, work, { recursive: true });
  const url = await g.createRepo('wdk-start-building', { dir: work });
  await rm(work, { recursive: true, force: true });
  spaceId = (await api('POST', `/v1/orgs/${org.orgId}/spaces`, { title: 'WDK', empty: true })).body.id;
  const r = await api('POST', `/v1/spaces/${spaceId}/git/import`, { url, ref: 'refs/heads/main' });
  await settle(r.headers.get('location')!);
  const site = (await api('POST', `/v1/orgs/${org.orgId}/sites`, { title: 'WDK Docs', visibility: 'public' })).body;
  await api('POST', `/v1/orgs/${org.orgId}/sites/${site.id}/sections`, { spaceId, title: 'Start' });
  await api('POST', `/v1/orgs/${org.orgId}/sites/${site.id}/publish`);
  base = `${t.baseUrl}/site/${site.id}`;
  const pages = (await api('GET', `/v1/spaces/${spaceId}/content/pages`)).body.pages as { path: string; git?: { path: string } }[];
  quickstart = pages.find((p) => p.git?.path === 'nodejs-bare-quickstart.md')!.path;
  expect(quickstart).toBeTruthy();
}, 200_000);

/** Computed color of the first token of `block` whose text is `text`, and of the block's plain text. */
const colors = (tab: Page, text: string) =>
  tab.evaluate((word) => {
    const block = document.querySelector('.body figure.code-block')!;
    const token = [...block.querySelectorAll('pre code .line span')].find((s) => s.textContent === word)!;
    return { token: getComputedStyle(token).color, plain: getComputedStyle(block.querySelector('pre code')!).color };
  }, text);

describe('code blocks and icons in the reader', () => {
  it('highlighted in light and dark mode, titled, numbered; the copy button copies the code alone', async () => {
    const w = await watchedTab(browser, t.baseUrl);
    const { tab } = w;
    // The clipboard as the page writes it (headless Chromium has no system clipboard to read back).
    await tab.evaluateOnNewDocument(() => {
      const copied: string[] = [];
      (window as unknown as { copied: string[] }).copied = copied;
      Object.defineProperty(navigator, 'clipboard', {
        value: { writeText: (s: string) => (copied.push(s), Promise.resolve()) },
        configurable: true,
      });
    });
    await tab.goto(`${base}/${quickstart}`, { waitUntil: 'load' });

    // The first titled code block: "app.js", numbered lines, JavaScript tokens in color.
    expect(await tab.$eval('.body figure.code-block', (e) => [e.tagName, e.className, e.querySelector('figcaption')?.textContent])).toEqual(
      ['FIGURE', 'code-block line-numbers', 'app.js'],
    );
    const light = await colors(tab, 'import');
    expect(light.token).not.toBe(light.plain);
    // GitHub Light's colors: keywords red, strings navy, identifiers the text's own.
    expect(light.token).toBe('rgb(215, 58, 73)');
    expect((await colors(tab, "'@tetherto/wdk'")).token).toBe('rgb(3, 47, 98)');
    await mkdir(ARTIFACTS, { recursive: true });
    const figure = (await tab.$('.body figure.code-block'))!;
    await figure.screenshot({ path: path.join(ARTIFACTS, 'code-light.png') });
    // The gutter's numbers are drawn by CSS (not text of the code).
    expect(await tab.$eval('.body figure.code-block .line', (e) => getComputedStyle(e, '::before').content)).toBe('counter(line)');
    expect(await tab.$eval('.body figure.code-block .line', (e) => e.textContent)).toBe("import WDK from '@tetherto/wdk'");

    // Dark mode: the same token in another color, still not the plain text's.
    await tab.click('[data-theme-toggle]');
    expect(await tab.$eval('html', (e) => e.dataset.theme)).toBe('dark');
    const dark = await colors(tab, 'import');
    expect(dark.token).not.toBe(dark.plain);
    expect(dark.token).not.toBe(light.token);
    expect(dark.plain).not.toBe(light.plain);
    await figure.screenshot({ path: path.join(ARTIFACTS, 'code-dark.png') });

    // Copy: the code exactly as written, no line numbers; the button says so.
    const button = await tab.waitForSelector('.body figure.code-block .code-copy', { visible: true });
    await button!.click();
    await tab.waitForFunction(() => (window as unknown as { copied: string[] }).copied.length === 1);
    expect(await tab.evaluate(() => (window as unknown as { copied: string[] }).copied[0])).toBe(await firstAppJs());
    expect(await tab.$eval('.body figure.code-block .code-copy', (e) => e.textContent)).toBe('Copied');
    expect(await tab.$$eval('.body .code-block', (els) => els.every((e) => e.querySelector(':scope > .code-copy')))).toBe(true);

    // A bash block (no title): highlighted too.
    const bash = await tab.$$eval('.body .code-block code.language-bash', (els) => els.length);
    expect(bash).toBeGreaterThan(0);
    await expectClean(w);
    await tab.close();
  });

  it('hint icons, page icons in the sidebar and the title', async () => {
    const w = await watchedTab(browser, t.baseUrl);
    const { tab } = w;
    await tab.goto(`${base}/${quickstart}`, { waitUntil: 'load' });
    const box = (selector: string) =>
      tab.$eval(selector, (e) => {
        const r = e.getBoundingClientRect();
        return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden';
      });
    // The info hint's icon, in the hint's color.
    expect(await box('.body aside.hint-info svg.hint-icon')).toBe(true);
    expect(await tab.$eval('.body aside.hint-info svg.hint-icon', (e) => getComputedStyle(e).color)).toBe(
      await tab.$eval('.body aside.hint-info', (e) => getComputedStyle(e).borderLeftColor),
    );
    // The page's icon (`icon: code`) before its title, and every page's icon in the sidebar.
    expect(await box('main h1 svg.icon')).toBe(true);
    const tree = await tab.$$eval('nav.tree a', (els) => els.map((a) => [a.textContent, a.querySelectorAll('svg.icon').length]));
    expect(tree.length).toBeGreaterThanOrEqual(3);
    for (const [title, icons] of tree) expect(icons, String(title)).toBe(1);
    expect(await box('nav.tree a[aria-current] svg.icon')).toBe(true);
    await expectClean(w);
    await tab.close();
  });

  it('without JavaScript: colors, no copy button', async () => {
    const w = await watchedTab(browser, t.baseUrl, { js: false });
    const { tab } = w;
    await tab.goto(`${base}/${quickstart}`, { waitUntil: 'load' });
    const light = await colors(tab, 'import');
    expect(light.token).not.toBe(light.plain);
    expect(await tab.$$eval('.code-copy', (els) => els.length)).toBe(0);
    await tab.close();
  });

  it('an expandable block shows its first lines, and all of them once the reader asks (no script needed)', async () => {
    const lines = Array.from({ length: 14 }, (_, i) => `echo step-${i + 1}`).join('\n');
    await editContent(t, spaceId, (d) => {
      d.insertPage(null, { title: 'Long script', markdown: `{% code expandable="true" %}\n\`\`\`bash\n${lines}\n\`\`\`\n{% endcode %}\n` });
    });
    for (const js of [true, false]) {
      const w = await watchedTab(browser, t.baseUrl, { js });
      const { tab } = w;
      await tab.goto(`${base}/long-script`, { waitUntil: 'load' });
      const size = () => tab.$eval('.body .code-block pre', (e) => [e.clientHeight, e.scrollHeight]);
      const [collapsed, full] = await size();
      expect(collapsed, `js ${js}`).toBeLessThan(full);
      expect(await tab.$eval('.code-expand', (e) => (e as HTMLElement).innerText.trim())).toBe('Show all 14 lines');
      await tab.click('.code-expand');
      const [expanded, after] = await size();
      expect(expanded, `js ${js}`).toBe(after);
      expect(expanded).toBeGreaterThan(collapsed);
      expect(await tab.$eval('.code-expand', (e) => (e as HTMLElement).innerText.trim())).toBe('Show less');
      if (js) await expectClean(w);
      await tab.close();
    }
  });

  it('the HTML as served: highlighted blocks, hint icons and no button; the stylesheet colors both themes', async () => {
    const html = await (await fetch(`${base}/${quickstart}`)).text();
    expect(html).toContain(
      '<figure class="code-block line-numbers"><figcaption class="code-title">app.js</figcaption><pre class="code highlighted">',
    );
    expect(html).toContain('<span class="hl-d73a49 hd-f97583">import</span>');
    expect(html).toMatch(/<aside class="hint hint-info"><svg class="icon hint-icon"/);
    expect(html).not.toMatch(/code-copy|style="/);
    const href = /<link rel="stylesheet" href="([^"]+\/~site\/static\/[^"]+\.css)">/.exec(html)![1];
    const css = await (await fetch(new URL(href, t.baseUrl))).text();
    expect(css).toContain('.hl-d73a49{color:#d73a49}');
    expect(css).toContain(':root[data-theme=dark] .body .hd-f97583{color:#f97583}');
  });

  it('the PDF carries the code, its title and the hints', async () => {
    const r = await api('GET', `/v1/spaces/${spaceId}/pdf`);
    await settle(r.headers.get('location')!);
    const flat = await pdfText(Buffer.from(await (await fetch(r.body.url)).arrayBuffer()));
    expect(flat).toContain("import WDK from '@tetherto/wdk'");
    expect(flat).toContain('const seedPhrase = WDK.getRandomSeedPhrase()');
    expect(flat).toContain('app.js');
    expect(flat).not.toMatch(/\{%\s*(code|hint|endcode)/);
  });
});
