import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { client, freePort } from '../../helpers/http.js';
import { createAppContext, closeAppContext } from '../../../src/context.js';
import { createApiServer } from '../../../src/server.js';
import { assertMatchesSpec } from '../../helpers/spec.js';
import { makeKeyPair, parseAuthnRequest, startTestIdp, type AssertionOptions, type TestIdp } from '../../helpers/saml-idp.js';

const { t } = useTestApp({ captureLogs: true });
let idp: TestIdp;
beforeAll(async () => {
  idp = await startTestIdp();
});
afterAll(() => idp?.close());

async function newProvider(extra: Record<string, unknown> = {}) {
  const org = await t.seedOrg('SSO org');
  const as = { token: org.adminToken };
  const team = (await t.api('PUT', `/v1/orgs/${org.orgId}/teams`, { ...as, body: { title: 'Everyone' } })).body.id;
  const r = await t.api('POST', `/v1/orgs/${org.orgId}/saml`, {
    ...as,
    body: {
      label: 'Test IdP',
      entityID: idp.entityId,
      certificate: idp.keys.cert,
      ssoURL: idp.ssoUrl,
      defaultTeam: team,
      defaultRole: 'read',
      ...extra,
    },
  });
  expect(r.status).toBe(201);
  return { org, as, team, provider: r.body };
}

/** start -> (the IdP, by hand) -> ACS; `tamper` changes what the IdP signs. */
async function login(providerId: string, opts: Partial<AssertionOptions> = {}) {
  const start = await t.api('GET', `/sso/saml/${providerId}/start`);
  expect(start.status).toBe(302);
  const location = start.headers.get('location')!;
  expect(location.startsWith(idp.ssoUrl)).toBe(true);
  const req = parseAuthnRequest(location);
  const made = idp.response({ inResponseTo: req.id, acsUrl: req.acsUrl, audience: req.issuer, email: 'new.person@example.com', ...opts });
  const acs = await post(providerId, made.samlResponse);
  return { acs, samlResponse: made.samlResponse, requestId: req.id, req };
}

