import { describe, expect, it } from 'vitest';
import { ByteParts } from '../../../src/util/byte-parts.js';

const bytes = (n: number, fill: number) => Buffer.alloc(n, fill);

describe('ByteParts', () => {
  it('keeps large parts by reference and joins runs of small ones, in order, losing nothing', () => {
    const big = bytes(20_000, 1);
    const small = Array.from({ length: 10 }, (_, i) => bytes(100, 10 + i));
    const p = new ByteParts();
    for (const s of small.slice(0, 5)) p.push(s);
    p.push(big).push(Buffer.alloc(0));
    for (const s of small.slice(5)) p.push(s);
    const out = p.done();
    expect(out).toHaveLength(3);
    expect(out[1]).toBe(big); // the same object: not copied
    expect(Buffer.concat(out)).toEqual(Buffer.concat([...small.slice(0, 5), big, ...small.slice(5)]));
  });

  it('makes a body of many small parts into a few chunks of about 64 KB', () => {
    const p = new ByteParts();
    const all: Buffer[] = [];
    for (let i = 0; i < 5_000; i++) {
      const b = bytes(600, i % 256);
      all.push(b);
      p.push(b);
    }
    const out = p.done();
    expect(out.length).toBeLessThanOrEqual(Math.ceil((5_000 * 600) / (64 * 1024)) + 1);
    expect(Buffer.concat(out)).toEqual(Buffer.concat(all));
  });
});
