// Visitors of a site counted without storing who they are (issue 29, item 3). A visitor is the
// keyed hash of their address and user agent; the key is derived (HKDF-SHA256) from the server
// secret, the site and the UTC day, so:
// - the same reader is one visitor all day (unique visitors per day, no cookie needed);
// - the next day gives another hash (nobody is followed across days);
// - nothing stored can be turned back into an address: the key is never stored, and the
//   keys of past days cannot be derived without SECRET_KEY (an operator who keeps the secret could
//   still test a guessed address against a stored hash of that day: see docs/security.md).
// Sessions hash the client's own session id (a per-tab random value of the reader script) the same way.
import { createHmac, hkdfSync } from 'node:crypto';

const keys = new Map<string, Buffer>();

/** `YYYY-MM-DD` of `at` in UTC. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** The key of one site and UTC day (cached: a few per process and day). */
export function dailyKey(secret: string, siteId: string, day: string): Buffer {
  const id = `${siteId}\n${day}`;
  const cacheKey = `${secret}\n${id}`;
  let key = keys.get(cacheKey);
  if (!key) {
    if (keys.size > 10_000) keys.clear();
    key = Buffer.from(hkdfSync('sha256', secret, 'site-insights/v1', `visitor-salt\n${id}`, 32));
    keys.set(cacheKey, key);
  }
  return key;
}

const mac = (key: Buffer, text: string) => createHmac('sha256', key).update(text).digest('base64url').slice(0, 22);

/** The visitor of the day: address and user agent under the day's key. */
export function visitorHash(secret: string, siteId: string, at: Date, address: string, userAgent: string): string {
  return mac(dailyKey(secret, siteId, utcDay(at)), `visitor\n${address}\n${userAgent}`);
}

/** A session of the day: the client's session id (or, without one, the visitor) under the day's key. */
export function sessionHash(secret: string, siteId: string, at: Date, sessionId: string, visitor: string): string {
  return mac(dailyKey(secret, siteId, utcDay(at)), `session\n${visitor}\n${sessionId}`);
}
