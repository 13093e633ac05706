// Who may do what on comments and replies (the `permissions` of each object report exactly this):
// - reading needs `read` on the space; posting, replying, reacting, resolving, editing and
//   deleting need at least `comment` (`canTakePart`);
// - only the author edits a comment's or reply's body;
// - resolving and reopening: the author, anyone with `review` or more on the space, and, on a
//   change request, its creator (who answers the review);
// - deleting: the author, or a space admin for anyone's.
import type { Principal } from '../auth/principal.js';
import type { ChangeRequestRow } from '../db/repos/change-requests.js';
import type { CommentPermissions } from '../presenters/comments.js';
import { atLeast, type Role } from '../core/roles.js';

/** The caller's standing on a comment base: their role on the space, and the change request if any. */
interface CommentBaseAccess {
  role: Role;
  cr: Pick<ChangeRequestRow, 'created_by'> | null;
}

const canTakePart = (base: CommentBaseAccess) => atLeast(base.role, 'comment');

export const isAuthor = (p: Principal, postedBy: string | null) => postedBy !== null && postedBy === p.userId;

export function commentPermissions(base: CommentBaseAccess, p: Principal, postedBy: string | null): CommentPermissions {
  const takePart = canTakePart(base);
  return {
    view: true,
    edit: takePart && isAuthor(p, postedBy),
    reply: takePart,
    delete: (takePart && isAuthor(p, postedBy)) || atLeast(base.role, 'admin'),
  };
}

export function canResolve(base: CommentBaseAccess, p: Principal, postedBy: string | null) {
  return (
    canTakePart(base) && (isAuthor(p, postedBy) || atLeast(base.role, 'review') || (base.cr !== null && base.cr.created_by === p.userId))
  );
}
