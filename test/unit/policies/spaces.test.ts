import { describe, expect, it } from 'vitest';
import { inheritedLevel, spacePermissions, spaceRole, type AccessContext } from '../../../src/policies/spaces.js';
import { ROLES, type Role } from '../../../src/core/roles.js';
import type { SpaceRow } from '../../../src/db/repos/spaces.js';

// The pure half of the space policy: what role a caller has on a space, given what accessContext
// and explicitSpaceRoles load (the organization role and the collection chain). requireSpace, which
// loads them, is covered over HTTP in test/integration/spaces.

type Chain = Record<string, { parent: string | null; level: string | null }>;

/** orgRole: a role for a member, null for a guest, undefined for a non-member or a disabled member. */
function ctx(orgRole: Role | null | undefined, chain: Chain = {}): AccessContext {
  return { orgRole, collections: new Map(Object.entries(chain)) };
}

function space(fields: { visibility?: string; default_level?: string | null; parent_id?: string | null } = {}): SpaceRow {
  return { id: 'space1', organization_id: 'org1', visibility: 'private', default_level: 'inherit', parent_id: null, ...fields } as SpaceRow;
}

// docs (inherit) -> product (review) -> top;  team (null: members get nothing by default) -> top;
// open (inherit) -> top
const CHAIN: Chain = {
  docs: { parent: 'product', level: 'inherit' },
  product: { parent: null, level: 'review' },
  team: { parent: null, level: null },
  open: { parent: null, level: 'inherit' },
  inTeam: { parent: 'team', level: 'inherit' },
  reader: { parent: 'open', level: 'read' },
};

describe('spaceRole: organization members', () => {
  it('gives organization admins admin on every space, whatever its level, visibility or grants', () => {
    for (const s of [
      space(),
      space({ default_level: null }),
      space({ default_level: 'read', parent_id: 'team' }),
      space({ visibility: 'in-collection', parent_id: 'team' }),
    ]) {
      expect(spaceRole(ctx('admin', CHAIN), s, undefined)).toBe('admin');
      expect(spaceRole(ctx('admin', CHAIN), s, 'read')).toBe('admin');
    }
  });

  it('gives a top-level space with defaultLevel inherit the organization role of the member', () => {
    for (const role of ROLES) expect(spaceRole(ctx(role), space(), undefined)).toBe(role);
  });

  it('gives a space with a defaultLevel that level, above or below the organization role', () => {
    expect(spaceRole(ctx('create'), space({ default_level: 'read' }), undefined)).toBe('read');
    expect(spaceRole(ctx('read'), space({ default_level: 'edit' }), undefined)).toBe('edit');
  });

  it('gives no default access to a space with defaultLevel null (private to its grants)', () => {
    expect(spaceRole(ctx('create'), space({ default_level: null }), undefined)).toBeNull();
    expect(spaceRole(ctx('create'), space({ default_level: null }), 'comment')).toBe('comment');
  });

  it('keeps the higher of an explicit grant and the default level', () => {
    expect(spaceRole(ctx('read'), space(), 'edit')).toBe('edit');
    expect(spaceRole(ctx('review'), space(), 'comment')).toBe('review');
    expect(spaceRole(ctx('comment'), space({ default_level: 'read' }), 'admin')).toBe('admin');
  });
});

describe('spaceRole: collection chains', () => {
  it('follows inherit up the chain to the first collection with a level', () => {
    expect(spaceRole(ctx('read', CHAIN), space({ parent_id: 'product' }), undefined)).toBe('review');
    expect(spaceRole(ctx('read', CHAIN), space({ parent_id: 'docs' }), undefined)).toBe('review');
    expect(spaceRole(ctx('admin', CHAIN), space({ parent_id: 'docs' }), undefined)).toBe('admin');
  });

  it('stops at a collection whose level is null: no default access below it', () => {
    expect(spaceRole(ctx('edit', CHAIN), space({ parent_id: 'team' }), undefined)).toBeNull();
    expect(spaceRole(ctx('edit', CHAIN), space({ parent_id: 'inTeam' }), undefined)).toBeNull();
    expect(spaceRole(ctx('edit', CHAIN), space({ parent_id: 'inTeam' }), 'read')).toBe('read');
  });

  it('reaches the organization role when every collection up to the top inherits', () => {
    expect(spaceRole(ctx('comment', CHAIN), space({ parent_id: 'open' }), undefined)).toBe('comment');
    expect(spaceRole(ctx('comment', CHAIN), space({ parent_id: 'reader' }), undefined)).toBe('read');
  });

  it('uses the level of the space before the level of its collection', () => {
    expect(spaceRole(ctx('read', CHAIN), space({ parent_id: 'team', default_level: 'edit' }), undefined)).toBe('edit');
    expect(spaceRole(ctx('edit', CHAIN), space({ parent_id: 'product', default_level: null }), undefined)).toBeNull();
  });

  it('makes an in-collection space take the level of its collection, ignoring its own defaultLevel', () => {
    expect(spaceRole(ctx('read', CHAIN), space({ visibility: 'in-collection', parent_id: 'docs', default_level: null }), undefined)).toBe(
      'review',
    );
    expect(
      spaceRole(ctx('read', CHAIN), space({ visibility: 'in-collection', parent_id: 'team', default_level: 'admin' }), undefined),
    ).toBeNull();
  });

  it('treats an unknown parent collection as the top of the chain', () => {
    expect(spaceRole(ctx('edit', CHAIN), space({ parent_id: 'gone' }), undefined)).toBe('edit');
  });

  it('ends a chain that loops back on itself at the organization role', () => {
    const loop: Chain = { a: { parent: 'b', level: 'inherit' }, b: { parent: 'a', level: 'inherit' } };
    expect(spaceRole(ctx('comment', loop), space({ parent_id: 'a' }), undefined)).toBe('comment');
  });
});

