// Comments and replies on a space's main content or on a change request (the "base").
//
// Rules: who may read, post, edit, resolve and delete is src/policies/comments.ts (each
// `permissions` object reports exactly that for the caller). Deleting removes replies and
// reactions; deleting something absent is a 204, as every delete of the API.
// - Reactions: one per user per emoji; adding twice changes nothing, removing one never added is
//   harmless, and nobody removes another user's reaction.
//
// Targets: `page` must exist in the base's content (main revision or the change request's). A
// page target is `outdated` when that page's `updatedAt` in the base's current content is later
// than the comment's `postedAt` (the page was edited after the comment was written), or when the
// page is no longer there. `target.revision` is the base's current revision, where the target is
// looked up. A `node` is the id of a block of the page (headings carry ids, as in the JSON
// document); its `preview` is that heading's text when it is found in the page.
import type { AppContext } from '../context.js';
import type { Principal } from '../auth/principal.js';
import type { Role } from '../core/roles.js';
import type { SpaceRow } from '../db/repos/spaces.js';
import type { ChangeRequestRow } from '../db/repos/change-requests.js';
import * as repo from '../db/repos/comments.js';
import type { CommentRow, ReplyRow } from '../db/repos/comments.js';
import { withTx } from '../db/pool.js';
import { invalid, forbidden, notFound } from '../core/errors.js';
import { buildPage, decodeCursor, DEFAULT_LIMIT } from '../core/pagination.js';
import { newId } from '../util/ids.js';
import { revisionSnapshot } from '../content/commit.js';
import { loadBodies } from '../content/snapshot.js';
import type { JSONDocument } from '../content/markdown.js';
import { LIMITS } from '../content/limits.js';
import { requireSpace } from '../policies/spaces.js';
import { requireChangeRequest } from '../policies/change-requests.js';
import { canResolve, commentPermissions, isAuthor } from '../policies/comments.js';
import { toComment, toReply, type CommentBaseView, type CommentBody, type OutputFormat } from '../presenters/comments.js';
import { toMember } from '../presenters/users.js';

export interface BaseRef {
  spaceId: string;
  /** Id or number; absent for the space's main content. */
  changeRequestId?: string;
}

type DocumentInput = { markdown: string } | { document: JSONDocument };

interface Base {
  space: SpaceRow;
  role: Role;
  cr: ChangeRequestRow | null;
  /** Where the comments live (the repository's CommentBase) and how the presenter names it. */
  view: CommentBaseView;
}

async function openBase(app: AppContext, p: Principal, ref: BaseRef, needed: Role): Promise<Base> {
  if (ref.changeRequestId === undefined) {
    const { space, role } = await requireSpace(app.db, p, ref.spaceId, needed);
    return {
      space,
      role,
      cr: null,
      view: { spaceId: space.id, changeRequestId: null, revisionId: space.revision_id, path: `/spaces/${space.id}` },
    };
  }
  const { space, role, cr } = await requireChangeRequest(app, p, ref.spaceId, ref.changeRequestId, needed);
  return {
    space,
    role,
    cr,
    view: { spaceId: space.id, changeRequestId: cr.id, revisionId: cr.revision, path: `/spaces/${space.id}/change-requests/${cr.id}` },
  };
}

// ---- presentation ----

function groupBy<T>(rows: T[], key: (r: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const r of rows) {
    const k = key(r);
    const list = out.get(k);
    if (list) list.push(r);
    else out.set(k, [r]);
  }
  return out;
}

