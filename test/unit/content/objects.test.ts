// Content objects are hashed from their canonical JSON: the fast writers (bodyJson, and
// canonicalJson's one-walk path for plain data) must give exactly what the general serializer (a
// JSON.stringify replacer sorting keys) gives, or the same content would get another hash.
import { describe, expect, it } from 'vitest';
import { bodyJson, canonicalJson, hashJson, hashObject } from '../../../src/content/objects.js';
import { prng } from '../../helpers/prng.js';

describe('bodyJson', () => {
  it('is canonicalJson of the body object, for text with escapes, surrogates and control characters', () => {
    const samples = [
      '',
      '# Title\n\nText',
      'quote " backslash \\ tab \t nul \u0000',
      'lone \ud800 surrogate, pair 😀',
      '\u2028\u2029 and </script>',
    ];
    const next = prng(7);
    for (let i = 0; i < 500; i++) {
      samples.push(Array.from({ length: Math.floor(next() * 40) }, () => String.fromCharCode(Math.floor(next() * 0x10000))).join(''));
    }
    for (const markdown of samples) {
      expect(bodyJson(markdown)).toBe(canonicalJson({ kind: 'body', markdown }));
      expect(hashJson(bodyJson(markdown))).toBe(hashObject({ kind: 'body', markdown }));
    }
  });
});

/** The general serializer, as canonicalJson was written before its fast path. */
const reference = (value: unknown) =>
  JSON.stringify(value, (_k, v) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(v).sort()) if (v[key] !== undefined) out[key] = v[key];
      return out;
    }
    return v;
  });

describe('canonicalJson', () => {
  it('gives what the general serializer gives on generated data, odd values included', () => {
    const next = prng(11);
    const pick = <T>(xs: T[]) => xs[Math.floor(next() * xs.length)]!;
    const keys = ['a', 'B', 'kind', 'title', 'é', 'zz', '10', '9', '01', '-1', '', 'toString', '__proto__x', 'ü'];
    const leaf = () =>
      pick<unknown>([
        'text',
        '',
        'quote "',
        '\u2028',
        0,
        -0,
        1.5,
        1e21,
        NaN,
        Infinity,
        true,
        false,
        null,
        undefined,
        () => 1,
        new Date(0),
        { toJSON: () => 'x' },
        Object.create(null),
      ]);
    const value = (depth: number): unknown => {
      const r = next();
      if (depth > 3 || r < 0.4) return leaf();
      if (r < 0.6) return Array.from({ length: Math.floor(next() * 4) }, () => value(depth + 1));
      const o: Record<string, unknown> = next() < 0.1 ? Object.create(null) : {};
      for (let i = Math.floor(next() * 5); i > 0; i--) o[pick(keys)] = value(depth + 1);
      return o;
    };
    for (let i = 0; i < 5_000; i++) {
      const v = value(0);
      expect(canonicalJson(v), reference(v)).toBe(reference(v));
    }
  });

  it('gives what the general serializer gives for a page node', () => {
    const page = {
      kind: 'page',
      id: 'p1',
      type: 'document',
      title: 'Über "uns"',
      slug: 'uber-uns',
      description: null,
      hidden: false,
      git: { path: 'docs/uber.md', oid: 'abc' },
      children: ['h1', 'h2'],
      body: 'hb',
      cover: { ref: { kind: 'file', file: 'f1' } },
      emoji: undefined,
    };
    expect(canonicalJson(page)).toBe(reference(page));
  });
});
