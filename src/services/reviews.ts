// Change request reviews (issue 28): reviews given on a revision of a change request, requested
// reviewers, contributors, the organization-wide change request list, and a space's merge rules
// (checked by mergeChangeRequest before it merges).
import type { AppContext } from '../context.js';
import type { Principal } from '../auth/principal.js';
import type { Queryable } from '../db/pool.js';
import type { Role } from '../core/roles.js';
import { atLeast } from '../core/roles.js';
import { buildPage, decodeCursor, DEFAULT_LIMIT } from '../core/pagination.js';
import { conflict, forbidden, invalid, limitExceeded, notFound } from '../core/errors.js';
import { newId } from '../util/ids.js';
import * as repo from '../db/repos/reviews.js';
import type { ChangeRequestRow, ChangeRequestStatus } from '../db/repos/change-requests.js';
import { updateChangeRequest } from '../db/repos/change-requests.js';
import type { SpaceRow } from '../db/repos/spaces.js';
import { requireChangeRequest, requireEditable } from '../policies/change-requests.js';
import { requireOrg } from '../policies/organizations.js';
import { roleOnSpace, visibleSpaces } from '../policies/spaces.js';
import { toChangeRequest } from '../presenters/change-requests.js';
import { toContributor, toRequestedReviewer, toReview } from '../presenters/reviews.js';
import type { OutputFormat } from '../presenters/comments.js';
import { getComment, postComment } from './comments.js';
import { checkDescription, descriptionHasContent } from './change-request-details.js';
import { sendReviewRequest } from './mail.js';

/** At most this many users per review request. */
export const MAX_REQUESTED_USERS = 50;
/** At most this many reviews of one change request, and users asked to review it. */
export const MAX_REVIEWS = 1000;
export const MAX_REVIEWERS = 100;
/** At most this many contributors listed for one change request. */
export const MAX_CONTRIBUTORS = 1000;

// ---- merge rules ----

/** A merge rule as the description gives it; the ones we can check are in SUPPORTED_RULES. */
export type MergeRule = { rule: string; users?: string[] };
export type MergeRules = { type: 'inherit' } | { type: 'none' } | { type: 'rules'; rules: MergeRule[] };

/** The rules this platform checks at merge; others are refused when set (400). */
export const SUPPORTED_RULES = [
  'require_at_least_one_review',
  'require_at_least_one_approved_review',
  'require_all_reviews_approved',
  'require_specific_reviewers',
  'require_one_of_specific_reviewers',
  'allow_bypass',
  'require_up_to_date_change_request',
  'require_change_request_subject',
  'require_change_request_description',
  'require_author_to_merge',
] as const;

/** Rules that name users. */
const USER_RULES = ['require_specific_reviewers', 'require_one_of_specific_reviewers', 'allow_bypass'];

export async function spaceMergeRules(db: Queryable, spaceId: string): Promise<MergeRules> {
  return ((await repo.getMergeRules(db, spaceId)) as MergeRules | null) ?? { type: 'inherit' };
}

/** Store a space's merge rules (the caller checked the admin role). `inherit` removes the space's own. */
export async function setSpaceMergeRules(db: Queryable, spaceId: string, rules: MergeRules): Promise<void> {
  if (rules.type === 'rules') {
    for (const [i, r] of rules.rules.entries()) {
      if (!(SUPPORTED_RULES as readonly string[]).includes(r.rule)) {
        throw invalid(
          `Invalid request: body.mergeRules.rules[${i}].rule: "${r.rule}" is not supported here (supported: ${SUPPORTED_RULES.join(', ')})`,
        );
      }
      if (USER_RULES.includes(r.rule) && !r.users?.length) {
        throw invalid(`Invalid request: body.mergeRules.rules[${i}].users: "${r.rule}" needs at least one user`);
      }
    }
  }
  await repo.setMergeRules(db, spaceId, rules.type === 'inherit' ? null : rules);
}

