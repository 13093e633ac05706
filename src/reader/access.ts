// Who may read a site, per request: the site's visibility checked against the request (a share
// key or visitor token given in the URL becomes an HttpOnly cookie through a redirect, and the
// cookie is checked again on every request), member previews of unpublished sites, visitor
// sign-in/out, and the headers every reader response carries (CSP, caching, robots).
import type { IncomingMessage } from 'node:http';
import type { AppContext } from '../context.js';
import type { Reply } from '../http/route.js';
import { cookieValue } from '../http/cookies.js';
import { notFound } from '../core/errors.js';
import { readerContext, unsignedClaims, signedClaims } from '../sites/reader.js';
import type { ConditionContext } from '../sites/conditions.js';
import { previewExpiry, shareKeyOpens, verifyVisitorToken, type ServedSite } from '../services/sites/reader.js';
import { messageHtml } from './layout.js';

const shareCookie = (siteId: string) => `dp_share_${siteId}`;
const visitorCookie = (siteId: string) => `dp_visitor_${siteId}`;
const publicClaimsCookie = (siteId: string) => `dp_visitor_public_${siteId}`;
export const previewCookie = (siteId: string) => `dp_preview_${siteId}`;
const MAX_CLAIMS_COOKIE = 3500;

/** The stored unsigned claims as `visitor.*` parameters again (so one filter reads both). */
function claimsParams(cookie: string): URLSearchParams {
  const out = new URLSearchParams();
  try {
    const value = JSON.parse(decodeURIComponent(cookie)) as unknown;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return out;
    for (const [k, v] of Object.entries(value).slice(0, 50)) out.set(`visitor.${k}`, typeof v === 'string' ? v : JSON.stringify(v));
  } catch {
    /* a cookie we did not write: no claims */
  }
  return out;
}

export interface Reader {
  site: ServedSite;
  ctx: ConditionContext;
  /** Depends on a cookie or claims: never shared by caches. */
  personal: boolean;
  /** The unsigned-claims cookie to (re)write, when the URL gave claims. */
  setCookie?: string;
}

/** The path of a site's base on its host ('' at a host's root): cookie paths and redirects. */
export function sitePathOf(base: string): string {
  return new URL(base).pathname.replace(/\/+$/, '');
}

/** A cookie path covering the site and nothing beside it. */
const cookiePathOf = (base: string) => sitePathOf(base) || '/';

function secureFlag(app: AppContext): string {
  return app.config.publicUrl.startsWith('https:') ? '; Secure' : '';
}

export function requestUrl(req: IncomingMessage): URL {
  return new URL(req.url ?? '/', 'http://local');
}

export function wantsHtml(req: IncomingMessage): boolean {
  return /\btext\/html\b/.test(String(req.headers.accept ?? ''));
}

export function html(status: number, body: string | Buffer, headers: Record<string, string> = {}): Reply {
  return { status, body, headers: { 'content-type': 'text/html; charset=utf-8', ...headers } };
}

/** The location without one query parameter (after a key or token moved into a cookie). */
function without(req: IncomingMessage, param: string): string {
  const url = requestUrl(req);
  url.searchParams.delete(param);
  return url.pathname + url.search;
}

/**
 * The CSP of a site's pages: nothing from other origins. Images of other origins (logos, covers,
 * images in bodies) come through this server's image proxy (src/services/image-proxy.ts); on a
 * custom host, signed /files/ and proxy URLs stay on PUBLIC_URL, whose origin is allowed.
 */
export function csp(site: ServedSite | null): string {
  const img = new Set(["'self'", 'data:']);
  if (site?.fileOrigin) img.add(site.fileOrigin);
  return `default-src 'none'; script-src 'self'; style-src 'self'; img-src ${[...img].join(' ')}; font-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`;
}

/**
 * The policy of plain-text and XML answers (robots.txt, sitemap.xml, llms.txt, `.md`): nothing may
 * load or run; only the inline style and `data:` icons a browser's own text or XML viewer puts
 * around the file (the page policy would block them and log errors in the reader's console). Their
 * bodies are never read as HTML (`nosniff`), so no content of ours can use that allowance.
 */
export const TEXT_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export class Redirect extends Error {
  constructor(readonly reply: Reply) {
    super('redirect');
  }
}

/**
 * Who is reading: checks the site's visibility against the request (share key, visitor token),
 * moving a key or token given in the URL into an HttpOnly cookie (a redirect).
 */
