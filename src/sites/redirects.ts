// Site redirects as pure rules (issue 29): how a source path matches a request path, what a
// captured wildcard adds to the destination, and whether a set of redirects has a loop.
//
// A source is an absolute path (`/old/page`), or a prefix ending in `*` (`/old/*` matches `/old`
// and everything under it; `/old*` everything starting with `/old`). Sources are compared decoded
// and without a trailing slash, as the reader's paths are. An exact source wins over a wildcard,
// a longer wildcard over a shorter one.

/** The description's SiteRedirectSourcePath. */
export const SOURCE_PATTERN =
  /^\/(?!\*)(?!.*\*.+)(?:[A-Za-z0-9\-._~+]|%[0-9A-Fa-f]{2})+(?:\/(?:[A-Za-z0-9\-._~+]|%[0-9A-Fa-f]{2})+)*(?:\/\*|\*)?$/;
export const MAX_SOURCE_LENGTH = 512;

function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** A path as matched: decoded, one leading slash, no trailing slash. */
export function normalPath(path: string): string {
  const p = `/${decode(path).replace(/^\/+|\/+$/g, '')}`;
  return p;
}

export interface Matchable {
  source: string;
}

interface Compiled<T> {
  exact: Map<string, T>;
  /** Wildcards, longest prefix first. */
  prefixes: { prefix: string; slash: boolean; item: T }[];
}

export function compile<T extends Matchable>(items: T[]): Compiled<T> {
  const exact = new Map<string, T>();
  const prefixes: Compiled<T>['prefixes'] = [];
  for (const item of items) {
    if (item.source.endsWith('/*')) prefixes.push({ prefix: normalPath(item.source.slice(0, -2)), slash: true, item });
    else if (item.source.endsWith('*')) prefixes.push({ prefix: decode(item.source.slice(0, -1)), slash: false, item });
    else exact.set(normalPath(item.source), item);
  }
  prefixes.sort((a, b) => b.prefix.length - a.prefix.length);
  return { exact, prefixes };
}

/** The redirect a path takes, and the part its wildcard matched ('' for an exact match). */
export function match<T>(c: Compiled<T>, path: string): { item: T; rest: string } | null {
  const p = normalPath(path);
  const hit = c.exact.get(p);
  if (hit) return { item: hit, rest: '' };
  for (const w of c.prefixes) {
    if (w.slash) {
      if (p === w.prefix) return { item: w.item, rest: '' };
      const head = w.prefix === '/' ? '/' : `${w.prefix}/`;
      if (p.startsWith(head)) return { item: w.item, rest: p.slice(head.length) };
    } else if (p.startsWith(w.prefix)) return { item: w.item, rest: p.slice(w.prefix.length).replace(/^\/+/, '') };
  }
  return null;
}

/** `target` with the captured suffix appended (path segments encoded) before its query and fragment. */
export function withCaptured(target: string, rest: string): string {
  if (!rest) return target;
  const cut = target.search(/[?#]/);
  const [head, tail] = cut < 0 ? [target, ''] : [target.slice(0, cut), target.slice(cut)];
  return `${head.replace(/\/+$/, '')}/${rest.split('/').map(encodeURIComponent).join('/')}${tail}`;
}

/** `target` with the request's query string kept (after the target's own parameters). */
export function withQuery(target: string, search: string): string {
  const q = search.replace(/^\?/, '');
  if (!q) return target;
  const hash = target.indexOf('#');
  const [head, frag] = hash < 0 ? [target, ''] : [target.slice(0, hash), target.slice(hash)];
  return `${head}${head.includes('?') ? '&' : '?'}${q}${frag}`;
}

/**
 * The first redirect found on a loop, or null. `targetOf` gives the site path a redirect leads to
 * (normalized), or null when it leaves the site. A chain loops when it comes back to a path it
 * passed through, or uses one redirect twice (a wildcard catching its own destination: each turn
 * makes the path longer, forever).
 */
export function findLoop<T extends Matchable>(items: T[], targetOf: (item: T, rest: string) => string | null): T | null {
  const c = compile(items);
  for (const start of items) {
    // A wildcard source is checked through a path it matches (the prefix itself).
    const from = start.source.replace(/\/?\*$/, '') || '/';
    const seen = new Set<string>([normalPath(from)]);
    const used = new Set<T>();
    let m = match(c, from);
    while (m) {
      if (used.has(m.item)) return start;
      used.add(m.item);
      const next = targetOf(m.item, m.rest);
      if (next === null) break;
      const n = normalPath(next);
      if (seen.has(n)) return start;
      seen.add(n);
      m = match(c, n);
    }
  }
  return null;
}
