// Site tokens (issue 29 item 6): the `apiToken` that resolvePublishedContentByUrl hands to GitBook's
// renderer. A JWT (HS256 pinned) scoped to one site and one visitor's claims, signed with a key
// derived from the server secret by HKDF (never the secret itself). Deterministic: `iat` is the
// start of the UTC day and `exp` two days later (or the visitor token's own expiry when sooner),
// and the claims are written in a canonical order, so the same site and claims give the same token
// all day and caches can key on it. What it opens is decided at each use (src/services/sites/
// published-content-reads.ts), never trusted from the time it was issued.
import { hkdfSync } from 'node:crypto';
import { SignJWT, jwtVerify, decodeProtectedHeader } from 'jose';

export const SITE_TOKEN_TYPE = 'site+jwt';
const AUDIENCE = 'site-content';
const DAY = 86_400;
const MAX_TOKEN_BYTES = 16 * 1024;

/** Who a site token speaks for: a site, a share key it was given, a visitor's claims. */
export interface SiteGrant {
  site: string;
  organization: string;
  /** The share key the URL carried (share-link sites): checked again at every use. */
  shareKey?: string;
  /**
   * Issued after a valid visitor token (visitor-auth sites): a fingerprint of the site's visitor
   * signing key then, so that regenerating the key ends the token as it ends the visitor's.
   */
  visitor?: string;
  /** The visitor's signed (verified token) and unsigned (adaptive) claims. */
  signed: Record<string, unknown>;
  unsigned: Record<string, unknown>;
  /** Expiry, seconds since the epoch. */
  exp: number;
}

const keys = new Map<string, Uint8Array>();
function keyOf(secret: string): Uint8Array {
  let k = keys.get(secret);
  if (!k) {
    k = new Uint8Array(hkdfSync('sha256', secret, 'docs-platform', 'site-token/v1', 32));
    keys.set(secret, k);
  }
  return k;
}

/** A JSON value with object keys sorted (depth-bounded): one claims set, one serialization. */
function canonical(v: unknown, depth = 0): unknown {
  if (depth > 8 || v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map((x) => canonical(x, depth + 1));
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort()) out[k] = canonical((v as Record<string, unknown>)[k], depth + 1);
  return out;
}

/** The day-stable window of a token issued at `nowMs`: [start of the UTC day, two days later]. */
export function siteTokenWindow(nowMs: number): { iat: number; exp: number } {
  const iat = Math.floor(nowMs / 1000 / DAY) * DAY;
  return { iat, exp: iat + 2 * DAY };
}

export async function signSiteToken(secret: string, g: Omit<SiteGrant, 'exp'>, nowMs = Date.now(), notAfter?: number): Promise<string> {
  const w = siteTokenWindow(nowMs);
  const exp = notAfter !== undefined ? Math.min(w.exp, notAfter) : w.exp;
  const claims =
    Object.keys(g.signed).length || Object.keys(g.unsigned).length ? { s: canonical(g.signed), u: canonical(g.unsigned) } : null;
  const payload: Record<string, unknown> = {
    org: g.organization,
    ...(g.shareKey ? { shr: g.shareKey } : {}),
    ...(g.visitor ? { va: g.visitor } : {}),
    ...(claims ? { clm: claims } : {}),
  };
  return new SignJWT(payload as never)
    .setProtectedHeader({ alg: 'HS256', typ: SITE_TOKEN_TYPE })
    .setSubject(g.site)
    .setAudience(AUDIENCE)
    .setIssuedAt(w.iat)
    .setExpirationTime(exp)
    .sign(keyOf(secret));
}

/** Whether a bearer token is a site token (by its header): such a token never reaches the API's token table. */
export function isSiteToken(token: string): boolean {
  if (token.length > MAX_TOKEN_BYTES || token.split('.').length !== 3) return false;
  try {
    return decodeProtectedHeader(token).typ === SITE_TOKEN_TYPE;
  } catch {
    return false;
  }
}

/** The grant of a valid site token, or null (bad signature, other algorithm, expired, malformed). */
export async function verifySiteToken(secret: string, token: string): Promise<SiteGrant | null> {
  if (token.length > MAX_TOKEN_BYTES) return null;
  try {
    const { payload } = await jwtVerify(token, keyOf(secret), {
      algorithms: ['HS256'],
      typ: SITE_TOKEN_TYPE,
      audience: AUDIENCE,
      requiredClaims: ['sub', 'exp', 'iat'],
    });
    const p = payload as Record<string, any>;
    if (typeof p.org !== 'string') return null;
    const clm = p.clm && typeof p.clm === 'object' ? p.clm : {};
    const obj = (x: unknown) => (x && typeof x === 'object' && !Array.isArray(x) ? (x as Record<string, unknown>) : {});
    return {
      site: payload.sub!,
      organization: p.org,
      ...(typeof p.shr === 'string' ? { shareKey: p.shr } : {}),
      ...(typeof p.va === 'string' ? { visitor: p.va } : {}),
      signed: obj(clm.s),
      unsigned: obj(clm.u),
      exp: payload.exp!,
    };
  } catch {
    return null;
  }
}
