import { afterAll, beforeAll, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { launchBrowser } from '../../helpers/browser.js';
import { startTestIdp, type TestIdp } from '../../helpers/saml-idp.js';

// The whole chain as a person's browser runs it: our start URL -> the identity provider
// (HTTP-Redirect) -> its auto-POST form -> our assertion consumer -> the signed-in page.
const { t } = useTestApp();
let idp: TestIdp;
beforeAll(async () => {
  idp = await startTestIdp();
});
afterAll(() => idp?.close());

it('start -> IdP -> consumer in Chromium signs a new member in, with a session and a token shown once', async () => {
  const org = await t.seedOrg('Browser SSO');
  const as = { token: org.adminToken };
  const team = (await t.api('PUT', `/v1/orgs/${org.orgId}/teams`, { ...as, body: { title: 'SSO users' } })).body.id;
  const provider = (
    await t.api('POST', `/v1/orgs/${org.orgId}/saml`, {
      ...as,
      body: {
        label: 'Loopback IdP',
        entityID: idp.entityId,
        certificate: idp.keys.cert,
        ssoURL: idp.ssoUrl,
        defaultTeam: team,
        defaultRole: 'comment',
      },
    })
  ).body;
  idp.next = { audience: '', email: 'ada.lovelace@example.com', name: 'Ada Lovelace' };

  const browser = await launchBrowser();
  try {
    const tab = await browser.newPage();
    const visited: string[] = [];
    tab.on('framenavigated', (f) => {
      if (f === tab.mainFrame()) visited.push(f.url());
    });
    await tab.goto(provider.service.startURL, { waitUntil: 'load' });
    await tab.waitForSelector('#who', { timeout: 30_000 });
    expect(new URL(tab.url()).pathname).toBe('/sso/welcome');
    expect(visited.some((u) => u.startsWith(idp.ssoUrl))).toBe(true);
    expect(await tab.$eval('#who', (e) => e.textContent)).toContain('Ada Lovelace');
    const token = await tab.$eval('#token', (e) => e.textContent!.trim());

    // The session cookie is HttpOnly: scripts cannot read it, yet it authenticates same-origin calls.
    expect(await tab.evaluate(() => document.cookie)).not.toContain('dp_session');
    const cookies = await browser.cookies();
    expect(cookies.find((c) => c.name === 'dp_session')?.httpOnly).toBe(true);
    const api = await browser.newPage();
    const res = await api.goto(`${t.baseUrl}/v1/user`, { waitUntil: 'load' });
    expect(res?.status()).toBe(200);
    const me = JSON.parse(await api.$eval('body', (b) => b.textContent!));
    await api.close();
    expect(me.email).toBe('ada.lovelace@example.com');

    // The token shown works as a bearer token; reloading does not show it again.
    const byToken = await t.api('GET', '/v1/user', { token });
    expect(byToken.body.id).toBe(me.id);
    await tab.reload({ waitUntil: 'load' });
    expect(await tab.$('#token')).toBeNull();

    const member = await t.api('GET', `/v1/orgs/${org.orgId}/members/${me.id}`, as);
    expect(member.body).toMatchObject({ role: 'comment', sso: true, teams: 1 });
    expect((await t.api('GET', `/v1/orgs/${org.orgId}/saml/${provider.id}`, as)).body.status).toBe('active');

    // The organization's token-free login page links to the provider.
    await tab.goto(`${t.baseUrl}/sso/orgs/${org.orgId}`, { waitUntil: 'load' });
    expect(await tab.$eval('a', (a) => a.getAttribute('href'))).toBe(provider.service.startURL);
  } finally {
    await browser.close();
  }
});