async function presentComments(app: AppContext, base: Base, p: Principal, rows: CommentRow[], format: OutputFormat) {
  const ids = rows.map((r) => r.id);
  const [reactions, repliers] = await Promise.all([repo.listReactions(app.db, ids), repo.listRepliers(app.db, ids)]);
  const reactionsBy = groupBy(reactions, (r) => r.target_id);
  const repliersBy = groupBy(repliers, (r) => r.comment_id);

  // Page targets are described from the base's current content; node previews need page bodies.
  const snapshot = rows.some((r) => r.page_id) ? (await revisionSnapshot(app.db, base.view.spaceId, base.view.revisionId)).snapshot : null;
  const previewPages = snapshot
    ? rows.filter((r) => r.node_id && r.page_id && snapshot.byId.has(r.page_id)).map((r) => snapshot.byId.get(r.page_id!)!.node)
    : [];
  const bodies = previewPages.length
    ? await loadBodies(app.db, base.view.spaceId, [...new Map(previewPages.map((n) => [n.id, n])).values()])
    : new Map<string, string>();
  const headingTexts = new Map<string, Map<string, string>>();
  for (const [pageId, md] of bodies) headingTexts.set(pageId, new Map((await app.markdown.headings(md)).map((x) => [x.id, x.title])));
  const preview = (pageId: string, nodeId: string): string | undefined => headingTexts.get(pageId)?.get(nodeId);
  const commentBodies = await bodiesOf(app, rows, format);

  return rows.map((row, k) =>
    toComment(app, base.view, row, {
      reactions: reactionsBy.get(row.id) ?? [],
      repliers: repliersBy.get(row.id) ?? [],
      page: row.page_id ? snapshot?.byId.get(row.page_id) : undefined,
      preview: row.node_id && row.page_id ? preview(row.page_id, row.node_id) : undefined,
      permissions: commentPermissions(base, p, row.posted_by),
      body: commentBodies[k],
    }),
  );
}

async function presentReplies(app: AppContext, base: Base, p: Principal, rows: ReplyRow[], format: OutputFormat) {
  const reactionsBy = groupBy(
    await repo.listReactions(
      app.db,
      rows.map((r) => r.id),
    ),
    (r) => r.target_id,
  );
  const replyBodies = await bodiesOf(app, rows, format);
  return rows.map((row, k) =>
    toReply(app, base.view, row, {
      reactions: reactionsBy.get(row.id) ?? [],
      permissions: commentPermissions(base, p, row.posted_by),
      body: replyBodies[k],
    }),
  );
}

/** Bodies as the reader asked; JSON documents are made on the Markdown pool (off the event loop). */
async function bodiesOf(app: AppContext, rows: { body: string }[], format: OutputFormat): Promise<CommentBody[]> {
  if (format !== 'document') return rows.map((r) => ({ markdown: r.body }));
  return Promise.all(rows.map(async (r) => ({ document: await app.markdown.document(r.body) })));
}

// ---- input ----

/**
 * A comment or reply body as stored (Markdown): a JSON document is checked and converted on the
 * Markdown pool; either form is held to the content limits (src/content/limits.ts) with a 400 naming
 * the limit.
 */
async function markdownOf(app: AppContext, input: DocumentInput, field: string): Promise<string> {
  let md: string;
  if ('markdown' in input) {
    md = input.markdown;
    const v = await app.markdown.scan(md, LIMITS.commentChars);
    if (v) throw invalid(`Invalid request: ${field}.markdown: ${v.message}`);
  } else {
    const out = await app.markdown.fromDocument(input.document, LIMITS.commentChars);
    if ('violation' in out)
      throw invalid(`Invalid request: ${field}.document${out.violation.path ? `.${out.violation.path}` : ''}: ${out.violation.message}`);
    md = out.markdown;
  }
  if (!md.trim()) throw invalid(`Invalid request: ${field}: a comment cannot be empty`);
  return md;
}

async function loadComment(app: AppContext, base: Base, commentId: string): Promise<CommentRow> {
  const row = await repo.getComment(app.db, base.view, commentId);
  if (!row) throw notFound(`Comment "${commentId}" not found`);
  return row;
}

async function loadReply(app: AppContext, commentId: string, replyId: string): Promise<ReplyRow> {
  const row = await repo.getReply(app.db, commentId, replyId);
  if (!row) throw notFound(`Reply "${replyId}" not found`);
  return row;
}

// ---- comments ----

interface CommentListQuery {
  page?: string;
  limit?: number;
  order: 'asc' | 'desc';
  status: 'all' | 'open' | 'resolved';
  targetPage?: string;
  authors?: string[];
  format: OutputFormat;
}