/**
 * Throw a 409 naming the first unmet rule unless the change request may be merged by `mergerId`
 * under the space's merge rules. Reviews count when current: given on the change request's current
 * revision and the reviewer's latest. An author's review of their own change request does not count
 * as an approval. `inherit` follows the organization, whose rules are `none` on this platform.
 */
export async function checkMergeRules(db: Queryable, space: Pick<SpaceRow, 'id' | 'revision_id'>, cr: ChangeRequestRow, mergerId: string) {
  const rules = await spaceMergeRules(db, space.id);
  if (rules.type !== 'rules' || !rules.rules.length) return;
  if (rules.rules.some((r) => r.rule === 'allow_bypass' && r.users?.includes(mergerId))) return;
  const reviews = await repo.currentReviews(db, cr.id);
  const approvers = new Set(reviews.filter((r) => r.status === 'approved' && r.reviewer_id !== cr.created_by).map((r) => r.reviewer_id));
  const fail = (why: string) => {
    throw conflict(`Change request #${cr.number} cannot be merged: the space's merge rules require ${why}`);
  };
  for (const r of rules.rules) {
    switch (r.rule) {
      case 'require_at_least_one_review':
        if (!reviews.length) fail('at least one review of its current revision');
        break;
      case 'require_at_least_one_approved_review':
        if (!approvers.size) fail('at least one approval of its current revision (by someone other than its author)');
        break;
      case 'require_all_reviews_approved':
        if (reviews.some((x) => x.status === 'changes-requested')) fail('that no current review requests changes');
        break;
      case 'require_specific_reviewers': {
        const missing = (r.users ?? []).filter((u) => !approvers.has(u));
        if (missing.length) fail(`approvals from ${missing.join(', ')}`);
        break;
      }
      case 'require_one_of_specific_reviewers':
        if (!(r.users ?? []).some((u) => approvers.has(u))) fail(`an approval from one of ${(r.users ?? []).join(', ')}`);
        break;
      case 'require_up_to_date_change_request':
        if (space.revision_id !== (cr.revision_merged_ancestor ?? cr.revision_initial)) fail('it to be up to date with the main content');
        break;
      case 'require_change_request_subject':
        if (!cr.subject.trim()) fail('a subject');
        break;
      case 'require_change_request_description':
        if (!descriptionHasContent(cr.description)) fail('a description');
        break;
      case 'require_author_to_merge':
        if (cr.created_by !== mergerId) fail('its author to merge it');
        break;
    }
  }
}

// ---- reviews ----

/** Whether `p` may review: the space's review role, or asked to review this change request. */
async function requireReviewer(app: AppContext, p: Principal, spaceId: string, ref: string) {
  const access = await requireChangeRequest(app, p, spaceId, ref, 'read');
  if (!atLeast(access.role, 'review') && !(await repo.getRequestedReviewer(app.db, access.cr.id, p.userId))) {
    throw forbidden(`Your role on this space (${access.role}) does not allow reviewing: ask for the review role or a review request`);
  }
  return access;
}

export async function listReviews(
  app: AppContext,
  p: Principal,
  spaceId: string,
  ref: string,
  q: { page?: string; limit?: number; outdated?: boolean; format?: OutputFormat },
) {
  const { cr } = await requireChangeRequest(app, p, spaceId, ref, 'read');
  const limit = q.limit ?? DEFAULT_LIMIT;
  const after = decodeCursor(q.page, 2) as [string, string] | undefined;
  const { rows, count } = await repo.listReviews(app.db, cr.id, { outdated: q.outdated, limit, after });
  const page = buildPage(
    rows,
    limit,
    count,
    (r) => [r.sort_key, r.id],
    (r) => r,
  );
  return { ...page, items: await Promise.all(page.items.map((r) => presentReview(app, p, spaceId, cr, r, q.format))) };
}

