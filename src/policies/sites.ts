// Who may do what on sites. A member's role on a site is the highest of: the site's default level
// for organization members (`inherit`: their organization role; null: nothing), their own site
// grant, and the grants of their teams. Organization admins administer every site; guests get only
// explicit grants; non-members and disabled members nothing. A site the caller has no role on is a
// 404; one they see but may not change is a 403. Only site admins change a site.
import type { Principal } from '../auth/principal.js';
import type { Queryable } from '../db/pool.js';
import { getMembership } from '../db/repos/members.js';
import { getSite, type SiteRow } from '../db/repos/sites.js';
import { siteGrantsOf } from '../db/repos/site-permissions.js';
import type { SitePermissions } from '../presenters/sites.js';
import { atLeast, maxRole, type Role } from '../core/roles.js';
import { forbidden, notFound } from '../core/errors.js';
import { orgEnforcesSso } from '../db/repos/organizations.js';
import { blockedBySso } from './sso.js';

export type OrgRole = Role | null | undefined;

/**
 * The caller's organization role as site checks see it: an organization that enforces SSO treats a
 * credential its SSO did not issue as a non-member's (as for spaces, see blockedBySso).
 */
export async function orgRoleOf(db: Queryable, orgId: string, p: Principal): Promise<OrgRole> {
  const [member, sso] = await Promise.all([getMembership(db, orgId, p.userId), orgEnforcesSso(db, orgId)]);
  const role = member && !member.disabled ? (member.role as Role | null) : undefined;
  return blockedBySso(sso, orgId, role, p) ? undefined : role;
}

export function siteRole(orgRole: OrgRole, site: Pick<SiteRow, 'default_level'>, grants: string[]): Role | null {
  if (orgRole === undefined) return null;
  if (orgRole === 'admin') return 'admin';
  let role: Role | null = null;
  if (orgRole) role = site.default_level === 'inherit' ? orgRole : (site.default_level as Role | null);
  for (const g of grants) role = maxRole(role, g as Role);
  return role;
}

/** Each site's role for `userId` (null: hidden). */
export async function siteRoles(db: Queryable, userId: string, orgRole: OrgRole, sites: SiteRow[]): Promise<Map<string, Role | null>> {
  const grants =
    orgRole === undefined || orgRole === 'admin'
      ? []
      : await siteGrantsOf(
          db,
          userId,
          sites.map((s) => s.id),
        );
  const bySite = new Map<string, string[]>();
  for (const g of grants) bySite.set(g.site_id, [...(bySite.get(g.site_id) ?? []), g.role]);
  return new Map(sites.map((s) => [s.id, siteRole(orgRole, s, bySite.get(s.id) ?? [])]));
}

export function sitePermissions(role: Role | null): SitePermissions {
  return {
    view: atLeast(role, 'read'),
    access: atLeast(role, 'read'),
    edit: atLeast(role, 'edit'),
    create: atLeast(role, 'create'),
    admin: atLeast(role, 'admin'),
    installIntegration: atLeast(role, 'admin'),
    viewAdaptiveSchema: atLeast(role, 'edit'),
    editAdaptiveSchema: atLeast(role, 'admin'),
  };
}

export interface SiteAccess {
  site: SiteRow;
  role: Role;
  orgRole: OrgRole;
}

/** Load a site of `orgId` and require `needed` on it: 404 when missing or hidden, 403 when too weak. */
export async function requireSite(db: Queryable, p: Principal, orgId: string, siteId: string, needed: Role = 'read'): Promise<SiteAccess> {
  const site = await getSite(db, siteId);
  if (!site || site.organization_id !== orgId) throw notFound(`Site "${siteId}" not found`);
  const orgRole = await orgRoleOf(db, orgId, p);
  const role = (await siteRoles(db, p.userId, orgRole, [site])).get(site.id) ?? null;
  if (!role) throw notFound(`Site "${siteId}" not found`);
  if (!atLeast(role, needed)) throw forbidden(`Your role on this site (${role}) does not allow this action`);
  return { site, role, orgRole };
}
