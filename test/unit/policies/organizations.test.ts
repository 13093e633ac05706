import { describe, expect, it } from 'vitest';
import { orgPermissions } from '../../../src/policies/organizations.js';
import type { OrgWithMembership } from '../../../src/db/repos/organizations.js';

// orgPermissions is pure: it reads the membership columns that getOrgForUser adds to an
// organization row (`is_member` is false for a disabled member, whose role stays in the row).
function org(membership: { is_member: boolean; member_role: string | null; owns_team?: boolean }): OrgWithMembership {
  return { id: 'org1', title: 'Acme', owns_team: false, ...membership } as unknown as OrgWithMembership;
}

/** The permission names that are true, sorted. */
const granted = (p: ReturnType<typeof orgPermissions>) =>
  Object.entries(p)
    .filter(([, v]) => v)
    .map(([k]) => k)
    .sort();

const MEMBER_LISTS = ['access', 'listIntegrations', 'listMembers', 'listTeams', 'view'];
const ADMIN_ONLY = ['admin', 'ingestConversations', 'installIntegration', 'listInstallations', 'viewBilling'];

describe('orgPermissions', () => {
  it('gives a non-member nothing', () => {
    expect(granted(orgPermissions(org({ is_member: false, member_role: null })))).toEqual([]);
  });

  it('gives a disabled member nothing, whatever role their row keeps', () => {
    expect(granted(orgPermissions(org({ is_member: false, member_role: 'admin', owns_team: true })))).toEqual([]);
  });

  it('lets a guest (member without a role) see the organization, and nothing more', () => {
    expect(granted(orgPermissions(org({ is_member: true, member_role: null })))).toEqual(['view']);
  });

  it('lets readers, commenters, editors and reviewers list members, teams and integrations', () => {
    for (const role of ['read', 'comment', 'edit', 'review']) {
      expect(granted(orgPermissions(org({ is_member: true, member_role: role }))), role).toEqual(MEMBER_LISTS);
    }
  });

  it('lets creators also create content and OpenAPI specs', () => {
    expect(granted(orgPermissions(org({ is_member: true, member_role: 'create' })))).toEqual(
      [...MEMBER_LISTS, 'createContent', 'createOpenAPISpec'].sort(),
    );
  });

  it('gives admins everything but team ownership', () => {
    const p = orgPermissions(org({ is_member: true, member_role: 'admin' }));
    expect(granted(p)).toEqual([...MEMBER_LISTS, ...ADMIN_ONLY, 'createContent', 'createOpenAPISpec'].sort());
    expect(p.ownTeam).toBe(false);
  });

  it('grants ownTeam to members who own a team, not to former members who did', () => {
    expect(orgPermissions(org({ is_member: true, member_role: 'read', owns_team: true })).ownTeam).toBe(true);
    expect(orgPermissions(org({ is_member: true, member_role: null, owns_team: true })).ownTeam).toBe(true);
    expect(orgPermissions(org({ is_member: false, member_role: 'read', owns_team: true })).ownTeam).toBe(false);
  });
});
