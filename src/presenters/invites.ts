import type { LinkInviteRow } from '../db/repos/invites.js';

/**
 * An invite link (InviteLinkToOrganization, or InviteLinkToSpace with its space). `url` and
 * `token` are given once, in the answer that created the link: only their hash is stored.
 */
export function toInviteLink(r: LinkInviteRow, extra: { space?: unknown; url?: string; token?: string }) {
  const secret = extra.token ? { token: extra.token, url: extra.url } : {};
  if (r.space_id && extra.space) {
    return { object: 'invite', id: r.id, level: r.role, redundant: false, space: extra.space, ...secret };
  }
  return { object: 'invite', id: r.id, role: r.role, redundant: false, ...secret };
}
