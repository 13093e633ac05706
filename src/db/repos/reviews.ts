// Change request reviews, requested reviewers, a space's merge rules, and the organization-wide
// change request list (issue 28).
import type { Queryable } from '../pool.js';
import { SELECT as CHANGE_REQUEST_SELECT, type ChangeRequestRow, type ChangeRequestStatus } from './change-requests.js';

export interface UserCols {
  id: string;
  display_name: string;
  email: string;
  photo_url: string | null;
}

// ---- merge rules ----

export async function getMergeRules(db: Queryable, spaceId: string): Promise<Record<string, unknown> | null> {
  const { rows } = await db.query<{ rules: Record<string, unknown> }>('SELECT rules FROM space_merge_rules WHERE space_id = $1', [spaceId]);
  return rows[0]?.rules ?? null;
}

/** null removes the space's own rules (back to inherit). */
export async function setMergeRules(db: Queryable, spaceId: string, rules: Record<string, unknown> | null): Promise<void> {
  if (rules === null) {
    await db.query('DELETE FROM space_merge_rules WHERE space_id = $1', [spaceId]);
    return;
  }
  await db.query(
    `INSERT INTO space_merge_rules (space_id, rules) VALUES ($1, $2)
     ON CONFLICT (space_id) DO UPDATE SET rules = EXCLUDED.rules, updated_at = clock_timestamp()`,
    [spaceId, JSON.stringify(rules)],
  );
}

// ---- reviews ----

export interface ReviewRow {
  id: string;
  change_request_id: string;
  reviewer_id: string;
  requested_by: string | null;
  revision: string;
  status: 'approved' | 'changes-requested';
  comment_id: string | null;
  created_at: Date;
  updated_at: Date;
  /**
   * Given on an older revision than the change request's current one, or superseded by the
   * reviewer's later review or by a later request that they review (the description's meaning).
   */
  outdated: boolean;
  reviewer: UserCols;
  requester: UserCols | null;
}

const userJson = (alias: string) =>
  `CASE WHEN ${alias}.id IS NULL THEN NULL ELSE json_build_object('id', ${alias}.id, 'display_name', ${alias}.display_name, 'email', ${alias}.email, 'photo_url', ${alias}.photo_url) END`;

const REVIEW_SELECT = `SELECT r.*,
  (r.revision <> cr.revision OR EXISTS (
     SELECT 1 FROM change_request_reviews l
     WHERE l.change_request_id = r.change_request_id AND l.reviewer_id = r.reviewer_id
       AND (l.created_at, l.id) > (r.created_at, r.id))
   OR EXISTS (
     SELECT 1 FROM change_request_reviewers q
     WHERE q.change_request_id = r.change_request_id AND q.user_id = r.reviewer_id AND q.created_at > r.created_at)) AS outdated,
  ${userJson('ru')} AS reviewer,
  ${userJson('qu')} AS requester
  FROM change_request_reviews r
  JOIN change_requests cr ON cr.id = r.change_request_id
  JOIN users ru ON ru.id = r.reviewer_id
  LEFT JOIN users qu ON qu.id = r.requested_by`;

