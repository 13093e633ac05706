import { openText, sealText } from '../util/seal.js';
import { decodeOrKeep } from '../util/uri.js';

// Credentials a URL may carry: user info (`https://user:pass@host/...`) and query (or fragment)
// parameters whose names say they are credentials (`?token=`, `?access_token=`, `?api_key=`,
// `?key=`, `?sig=`, S3/GCS presigned `X-Amz-Signature`, `X-Amz-Credential`, `X-Goog-Signature`,
// ...). A value under another name (`?x=...`) is not recognised: say so to users (docs/security.md).

const SECRET_NAMES = new Set([
  'key',
  'sig',
  'auth',
  'authorization',
  'pass',
  'pwd',
  'passwd',
  'code',
  'jwt',
  'sid',
  'session',
  'secret',
  'token',
]);
const SECRET_PARTS = ['token', 'secret', 'password', 'passwd', 'apikey', 'signature', 'credential', 'sessionid', 'accesskey', 'privatekey'];

/** Whether a query parameter's name says its value is a credential (case, `-` and `_` ignored). */
export function isCredentialParam(name: string): boolean {
  const n = name.toLowerCase().replace(/[^a-z0-9]/g, '');
  return SECRET_NAMES.has(n) || SECRET_PARTS.some((p) => n.includes(p));
}

const REDACTED = 'redacted';

/** `a=1&token=x` -> `a=1&token=redacted`; null when nothing in it is a credential. */
function redactParams(raw: string, secrets: string[]): string | null {
  if (!raw.includes('=')) return null;
  const params = new URLSearchParams(raw);
  let changed = false;
  const out = new URLSearchParams();
  for (const [name, value] of params) {
    if (isCredentialParam(name) && value) {
      secrets.push(value);
      changed = true;
      out.append(name, REDACTED);
    } else out.append(name, value);
  }
  return changed ? out.toString() : null;
}

interface UrlSecrets {
  /** The URL without its credentials: user info removed, credential parameters' values `redacted`. */
  display: string;
  /** The credential values it carried (decoded), for scrubbing messages; empty when none. */
  secrets: string[];
}

/** Split a URL into what may be stored and shown, and the credentials it carried. */
export function splitUrlSecrets(raw: string): UrlSecrets {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return { display: raw.replace(/\/\/[^/@\s]*@/, '//'), secrets: [] };
  }
  const secrets: string[] = [];
  if (u.username || u.password) {
    for (const part of [u.username, u.password]) if (part) secrets.push(decodeOrKeep(part));
    u.username = '';
    u.password = '';
  }
  const query = redactParams(u.search.slice(1), secrets);
  if (query !== null) u.search = query;
  const fragment = redactParams(u.hash.slice(1), secrets);
  if (fragment !== null) u.hash = fragment;
  return { display: secrets.length ? u.toString() : raw, secrets };
}

/**
 * Remove credentials from free text (an error message, a log line): every http(s) or git URL in it
 * loses its credentials, and each known secret value (at least 4 characters, raw or
 * percent-encoded) is replaced wherever it appears.
 */
export function scrubSecrets(text: string, secrets: readonly string[] = []): string {
  let out = text.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi, (match) => {
    // Punctuation that ends a sentence is not part of the URL: `... of http://h/x.yaml: bad`.
    const tail = /[.,;:!?)\]]+$/.exec(match)?.[0] ?? '';
    return splitUrlSecrets(match.slice(0, match.length - tail.length)).display + tail;
  });
  for (const s of secrets) {
    if (s.length < 4) continue;
    for (const form of new Set([s, encodeURIComponent(s), new URLSearchParams({ s }).toString().slice(2)])) {
      out = out.split(form).join(REDACTED);
    }
  }
  return out;
}

const PURPOSE = 'source-url';

/** The whole URL, credentials included, sealed with the server secret (src/util/seal.ts). */
export function sealUrl(url: string, secret: string): string {
  return sealText(url, secret, PURPOSE);
}

export function openSealedUrl(sealed: string, secret: string): string {
  return openText(sealed, secret, PURPOSE);
}