async function presentReview(
  app: AppContext,
  p: Principal,
  spaceId: string,
  cr: ChangeRequestRow,
  r: repo.ReviewRow,
  format?: OutputFormat,
) {
  let comment: unknown;
  if (r.comment_id) {
    try {
      comment = await getComment(app, p, { spaceId, changeRequestId: cr.id }, r.comment_id, format ?? 'markdown');
    } catch {
      comment = undefined; // deleted since
    }
  }
  return toReview(app, spaceId, r, comment);
}

export async function getReview(app: AppContext, p: Principal, spaceId: string, ref: string, reviewId: string, format?: OutputFormat) {
  const { cr } = await requireChangeRequest(app, p, spaceId, ref, 'read');
  const r = await repo.getReview(app.db, cr.id, reviewId);
  if (!r) throw notFound(`Review "${reviewId}" not found`);
  return presentReview(app, p, spaceId, cr, r, format);
}

export async function submitReview(
  app: AppContext,
  p: Principal,
  spaceId: string,
  ref: string,
  input: { status: 'approved' | 'changes-requested'; comment?: Parameters<typeof postComment>[3]['body'] },
) {
  const { cr } = await requireReviewer(app, p, spaceId, ref);
  requireEditable(cr);
  if ((await repo.countReviews(app.db, cr.id)) >= MAX_REVIEWS) {
    throw limitExceeded(`Change request #${cr.number} has ${MAX_REVIEWS} reviews, the most one can have`);
  }
  let commentId: string | null = null;
  if (input.comment) {
    const c = (await postComment(app, p, { spaceId, changeRequestId: cr.id }, { body: input.comment })) as { id: string };
    commentId = c.id;
  }
  const requested = await repo.getRequestedReviewer(app.db, cr.id, p.userId);
  const id = newId();
  await repo.insertReview(app.db, {
    id,
    changeRequestId: cr.id,
    reviewerId: p.userId,
    requestedBy: requested?.requested_by ?? null,
    revision: cr.revision,
    status: input.status,
    commentId,
  });
  return presentReview(app, p, spaceId, cr, (await repo.getReview(app.db, cr.id, id))!);
}

// ---- requested reviewers ----

export async function listRequestedReviewers(
  app: AppContext,
  p: Principal,
  spaceId: string,
  ref: string,
  q: { page?: string; limit?: number },
) {
  const { cr } = await requireChangeRequest(app, p, spaceId, ref, 'read');
  const limit = q.limit ?? DEFAULT_LIMIT;
  const after = decodeCursor(q.page, 2) as [string, string] | undefined;
  const { rows, count } = await repo.listRequestedReviewers(app.db, cr.id, { limit, after });
  return buildPage(
    rows,
    limit,
    count,
    (r) => [r.sort_key, r.user_id],
    (r) => toRequestedReviewer(app, r),
  );
}

/**
 * Ask users to review (the space's edit role, or the change request's author). Each user must be
 * able to review it (the review role on the space); the request is renewed when asked again.
 */
export async function requestReviewers(
  app: AppContext,
  p: Principal,
  spaceId: string,
  ref: string,
  input: { users: string[]; subject?: string; description?: Record<string, unknown> },
) {
  const { cr, space, role } = await requireChangeRequest(app, p, spaceId, ref, 'read');
  if (!atLeast(role, 'edit') && cr.created_by !== p.userId)
    throw forbidden(`Your role on this space (${role}) does not allow requesting reviews`);
  requireEditable(cr);
  const description = input.description && (await checkDescription(app, input.description, 'body.description'));
  const users = [...new Set(input.users)];
  if (!users.length) throw invalid('Invalid request: body.users: give at least one user');
  if (users.length > MAX_REQUESTED_USERS) throw invalid(`Invalid request: body.users: at most ${MAX_REQUESTED_USERS} users`);
  for (const [i, u] of users.entries()) {
    const { role: theirs } = await roleOnSpace(app.db, u, space);
    if (!atLeast(theirs as Role | null, 'review')) {
      throw invalid(`Invalid request: body.users[${i}]: user "${u}" cannot review change requests of this space (needs the review role)`);
    }
  }
  if ((await repo.reviewerCountAfter(app.db, cr.id, users)) > MAX_REVIEWERS) {
    throw limitExceeded(`A change request can have at most ${MAX_REVIEWERS} requested reviewers`);
  }
  if (input.subject !== undefined || description) await updateChangeRequest(app.db, cr.id, { subject: input.subject, description });
  const rows = await repo.requestReviewers(app.db, cr.id, users, p.userId, cr.revision);
  // Each reviewer is told by e-mail (in the background; logged when no SMTP server is configured).
  const url = toChangeRequest(app, cr, space.revision_id).urls.app;
  const subject = input.subject ?? cr.subject;
  for (const r of rows) {
    if (!r.user.email) continue;
    sendReviewRequest(app, {
      to: r.user.email,
      requestedBy: r.requester?.display_name || 'A member',
      space: space.title,
      changeRequest: `#${cr.number}${subject ? ` ${subject}` : ''}`,
      url,
    });
  }
  return { users: rows.map((r) => toRequestedReviewer(app, r)) };
}

