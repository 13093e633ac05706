import type { AppContext } from '../context.js';
import type { TeamRow } from '../db/repos/teams.js';
import type { MemberRow } from '../db/repos/members.js';
import { appUrls } from './urls.js';
import { toMember } from './users.js';

export interface TeamPermissions {
  /** May rename, delete the team and change its members (organization admins and team owners). */
  admin: boolean;
  /** May see the team and list its members. */
  view: boolean;
}

export function toTeam(app: AppContext, orgId: string, t: Omit<TeamRow, 'organization_id' | 'sort_key'>, permissions: TeamPermissions) {
  return {
    object: 'team',
    id: t.id,
    title: t.title,
    members: Number(t.members),
    spaces: Number(t.spaces),
    createdAt: t.created_at.toISOString(),
    permissions,
    urls: { location: appUrls(app).api(`/orgs/${orgId}/teams/${t.id}`) },
  };
}

/** One entry of a team's member list: the organization membership and the role in the team. */
export function toTeamMember(app: AppContext, m: MemberRow & { team_role: string }, view: boolean) {
  return { organization: toMember(app, m), team: { role: m.team_role }, permissions: { view } };
}
