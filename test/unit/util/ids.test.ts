import { describe, expect, it } from 'vitest';
import { newId, derivedId } from '../../../src/util/ids.js';

describe('identifiers', () => {
  it('makes 20-character identifiers valid as entity ids', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => newId()));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9]{20}$/);
  });

  it('derives the same valid identifier from the same parts, and different ones from different parts', () => {
    const ids = new Set(Array.from({ length: 1000 }, (_, i) => derivedId('git.import', `op${i}`)));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9]{20}$/);
    expect(derivedId('git.import', 'op1')).toBe(derivedId('git.import', 'op1'));
    expect(derivedId('git.import', 'op1')).not.toBe(derivedId('git.export', 'op1'));
  });
});
