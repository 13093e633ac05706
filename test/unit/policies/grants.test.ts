import { describe, expect, it } from 'vitest';
import { grantOnChain, highestRole, spaceRole, type AccessContext } from '../../../src/policies/spaces.js';
import { collectionRole } from '../../../src/policies/collections.js';
import { teamPermissions } from '../../../src/policies/teams.js';
import { blockedBySso } from '../../../src/policies/sso.js';
import type { SpaceRow } from '../../../src/db/repos/spaces.js';
import type { Role } from '../../../src/core/roles.js';

// The pure half of team and user grants: how explicit grants (own or a team's, on a space or on a
// collection above it) combine with inherited levels. Loading them is covered over HTTP in
// test/integration/teams/grants.test.ts.

// top (no default access) -> mid (inherit) ; other (read)
const chain = new Map([
  ['top', { parent: null, level: null }],
  ['mid', { parent: 'top', level: 'inherit' }],
  ['other', { parent: null, level: 'read' }],
]);
const ctx = (orgRole: Role | null | undefined, grants: Record<string, Role> = {}): AccessContext => ({
  orgRole,
  collections: chain,
  grants: new Map(Object.entries(grants)),
});
const space = (fields: Partial<SpaceRow> = {}) =>
  ({ id: 's', organization_id: 'o', visibility: 'private', default_level: 'inherit', parent_id: null, ...fields }) as SpaceRow;

describe('highestRole and grantOnChain', () => {
  it('takes the highest of several grants', () => {
    expect(highestRole(['read', 'edit', 'comment'])).toBe('edit');
    expect(highestRole([])).toBeNull();
    expect(highestRole(undefined)).toBeNull();
  });

  it('walks up from a collection through its ancestors, and survives a loop', () => {
    expect(grantOnChain(ctx(null, { top: 'edit' }), 'mid')).toBe('edit');
    expect(grantOnChain(ctx(null, { mid: 'read', top: 'comment' }), 'mid')).toBe('comment');
    expect(grantOnChain(ctx(null, { top: 'edit' }), 'other')).toBeNull();
    expect(grantOnChain(ctx(null, { top: 'edit' }), null)).toBeNull();
    const loop: AccessContext = {
      orgRole: null,
      collections: new Map([
        ['a', { parent: 'b', level: 'inherit' }],
        ['b', { parent: 'a', level: 'inherit' }],
      ]),
      grants: new Map([['b', 'read']]),
    };
    expect(grantOnChain(loop, 'a')).toBe('read');
  });
});

describe('spaceRole with grants', () => {
  it('gives a guest exactly the highest of their own and their teams’ grants, also through collections', () => {
    expect(spaceRole(ctx(null), space(), undefined)).toBeNull();
    expect(spaceRole(ctx(null), space(), 'read')).toBe('read');
    expect(spaceRole(ctx(null, { top: 'edit' }), space({ parent_id: 'mid' }), 'read')).toBe('edit');
    expect(spaceRole(ctx(null, { top: 'edit' }), space({ parent_id: 'other' }), undefined)).toBeNull();
  });

  it('lets a grant raise a member above the inherited level, never lower it', () => {
    expect(spaceRole(ctx('read', { top: 'edit' }), space({ parent_id: 'mid' }), undefined)).toBe('edit');
    expect(spaceRole(ctx('edit'), space({ default_level: 'inherit' }), 'read')).toBe('edit');
  });

  it('gives non-members nothing from grants (a removed member keeps nothing)', () => {
    expect(spaceRole(ctx(undefined, { top: 'admin' }), space({ parent_id: 'top' }), 'admin')).toBeNull();
  });
});

describe('collectionRole with grants', () => {
  it('shows a collection to a guest with a grant on it or above it', () => {
    expect(collectionRole(ctx(null), { id: 'mid', default_level: 'inherit', parent_id: 'top' })).toBeNull();
    expect(collectionRole(ctx(null, { top: 'comment' }), { id: 'mid', default_level: 'inherit', parent_id: 'top' })).toBe('comment');
    expect(collectionRole(ctx('read', { mid: 'create' }), { id: 'mid', default_level: 'inherit', parent_id: 'top' })).toBe('create');
  });
});

describe('teamPermissions', () => {
  it('admin for organization admins and team owners; view for members and for guests in the team', () => {
    expect(teamPermissions('admin', null)).toEqual({ admin: true, view: true });
    expect(teamPermissions('read', 'owner')).toEqual({ admin: true, view: true });
    expect(teamPermissions('create', 'member')).toEqual({ admin: false, view: true });
    expect(teamPermissions('edit', null)).toEqual({ admin: false, view: true });
    expect(teamPermissions(null, 'member')).toEqual({ admin: false, view: true });
    expect(teamPermissions(null, null)).toEqual({ admin: false, view: false });
  });
});

describe('blockedBySso', () => {
  const p = (ssoOrgId?: string | null) => ({ userId: 'u', tokenId: 't', ssoOrgId });
  it('blocks members (guests included) without a credential of the organization’s SSO; never admins or non-members', () => {
    expect(blockedBySso(true, 'o', 'edit', p())).toBe(true);
    expect(blockedBySso(true, 'o', null, p('other'))).toBe(true);
    expect(blockedBySso(true, 'o', 'edit', p('o'))).toBe(false);
    expect(blockedBySso(true, 'o', 'admin', p())).toBe(false);
    expect(blockedBySso(true, 'o', undefined, p())).toBe(false);
    expect(blockedBySso(false, 'o', 'edit', p())).toBe(false);
  });
});
