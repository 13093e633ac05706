import { z } from 'zod';
import { badRequest } from './errors.js';
import { qInt } from './validate.js';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 1000;

/** `page` and `limit` as every list operation takes them. */
export const listQuery = {
  page: z.string().max(1024).optional(),
  limit: qInt(0, MAX_LIMIT).optional(),
};

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
    if (Array.isArray(key) && key.length === arity) return key;
  } catch {
    /* fall through */
  }
  throw badRequest('Invalid request: query.page: not a page identifier returned by this list');
}

/**
 * Build the envelope from `limit + 1` fetched rows: the extra row only tells whether there is
 * a next page, and the cursor is the key of the last row actually returned.
 */
export function buildPage<R, T>(
  rows: R[],
  limit: number,
  count: number,
  keyOf: (row: R) => unknown[],
  map: (row: R) => T,
): ListPage<T> {
  const pageRows = rows.slice(0, limit);
  const out: ListPage<T> = { items: pageRows.map(map), count };
  if (rows.length > limit && pageRows.length > 0) out.next = { page: encodeCursor(keyOf(pageRows[pageRows.length - 1])) };
  return out;
}
