import type { Principal } from '../auth/principal.js';
import { atLeast } from '../core/roles.js';
import { forbidden, notFound } from '../core/errors.js';
import type { Role } from '../core/roles.js';
import { getOrgForUser, type OrgWithMembership } from '../db/repos/organizations.js';
import type { Queryable } from '../db/pool.js';
import type { OrgPermissions } from '../presenters/organizations.js';
import { blockedBySso } from './sso.js';

/** The caller's permissions on an organization, computed from their membership and role. */
export function orgPermissions(org: OrgWithMembership): OrgPermissions {
  const role = org.is_member ? (org.member_role as Role | null) : null;
  const member = org.is_member;
  const isAdmin = atLeast(role, 'admin');
  return {
    view: member,
    access: member && role !== null,
    admin: isAdmin,
    ownTeam: member && org.owns_team,
    createContent: atLeast(role, 'create'),
    createOpenAPISpec: atLeast(role, 'create'),
    ingestConversations: isAdmin,
    viewBilling: isAdmin,
    listMembers: member && role !== null,
    listTeams: member && role !== null,
    listIntegrations: member && role !== null,
    listInstallations: isAdmin,
    installIntegration: isAdmin,
  };
}

/**
 * Load an organization for the caller and check one of their permissions.
 * 404 when the organization does not exist, 403 when the caller lacks the permission.
 */
export async function requireOrg(
  db: Queryable,
  principal: Principal,
  orgId: string,
  permission: keyof OrgPermissions = 'view',
): Promise<{ org: OrgWithMembership; permissions: OrgPermissions; role: Role | null }> {
  const org = await getOrgForUser(db, orgId, principal.userId);
  if (!org) throw notFound(`Organization "${orgId}" not found`);
  const permissions = orgPermissions(org);
  if (!permissions.view) throw forbidden(`You are not a member of organization "${orgId}"`);
  const role = org.is_member ? (org.member_role as Role | null) : undefined;
  if (blockedBySso(org.sso, org.id, role, principal)) {
    throw forbidden(`Organization "${orgId}" requires single sign-on: sign in through one of its identity providers`);
  }
  if (!permissions[permission]) throw forbidden(`Your role in organization "${orgId}" does not allow this action`);
  return { org, permissions, role: org.is_member ? (org.member_role as Role | null) : null };
}
