import type { AppContext } from '../context.js';
import type { MemberRow } from '../db/repos/members.js';
import { appUrls } from './urls.js';

interface UserColumns {
  id: string;
  display_name: string;
  email: string;
  photo_url: string | null;
}

export function toUser(app: AppContext, u: UserColumns) {
  return {
    object: 'user',
    id: u.id,
    displayName: u.display_name,
    email: u.email,
    ...(u.photo_url ? { photoURL: u.photo_url } : {}),
    urls: { location: appUrls(app).api(`/users/${u.id}`) },
  };
}

export function toMember(app: AppContext, m: MemberRow) {
  return {
    object: 'member',
    id: m.user_id,
    role: m.role,
    user: toUser(app, { id: m.user_id, display_name: m.display_name, email: m.email, photo_url: m.photo_url }),
    disabled: m.disabled,
    joinedAt: m.joined_at.toISOString(),
    ...(m.last_seen_at ? { lastSeenAt: m.last_seen_at.toISOString() } : {}),
    sso: m.sso,
    spaces: m.spaces,
    teams: m.teams,
    sites: 0,
  };
}
