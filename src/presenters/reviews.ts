// ChangeRequestReview, ChangeRequestRequestedReviewer and ChangeRequestUserContributor objects.
import type { AppContext } from '../context.js';
import type { ContributorRow, RequestedReviewerRow, ReviewRow, UserCols } from '../db/repos/reviews.js';
import { appUrls } from './urls.js';
import { toUser } from './users.js';

const user = (app: AppContext, u: UserCols) => toUser(app, u);

export function toReview(app: AppContext, spaceId: string, r: ReviewRow, comment?: unknown) {
  return {
    object: 'change-request-review',
    id: r.id,
    revision: r.revision,
    reviewer: user(app, r.reviewer),
    ...(r.requester ? { requestedBy: user(app, r.requester) } : {}),
    status: r.status,
    outdated: r.outdated,
    ...(comment ? { comment } : {}),
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
    urls: { location: appUrls(app).api(`/spaces/${spaceId}/change-requests/${r.change_request_id}/reviews/${r.id}`) },
  };
}

export function toRequestedReviewer(app: AppContext, r: RequestedReviewerRow) {
  // A requester whose account was deleted: the requested user stands in (the field is required).
  return {
    object: 'change-request-requested-reviewer',
    revision: r.revision,
    requestedBy: user(app, r.requester ?? r.user),
    createdAt: r.created_at.toISOString(),
    kind: 'user',
    user: user(app, r.user),
  };
}

export function toContributor(app: AppContext, r: ContributorRow) {
  return { user: user(app, r.user), count: r.count, updatedAt: new Date(r.updated_at).toISOString(), actionType: r.action_type };
}
