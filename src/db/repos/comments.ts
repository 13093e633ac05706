import type { Queryable } from '../pool.js';
import { SELECT_MEMBER, type MemberRow } from './members.js';

// Comments and replies on a space's main content (change_request_id IS NULL) or on one change
// request. Every query is scoped to that base, so an id of another base reads as absent.

export interface CommentBase {
  spaceId: string;
  /** null: the space's main content. */
  changeRequestId: string | null;
}

export type CommentStatus = 'open' | 'resolved';

interface UserColumns {
  poster_name: string | null;
  poster_email: string | null;
  poster_photo: string | null;
  resolver_name: string | null;
  resolver_email: string | null;
  resolver_photo: string | null;
}

export interface CommentRow extends UserColumns {
  id: string;
  space_id: string;
  change_request_id: string | null;
  page_id: string | null;
  node_id: string | null;
  table_cell: { record: string; definition: string } | null;
  body: string;
  status: CommentStatus;
  posted_by: string | null;
  posted_at: Date;
  edited_at: Date | null;
  resolved_at: Date | null;
  resolved_by: string | null;
  replies: number;
  /** posted_at as text: the keyset cursor keeps its full precision. */
  sort_key: string;
}

export interface ReplyRow extends UserColumns {
  id: string;
  comment_id: string;
  body: string;
  status: CommentStatus;
  posted_by: string | null;
  posted_at: Date;
  edited_at: Date | null;
  resolved_at: Date | null;
  resolved_by: string | null;
  sort_key: string;
}

const USER_JOINS = `
  LEFT JOIN users pu ON pu.id = x.posted_by
  LEFT JOIN users ru ON ru.id = x.resolved_by`;
const USER_COLUMNS = `pu.display_name AS poster_name, pu.email AS poster_email, pu.photo_url AS poster_photo,
  ru.display_name AS resolver_name, ru.email AS resolver_email, ru.photo_url AS resolver_photo`;

const SELECT_COMMENT = `SELECT x.*, x.posted_at::text AS sort_key, ${USER_COLUMNS},
  (SELECT count(*) FROM comment_replies r WHERE r.comment_id = x.id) AS replies
  FROM comments x ${USER_JOINS}`;

const SELECT_REPLY = `SELECT x.*, x.posted_at::text AS sort_key, ${USER_COLUMNS} FROM comment_replies x ${USER_JOINS}`;

/** WHERE clause (alias `alias`) selecting the comments of a base; pushes its parameters. */
function baseWhere(alias: string, base: CommentBase, params: unknown[]): string {
  params.push(base.spaceId);
  const space = `${alias}.space_id = $${params.length}`;
  if (base.changeRequestId === null) return `${space} AND ${alias}.change_request_id IS NULL`;
  params.push(base.changeRequestId);
  return `${space} AND ${alias}.change_request_id = $${params.length}`;
}