const post = (providerId: string, samlResponse: string) =>
  t.api('POST', `/sso/saml/${providerId}/acs`, {
    rawBody: new URLSearchParams({ SAMLResponse: samlResponse }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });

const sessionOf = (r: { headers: Headers }) => /dp_session=([^;]+)/.exec(r.headers.get('set-cookie') ?? '')?.[1];

describe('SAML providers', () => {
  it('create, get, list, patch (back to pending), delete; the sso list; validation', async () => {
    const { org, as, team, provider } = await newProvider();
    assertMatchesSpec('POST', '/orgs/{organizationId}/saml', 201, provider);
    expect(provider).toMatchObject({
      object: 'saml-provider',
      label: 'Test IdP',
      status: 'pending',
      defaultRole: 'read',
      defaultTeam: { id: team },
    });
    expect(provider.service.acsURL).toBe(`${t.baseUrl}/sso/saml/${provider.id}/acs`);
    const got = await t.api('GET', `/v1/orgs/${org.orgId}/saml/${provider.id}`, as);
    assertMatchesSpec('GET', '/orgs/{organizationId}/saml/{samlProviderId}', 200, got.body);
    const list = await t.api('GET', `/v1/orgs/${org.orgId}/saml`, as);
    assertMatchesSpec('GET', '/orgs/{organizationId}/saml', 200, list.body);
    expect(list.body.items.map((p: any) => p.id)).toEqual([provider.id]);

    // Our endpoints are real: metadata names our entity id and ACS.
    const meta = await t.api('GET', `/sso/saml/${provider.id}/metadata`);
    expect(meta.status).toBe(200);
    expect(meta.text).toContain(`entityID="${provider.service.entityID}"`);
    expect(meta.text).toContain(`Location="${provider.service.acsURL}"`);
    expect(meta.text).toContain('WantAssertionsSigned="true"');

    // Pending providers are not offered on the login list; a first login activates.
    expect((await t.api('GET', `/v1/orgs/${org.orgId}/sso`, as)).body).toEqual({ items: [] });
    expect((await login(provider.id)).acs.status).toBe(303);
    const sso = await t.api('GET', `/v1/orgs/${org.orgId}/sso`, as);
    assertMatchesSpec('GET', '/orgs/{organizationId}/sso', 200, sso.body);
    expect(sso.body.items).toEqual([{ id: provider.id, label: 'Test IdP', startURL: provider.service.startURL }]);
    const page = await t.api('GET', `/sso/orgs/${org.orgId}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(provider.service.startURL);
    expect((await t.api('GET', `/v1/orgs/${org.orgId}/saml/${provider.id}`, as)).body.status).toBe('active');

    const renamed = await t.api('PATCH', `/v1/orgs/${org.orgId}/saml/${provider.id}`, {
      ...as,
      body: { label: 'Renamed', defaultRole: null },
    });
    assertMatchesSpec('PATCH', '/orgs/{organizationId}/saml/{samlProviderId}', 200, renamed.body);
    expect(renamed.body).toMatchObject({ label: 'Renamed', status: 'active', defaultRole: null });
    // A new certificate: pending again, and the old key no longer signs anything we accept.
    const other = makeKeyPair('rotated');
    const rotated = await t.api('PATCH', `/v1/orgs/${org.orgId}/saml/${provider.id}`, { ...as, body: { certificate: other.cert } });
    expect(rotated.body.status).toBe('pending');
    expect((await login(provider.id)).acs.status).toBe(400);
    expect((await login(provider.id, { signWith: other })).acs.status).toBe(303);

    // Refusals with the reason.
    const bad = async (body: Record<string, unknown>, field: string) => {
      const r = await t.api('POST', `/v1/orgs/${org.orgId}/saml`, {
        ...as,
        body: { label: 'X', entityID: 'e', certificate: idp.keys.cert, ssoURL: idp.ssoUrl, ...body },
      });
      expect(r.status).toBe(400);
      expect(r.body.error.message).toContain(field);
    };
    await bad({ certificate: 'not a certificate' }, 'body.certificate');
    await bad({ certificate: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----' }, 'body.certificate');
    await bad({ defaultTeam: 'noSuchTeam' }, 'body.defaultTeam');
    await bad({ defaultRole: 'owner' }, 'body.defaultRole');
    await bad({ ssoURL: 'javascript:alert(1)' }, 'body.ssoURL');
    await bad({ label: 'x'.repeat(31) }, 'body.label');
    expect((await t.api('PATCH', `/v1/orgs/${org.orgId}/saml/${provider.id}`, { ...as, body: { certificate: 'nope' } })).status).toBe(400);
    // Admins only.
    const editor = await t.seedUser(org.orgId, 'edit');
    expect((await t.api('GET', `/v1/orgs/${org.orgId}/saml`, { token: editor.token })).status).toBe(403);
    expect((await t.api('GET', `/v1/orgs/${org.orgId}/sso`, { token: editor.token })).status).toBe(200);

    // Deleting the default team unsets it.
    expect((await t.api('DELETE', `/v1/orgs/${org.orgId}/teams/${team}`, as)).status).toBe(204);
    const withoutTeam = await t.api('GET', `/v1/orgs/${org.orgId}/saml/${provider.id}`, as);
    expect(withoutTeam.body.defaultTeam).toBeUndefined();
    assertMatchesSpec('GET', '/orgs/{organizationId}/saml/{samlProviderId}', 200, withoutTeam.body);

    // Delete: 204 twice; its endpoints are gone.
    expect((await t.api('DELETE', `/v1/orgs/${org.orgId}/saml/${provider.id}`, as)).status).toBe(204);
    expect((await t.api('DELETE', `/v1/orgs/${org.orgId}/saml/${provider.id}`, as)).status).toBe(204);
    expect((await t.api('GET', `/v1/orgs/${org.orgId}/saml/${provider.id}`, as)).status).toBe(404);
    expect((await t.api('GET', `/sso/saml/${provider.id}/start`)).status).toBe(404);
    expect((await t.api('GET', `/sso/saml/${provider.id}/metadata`)).status).toBe(404);
  });
});

describe('a login', () => {
  it('creates the member with the default role, sso and the default team; opens a session; shows a token once', async () => {
    const { org, as, team, provider } = await newProvider();
    const { acs } = await login(provider.id, { email: 'Grace.Hopper@Example.com', name: 'Grace Hopper' });
    expect(acs.status).toBe(303);
    expect(acs.headers.get('location')).toBe('/sso/welcome');
    const cookie = acs.headers.get('set-cookie')!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    const session = sessionOf(acs)!;

    const welcome = await t.api('GET', '/sso/welcome', { headers: { cookie: `dp_session=${session}` } });
    expect(welcome.status).toBe(200);
    expect(welcome.text).toContain('Grace Hopper');
    const token = /<code id="token">([^<]+)</.exec(welcome.text)?.[1];
    expect(token).toBeTruthy();
    // Once only.
    const again = await t.api('GET', '/sso/welcome', { headers: { cookie: `dp_session=${session}` } });
    expect(again.text).not.toContain(token!);

    // The token and the session cookie both authenticate getAuthenticatedUser.
    const byToken = await t.api('GET', '/v1/user', { token });
    expect(byToken.status).toBe(200);
    assertMatchesSpec('GET', '/user', 200, byToken.body);
    expect(byToken.body).toMatchObject({ email: 'grace.hopper@example.com', displayName: 'Grace Hopper' });
    const byCookie = await t.api('GET', '/v1/user', { headers: { cookie: `dp_session=${session}` } });
    expect(byCookie.body.id).toBe(byToken.body.id);
    expect((await t.api('GET', '/v1/user', { headers: { cookie: 'dp_session=forged' } })).status).toBe(401);
    expect((await t.api('GET', '/v1/user')).status).toBe(401);
    // The session cookie is not an API credential elsewhere.
    expect((await t.api('GET', `/v1/orgs/${org.orgId}`, { headers: { cookie: `dp_session=${session}` } })).status).toBe(401);

    const userId = byToken.body.id;
    const member = await t.api('GET', `/v1/orgs/${org.orgId}/members/${userId}`, as);
    expect(member.body).toMatchObject({ role: 'read', sso: true, teams: 1 });
    const teamMembers = await t.api('GET', `/v1/orgs/${org.orgId}/teams/${team}/members`, as);
    expect(teamMembers.body.items.map((m: any) => m.organization.id)).toEqual([userId]);

    // A second login never downgrades: an admin promoted them; the default role stays out of it.
    await t.api('PATCH', `/v1/orgs/${org.orgId}/members/${userId}`, { ...as, body: { role: 'edit' } });
    expect((await login(provider.id, { email: 'grace.hopper@example.com' })).acs.status).toBe(303);
    expect((await t.api('GET', `/v1/orgs/${org.orgId}/members/${userId}`, as)).body.role).toBe('edit');
  });

  it('a guest provider (defaultRole null) makes guests', async () => {
    const { org, as, provider } = await newProvider({ defaultRole: null, defaultTeam: null });
    const { acs } = await login(provider.id, { email: 'guest.person@example.com' });
    expect(acs.status).toBe(303);
    const members = await t.api('GET', `/v1/orgs/${org.orgId}/members?role=guest`, as);
    expect(members.body.items.map((m: any) => [m.user.email, m.sso, m.teams])).toEqual([['guest.person@example.com', true, 0]]);
  });
});

describe('refused logins', () => {
  const refused = async (providerId: string, run: () => Promise<{ status: number; text: string; headers: Headers; body: any }>) => {
    const before = t.logs.length;
    const r = await run();
    expect(r.status).toBe(400);
    expect(sessionOf(r)).toBeUndefined();
    expect(r.text).toContain('Sign-in failed');
    expect(r.text).not.toMatch(/signature|audience|expired|InResponseTo|issuer/i); // nothing leaks
    const logged = t.logs.slice(before).join('\n');
    expect(logged).toContain('SAML login refused');
    expect(logged).toContain(providerId);
    return r;
  };

  it('unsigned, another key, wrong audience, expired, wrong issuer', async () => {
    const { org, as, provider } = await newProvider();
    const pid = provider.id;
    await refused(pid, async () => (await login(pid, { sign: false })).acs);
    await refused(pid, async () => (await login(pid, { signWith: makeKeyPair('attacker') })).acs);
    await refused(pid, async () => (await login(pid, { audience: 'https://someone-else.test/metadata' })).acs);
    await refused(pid, async () => (await login(pid, { shiftMs: -60 * 60_000 })).acs);
    await refused(pid, async () => (await login(pid, { shiftMs: 30 * 60_000 })).acs);
    await refused(pid, async () => (await login(pid, { issuer: 'https://other-idp.test' })).acs);
    await refused(pid, async () => post(pid, 'not base64 xml at all'));
    // A browser (asking for HTML) gets the generic page; API clients the JSON error body.
    const page = await refused(pid, async () =>
      t.api('POST', `/sso/saml/${pid}/acs`, {
        rawBody: new URLSearchParams({
          SAMLResponse: idp.response({ inResponseTo: '_x', acsUrl: '', audience: '' }).samlResponse,
        }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html,application/xhtml+xml' },
      }),
    );
    expect(page.text).toMatch(/^<!doctype html>/);
    const json = await refused(pid, async () =>
      t.api('POST', `/sso/saml/${pid}/acs`, { rawBody: '', headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
    );
    expect(json.body).toEqual({ error: { code: 400, message: 'Sign-in failed' } });
    // Nobody was created and the provider stayed pending.
    expect((await t.api('GET', `/v1/orgs/${org.orgId}/members`, as)).body.count).toBe(1);
    expect((await t.api('GET', `/v1/orgs/${org.orgId}/saml/${pid}`, as)).body.status).toBe('pending');
  });

  it('replayed, unknown request id, a request of another provider', async () => {
    const { provider } = await newProvider();
    const { provider: other } = await newProvider();
    const pid = provider.id;
    const first = await login(pid, { email: 'replay@example.com' });
    expect(first.acs.status).toBe(303);
    await refused(pid, () => post(pid, first.samlResponse));
    // Same assertion id again under a fresh, genuine request (a captured assertion re-wrapped).
    const captured = idp.response({ inResponseTo: 'x', acsUrl: '', audience: '' }).assertionId;
    expect((await login(pid, { assertionId: captured })).acs.status).toBe(303);
    await refused(pid, async () => (await login(pid, { assertionId: captured })).acs);
    // A request id we never issued (IdP-initiated or forged).
    const acsUrl = provider.service.acsURL;
    await refused(pid, () =>
      post(
        pid,
        idp.response({ inResponseTo: '_never-issued', acsUrl, audience: provider.service.entityID, email: 'x@example.com' }).samlResponse,
      ),
    );
    // A request issued for another provider does not answer for this one.
    const start = await t.api('GET', `/sso/saml/${other.id}/start`);
    const req = parseAuthnRequest(start.headers.get('location')!);
    await refused(pid, () =>
      post(pid, idp.response({ inResponseTo: req.id, acsUrl, audience: provider.service.entityID, email: 'x@example.com' }).samlResponse),
    );
  });

  it('signature wrapping variants', async () => {
    const { org, as, provider } = await newProvider();
    const pid = provider.id;
    for (const wrap of ['extensions', 'two-assertions', 'copied-signature'] as const) {
      await refused(pid, async () => (await login(pid, { email: 'attacker@example.com', wrap, forgedEmail: 'ceo@example.com' })).acs);
    }
    const emails = (await t.api('GET', `/v1/orgs/${org.orgId}/members`, as)).body.items.map((m: any) => m.user.email);
    expect(emails).not.toContain('ceo@example.com');
    expect(emails).not.toContain('attacker@example.com');
  });
});

describe('an organization that enforces SSO', () => {
  it('lets its members in only with a credential its SSO issued; admins keep their tokens', async () => {
    const { org, as, provider } = await newProvider({ defaultRole: 'edit' });
    const space = (await t.api('POST', `/v1/orgs/${org.orgId}/spaces`, { ...as, body: { title: 'Internal' } })).body.id;
    // The member already exists with an ordinary token.
    const member = await t.seedUser(org.orgId, 'edit');
    const email = member.email;
    expect((await t.api('GET', `/v1/spaces/${space}`, { token: member.token })).status).toBe(200);

    expect((await t.api('PATCH', `/v1/orgs/${org.orgId}`, { ...as, body: { sso: true } })).status).toBe(200);
    const refused = await t.api('GET', `/v1/orgs/${org.orgId}`, { token: member.token });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toContain('single sign-on');
    expect((await t.api('GET', `/v1/spaces/${space}`, { token: member.token })).status).toBe(404);
    expect((await t.api('GET', `/v1/orgs/${org.orgId}`, as)).status).toBe(200); // admins are exempt

    // Signing in through the provider gives a token that works.
    const { acs } = await login(provider.id, { email });
    const welcome = await t.api('GET', '/sso/welcome', { headers: { cookie: `dp_session=${sessionOf(acs)}` } });
    const token = /<code id="token">([^<]+)</.exec(welcome.text)![1];
    expect((await t.api('GET', `/v1/orgs/${org.orgId}`, { token })).status).toBe(200);
    expect((await t.api('GET', `/v1/spaces/${space}`, { token })).body.permissions.edit).toBe(true);

    // Turning enforcement off restores ordinary tokens.
    await t.api('PATCH', `/v1/orgs/${org.orgId}`, { ...as, body: { sso: false } });
    expect((await t.api('GET', `/v1/spaces/${space}`, { token: member.token })).status).toBe(200);
  });
});

describe('several API instances', () => {
  it('a request started on one instance is consumed on another, and replayed on neither', async () => {
    const { provider } = await newProvider();
    // A second API process against the same database, behind the same public URL.
    const ctx = await createAppContext(t.config, 'second');
    const server = createApiServer(ctx);
    const port = await freePort();
    await new Promise<void>((r) => server.server.listen(port, '127.0.0.1', () => r()));
    const second = client(`http://127.0.0.1:${port}`);
    try {
      const start = await t.api('GET', `/sso/saml/${provider.id}/start`);
      const req = parseAuthnRequest(start.headers.get('location')!);
      const { samlResponse } = idp.response({ inResponseTo: req.id, acsUrl: req.acsUrl, audience: req.issuer, email: 'two@example.com' });
      const form = {
        rawBody: new URLSearchParams({ SAMLResponse: samlResponse }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      };
      expect((await second('POST', `/sso/saml/${provider.id}/acs`, form)).status).toBe(303);
      expect((await t.api('POST', `/sso/saml/${provider.id}/acs`, form)).status).toBe(400);
      expect((await second('POST', `/sso/saml/${provider.id}/acs`, form)).status).toBe(400);
    } finally {
      await server.close();
      await closeAppContext(ctx);
    }
  });
});