export async function admit(app: AppContext, req: IncomingMessage, site: ServedSite): Promise<Reader> {
  let parsed: URL | undefined; // parsed when a rule needs the query (not for a public site's page)
  const url = () => (parsed ??= requestUrl(req));
  const cookiePath = () => cookiePathOf(site.base); // only when a cookie is written
  let signed: Record<string, unknown> = {};
  let personal = site.adaptive_content || !site.published; // a preview is never shared
  if (site.visibility === 'share-link') {
    personal = true;
    const given = url().searchParams.get('share');
    if (given !== null) {
      if (!(await shareKeyOpens(app, site, given))) throw notFound();
      throw new Redirect({
        status: 302,
        headers: {
          location: without(req, 'share'),
          'set-cookie': `${shareCookie(site.id)}=${encodeURIComponent(given)}; Path=${cookiePath()}; HttpOnly; SameSite=Lax${secureFlag(app)}`,
          'cache-control': 'no-store',
        },
      });
    }
    const cookie = cookieValue(req, shareCookie(site.id));
    if (!cookie || !(await shareKeyOpens(app, site, decodeURIComponent(cookie)))) throw notFound();
  } else if (site.visibility === 'visitor-auth') {
    personal = true;
    const given = url().searchParams.get('jwt_token');
    const token = given ?? cookieValue(req, visitorCookie(site.id));
    const check = token
      ? await verifyVisitorToken(app, site, given ?? decodeURIComponent(token))
      : ({ ok: false, reason: 'none' } as const);
    if (!check.ok) {
      const clear = `${visitorCookie(site.id)}=; Path=${cookiePath()}; HttpOnly; SameSite=Lax; Max-Age=0${secureFlag(app)}`;
      if (site.auth_fallback_url) {
        const fallback = new URL(site.auth_fallback_url);
        fallback.searchParams.set('location', without(req, 'jwt_token'));
        throw new Redirect({ status: 302, headers: { location: fallback.toString(), 'set-cookie': clear, 'cache-control': 'no-store' } });
      }
      throw new Redirect(
        html(401, messageHtml('Sign-in required', 'This documentation needs a valid visitor token.'), { 'set-cookie': clear }),
      );
    }
    if (given !== null) {
      const maxAge = Math.max(0, Math.floor(check.exp - Date.now() / 1000));
      throw new Redirect({
        status: 302,
        headers: {
          location: without(req, 'jwt_token'),
          'set-cookie': `${visitorCookie(site.id)}=${encodeURIComponent(given)}; Path=${cookiePath()}; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${secureFlag(app)}`,
          'cache-control': 'no-store',
        },
      });
    }
    signed = signedClaims(check.payload);
  } else if (site.visibility !== 'public' && site.visibility !== 'unlisted') {
    throw notFound();
  }
  // Unsigned claims: `visitor.*` parameters (filtered by the adaptive schema) are kept in a cookie
  // so they last across navigation; the cookie is filtered again on every read.
  let unsigned: Record<string, unknown> = {};
  let keep: string | undefined;
  if (site.adaptive_content) {
    const fromUrl = [...url().searchParams.keys()].some((k) => k.startsWith('visitor.'));
    if (fromUrl) {
      unsigned = unsignedClaims(url().searchParams, site.adaptive_schema);
      const value = encodeURIComponent(JSON.stringify(unsigned));
      // Browsers drop cookies past 4 KiB: larger claim sets apply to this request only.
      if (value.length <= MAX_CLAIMS_COOKIE)
        keep = `${publicClaimsCookie(site.id)}=${value}; Path=${cookiePath()}; HttpOnly; SameSite=Lax${secureFlag(app)}`;
    } else {
      const stored = cookieValue(req, publicClaimsCookie(site.id));
      if (stored) unsigned = unsignedClaims(claimsParams(stored), site.adaptive_schema);
    }
  }
  return { site, ctx: readerContext(signed, unsigned), personal, setCookie: keep };
}

/** A member's preview link: the token becomes a cookie (as long as it is valid), then the site. */
export async function startPreview(app: AppContext, req: IncomingMessage, siteId: string, base: string): Promise<Reply> {
  const token = requestUrl(req).searchParams.get('token') ?? '';
  const exp = await previewExpiry(app, siteId, token);
  if (exp === null) throw notFound();
  const maxAge = Math.max(0, exp - Math.floor(Date.now() / 1000));
  return {
    status: 302,
    headers: {
      location: `${sitePathOf(base)}/`,
      'set-cookie': `${previewCookie(siteId)}=${token}; Path=${cookiePathOf(base)}; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${secureFlag(app)}`,
      'cache-control': 'no-store',
    },
  };
}

/** Visitor sign-in: the site's login (fallback) URL, told where to send the reader back. */
export function login(app: AppContext, req: IncomingMessage, site: ServedSite): Reply {
  if (!site.auth_fallback_url) throw notFound();
  const target = new URL(site.auth_fallback_url);
  const wanted = requestUrl(req).searchParams.get('location');
  const base = sitePathOf(site.base);
  // Only a path inside the site (never `//host` or `/\\host`, which browsers read as another origin).
  const inside = wanted && !/^\/[/\\]/.test(wanted) && (wanted === base || wanted.startsWith(`${base}/`));
  target.searchParams.set('location', inside ? wanted : `${base}/`);
  return { status: 302, headers: { location: target.toString(), 'cache-control': 'no-store' } };
}

/** Visitor sign-out: the token and claims cookies cleared, then the site's logout URL (or its first page). */
export function logout(app: AppContext, site: ServedSite): Reply {
  const path = cookiePathOf(site.base);
  const clear = (name: string) => `${name}=; Path=${path}; HttpOnly; SameSite=Lax; Max-Age=0${secureFlag(app)}`;
  return {
    status: 302,
    headers: {
      location: site.auth_logout_url ?? `${site.base}/`,
      // One Set-Cookie line per cookie: the server passes header values to res.setHeader, which takes arrays.
      'set-cookie': [clear(visitorCookie(site.id)), clear(publicClaimsCookie(site.id))] as unknown as string,
      'cache-control': 'no-store',
    },
  };
}

export function commonHeaders(r: Reader): Record<string, string> {
  const h: Record<string, string> = {
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'strict-origin-when-cross-origin',
    'content-security-policy': csp(r.site),
    'cache-control': r.personal ? 'private, no-cache' : 'public, max-age=0, must-revalidate',
  };
  if (r.personal) h.vary = 'Cookie';
  if (r.setCookie) h['set-cookie'] = r.setCookie;
  if (r.site.visibility !== 'public' || !r.site.published) h['x-robots-tag'] = 'noindex, nofollow';
  return h;
}