export async function insertComment(
  db: Queryable,
  c: {
    id: string;
    base: CommentBase;
    pageId: string | null;
    nodeId: string | null;
    tableCell: { record: string; definition: string } | null;
    body: string;
    postedBy: string;
  },
) {
  await db.query(
    `INSERT INTO comments (id, space_id, change_request_id, page_id, node_id, table_cell, body, posted_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      c.id,
      c.base.spaceId,
      c.base.changeRequestId,
      c.pageId,
      c.nodeId,
      c.tableCell ? JSON.stringify(c.tableCell) : null,
      c.body,
      c.postedBy,
    ],
  );
}

export async function getComment(db: Queryable, base: CommentBase, id: string, forUpdate = false): Promise<CommentRow | null> {
  const params: unknown[] = [id];
  const where = `x.id = $1 AND ${baseWhere('x', base, params)}`;
  if (forUpdate) await db.query(`SELECT 1 FROM comments x WHERE ${where} FOR UPDATE`, params);
  const { rows } = await db.query<CommentRow>(`${SELECT_COMMENT} WHERE ${where}`, params);
  return rows[0] ?? null;
}

export interface CommentListOptions {
  order: 'asc' | 'desc';
  status?: CommentStatus;
  pageId?: string;
  authors?: string[];
  limit: number;
  after?: [string, string];
}

/** Keyset-paginated by (posted_at, id) in either direction; `count` ignores the cursor. */
export async function listComments(db: Queryable, base: CommentBase, o: CommentListOptions) {
  const params: unknown[] = [];
  const where = [baseWhere('x', base, params)];
  if (o.status) {
    params.push(o.status);
    where.push(`x.status = $${params.length}`);
  }
  if (o.pageId) {
    params.push(o.pageId);
    where.push(`x.page_id = $${params.length}`);
  }
  if (o.authors?.length) {
    params.push(o.authors);
    where.push(`x.posted_by = ANY($${params.length}::text[])`);
  }
  const countSql = `SELECT count(*) AS n FROM comments x WHERE ${where.join(' AND ')}`;
  const countParams = [...params];
  const cmp = o.order === 'asc' ? '>' : '<';
  if (o.after) {
    params.push(o.after[0], o.after[1]);
    where.push(`(x.posted_at, x.id) ${cmp} ($${params.length - 1}::timestamptz, $${params.length})`);
  }
  params.push(o.limit + 1);
  const dir = o.order === 'asc' ? 'ASC' : 'DESC';
  const { rows } = await db.query<CommentRow>(
    `${SELECT_COMMENT} WHERE ${where.join(' AND ')} ORDER BY x.posted_at ${dir}, x.id ${dir} LIMIT $${params.length}`,
    params,
  );
  const { rows: c } = await db.query(countSql, countParams);
  return { rows, count: c[0].n as number };
}

export async function updateCommentBody(db: Queryable, table: 'comments' | 'comment_replies', id: string, body: string) {
  await db.query(`UPDATE ${table} SET body = $2, edited_at = clock_timestamp() WHERE id = $1`, [id, body]);
}

/**
 * Resolve (keeping the first resolution when already resolved) or reopen a comment or reply.
 * Reopening clears who resolved it and when.
 */
export async function setResolved(db: Queryable, table: 'comments' | 'comment_replies', id: string, resolved: boolean, userId: string) {
  if (resolved) {
    await db.query(
      `UPDATE ${table} SET status = 'resolved', resolved_at = clock_timestamp(), resolved_by = $2 WHERE id = $1 AND status = 'open'`,
      [id, userId],
    );
  } else {
    await db.query(`UPDATE ${table} SET status = 'open', resolved_at = NULL, resolved_by = NULL WHERE id = $1`, [id]);
  }
}

/** Delete a comment, its replies and every reaction to either. */
export async function deleteComment(db: Queryable, id: string) {
  await db.query(
    `DELETE FROM comment_reactions WHERE target_id = $1 OR target_id IN (SELECT id FROM comment_replies WHERE comment_id = $1)`,
    [id],
  );
  await db.query('DELETE FROM comments WHERE id = $1', [id]);
}

// ---- replies ----

export async function insertReply(db: Queryable, r: { id: string; commentId: string; body: string; postedBy: string }) {
  await db.query('INSERT INTO comment_replies (id, comment_id, body, posted_by) VALUES ($1, $2, $3, $4)', [
    r.id,
    r.commentId,
    r.body,
    r.postedBy,
  ]);
}

export async function getReply(db: Queryable, commentId: string, id: string): Promise<ReplyRow | null> {
  const { rows } = await db.query<ReplyRow>(`${SELECT_REPLY} WHERE x.comment_id = $1 AND x.id = $2`, [commentId, id]);
  return rows[0] ?? null;
}

/** Replies in conversation order (oldest first), keyset-paginated by (posted_at, id). */
export async function listReplies(db: Queryable, commentId: string, o: { limit: number; after?: [string, string] }) {
  const params: unknown[] = [commentId];
  const where = ['x.comment_id = $1'];
  if (o.after) {
    params.push(o.after[0], o.after[1]);
    where.push(`(x.posted_at, x.id) > ($2::timestamptz, $3)`);
  }
  params.push(o.limit + 1);
  const { rows } = await db.query<ReplyRow>(
    `${SELECT_REPLY} WHERE ${where.join(' AND ')} ORDER BY x.posted_at, x.id LIMIT $${params.length}`,
    params,
  );
  const { rows: c } = await db.query('SELECT count(*) AS n FROM comment_replies WHERE comment_id = $1', [commentId]);
  return { rows, count: c[0].n as number };
}

export async function deleteReply(db: Queryable, id: string) {
  await db.query('DELETE FROM comment_reactions WHERE target_id = $1', [id]);
  await db.query('DELETE FROM comment_replies WHERE id = $1', [id]);
}

export interface ReplierRow {
  comment_id: string;
  user_id: string;
  count: number;
  updated_at: Date;
  display_name: string;
  email: string;
  photo_url: string | null;
}

/** Per comment, each user who replied: how many replies and the time of their latest, first replier first. */
export async function listRepliers(db: Queryable, commentIds: string[]): Promise<ReplierRow[]> {
  if (!commentIds.length) return [];
  const { rows } = await db.query<ReplierRow>(
    `SELECT r.comment_id, r.posted_by AS user_id, count(*) AS count, max(r.posted_at) AS updated_at,
            u.display_name, u.email, u.photo_url
       FROM comment_replies r JOIN users u ON u.id = r.posted_by
      WHERE r.comment_id = ANY($1::text[])
      GROUP BY r.comment_id, r.posted_by, u.display_name, u.email, u.photo_url
      ORDER BY r.comment_id, min(r.posted_at), r.posted_by`,
    [commentIds],
  );
  return rows;
}

// ---- reactions (of comments and replies alike: ids never collide) ----

export interface ReactionRow {
  target_id: string;
  emoji: string;
  user_id: string;
  reacted_at: Date;
  display_name: string;
  email: string;
  photo_url: string | null;
}

/** Every reaction to the targets, oldest first (so emojis come in the order they were first used). */
export async function listReactions(db: Queryable, targetIds: string[]): Promise<ReactionRow[]> {
  if (!targetIds.length) return [];
  const { rows } = await db.query<ReactionRow>(
    `SELECT r.target_id, r.emoji, r.user_id, r.reacted_at, u.display_name, u.email, u.photo_url
       FROM comment_reactions r JOIN users u ON u.id = r.user_id
      WHERE r.target_id = ANY($1::text[])
      ORDER BY r.reacted_at, r.emoji, r.user_id`,
    [targetIds],
  );
  return rows;
}

/** A user reacts once per emoji: adding an existing reaction changes nothing (not even its time). */
export async function addReactions(db: Queryable, targetId: string, userId: string, emojis: string[]) {
  if (!emojis.length) return;
  await db.query(
    `INSERT INTO comment_reactions (target_id, emoji, user_id)
     SELECT $1, e, $3 FROM unnest($2::text[]) AS e ON CONFLICT DO NOTHING`,
    [targetId, [...new Set(emojis)], userId],
  );
}

/** Removes only the caller's own reactions; removing one never added is harmless. */
export async function removeReactions(db: Queryable, targetId: string, userId: string, emojis: string[]) {
  if (!emojis.length) return;
  await db.query('DELETE FROM comment_reactions WHERE target_id = $1 AND user_id = $2 AND emoji = ANY($3::text[])', [
    targetId,
    userId,
    emojis,
  ]);
}

// ---- commenters ----

export type CommenterRow = MemberRow & { sort_key: string };

/**
 * Organization members who posted a comment or a reply on the base, in the order they first took
 * part (keyset by (first post time, user id)). Users no longer members are left out: a Member
 * object describes a membership.
 */
export async function listCommenters(db: Queryable, orgId: string, base: CommentBase, o: { limit: number; after?: [string, string] }) {
  const params: unknown[] = [];
  const inBase = baseWhere('c', base, params);
  params.push(orgId);
  const org = `$${params.length}`;
  const firsts = `WITH posts AS (
      SELECT c.posted_by AS user_id, c.posted_at FROM comments c WHERE ${inBase}
      UNION ALL
      SELECT r.posted_by, r.posted_at FROM comment_replies r JOIN comments c ON c.id = r.comment_id WHERE ${inBase}
    ), firsts AS (
      SELECT user_id, min(posted_at) AS first_at FROM posts WHERE user_id IS NOT NULL GROUP BY user_id
    )`;
  const from = `FROM firsts f JOIN members m ON m.organization_id = ${org} AND m.user_id = f.user_id JOIN users u ON u.id = m.user_id`;
  const countParams = [...params];
  const where: string[] = ['true'];
  if (o.after) {
    params.push(o.after[0], o.after[1]);
    where.push(`(f.first_at, m.user_id) > ($${params.length - 1}::timestamptz, $${params.length})`);
  }
  params.push(o.limit + 1);
  const { rows } = await db.query<CommenterRow>(
    `${firsts} SELECT ${SELECT_MEMBER}, f.first_at::text AS sort_key ${from}
      WHERE ${where.join(' AND ')} ORDER BY f.first_at, m.user_id LIMIT $${params.length}`,
    params,
  );
  const { rows: c } = await db.query(`${firsts} SELECT count(*) AS n ${from}`, countParams);
  return { rows, count: c[0].n as number };
}
