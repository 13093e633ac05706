// Site tokens (src/auth/site-token.ts): deterministic for a day, never outliving a visitor token,
// verified with the algorithm, type and audience pinned.
import { describe, expect, it } from 'vitest';
import { hkdfSync } from 'node:crypto';
import { SignJWT, decodeJwt, decodeProtectedHeader } from 'jose';
import { isSiteToken, signSiteToken, siteTokenWindow, verifySiteToken } from '../../../src/auth/site-token.js';

const SECRET = 'a server secret of the test';
const grant = { site: 'site1', organization: 'org1', signed: { plan: 'pro', roles: ['a'] }, unsigned: { lang: 'fr' } };
const DAY = Date.UTC(2026, 5, 1);

describe('site tokens', () => {
  it('are the same all day for the same site and claims (whatever their order), and change the next day', async () => {
    const morning = await signSiteToken(SECRET, grant, DAY + 1000);
    const evening = await signSiteToken(SECRET, { ...grant, signed: { roles: ['a'], plan: 'pro' } }, DAY + 86_399_000);
    expect(evening).toBe(morning);
    expect(await signSiteToken(SECRET, grant, DAY + 86_400_000)).not.toBe(morning);
    expect(await signSiteToken(SECRET, { ...grant, unsigned: { lang: 'de' } }, DAY + 1000)).not.toBe(morning);
    const { iat, exp } = decodeJwt(morning);
    expect({ iat, exp }).toEqual(siteTokenWindow(DAY + 5000));
    expect(exp! - iat!).toBe(2 * 86_400);
  });

  it('never outlive the visitor token they came from', async () => {
    const notAfter = DAY / 1000 + 3600;
    expect(decodeJwt(await signSiteToken(SECRET, grant, DAY + 1000, notAfter)).exp).toBe(notAfter);
  });

  it('verify back to their grant, and only with the same key, algorithm, type and audience', async () => {
    const now = Date.now();
    const token = await signSiteToken(SECRET, { ...grant, shareKey: 'k', visitor: 'fp' }, now);
    expect(isSiteToken(token)).toBe(true);
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'HS256', typ: 'site+jwt' });
    expect(await verifySiteToken(SECRET, token)).toMatchObject({ ...grant, shareKey: 'k', visitor: 'fp' });
    expect(await verifySiteToken('another secret', token)).toBeNull();
    expect(await verifySiteToken(SECRET, `${token.slice(0, -2)}xx`)).toBeNull();
    // The same key and payload under HS512, or without the type: not a site token.
    const key = new Uint8Array(hkdfSync('sha256', SECRET, 'docs-platform', 'site-token/v1', 32));
    const payload = decodeJwt(token);
    const hs512 = await new SignJWT(payload).setProtectedHeader({ alg: 'HS512', typ: 'site+jwt' }).sign(key);
    expect(await verifySiteToken(SECRET, hs512)).toBeNull();
    const untyped = await new SignJWT(payload).setProtectedHeader({ alg: 'HS256' }).sign(key);
    expect(isSiteToken(untyped)).toBe(false);
    expect(await verifySiteToken(SECRET, untyped)).toBeNull();
    // Expired.
    expect(await verifySiteToken(SECRET, await signSiteToken(SECRET, grant, now - 3 * 86_400_000))).toBeNull();
    // An API token or garbage is not one.
    expect(isSiteToken('dp_abcdef')).toBe(false);
    expect(isSiteToken('a.b.c')).toBe(false);
  });
});
