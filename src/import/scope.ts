// Which URLs a website import crawls, and how a URL names a page.
//
// - Scope: the start URL's origin (scheme, host and port) and its path prefix. The prefix is the
//   start path itself, or its folder when the last segment looks like a file (`/docs/index.html`
//   → `/docs`). `/docs` covers `/docs` and `/docs/...`, never `/docs-old`.
// - Page key: origin + path, with the query and fragment dropped, repeated slashes collapsed, a
//   trailing slash and a final `index.html`/`index.htm` removed: `/docs/`, `/docs` and
//   `/docs/index.html` are one page. Queries are dropped on purpose: documentation pages do not
//   depend on them, and they are the usual crawler trap (calendars, sort orders, session ids).
// - Only URLs that look like pages are crawled: a link to `/docs/guide.pdf` or `/docs/logo.png`
//   stays a plain link.

export interface CrawlScope {
  origin: string;
  /** Path prefix without a trailing slash; '' covers the whole origin. */
  prefix: string;
}

const NOT_A_PAGE =
  /\.(png|jpe?g|gif|svg|webp|avif|ico|bmp|tiff?|pdf|zip|gz|tgz|bz2|xz|7z|rar|tar|dmg|exe|msi|deb|rpm|apk|mp[34]|m4a|ogg|wav|webm|mov|avi|css|js|mjs|map|json|xml|rss|atom|txt|csv|ya?ml|woff2?|ttf|otf|eot|wasm)$/i;

/** Normalised path of a page (see above); '' for the origin's root. */
function normalizePath(pathname: string): string {
  return pathname
    .replace(/\/{2,}/g, '/')
    .replace(/\/index\.html?$/i, '')
    .replace(/\/+$/, '');
}

export function pageKey(u: URL): string {
  return u.origin + normalizePath(u.pathname);
}

export function scopeOf(start: URL): CrawlScope {
  let path = normalizePath(start.pathname);
  const last = path.slice(path.lastIndexOf('/') + 1);
  if (/\.[a-z0-9]{1,8}$/i.test(last)) path = path.slice(0, path.lastIndexOf('/'));
  return { origin: start.origin, prefix: path };
}

export function inScope(scope: CrawlScope, u: URL): boolean {
  if (u.origin !== scope.origin) return false;
  const path = normalizePath(u.pathname);
  return path === scope.prefix || path.startsWith(`${scope.prefix}/`);
}

/** True for URLs worth fetching as pages: http(s), not an obvious asset or download. */
export function looksLikePage(u: URL): boolean {
  return (u.protocol === 'http:' || u.protocol === 'https:') && !NOT_A_PAGE.test(u.pathname);
}

/** Resolve an attribute value against a base URL; null when it is not a valid URL. */
export function resolveUrl(raw: string, base: URL): URL | null {
  const v = raw.trim();
  if (!v) return null;
  try {
    return new URL(v, base);
  } catch {
    return null;
  }
}

/**
 * Candidate keys of a page's ancestors, nearest first, strictly inside the scope prefix: for
 * `/docs/guide/install` under `/docs`, `/docs/guide` (also as `/docs/guide.html`, for sites whose
 * pages end in .html).
 */
export function ancestorKeys(scope: CrawlScope, key: string): string[][] {
  const path = key.slice(scope.origin.length).replace(/\.html?$/i, '');
  const out: string[][] = [];
  for (let p = path.slice(0, path.lastIndexOf('/')); p.length > scope.prefix.length; p = p.slice(0, p.lastIndexOf('/'))) {
    const k = scope.origin + p;
    out.push([k, `${k}.html`, `${k}.htm`]);
  }
  return out;
}
