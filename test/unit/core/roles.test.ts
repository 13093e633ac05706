import { describe, expect, it } from 'vitest';
import { atLeast } from '../../../src/core/roles.js';

describe('roles', () => {
  it('orders roles', () => {
    expect(atLeast('admin', 'create')).toBe(true);
    expect(atLeast('edit', 'review')).toBe(false);
    expect(atLeast(null, 'read')).toBe(false);
  });
});
