import { invalid, notFound } from '../core/errors.js';

/**
 * The request target as routing must see it: the raw path, never normalized.
 *
 * `new URL()` resolves `..` and `.` segments (also `%2e%2e`), so `DELETE /v1/spaces/S/comments/..`
 * would reach `DELETE /v1/spaces/S`. Routing therefore works on the path exactly as sent, and a
 * path with a dot segment (raw or percent-encoded), a NUL byte or broken percent-encoding never
 * reaches a route. Encoded slashes stay inside their segment (find-my-way decodes them into the
 * parameter value, where the parameter's pattern refuses them).
 */
interface RequestTarget {
  /** The raw path, e.g. `/v1/spaces/abc/content`. */
  path: string;
  /** The query string without `?`. */
  search: string;
  searchParams: URLSearchParams;
}

const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

export function parseTarget(rawUrl: string | undefined): RequestTarget {
  const raw = rawUrl ?? '/';
  // Only origin-form (`/path?query`). Absolute-form is for proxies; `*` is for OPTIONS.
  if (!raw.startsWith('/')) throw invalid('Invalid request target: expected a path starting with "/"');
  const hash = raw.indexOf('#');
  const noHash = hash === -1 ? raw : raw.slice(0, hash);
  const q = noHash.indexOf('?');
  const path = q === -1 ? noHash : noHash.slice(0, q);
  const search = q === -1 ? '' : noHash.slice(q + 1);
  for (const segment of path.split('/')) {
    if (DOT_SEGMENT.test(segment)) throw notFound(`No route for a path with a "${segment}" segment`);
  }
  if (/%(?![0-9a-f]{2})/i.test(path)) throw invalid('Invalid request target: malformed percent-encoding in the path');
  if (/%00|\0/i.test(path)) throw invalid('Invalid request target: NUL byte in the path');
  return { path, search, searchParams: new URLSearchParams(search) };
}
