// Who may do what on teams. Organization admins and the team's owners administer a team (rename,
// delete, change members); members with a role see every team of the organization; guests see
// only the teams they belong to. A team the caller may not see is a 404.
import type { Principal } from '../auth/principal.js';
import type { Queryable } from '../db/pool.js';
import { getTeam, teamMemberRole, type TeamRole, type TeamRow } from '../db/repos/teams.js';
import type { TeamPermissions } from '../presenters/teams.js';
import { forbidden, notFound } from '../core/errors.js';
import { atLeast, type Role } from '../core/roles.js';
import { requireOrg } from './organizations.js';

/** Pure: a caller's permissions on a team from their organization role and their role in the team. */
export function teamPermissions(orgRole: Role | null, teamRole: TeamRole | null): TeamPermissions {
  return { admin: atLeast(orgRole, 'admin') || teamRole === 'owner', view: orgRole !== null || teamRole !== null };
}

export interface TeamAccess {
  team: TeamRow;
  permissions: TeamPermissions;
  orgRole: Role | null;
}

/** Load a team of `orgId` and require `needed` on it: 404 when absent or hidden, 403 when too weak. */
export async function requireTeam(
  db: Queryable,
  p: Principal,
  orgId: string,
  teamId: string,
  needed: keyof TeamPermissions = 'view',
): Promise<TeamAccess> {
  const { role } = await requireOrg(db, p, orgId, 'view');
  const team = await getTeam(db, orgId, teamId);
  if (!team) throw notFound(`Team "${teamId}" not found`);
  const permissions = teamPermissions(role, await teamMemberRole(db, teamId, p.userId));
  if (!permissions.view) throw notFound(`Team "${teamId}" not found`);
  if (!permissions[needed]) throw forbidden('Only organization admins and team owners can change this team');
  return { team, permissions, orgRole: role };
}
