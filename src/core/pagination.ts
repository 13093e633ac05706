import { invalid } from './errors.js';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 1000;

export interface ListPage<T> {
  items: T[];
  count: number;
  next?: { page: string };
}

/**
 * Keyset cursors: the cursor carries the sort key of the last row returned, so rows inserted
 * between two page reads never shift or duplicate what the next page returns.
 */
export function encodeCursor(key: unknown[]): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

export function decodeCursor(page: string | undefined, arity: number): unknown[] | undefined {
  if (page === undefined || page === '') return undefined;
  try {
    const key = JSON.parse(Buffer.from(page, 'base64url').toString('utf8'));
    if (Array.isArray(key) && (arity < 0 || key.length === arity)) return key;
  } catch {
    /* fall through */
  }
  throw invalid('Invalid request: query.page: not a page identifier returned by this list');
}

/**
 * Build the envelope from `limit + 1` fetched rows: the extra row only tells whether there is
 * a next page, and the cursor is the key of the last row actually returned.
 */
export function buildPage<R, T>(rows: R[], limit: number, count: number, keyOf: (row: R) => unknown[], map: (row: R) => T): ListPage<T> {
  const pageRows = rows.slice(0, limit);
  const out: ListPage<T> = { items: pageRows.map(map), count };
  if (rows.length > limit && pageRows.length > 0) out.next = { page: encodeCursor(keyOf(pageRows[pageRows.length - 1])) };
  return out;
}

type Key = (string | number)[];

function compareKeys(a: Key, b: Key): number {
  for (let i = 0; i < a.length; i++) {
    if (a[i] < b[i]) return -1;
    if (a[i] > b[i]) return 1;
  }
  return 0;
}

/**
 * Keyset pagination of a list already in memory. The list is sorted here by `key` (ascending, or
 * descending with `desc`), and the cursor is the key of the last item returned: items inserted
 * between two reads never shift what the next page returns.
 */
export function pageInMemory<T, R>(
  list: T[],
  q: { page?: string; limit?: number },
  key: (item: T) => Key,
  map: (item: T) => R,
  desc = false,
): ListPage<R> {
  const limit = q.limit ?? DEFAULT_LIMIT;
  const dir = desc ? -1 : 1;
  const sorted = [...list].sort((a, b) => dir * compareKeys(key(a), key(b)));
  // An empty list has no key to take the cursor's arity from: any well-formed cursor is accepted.
  const after = decodeCursor(q.page, sorted[0] ? key(sorted[0]).length : -1) as Key | undefined;
  const rest = after ? sorted.filter((item) => dir * compareKeys(key(item), after) > 0) : sorted;
  return buildPage(rest.slice(0, limit + 1), limit, list.length, key, map);
}
