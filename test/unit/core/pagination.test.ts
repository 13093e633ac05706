import { describe, expect, it } from 'vitest';
import { buildPage, decodeCursor, encodeCursor } from '../../../src/core/pagination.js';
import { isDomainError } from '../../../src/core/errors.js';

describe('cursors', () => {
  it('round-trips and rejects foreign values', () => {
    const c = encodeCursor(['2026-01-01 00:00:00.123456+00', 'abc']);
    expect(decodeCursor(c, 2)).toEqual(['2026-01-01 00:00:00.123456+00', 'abc']);
    expect(decodeCursor(undefined, 2)).toBeUndefined();
    let thrown: unknown;
    try {
      decodeCursor('not-base64-json', 2);
    } catch (err) {
      thrown = err;
    }
    expect(isDomainError(thrown, 'invalid')).toBe(true);
    expect(() => decodeCursor(encodeCursor(['one']), 2)).toThrow(/query.page/);
  });

  it('builds a next page only when an extra row was fetched', () => {
    const rows = [{ k: 1 }, { k: 2 }, { k: 3 }];
    const page = buildPage(
      rows,
      2,
      10,
      (r) => [r.k],
      (r) => r.k,
    );
    expect(page.items).toEqual([1, 2]);
    expect(decodeCursor(page.next!.page, 1)).toEqual([2]);
    expect(
      buildPage(
        rows,
        3,
        3,
        (r) => [r.k],
        (r) => r.k,
      ).next,
    ).toBeUndefined();
  });
});