export async function listComments(app: AppContext, p: Principal, ref: BaseRef, q: CommentListQuery) {
  const base = await openBase(app, p, ref, 'read');
  const limit = q.limit ?? DEFAULT_LIMIT;
  const after = decodeCursor(q.page, 2) as [string, string] | undefined;
  const { rows, count } = await repo.listComments(app.db, base.view, {
    order: q.order,
    status: q.status === 'all' ? undefined : q.status,
    pageId: q.targetPage,
    authors: q.authors,
    limit,
    after,
  });
  const page = buildPage(
    rows,
    limit,
    count,
    (r) => [r.sort_key, r.id],
    (r) => r,
  );
  return { ...page, items: await presentComments(app, base, p, page.items, q.format) };
}

export async function getComment(app: AppContext, p: Principal, ref: BaseRef, commentId: string, format: OutputFormat) {
  const base = await openBase(app, p, ref, 'read');
  const [out] = await presentComments(app, base, p, [await loadComment(app, base, commentId)], format);
  return out;
}

interface PostComment {
  node?: string;
  page?: string;
  body: DocumentInput;
  tableCell?: { record: string; definition: string };
}

export async function postComment(app: AppContext, p: Principal, ref: BaseRef, input: PostComment, format: OutputFormat = 'markdown') {
  const base = await openBase(app, p, ref, 'comment');
  const body = await markdownOf(app, input.body, 'body.body');
  if (input.page !== undefined) {
    const { snapshot } = await revisionSnapshot(app.db, base.view.spaceId, base.view.revisionId);
    if (!snapshot.byId.has(input.page)) {
      throw invalid(
        `Invalid request: body.page: no page "${input.page}" in ${base.cr ? `change request #${base.cr.number}` : 'this space'}'s content`,
      );
    }
  }
  const id = newId();
  await repo.insertComment(app.db, {
    id,
    base: base.view,
    pageId: input.page ?? null,
    nodeId: input.node ?? null,
    tableCell: input.tableCell ?? null,
    body,
    postedBy: p.userId,
  });
  const [out] = await presentComments(app, base, p, [(await repo.getComment(app.db, base.view, id))!], format);
  return out;
}

interface UpdateInput {
  resolved?: boolean;
  body?: DocumentInput;
  addedReactions?: string[];
  removedReactions?: string[];
}

/** Check every part of an update before changing anything: a refused part leaves all unchanged. */
function checkUpdate(base: Base, p: Principal, postedBy: string | null, u: UpdateInput, what: string) {
  if (u.body !== undefined && !isAuthor(p, postedBy)) throw forbidden(`Only the author can edit this ${what}`);
  if (u.resolved !== undefined && !canResolve(base, p, postedBy)) {
    throw forbidden(
      `Only the author${base.cr ? ', the change request creator' : ''} or a member with the review role can resolve or reopen this ${what}`,
    );
  }
}

async function applyUpdate(
  app: AppContext,
  p: Principal,
  table: 'comments' | 'comment_replies',
  id: string,
  u: UpdateInput,
  body: string | undefined,
) {
  await withTx(app.db, async (c) => {
    if (body !== undefined) await repo.updateCommentBody(c, table, id, body);
    if (u.resolved !== undefined) await repo.setResolved(c, table, id, u.resolved, p.userId);
    await repo.removeReactions(c, id, p.userId, u.removedReactions ?? []);
    await repo.addReactions(c, id, p.userId, u.addedReactions ?? []);
  });
}

export async function updateComment(
  app: AppContext,
  p: Principal,
  ref: BaseRef,
  commentId: string,
  u: UpdateInput,
  format: OutputFormat = 'markdown',
) {
  const base = await openBase(app, p, ref, 'comment');
  const row = await loadComment(app, base, commentId);
  checkUpdate(base, p, row.posted_by, u, 'comment');
  const body = u.body !== undefined ? await markdownOf(app, u.body, 'body.body') : undefined;
  await applyUpdate(app, p, 'comments', row.id, u, body);
  return getComment(app, p, ref, row.id, format);
}