describe('spaceRole: guests, non-members and public spaces', () => {
  it('gives a guest only what they were granted explicitly, never an inherited level', () => {
    expect(spaceRole(ctx(null, CHAIN), space(), undefined)).toBeNull();
    expect(spaceRole(ctx(null, CHAIN), space({ default_level: 'edit' }), undefined)).toBeNull();
    expect(spaceRole(ctx(null, CHAIN), space({ parent_id: 'product' }), undefined)).toBeNull();
    expect(spaceRole(ctx(null, CHAIN), space({ parent_id: 'product' }), 'edit')).toBe('edit');
  });

  it('ignores the explicit grants of a non-member (removed or disabled)', () => {
    expect(spaceRole(ctx(undefined), space(), 'admin')).toBeNull();
    expect(spaceRole(ctx(undefined), space({ default_level: 'edit' }), undefined)).toBeNull();
  });

  it('lets anyone read public and unlisted spaces', () => {
    for (const visibility of ['public', 'unlisted']) {
      expect(spaceRole(ctx(undefined), space({ visibility }), undefined), visibility).toBe('read');
      expect(spaceRole(ctx(undefined), space({ visibility }), 'admin'), visibility).toBe('read');
      expect(spaceRole(ctx(null), space({ visibility }), undefined), visibility).toBe('read');
      expect(spaceRole(ctx('edit', CHAIN), space({ visibility, parent_id: 'team' }), undefined), visibility).toBe('read');
    }
  });

  it('does not lower a higher role on a public space', () => {
    expect(spaceRole(ctx('edit'), space({ visibility: 'public' }), undefined)).toBe('edit');
    expect(spaceRole(ctx(null), space({ visibility: 'public' }), 'comment')).toBe('comment');
  });

  it('opens no other visibility to outsiders', () => {
    for (const visibility of ['private', 'share-link', 'visitor-auth', 'in-collection']) {
      expect(spaceRole(ctx(undefined, CHAIN), space({ visibility, parent_id: 'product' }), undefined), visibility).toBeNull();
      expect(spaceRole(ctx(null, CHAIN), space({ visibility, parent_id: 'product' }), undefined), visibility).toBeNull();
    }
  });
});

describe('inheritedLevel', () => {
  it('returns a level that is not inherit as it is', () => {
    expect(inheritedLevel(ctx('admin', CHAIN), 'comment', 'product')).toBe('comment');
    expect(inheritedLevel(ctx('admin', CHAIN), null, 'product')).toBeNull();
  });

  it('resolves inherit through the chain, and to the organization role at its top', () => {
    expect(inheritedLevel(ctx('read', CHAIN), 'inherit', 'docs')).toBe('review');
    expect(inheritedLevel(ctx('read', CHAIN), 'inherit', 'team')).toBeNull();
    expect(inheritedLevel(ctx('edit', CHAIN), 'inherit', 'open')).toBe('edit');
    expect(inheritedLevel(ctx('edit', CHAIN), 'inherit', null)).toBe('edit');
  });

  it('resolves to no role at the top for a guest or a non-member', () => {
    expect(inheritedLevel(ctx(null, CHAIN), 'inherit', 'open')).toBeNull();
    expect(inheritedLevel(ctx(undefined, CHAIN), 'inherit', null)).toBeNull();
  });
});

describe('spacePermissions', () => {
  /** The permission names that are true, sorted. */
  const granted = (role: Role | null) =>
    Object.entries(spacePermissions(role))
      .filter(([, v]) => v)
      .map(([k]) => k)
      .sort();

  it('grants each role what the role below it has, plus its own', () => {
    expect(granted(null)).toEqual([]);
    expect(granted('read')).toEqual(['access', 'view']);
    expect(granted('comment')).toEqual(['access', 'comment', 'view']);
    expect(granted('edit')).toEqual(['access', 'comment', 'edit', 'triggerGitSync', 'view']);
    expect(granted('review')).toEqual(['access', 'comment', 'edit', 'merge', 'review', 'triggerGitSync', 'view']);
    expect(granted('create')).toEqual(granted('review'));
    expect(granted('admin')).toEqual([
      'access',
      'admin',
      'comment',
      'edit',
      'installIntegration',
      'merge',
      'review',
      'triggerGitSync',
      'view',
      'viewInviteLinks',
    ]);
  });
});
