import { describe, expect, it } from 'vitest';
import { atLeast, maxRole, ROLES, type Role } from '../../../src/core/roles.js';

describe('roles', () => {
  it('orders roles', () => {
    expect(atLeast('admin', 'create')).toBe(true);
    expect(atLeast('edit', 'review')).toBe(false);
    expect(atLeast(null, 'read')).toBe(false);
  });

  it('lists roles most capable first, and each grants what every role after it grants', () => {
    expect(ROLES).toEqual(['admin', 'create', 'review', 'edit', 'comment', 'read']);
    ROLES.forEach((role, i) =>
      ROLES.forEach((needed, j) => {
        expect(atLeast(role, needed), `${role} >= ${needed}`).toBe(i <= j);
      }),
    );
  });

  it('grants nothing to a guest (null) or a non-member (undefined)', () => {
    for (const needed of ROLES) {
      expect(atLeast(null, needed)).toBe(false);
      expect(atLeast(undefined, needed)).toBe(false);
    }
  });

  it('maxRole picks the more capable role, whichever side it is on', () => {
    expect(maxRole('read', 'edit')).toBe('edit');
    expect(maxRole('edit', 'read')).toBe('edit');
    expect(maxRole('review', 'create')).toBe('create');
    expect(maxRole('admin', 'comment')).toBe('admin');
    expect(maxRole('edit', 'edit')).toBe('edit');
    for (const a of ROLES) {
      for (const b of ROLES) {
        const m = maxRole(a, b) as Role;
        expect(m === a || m === b).toBe(true);
        expect(atLeast(m, a) && atLeast(m, b)).toBe(true);
        expect(maxRole(b, a)).toBe(m);
      }
    }
  });

  it('maxRole treats a missing role as no role', () => {
    expect(maxRole(null, 'comment')).toBe('comment');
    expect(maxRole('comment', undefined)).toBe('comment');
    expect(maxRole(undefined, null)).toBeNull();
    expect(maxRole(null, null)).toBeNull();
    expect(maxRole(undefined, undefined)).toBeNull();
  });
});
