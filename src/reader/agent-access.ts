// Who is reading, for machine clients of a site (the MCP endpoint): the same rules as the site's
// pages (src/reader/access.ts admit), read from what an agent can send. A share key comes in the
// URL (`?share=`, as in the link a reader was given) or the site's share cookie; a visitor token as
// `Authorization: Bearer <token>` (or `?jwt_token=` / the cookie); adaptive claims as `visitor.*`
// query parameters. Nothing is redirected and no cookie is written: an agent sends them every time.
import type { IncomingMessage } from 'node:http';
import type { AppContext } from '../context.js';
import { cookieValue } from '../http/cookies.js';
import { notFound, unauthenticated } from '../core/errors.js';
import { readerContext, unsignedClaims, signedClaims } from '../sites/reader.js';
import { shareKeyOpens, verifyVisitorToken, type ServedSite } from '../services/sites/reader.js';
import { requestUrl, type Reader } from './access.js';

function bearer(req: IncomingMessage): string | null {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(String(req.headers.authorization ?? ''));
  return m ? m[1] : null;
}

/** The reader an agent's request stands for, or a refusal: 404 (share link), 401 (visitor token). */
export async function admitAgent(app: AppContext, req: IncomingMessage, site: ServedSite): Promise<Reader> {
  const url = requestUrl(req);
  let signed: Record<string, unknown> = {};
  if (site.visibility === 'share-link') {
    const cookie = cookieValue(req, `dp_share_${site.id}`);
    const key = url.searchParams.get('share') ?? (cookie ? decodeURIComponent(cookie) : null);
    if (!key || !(await shareKeyOpens(app, site, key))) throw notFound();
  } else if (site.visibility === 'visitor-auth') {
    const cookie = cookieValue(req, `dp_visitor_${site.id}`);
    const token = bearer(req) ?? url.searchParams.get('jwt_token') ?? (cookie ? decodeURIComponent(cookie) : null);
    const check = token ? await verifyVisitorToken(app, site, token) : ({ ok: false } as const);
    if (!check.ok) throw unauthenticated('A valid visitor token is required: send "Authorization: Bearer <visitor token>"');
    signed = signedClaims(check.payload);
  } else if (site.visibility !== 'public' && site.visibility !== 'unlisted') {
    throw notFound();
  }
  const unsigned = site.adaptive_content ? unsignedClaims(url.searchParams, site.adaptive_schema) : {};
  return { site, ctx: readerContext(signed, unsigned), personal: true };
}
