import { describe, expect, it } from 'vitest';
import { placeAmong, PlacementError, slugify, uniquePath } from '../../../src/sites/structure.js';

const list = (...ids: string[]) => ids.map((id, i) => ({ type: 'site-section', id, position: i + 1 }));
const ptr = (id: string) => ({ type: 'site-section', id });

describe('site structure rules', () => {
  it('makes URL segments from titles and keeps them unique', () => {
    expect(slugify('API Reference')).toBe('api-reference');
    expect(slugify('Ça marche très bien!')).toBe('ca-marche-tres-bien');
    expect(slugify('日本語')).toBe('section');
    expect(slugify('', 'space')).toBe('space');
    expect(slugify('x'.repeat(300)).length).toBeLessThanOrEqual(100);
    expect(uniquePath('docs', ['docs', 'docs-2'])).toBe('docs-3');
    expect(uniquePath('docs', [])).toBe('docs');
  });

  it('places an item before or after a sibling, last without a pointer, renumbering when needed', () => {
    const siblings = list('a', 'b', 'c');
    expect(placeAmong(siblings, ptr('x')).position).toBe(4);
    expect(placeAmong(siblings, ptr('c'), { before: ptr('a') }).position).toBe(0);
    expect(placeAmong(siblings, ptr('a'), { after: ptr('b') }).position).toBe(2.5);
    expect(placeAmong(siblings, ptr('x'), { after: ptr('a'), before: ptr('b') }).position).toBe(1.5);
    const crowded = [
      { type: 'site-section', id: 'a', position: 1 },
      { type: 'site-section', id: 'b', position: 1 },
    ];
    const r = placeAmong(crowded, ptr('x'), { after: ptr('a') });
    expect(r.renumber?.map((s) => s.position)).toEqual([1, 2]);
    expect(r.position).toBe(1.5);
    expect(() => placeAmong(siblings, ptr('a'), { before: ptr('zzz') })).toThrow(PlacementError);
    expect(() => placeAmong(siblings, ptr('x'), { after: ptr('c'), before: ptr('a') })).toThrow(PlacementError);
  });
});
