import { describe, expect, it } from 'vitest';
import { isSecondSignal } from '../../src/lifecycle.js';

describe('a second shutdown signal', () => {
  it('is the same Ctrl-C relayed by a wrapper when it comes within a second, a person asking again after', () => {
    expect(isSecondSignal(10_000, 10_005)).toBe(false);
    expect(isSecondSignal(10_000, 10_999)).toBe(false);
    expect(isSecondSignal(10_000, 11_000)).toBe(true);
  });
});
