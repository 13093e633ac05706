// Reading features of the reader site over HTTP: page covers (and og:image), the footer (logo,
// social accounts, privacy policy, copyright), the per-site theme stylesheet (tint, semantic
// colors, depth, sidebar) and the section of search hits. What a reader sees in Chromium is in
// browser-reading.test.ts.
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { addFile, editContent, PNG_2x1 } from '../../helpers/content.js';
import { themeStylesheet } from '../../../src/reader/layout.js';
import { contrast } from '../../../src/reader/layout-theme.js';
import { socialLink } from '../../../src/reader/layout-footer.js';
import { docsSite, type DocsSite } from './helpers.js';

const { t } = useTestApp();
let d: DocsSite;
let fileId: string;
beforeAll(async () => {
  d = await docsSite(t, await t.seedOrg());
  fileId = await addFile(t, d.spaces.v1, 'cover.png', 'image/png', PNG_2x1);
  await editContent(t, d.spaces.v1, (x) => {
    x.insertPage(null, {
      title: 'Covered',
      markdown: 'Under a cover.',
      cover: { ref: { kind: 'file', file: fileId }, refDark: { kind: 'url', url: 'https://images.example.test/dark.png' }, yPos: 0 },
      layout: { cover: true },
    });
    x.insertPage(null, {
      title: 'Cover off',
      markdown: 'The layout hides the cover.',
      cover: { ref: { kind: 'file', file: fileId }, yPos: 0 },
      layout: { cover: false },
    });
  });
});

const get = (path: string) => t.api('GET', path, { headers: { accept: 'text/html' } });
const customize = async (body: unknown) => {
  const r = await t.api('PUT', `/v1/orgs/${d.o.orgId}/sites/${d.siteId}/customization`, { token: d.o.adminToken, body });
  expect(r.status, r.text).toBe(200);
};
const attr = (html: string, re: RegExp) => (re.exec(html)?.[1] ?? '').replace(/&amp;/g, '&');

describe('page covers', () => {
  it('shows the cover above the title, light and dark, and uses it as og:image', async () => {
    await customize({});
    const r = await get(`${d.base}/covered`);
    expect(r.status).toBe(200);
    const html = r.text;
    const cover = /<div class="cover cover-full">(.*?)<\/div>/.exec(html)?.[1] ?? '';
    expect(cover).toMatch(/<img class="cover-light" src="[^"]+\/files\/[^"]+" alt="">/);
    // A cover of another origin comes through the image proxy (no third-party request from the page).
    const dark = new URL(attr(cover, /class="cover-dark" src="([^"]+)"/));
    expect(dark.pathname).toBe('/images/proxy');
    expect(dark.searchParams.get('url')).toBe('https://images.example.test/dark.png');
    expect(html.indexOf('class="cover')).toBeLessThan(html.indexOf('<h1>Covered</h1>'));
    // The cover's file is served (a signed link on our origin).
    const light = attr(cover, /class="cover-light" src="([^"]+)"/);
    const file = await fetch(light.replace(/^https?:\/\/[^/]+/, t.baseUrl));
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/png');
    // og:image falls back to the cover; the CSP allows no other origin.
    expect(attr(html, /<meta property="og:image" content="([^"]+)">/)).toBe(light);
    expect(r.headers.get('content-security-policy')).toMatch(/img-src 'self' data:;/);
  });

  it('shows no cover when the layout hides it, and prefers the social preview for og:image', async () => {
    const off = await get(`${d.base}/cover-off`);
    expect(off.text).not.toContain('class="cover');
    expect(off.text).not.toContain('og:image');
    await customize({ socialPreview: { url: 'https://cdn.example.test/social.png' } });
    const covered = (await get(`${d.base}/covered`)).text;
    expect(attr(covered, /<meta property="og:image" content="([^"]+)">/)).toBe('https://cdn.example.test/social.png');
    expect(covered).toContain('class="cover cover-full"');
  });
});

