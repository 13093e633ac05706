// Preview links of a site (`Site.urls.preview`): members see an unpublished site through a URL
// carrying an HMAC of (site, expiry) made with the server secret. Short-lived: the expiry is
// rounded up to the next 10 minutes past one hour from now, so the URL stays the same across
// responses for a while and always works for at least an hour.
import { createHmac, timingSafeEqual } from 'node:crypto';

const TTL_SECONDS = 3600;
const STEP_SECONDS = 600;

function signature(secret: string, siteId: string, exp: number): string {
  return createHmac('sha256', secret).update(`site-preview\n${siteId}\n${exp}`).digest('base64url');
}

/** A preview token for the site, valid about an hour. */
export function previewToken(secret: string, siteId: string, nowSeconds = Math.floor(Date.now() / 1000)): string {
  const exp = Math.ceil((nowSeconds + TTL_SECONDS) / STEP_SECONDS) * STEP_SECONDS;
  return `${exp}.${signature(secret, siteId, exp)}`;
}

/** The expiry (seconds) of a valid token for the site, or null. */
export function checkPreviewToken(
  secret: string,
  siteId: string,
  token: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): number | null {
  const m = /^(\d{1,12})\.([\w-]{43})$/.exec(token);
  if (!m) return null;
  const exp = Number(m[1]);
  if (exp <= nowSeconds || exp > nowSeconds + TTL_SECONDS + STEP_SECONDS) return null;
  const want = Buffer.from(signature(secret, siteId, exp));
  const got = Buffer.from(m[2]);
  return want.length === got.length && timingSafeEqual(want, got) ? exp : null;
}