export async function insertReview(
  db: Queryable,
  r: {
    id: string;
    changeRequestId: string;
    reviewerId: string;
    requestedBy: string | null;
    revision: string;
    status: string;
    commentId: string | null;
  },
): Promise<void> {
  await db.query(
    `INSERT INTO change_request_reviews (id, change_request_id, reviewer_id, requested_by, revision, status, comment_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [r.id, r.changeRequestId, r.reviewerId, r.requestedBy, r.revision, r.status, r.commentId],
  );
}

export async function countReviews(db: Queryable, changeRequestId: string): Promise<number> {
  const { rows } = await db.query<{ n: string }>('SELECT count(*) AS n FROM change_request_reviews WHERE change_request_id = $1', [
    changeRequestId,
  ]);
  return Number(rows[0].n);
}

export async function getReview(db: Queryable, changeRequestId: string, id: string): Promise<ReviewRow | null> {
  const { rows } = await db.query<ReviewRow>(`${REVIEW_SELECT} WHERE r.change_request_id = $1 AND r.id = $2`, [changeRequestId, id]);
  return rows[0] ?? null;
}

/** Newest first; keyset on (created_at, id) as text (microseconds kept). */
export async function listReviews(
  db: Queryable,
  changeRequestId: string,
  o: { outdated?: boolean; limit: number; after?: [string, string] },
): Promise<{ rows: (ReviewRow & { sort_key: string })[]; count: number }> {
  const inner = `SELECT * FROM (${REVIEW_SELECT.replace('SELECT r.*,', "SELECT r.*, to_char(r.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US') AS sort_key,")} WHERE r.change_request_id = $1) x`;
  const where: string[] = [];
  const params: unknown[] = [changeRequestId];
  if (o.outdated !== undefined) {
    params.push(o.outdated);
    where.push(`x.outdated = $${params.length}`);
  }
  const count = await db.query<{ n: string }>(
    `SELECT count(*) AS n FROM (${inner}${where.length ? ` WHERE ${where.join(' AND ')}` : ''}) c`,
    params,
  );
  if (o.after) {
    params.push(o.after[0], o.after[1]);
    where.push(`(x.sort_key, x.id) < ($${params.length - 1}, $${params.length})`);
  }
  params.push(o.limit + 1);
  const { rows } = await db.query<ReviewRow & { sort_key: string }>(
    `${inner}${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY x.sort_key DESC, x.id DESC LIMIT $${params.length}`,
    params,
  );
  return { rows, count: Number(count.rows[0].n) };
}

/** Each reviewer's latest review, current ones only (not given on an older revision). */
export async function currentReviews(db: Queryable, changeRequestId: string): Promise<ReviewRow[]> {
  const { rows } = await db.query<ReviewRow>(`SELECT * FROM (${REVIEW_SELECT} WHERE r.change_request_id = $1) x WHERE NOT x.outdated`, [
    changeRequestId,
  ]);
  return rows;
}

// ---- requested reviewers ----

export interface RequestedReviewerRow {
  change_request_id: string;
  user_id: string;
  requested_by: string | null;
  revision: string;
  created_at: Date;
  user: UserCols;
  requester: UserCols | null;
}

const REQUESTED_SELECT = `SELECT q.*, ${userJson('u')} AS "user", ${userJson('qu')} AS requester,
  to_char(q.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS sort_key
  FROM change_request_reviewers q
  JOIN users u ON u.id = q.user_id
  LEFT JOIN users qu ON qu.id = q.requested_by`;

/** Ask users to review (asked again: renewed with the current revision and requester). Returns the rows. */
export async function requestReviewers(
  db: Queryable,
  changeRequestId: string,
  userIds: string[],
  requestedBy: string,
  revision: string,
): Promise<RequestedReviewerRow[]> {
  if (!userIds.length) return [];
  await db.query(
    `INSERT INTO change_request_reviewers (change_request_id, user_id, requested_by, revision)
     SELECT $1, u, $3, $4 FROM unnest($2::text[]) AS u
     ON CONFLICT (change_request_id, user_id)
     DO UPDATE SET requested_by = EXCLUDED.requested_by, revision = EXCLUDED.revision, created_at = clock_timestamp()`,
    [changeRequestId, userIds, requestedBy, revision],
  );
  const { rows } = await db.query<RequestedReviewerRow>(`${REQUESTED_SELECT} WHERE q.change_request_id = $1 AND q.user_id = ANY($2)`, [
    changeRequestId,
    userIds,
  ]);
  return rows;
}

export async function getRequestedReviewer(db: Queryable, changeRequestId: string, userId: string): Promise<RequestedReviewerRow | null> {
  const { rows } = await db.query<RequestedReviewerRow>(`${REQUESTED_SELECT} WHERE q.change_request_id = $1 AND q.user_id = $2`, [
    changeRequestId,
    userId,
  ]);
  return rows[0] ?? null;
}

export async function listRequestedReviewers(
  db: Queryable,
  changeRequestId: string,
  o: { limit: number; after?: [string, string] },
): Promise<{ rows: (RequestedReviewerRow & { sort_key: string })[]; count: number }> {
  const params: unknown[] = [changeRequestId];
  let after = '';
  if (o.after) {
    params.push(o.after[0], o.after[1]);
    after = ` AND (to_char(q.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US'), q.user_id) > ($2, $3)`;
  }
  params.push(o.limit + 1);
  const { rows } = await db.query<RequestedReviewerRow & { sort_key: string }>(
    `${REQUESTED_SELECT} WHERE q.change_request_id = $1${after} ORDER BY q.created_at, q.user_id LIMIT $${params.length}`,
    params,
  );
  const c = await db.query<{ n: string }>('SELECT count(*) AS n FROM change_request_reviewers WHERE change_request_id = $1', [
    changeRequestId,
  ]);
  return { rows, count: Number(c.rows[0].n) };
}

/** How many of `userIds` are not yet asked, plus those already asked: the count after asking them. */
export async function reviewerCountAfter(db: Queryable, changeRequestId: string, userIds: string[]): Promise<number> {
  const { rows } = await db.query<{ n: string }>(
    `SELECT count(DISTINCT u) AS n FROM (
       SELECT user_id AS u FROM change_request_reviewers WHERE change_request_id = $1
       UNION ALL SELECT unnest($2::text[])) x`,
    [changeRequestId, userIds],
  );
  return Number(rows[0].n);
}

/** True when a request was removed. */
export async function removeRequestedReviewer(db: Queryable, changeRequestId: string, userId: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM change_request_reviewers WHERE change_request_id = $1 AND user_id = $2', [
    changeRequestId,
    userId,
  ]);
  return (rowCount ?? 0) > 0;
}

// ---- contributors ----

export interface ContributorRow {
  user: UserCols;
  action_type: 'edit' | 'comment';
  count: number;
  updated_at: Date;
}

/** Users who edited (revisions committed on the change request) or commented on it, latest first. Bounded by `limit`. */
export async function listContributors(db: Queryable, spaceId: string, changeRequestId: string, limit: number): Promise<ContributorRow[]> {
  const { rows } = await db.query<ContributorRow & { count: string }>(
    `SELECT ${userJson('u')} AS "user", c.action_type, c.count, c.updated_at FROM (
       SELECT created_by AS user_id, 'edit' AS action_type, count(*) AS count, max(created_at) AS updated_at
         FROM revisions WHERE space_id = $1 AND change_request_id = $2 AND created_by IS NOT NULL AND type <> 'merge'
         GROUP BY created_by
       UNION ALL
       SELECT posted_by, 'comment', count(*), max(posted_at)
         FROM comments WHERE space_id = $1 AND change_request_id = $2 AND posted_by IS NOT NULL
         GROUP BY posted_by
     ) c JOIN users u ON u.id = c.user_id
     ORDER BY c.updated_at DESC, u.id, c.action_type LIMIT $3`,
    [spaceId, changeRequestId, limit],
  );
  return rows.map((r) => ({ ...r, count: Number(r.count) }));
}

// ---- organization list ----

export interface OrgChangeRequestFilter {
  spaceIds: string[];
  statuses: ChangeRequestStatus[];
  creator?: string;
  contributor?: string;
  requestedReviewer?: string;
  orderBy: 'updatedAt' | 'createdAt';
  limit: number;
  after?: [string, string];
}

/** Change requests of the given spaces (the ones the caller may read), newest first by `orderBy`. */
export async function listOrgChangeRequests(
  db: Queryable,
  f: OrgChangeRequestFilter,
): Promise<{ rows: (ChangeRequestRow & { sort_key: string })[]; count: number }> {
  const column = f.orderBy === 'createdAt' ? 'cr.created_at' : 'cr.updated_at';
  const key = `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US')`;
  const params: unknown[] = [f.spaceIds, f.statuses];
  const where = ['cr.space_id = ANY($1)', 'cr.status = ANY($2)'];
  if (f.creator) {
    params.push(f.creator);
    where.push(`cr.created_by = $${params.length}`);
  }
  if (f.contributor) {
    params.push(f.contributor);
    const n = params.length;
    where.push(`(cr.created_by = $${n}
      OR EXISTS (SELECT 1 FROM revisions rv WHERE rv.space_id = cr.space_id AND rv.change_request_id = cr.id AND rv.created_by = $${n})
      OR EXISTS (SELECT 1 FROM comments cm WHERE cm.space_id = cr.space_id AND cm.change_request_id = cr.id AND cm.posted_by = $${n}))`);
  }
  if (f.requestedReviewer) {
    params.push(f.requestedReviewer);
    where.push(`EXISTS (SELECT 1 FROM change_request_reviewers q WHERE q.change_request_id = cr.id AND q.user_id = $${params.length})`);
  }
  const countParams = [...params];
  const countWhere = [...where];
  if (f.after) {
    params.push(f.after[0], f.after[1]);
    where.push(`(${key}, cr.id) < ($${params.length - 1}, $${params.length})`);
  }
  params.push(f.limit + 1);
  const { rows } = await db.query<ChangeRequestRow & { sort_key: string }>(
    `${CHANGE_REQUEST_SELECT.replace('SELECT cr.*,', `SELECT cr.*, ${key} AS sort_key,`)}
     WHERE ${where.join(' AND ')} ORDER BY ${column} DESC, cr.id DESC LIMIT $${params.length}`,
    params,
  );
  const c = await db.query<{ n: string }>(`SELECT count(*) AS n FROM change_requests cr WHERE ${countWhere.join(' AND ')}`, countParams);
  return { rows, count: Number(c.rows[0].n) };
}

/** The spaces a site of the organization shows. */
export async function siteSpaceIds(db: Queryable, orgId: string, siteId: string): Promise<string[]> {
  const { rows } = await db.query<{ space_id: string }>(
    'SELECT ss.space_id FROM site_spaces ss JOIN sites s ON s.id = ss.site_id WHERE s.organization_id = $1 AND s.id = $2',
    [orgId, siteId],
  );
  return rows.map((r) => r.space_id);
}