describe('the footer', () => {
  it('shows the logo, link groups, social accounts, privacy policy and copyright, escaped', async () => {
    await customize({
      footer: {
        logo: { light: 'https://cdn.example.test/foot-light.svg', dark: 'https://cdn2.example.test/foot-dark.svg' },
        copyright: '© 2026 <b>Acme</b>',
        groups: [{ title: 'Company', links: [{ title: 'About', to: { kind: 'url', url: 'https://acme.example.test/about' } }] }],
      },
      privacyPolicy: { url: 'https://acme.example.test/privacy' },
      socialAccounts: [
        { platform: 'github', handle: 'acme', display: { footer: true, header: false } },
        { platform: 'mastodon', handle: '@docs@social.example.test', display: { footer: true, header: false } },
        { platform: 'twitter', handle: 'acme"><script>', display: { footer: true, header: false } },
        { platform: 'linkedin', handle: 'secret', display: { footer: false, header: true } },
      ],
    });
    const r = await get(`${d.base}/second`);
    const footer = r.text.slice(r.text.indexOf('<footer class="site">'));
    const logo = footer.slice(0, footer.indexOf('</a>'));
    expect(logo).toMatch(
      new RegExp(
        `^<footer class="site"><a class="footer-logo" href="${t.baseUrl}${d.base}/"><img class="logo-light" src="[^"]+" alt="Acme Docs"><img class="logo-dark" src="[^"]+" alt="Acme Docs">$`,
      ),
    );
    // Logos of other origins come through the image proxy.
    const [lightLogo, darkLogo] = [...logo.matchAll(/src="([^"]+)"/g)].map((m) => new URL(m[1].replace(/&amp;/g, '&')));
    expect(lightLogo.pathname).toBe('/images/proxy');
    expect(lightLogo.searchParams.get('url')).toBe('https://cdn.example.test/foot-light.svg');
    expect(darkLogo.searchParams.get('url')).toBe('https://cdn2.example.test/foot-dark.svg');
    expect(footer).toContain('<strong>Company</strong>');
    expect(footer).toContain('<a href="https://acme.example.test/about">About</a>');
    expect(footer).toContain('<a href="https://github.com/acme" rel="me noopener" aria-label="Acme Docs on GitHub (acme)">GitHub</a>');
    expect(footer).toContain('href="https://social.example.test/@docs"');
    // A handle is a path segment of the profile URL, never markup or a path of its own.
    expect(footer).toContain('href="https://x.com/acme%22%3E%3Cscript%3E"');
    expect(footer).not.toContain('<script>');
    // Shown in the header, not in the footer, by its display setting.
    expect(footer).not.toContain('linkedin');
    const header = r.text.slice(r.text.indexOf('<header class="site">'), r.text.indexOf('</header>'));
    expect(header).toContain(
      '<a href="https://www.linkedin.com/company/secret" rel="me noopener" aria-label="Acme Docs on LinkedIn (secret)">LinkedIn</a>',
    );
    expect(header).not.toContain('github.com');
    expect(r.text).toContain('<meta name="twitter:site" content="@acme&quot;&gt;&lt;script&gt;">');
    expect(footer).toContain('© 2026 &lt;b&gt;Acme&lt;/b&gt; · <a href="https://acme.example.test/privacy">Privacy policy</a>');
    // The page loads nothing from other origins: the logos come through the proxy.
    const csp = r.headers.get('content-security-policy')!;
    expect(csp).not.toContain('example.test');
  });

  it('builds profile URLs per platform and refuses handles that cannot make one', () => {
    expect(socialLink({ platform: 'linkedin', handle: 'company/acme' })?.href).toBe('https://www.linkedin.com/company/acme');
    expect(socialLink({ platform: 'linkedin', handle: 'acme' })?.href).toBe('https://www.linkedin.com/company/acme');
    expect(socialLink({ platform: 'reddit', handle: 'r/acme' })?.href).toBe('https://www.reddit.com/r/acme');
    expect(socialLink({ platform: 'youtube', handle: '@acme' })?.href).toBe('https://www.youtube.com/@acme');
    expect(socialLink({ platform: 'slack', handle: 'acme-team' })?.href).toBe('https://acme-team.slack.com');
    expect(socialLink({ platform: 'slack', handle: 'evil.example/x' })).toBeNull();
    expect(socialLink({ platform: 'mastodon', handle: 'nohost' })).toBeNull();
    expect(socialLink({ platform: 'myspace', handle: 'acme' })).toBeNull();
  });
});