export async function deleteComment(app: AppContext, p: Principal, ref: BaseRef, commentId: string) {
  const base = await openBase(app, p, ref, 'comment');
  const row = await repo.getComment(app.db, base.view, commentId);
  if (!row) return;
  if (!commentPermissions(base, p, row.posted_by).delete) throw forbidden('Only the author or a space admin can delete this comment');
  await withTx(app.db, (c) => repo.deleteComment(c, row.id));
}

// ---- replies ----

export async function listReplies(
  app: AppContext,
  p: Principal,
  ref: BaseRef,
  commentId: string,
  q: { page?: string; limit?: number; format: OutputFormat },
) {
  const base = await openBase(app, p, ref, 'read');
  const comment = await loadComment(app, base, commentId);
  const limit = q.limit ?? DEFAULT_LIMIT;
  const after = decodeCursor(q.page, 2) as [string, string] | undefined;
  const { rows, count } = await repo.listReplies(app.db, comment.id, { limit, after });
  const page = buildPage(
    rows,
    limit,
    count,
    (r) => [r.sort_key, r.id],
    (r) => r,
  );
  return { ...page, items: await presentReplies(app, base, p, page.items, q.format) };
}

export async function getReply(app: AppContext, p: Principal, ref: BaseRef, commentId: string, replyId: string, format: OutputFormat) {
  const base = await openBase(app, p, ref, 'read');
  const comment = await loadComment(app, base, commentId);
  const [out] = await presentReplies(app, base, p, [await loadReply(app, comment.id, replyId)], format);
  return out;
}

export async function postReply(
  app: AppContext,
  p: Principal,
  ref: BaseRef,
  commentId: string,
  input: { body: DocumentInput },
  format: OutputFormat = 'markdown',
) {
  const base = await openBase(app, p, ref, 'comment');
  const comment = await loadComment(app, base, commentId);
  const body = await markdownOf(app, input.body, 'body.body');
  const id = newId();
  await repo.insertReply(app.db, { id, commentId: comment.id, body, postedBy: p.userId });
  const [out] = await presentReplies(app, base, p, [(await repo.getReply(app.db, comment.id, id))!], format);
  return out;
}

export async function updateReply(
  app: AppContext,
  p: Principal,
  ref: BaseRef,
  commentId: string,
  replyId: string,
  u: UpdateInput,
  format: OutputFormat = 'markdown',
) {
  const base = await openBase(app, p, ref, 'comment');
  const comment = await loadComment(app, base, commentId);
  const reply = await loadReply(app, comment.id, replyId);
  checkUpdate(base, p, reply.posted_by, u, 'reply');
  const body = u.body !== undefined ? await markdownOf(app, u.body, 'body.body') : undefined;
  await applyUpdate(app, p, 'comment_replies', reply.id, u, body);
  return getReply(app, p, ref, comment.id, reply.id, format);
}

export async function deleteReply(app: AppContext, p: Principal, ref: BaseRef, commentId: string, replyId: string) {
  const base = await openBase(app, p, ref, 'comment');
  const comment = await repo.getComment(app.db, base.view, commentId);
  const reply = comment && (await repo.getReply(app.db, comment.id, replyId));
  if (!reply) return;
  if (!commentPermissions(base, p, reply.posted_by).delete) throw forbidden('Only the author or a space admin can delete this reply');
  await withTx(app.db, (c) => repo.deleteReply(c, reply.id));
}

// ---- commenters ----

export async function listCommenters(app: AppContext, p: Principal, ref: BaseRef, q: { page?: string; limit?: number }) {
  const base = await openBase(app, p, ref, 'read');
  const limit = q.limit ?? DEFAULT_LIMIT;
  const after = decodeCursor(q.page, 2) as [string, string] | undefined;
  const { rows, count } = await repo.listCommenters(app.db, base.space.organization_id, base.view, { limit, after });
  return buildPage(
    rows,
    limit,
    count,
    (r) => [r.sort_key, r.user_id],
    (r) => toMember(app, r),
  );
}
