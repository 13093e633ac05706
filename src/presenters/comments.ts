// Comment and CommentReply objects. What the presenter needs beyond the row (reactions, repliers,
// the target page as the base's current content has it, a node's preview text, the caller's
// permissions) is gathered by the service (src/services/comments.ts) and passed in.
import type { AppContext } from '../context.js';
import type { CommentBase, CommentRow, ReactionRow, ReplierRow, ReplyRow } from '../db/repos/comments.js';
import type { TreePage } from '../content/snapshot.js';
import { appUrls } from './urls.js';
import { toUser } from './users.js';

export type OutputFormat = 'markdown' | 'document';

/** What the caller may do on a comment or reply (computed by src/policies/comments.ts). */
export interface CommentPermissions {
  view: boolean;
  edit: boolean;
  reply: boolean;
  delete: boolean;
}

/** Where comments live: a space's main content or a change request's, at its current revision. */
export interface CommentBaseView extends CommentBase {
  /** Revision whose content comment targets refer to. */
  revisionId: string;
  /** API path of the base, without /v1. */
  path: string;
}

type UserCols = { id: string | null; name: string | null; email: string | null; photo: string | null };

function userOf(app: AppContext, u: UserCols) {
  // A deleted account leaves its comments behind (posted_by is set to NULL).
  if (!u.id)
    return { object: 'user', id: 'deleted-user', displayName: 'Deleted user', urls: { location: appUrls(app).api('/users/deleted-user') } };
  return toUser(app, { id: u.id, display_name: u.name ?? '', email: u.email ?? '', photo_url: u.photo });
}

/** A body as the reader asked for it: Markdown, or the JSON document the service made of it. */
export type CommentBody = { markdown: string } | { document: unknown };

function reactionsOf(app: AppContext, rows: ReactionRow[]) {
  const byEmoji = new Map<string, { emoji: string; count: number; users: { user: ReturnType<typeof toUser>; reactedAt: string }[] }>();
  for (const r of rows) {
    let e = byEmoji.get(r.emoji);
    if (!e) byEmoji.set(r.emoji, (e = { emoji: r.emoji, count: 0, users: [] }));
    e.count++;
    e.users.push({
      user: toUser(app, { id: r.user_id, display_name: r.display_name, email: r.email, photo_url: r.photo_url }),
      reactedAt: r.reacted_at.toISOString(),
    });
  }
  return [...byEmoji.values()];
}

function statusFields(app: AppContext, row: CommentRow | ReplyRow) {
  if (row.status === 'resolved') {
    return {
      status: 'resolved' as const,
      resolvedAt: (row.resolved_at ?? row.posted_at).toISOString(),
      resolvedBy: userOf(app, { id: row.resolved_by, name: row.resolver_name, email: row.resolver_email, photo: row.resolver_photo }),
    };
  }
  return { status: 'open' as const };
}

interface CommentExtras {
  reactions: ReactionRow[];
  repliers: ReplierRow[];
  /** The target page in the base's current content; undefined when it is no longer there. */
  page: TreePage | undefined;
  /** Text of the target node (a heading of the page), when found. */
  preview: string | undefined;
  permissions: CommentPermissions;
  body: CommentBody;
}

export function toComment(app: AppContext, base: CommentBaseView, row: CommentRow, x: CommentExtras) {
  const target: Record<string, unknown> = {};
  if (row.node_id) target.node = { id: row.node_id, ...(x.preview !== undefined ? { preview: x.preview } : {}) };
  if (row.table_cell) target.tableCell = row.table_cell;
  if (base.changeRequestId) target.changeRequest = base.changeRequestId;
  if (row.page_id) {
    const tp = x.page;
    target.page = tp
      ? {
          id: row.page_id,
          title: tp.node.title,
          ...(tp.node.emoji ? { emoji: tp.node.emoji } : {}),
          ...(tp.node.icon ? { icon: tp.node.icon } : {}),
          createdAt: tp.node.createdAt,
          updatedAt: tp.node.updatedAt,
          path: tp.path,
          // Outdated: the page was edited after the comment was written.
          outdated: Date.parse(tp.node.updatedAt) > row.posted_at.getTime(),
        }
      : { id: row.page_id, outdated: true };
  }
  target.space = base.spaceId;
  target.revision = base.revisionId;
  return {
    object: 'comment',
    id: row.id,
    postedBy: userOf(app, { id: row.posted_by, name: row.poster_name, email: row.poster_email, photo: row.poster_photo }),
    postedAt: row.posted_at.toISOString(),
    ...(row.edited_at ? { editedAt: row.edited_at.toISOString() } : {}),
    reactions: reactionsOf(app, x.reactions),
    replies: row.replies,
    repliers: x.repliers.map((r) => ({
      updatedAt: r.updated_at.toISOString(),
      count: r.count,
      user: toUser(app, { id: r.user_id, display_name: r.display_name, email: r.email, photo_url: r.photo_url }),
    })),
    body: x.body,
    target,
    urls: { location: appUrls(app).api(`${base.path}/comments/${row.id}`) },
    permissions: x.permissions,
    ...statusFields(app, row),
  };
}

export function toReply(
  app: AppContext,
  base: CommentBaseView,
  row: ReplyRow,
  x: Pick<CommentExtras, 'reactions' | 'permissions' | 'body'>,
) {
  return {
    object: 'comment-reply',
    id: row.id,
    postedBy: userOf(app, { id: row.posted_by, name: row.poster_name, email: row.poster_email, photo: row.poster_photo }),
    postedAt: row.posted_at.toISOString(),
    ...(row.edited_at ? { editedAt: row.edited_at.toISOString() } : {}),
    reactions: reactionsOf(app, x.reactions),
    body: x.body,
    urls: { location: appUrls(app).api(`${base.path}/comments/${row.comment_id}/replies/${row.id}`) },
    permissions: x.permissions,
    // Not in the public description's reply shape, but the change request base resolves replies:
    // the state is shown the same way as a comment's.
    ...statusFields(app, row),
  };
}