describe('the theme stylesheet', () => {
  it('carries tint, semantic colors, depth and sidebar styles of the customization', async () => {
    await customize({
      styling: {
        primaryColor: { light: '#346ddb', dark: '#346ddb' },
        tint: { color: { light: '#ff0000', dark: '#00ff00' } },
        infoColor: { light: '#0000ff', dark: '#8888ff' },
        warningColor: { light: '#ff8800', dark: '#ffaa00' },
        depth: 'flat',
        sidebar: { background: 'filled', list: 'pill' },
      },
    });
    const page = await get(`${d.base}/second`);
    const href = attr(page.text, /<link rel="stylesheet" href="([^"]+\/~site\/theme\/[^"]+)">/);
    const css = await fetch(href.replace(/^https?:\/\/[^/]+/, t.baseUrl));
    expect(css.headers.get('content-type')).toContain('text/css');
    const text = await css.text();
    const [light, dark] = [/^:root\{([^}]*)\}/m.exec(text)![1], /^:root\[data-theme=dark\]\{([^}]*)\}/m.exec(text)![1]];
    // Tinted surfaces: the page background takes a touch of red in light mode, of green in dark mode.
    const bg = (vars: string) => /--bg:(#[0-9a-f]{6})/.exec(vars)![1];
    const [r, g] = [parseInt(bg(light).slice(1, 3), 16), parseInt(bg(light).slice(3, 5), 16)];
    expect(r).toBeGreaterThan(g);
    expect(parseInt(bg(dark).slice(3, 5), 16)).toBeGreaterThan(parseInt(bg(dark).slice(1, 3), 16));
    expect(light).toMatch(/--line:#[0-9a-f]{6}/);
    expect(light).toContain('--info:#0000ff');
    expect(light).toMatch(/--warning-bg:#[0-9a-f]{6}/);
    expect(dark).toContain('--info:#8888ff');
    expect(light).toContain('--shadow:none');
    expect(text).toContain('nav.tree{background:var(--soft)');
    expect(text).toContain('nav.tree a[aria-current]{background:var(--primary);color:var(--on-primary)');
  });

  it('lets only hex colors through, and keeps colors legible on their background', () => {
    const css = themeStylesheet({
      styling: {
        primaryColor: { light: 'red;}body{display:none', dark: '#000' },
        tint: { color: { light: 'url(https://evil.example)', dark: '#12' } },
        dangerColor: { light: '#fff', dark: '#000' },
      },
    });
    expect(css).not.toMatch(/display:none|url\(|evil|--tint/);
    expect(css).toContain('--primary:#346ddb');
    // A white danger color on a white page, a black one on the dark page: the border color is moved until it reads.
    const light = /^:root\{([^}]*)\}/m.exec(css)![1];
    const dark = /^:root\[data-theme=dark\]\{([^}]*)\}/m.exec(css)![1];
    expect(contrast(/--danger:(#[0-9a-f]{6})/.exec(light)![1], '#ffffff')).toBeGreaterThanOrEqual(3);
    expect(contrast(/--danger:(#[0-9a-f]{6})/.exec(dark)![1], '#15161a')).toBeGreaterThanOrEqual(3);
    expect(contrast(/--link:(#[0-9a-f]{6})/.exec(dark)![1], '#15161a')).toBeGreaterThanOrEqual(4.5);
  });

  it('refuses a customization whose colors are not hex colors (400, not 500)', async () => {
    const r = await t.api('PUT', `/v1/orgs/${d.o.orgId}/sites/${d.siteId}/customization`, {
      token: d.o.adminToken,
      body: { styling: { tint: { color: { light: 'red', dark: '#000' } } } },
    });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe(400);
  });
});

describe('search hits', () => {
  it('name the section (and variant) where each page lives', async () => {
    const api = (await t.api('GET', `${d.base}/~site/search?q=Endpoints`)).body.items;
    expect(api.map((h: any) => [h.title, h.section])).toEqual([['Reference', 'API']]);
    const v2 = (await t.api('GET', `${d.base}/~site/search?q=things`)).body.items;
    expect(v2.map((h: any) => [h.title, h.section])).toEqual([['Only in v2', 'Guides / v2']]);
    const page = await get(`${d.base}/search?q=Endpoints`);
    expect(page.text).toContain('<span class="where">API</span>');
  });
});
