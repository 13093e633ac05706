import { describe, expect, it } from 'vitest';
import { collectionPermissions, collectionRole } from '../../../src/policies/collections.js';
import { inheritedLevel, type AccessContext } from '../../../src/policies/spaces.js';
import type { Role } from '../../../src/core/roles.js';

// The pure half of the collection policy (requireCollection and requireParent, which load rows, are
// covered over HTTP in test/integration/spaces/collections.test.ts).

type Chain = Record<string, { parent: string | null; level: string | null }>;

const ctx = (orgRole: Role | null | undefined, chain: Chain = {}): AccessContext => ({
  orgRole,
  collections: new Map(Object.entries(chain)),
});

// guides (inherit) -> product (edit) -> top;  secret (null) -> top;  loop-a <-> loop-b (corrupt chain)
const CHAIN: Chain = {
  product: { parent: null, level: 'edit' },
  guides: { parent: 'product', level: 'inherit' },
  secret: { parent: null, level: null },
  inSecret: { parent: 'secret', level: 'inherit' },
  loopA: { parent: 'loopB', level: 'inherit' },
  loopB: { parent: 'loopA', level: 'inherit' },
};

describe('collectionRole', () => {
  it('gives organization admins admin on every collection, even one with no default level', () => {
    expect(collectionRole(ctx('admin', CHAIN), { default_level: null, parent_id: null })).toBe('admin');
    expect(collectionRole(ctx('admin', CHAIN), { default_level: 'read', parent_id: 'secret' })).toBe('admin');
  });

  it('gives guests and non-members nothing: collections are hidden from them', () => {
    for (const role of [null, undefined]) {
      expect(collectionRole(ctx(role, CHAIN), { default_level: 'read', parent_id: null })).toBeNull();
      expect(collectionRole(ctx(role, CHAIN), { default_level: 'inherit', parent_id: 'product' })).toBeNull();
    }
  });

  it('follows inherit up the chain to the first explicit level, else to the member’s own role', () => {
    expect(collectionRole(ctx('read', CHAIN), { default_level: 'inherit', parent_id: 'guides' })).toBe('edit');
    expect(collectionRole(ctx('comment', CHAIN), { default_level: 'inherit', parent_id: null })).toBe('comment');
    expect(collectionRole(ctx('create', CHAIN), { default_level: 'review', parent_id: 'guides' })).toBe('review');
    // An explicit level may be below the member's role: it is the collection's level that counts.
    expect(collectionRole(ctx('create', CHAIN), { default_level: 'read', parent_id: null })).toBe('read');
  });

  it('grants nothing under a collection whose level is null, and stops on a loop at the top', () => {
    expect(collectionRole(ctx('edit', CHAIN), { default_level: 'inherit', parent_id: 'inSecret' })).toBeNull();
    expect(collectionRole(ctx('edit', CHAIN), { default_level: 'inherit', parent_id: 'loopA' })).toBe('edit');
    expect(collectionRole(ctx('edit', CHAIN), { default_level: 'inherit', parent_id: 'missing' })).toBe('edit');
  });
});

describe('collectionPermissions', () => {
  it('maps a level to what the API reports', () => {
    expect(collectionPermissions(null)).toEqual({ view: false, admin: false, viewInviteLinks: false, create: false });
    expect(collectionPermissions('read')).toEqual({ view: true, admin: false, viewInviteLinks: false, create: false });
    expect(collectionPermissions('create')).toEqual({ view: true, admin: false, viewInviteLinks: false, create: true });
    expect(collectionPermissions('admin')).toEqual({ view: true, admin: true, viewInviteLinks: true, create: true });
  });
});

describe('inheritedLevel with its own top', () => {
  it('answers what the caller asks for at the top of the chain instead of the member role', () => {
    const top = Symbol('top');
    expect(inheritedLevel({ collections: chainMap() }, 'inherit', 'guides', top)).toBe('edit');
    expect(inheritedLevel({ collections: chainMap() }, 'inherit', null, top)).toBe(top);
    expect(inheritedLevel({ collections: chainMap() }, 'inherit', 'loopA', top)).toBe(top);
    expect(inheritedLevel({ collections: chainMap() }, 'read', 'guides', top)).toBe('read');
  });
});

function chainMap() {
  return new Map(Object.entries(CHAIN));
}
