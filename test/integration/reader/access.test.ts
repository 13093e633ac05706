import { describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import { useTestApp } from '../../helpers/app.js';
import { docsSite, linksIn, pathOf } from './helpers.js';

const { t } = useTestApp();

const get = (path: string, headers: Record<string, string> = {}) => t.api('GET', path, { headers: { accept: 'text/html', ...headers } });
const admin = (o: { orgId: string; adminToken: string }, method: string, path: string, body?: unknown) =>
  t.api(method, `/v1/orgs/${o.orgId}${path}`, { token: o.adminToken, body });

/** The `name=value` of a Set-Cookie header, to send back as a Cookie header. */
const cookiePair = (setCookie: string | null) => setCookie!.split(';')[0];

async function token(key: string, claims: Record<string, unknown>, exp: string | number = '1h') {
  return new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime(exp).sign(new TextEncoder().encode(key));
}

describe('who may read a site', () => {
  it('unlisted: readable, but noindex by header, meta tag and robots.txt, and no sitemap', async () => {
    const d = await docsSite(t, await t.seedOrg(), 'unlisted');
    const r = await get(d.base);
    expect(r.status).toBe(200);
    expect(r.headers.get('x-robots-tag')).toBe('noindex, nofollow');
    expect(r.text).toContain('<meta name="robots" content="noindex, nofollow">');
    const robots = await get(`${d.base}/robots.txt`);
    expect(robots.text).toContain('Disallow: /');
    expect(robots.text).not.toContain('Sitemap');
    expect((await get(`${d.base}/sitemap.xml`)).status).toBe(404);
  });

  it('share-link: no key is a 404; a key becomes an HttpOnly cookie; deactivating or deleting the link cuts access', async () => {
    const d = await docsSite(t, await t.seedOrg(), 'share-link');
    expect((await get(d.base)).status).toBe(404);
    expect((await get(`${d.base}?share=wrong`)).status).toBe(404);
    const link = (await admin(d.o, 'POST', `/sites/${d.siteId}/share-links`, { name: 'Partners' })).body;
    const key = new URL(link.urls.published).searchParams.get('share')!;

    const enter = await get(`${d.base}/second?share=${encodeURIComponent(key)}`);
    expect(enter.status).toBe(302);
    expect(enter.headers.get('location')).toBe(`${d.base}/second`);
    const setCookie = enter.headers.get('set-cookie')!;
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain(`Path=${d.base}`);
    const cookie = { cookie: cookiePair(setCookie) };
    const page = await get(`${d.base}/second`, cookie);
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('private, no-cache');
    expect(page.headers.get('x-robots-tag')).toContain('noindex');
    // Links inside the site carry no key: the cookie is enough.
    expect(page.text).not.toContain(key);

    await admin(d.o, 'PATCH', `/sites/${d.siteId}/share-links/${link.id}`, { active: false });
    expect((await get(`${d.base}/second`, cookie)).status).toBe(404);
    await admin(d.o, 'PATCH', `/sites/${d.siteId}/share-links/${link.id}`, { active: true });
    expect((await get(`${d.base}/second`, cookie)).status).toBe(200);
    await admin(d.o, 'DELETE', `/sites/${d.siteId}/share-links/${link.id}`);
    const gone = await get(`${d.base}/second`, cookie);
    expect(gone.status).toBe(404);
    expect(gone.text).not.toContain('Acme Docs');
  });

  it('visitor-auth: a valid token becomes a cookie; tampered, expired, unsigned and old-key tokens are refused', async () => {
    const d = await docsSite(t, await t.seedOrg(), 'visitor-auth');
    const key = (await admin(d.o, 'GET', `/sites/${d.siteId}/publishing/auth`)).body.privateKey as string;
    // Without a fallback URL: a 401 page.
    expect((await get(d.base)).status).toBe(401);

    const good = await token(key, { sub: 'reader-1' });
    const enter = await get(`${d.base}/second?jwt_token=${good}`);
    expect(enter.status).toBe(302);
    expect(enter.headers.get('location')).toBe(`${d.base}/second`);
    const setCookie = enter.headers.get('set-cookie')!;
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toMatch(/Max-Age=(3[0-5]\d\d)/);
    const cookie = { cookie: cookiePair(setCookie) };
    const page = await get(`${d.base}/second`, cookie);
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('private, no-cache');
    expect(page.text).toMatch(/<a href="[^"]+\/~site\/auth\/logout">Sign out<\/a>/);

    const [h, p, s] = good.split('.');
    const tampered = `${h}.${Buffer.from(JSON.stringify({ sub: 'admin', exp: 9999999999 })).toString('base64url')}.${s}`;
    expect((await get(`${d.base}?jwt_token=${tampered}`)).status).toBe(401);
    expect((await get(`${d.base}?jwt_token=${await token(key, {}, Math.floor(Date.now() / 1000) - 3600)}`)).status).toBe(401);
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${p}.`;
    expect((await get(`${d.base}?jwt_token=${none}`)).status).toBe(401);
    const noExp = await new SignJWT({ sub: 'x' }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(key));
    expect((await get(`${d.base}?jwt_token=${noExp}`)).status).toBe(401);

    // With a fallback URL, failures redirect there with the location asked for.
    await admin(d.o, 'PATCH', `/sites/${d.siteId}/publishing/auth`, { fallbackURL: 'https://login.example.test/docs' });
    const fallback = await get(`${d.base}/second?jwt_token=${tampered}`);
    expect(fallback.status).toBe(302);
    const to = new URL(fallback.headers.get('location')!);
    expect(to.origin + to.pathname).toBe('https://login.example.test/docs');
    expect(to.searchParams.get('location')).toBe(`${d.base}/second`);

    // Signing out clears the cookie and leads to the logout URL.
    await admin(d.o, 'PATCH', `/sites/${d.siteId}/publishing/auth`, { logoutURL: 'https://login.example.test/bye' });
    const out = await get(`${d.base}/~site/auth/logout`, cookie);
    expect(out.status).toBe(302);
    expect(out.headers.get('location')).toBe('https://login.example.test/bye');
    expect(out.headers.getSetCookie().find((c) => c.startsWith(`dp_visitor_${d.siteId}=;`))).toContain('Max-Age=0');

    // Regenerating the key: the cookie holding a token signed with the old key stops working.
    await admin(d.o, 'POST', `/sites/${d.siteId}/publishing/auth/regenerate`);
    expect((await get(`${d.base}/second`, cookie)).status).toBe(302);
  });

  it('conditions on claims show and hide sections and header links; hidden URLs answer 404', async () => {
    const d = await docsSite(t, await t.seedOrg(), 'visitor-auth');
    const key = (await admin(d.o, 'GET', `/sites/${d.siteId}/publishing/auth`)).body.privateKey as string;
    await admin(d.o, 'PATCH', `/sites/${d.siteId}`, { adaptiveContent: { enabled: true } });
    const patched = await admin(d.o, 'PATCH', `/sites/${d.siteId}/sections/${d.sections.api.id}`, {
      condition: 'visitor.claims.beta == true',
    });
    expect(patched.status, patched.text).toBe(200);
    await admin(d.o, 'PUT', `/sites/${d.siteId}/customization`, {
      header: {
        links: [
          { title: 'Beta portal', to: { kind: 'url', url: 'https://beta.example.test/' }, condition: 'visitor.claims.beta == true' },
          { title: 'SDK docs', to: { kind: 'space', space: d.spaces.sdk } },
          { title: 'API docs', to: { kind: 'space', space: d.spaces.api } },
        ],
      },
    });
    const session = async (claims: Record<string, unknown>) => {
      const r = await get(`${d.base}?jwt_token=${await token(key, claims)}`);
      return { cookie: cookiePair(r.headers.get('set-cookie')) };
    };
    const plain = await session({ sub: 'a' });
    const beta = await session({ sub: 'b', beta: true });

    const withoutClaim = await get(d.base, plain);
    expect(linksIn(withoutClaim.text, '<nav class="sections"').map(pathOf)).toEqual([`${d.base}/`, `${d.base}/sdks`]);
    expect(withoutClaim.text).not.toContain('Beta portal');
    // A link into a space leads to its section; into a hidden one, it is text only.
    expect(withoutClaim.text).toMatch(/<a href="[^"]+\/sdks">SDK docs<\/a>/);
    expect(withoutClaim.text).toContain('<li>API docs</li>');
    expect((await get(`${d.base}/api`, plain)).status).toBe(404);
    expect((await get(`${d.base}/llms.txt`, plain)).text).not.toContain('Reference');

    const withClaim = await get(d.base, beta);
    expect(linksIn(withClaim.text, '<nav class="sections"').map(pathOf)).toEqual([`${d.base}/`, `${d.base}/api`, `${d.base}/sdks`]);
    expect(withClaim.text).toContain('Beta portal');
    expect(withClaim.text).toMatch(/<a href="[^"]+\/api">API docs<\/a>/);
    expect((await get(`${d.base}/api`, beta)).status).toBe(200);
    // The two audiences never share a cached page.
    expect(withClaim.headers.get('etag')).not.toBe(withoutClaim.headers.get('etag'));

    // Unsigned claims from visitor.* parameters count only where the adaptive schema declares them.
    await admin(d.o, 'PATCH', `/sites/${d.siteId}/site-spaces/${d.v2SiteSpace.id}`, { condition: 'visitor.claims.unsigned.lang == "fr"' });
    expect((await get(`${d.base}/v2?visitor.lang=fr`, plain)).status).toBe(404);
    await admin(d.o, 'PUT', `/sites/${d.siteId}/adaptive-schema`, {
      jsonSchema: {
        type: 'object',
        properties: {
          unsigned: {
            type: 'object',
            description: 'Unsigned claims of the site visitor.',
            properties: { lang: { type: 'string', description: 'Language' } },
            additionalProperties: false,
          },
        },
        additionalProperties: false,
      },
    });
    const fr = await get(`${d.base}/v2?visitor.lang=fr`, plain);
    expect(fr.status).toBe(200);
    // The claim is kept in a cookie for the next pages, and filtered again when read.
    const kept = { cookie: `${plain.cookie}; ${cookiePair(fr.headers.get('set-cookie'))}` };
    expect(fr.headers.get('set-cookie')).toContain('HttpOnly');
    expect((await get(`${d.base}/v2/only-in-v2`, kept)).status).toBe(200);
    const forged = { cookie: `${plain.cookie}; dp_visitor_public_${d.siteId}=${encodeURIComponent('{"lang":"xx","admin":true}')}` };
    expect((await get(`${d.base}/v2`, forged)).status).toBe(404);
    expect((await get(`${d.base}/v2?visitor.lang=de`, plain)).status).toBe(404);
  });
});