/** 205 when a request was removed, 204 when there was none. The space's edit role, the author, or the reviewer themselves. */
export async function removeRequestedReviewer(
  app: AppContext,
  p: Principal,
  spaceId: string,
  ref: string,
  userId: string,
): Promise<boolean> {
  const { cr, role } = await requireChangeRequest(app, p, spaceId, ref, 'read');
  if (!atLeast(role, 'edit') && cr.created_by !== p.userId && userId !== p.userId) {
    throw forbidden(`Your role on this space (${role}) does not allow removing review requests`);
  }
  return repo.removeRequestedReviewer(app.db, cr.id, userId);
}

// ---- contributors ----

export async function listContributors(app: AppContext, p: Principal, spaceId: string, ref: string) {
  const { cr } = await requireChangeRequest(app, p, spaceId, ref, 'read');
  const rows = await repo.listContributors(app.db, spaceId, cr.id, MAX_CONTRIBUTORS);
  return { items: rows.map((r) => toContributor(app, r)), count: rows.length };
}

// ---- organization list ----

export interface OrgChangeRequestQuery {
  page?: string;
  limit?: number;
  status?: ChangeRequestStatus[];
  creator?: string;
  contributor?: string;
  requestedReviewer?: string;
  space?: string;
  site?: string;
  topic?: string;
  styleguideRun?: string;
  orderBy?: 'updatedAt' | 'createdAt';
}

/**
 * Change requests of the spaces of an organization the caller may read. `topic` and
 * `styleguideRun` name things this platform does not make: they match nothing.
 */
export async function listOrgChangeRequests(app: AppContext, p: Principal, orgId: string, q: OrgChangeRequestQuery) {
  await requireOrg(app.db, p, orgId, 'view');
  const limit = q.limit ?? DEFAULT_LIMIT;
  const after = decodeCursor(q.page, 2) as [string, string] | undefined;
  let visible = await visibleSpaces(app, orgId, p.userId);
  if (q.space) visible = visible.filter((v) => v.space.id === q.space);
  if (q.site) {
    const inSite = new Set(await repo.siteSpaceIds(app.db, orgId, q.site));
    visible = visible.filter((v) => inSite.has(v.space.id));
  }
  if (q.topic || q.styleguideRun) visible = [];
  const mainRevision = new Map(visible.map((v) => [v.space.id, v.space.revision_id]));
  const { rows, count } = await repo.listOrgChangeRequests(app.db, {
    spaceIds: [...mainRevision.keys()],
    statuses: q.status?.length ? q.status : ['open'],
    creator: q.creator,
    contributor: q.contributor,
    requestedReviewer: q.requestedReviewer,
    orderBy: q.orderBy ?? 'updatedAt',
    limit,
    after,
  });
  return buildPage(
    rows,
    limit,
    count,
    (r) => [r.sort_key, r.id],
    (r) => toChangeRequest(app, r, mainRevision.get(r.space_id)!),
  );
}
