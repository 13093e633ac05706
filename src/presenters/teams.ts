import type { AppContext } from '../context.js';
import type { TeamMembershipRow } from '../db/repos/teams.js';
import { appUrls } from './urls.js';

interface TeamPermissions {
  admin: boolean;
  view: boolean;
}

export function toTeam(app: AppContext, orgId: string, t: TeamMembershipRow, permissions: TeamPermissions) {
  return {
    object: 'team',
    id: t.id,
    title: t.title,
    members: t.members,
    spaces: 0,
    createdAt: t.created_at.toISOString(),
    permissions,
    urls: { location: appUrls(app).api(`/orgs/${orgId}/teams/${t.id}`) },
  };
}
