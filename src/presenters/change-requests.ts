import type { AppContext } from '../context.js';
import type { ChangeRequestRow } from '../db/repos/change-requests.js';
import { appUrls } from './urls.js';
import { toUser } from './users.js';

/** The ChangeRequest object; `mainRevision` is the space's current revision (for `outdated`). */
export function toChangeRequest(app: AppContext, cr: ChangeRequestRow, mainRevision: string) {
  const urls = appUrls(app);
  const user = (id: string | null, name: string | null, email: string | null, photo: string | null) =>
    id ? toUser(app, { id, display_name: name ?? '', email: email ?? '', photo_url: photo }) : undefined;
  return {
    object: 'change-request',
    id: cr.id,
    number: cr.number,
    status: cr.status,
    subject: cr.subject,
    ...(cr.description ? { description: cr.description } : {}),
    ...(cr.created_by ? { createdBy: user(cr.created_by, cr.creator_name, cr.creator_email, cr.creator_photo) } : {}),
    createdAt: cr.created_at.toISOString(),
    updatedAt: cr.updated_at.toISOString(),
    ...(cr.merged_by ? { mergedBy: user(cr.merged_by, cr.merger_name, cr.merger_email, cr.merger_photo) } : {}),
    ...(cr.merged_at ? { mergedAt: cr.merged_at.toISOString() } : {}),
    space: cr.space_id,
    revision: cr.revision,
    revisionInitial: cr.revision_initial,
    ...(cr.revision_merged_ancestor ? { revisionMergedAncestor: cr.revision_merged_ancestor } : {}),
    ...(cr.revision_merged ? { revisionMerged: cr.revision_merged } : {}),
    comments: cr.comments,
    // The external links, always a list; no `expanded` (no ticket connector here).
    links: cr.links.map((l) => ({
      id: l.id,
      ref: { kind: 'url' as const, url: l.ref.url },
      ...(l.title !== undefined ? { title: l.title } : {}),
    })),
    // True exactly when main content moved on since the change request was created or last updated.
    outdated: cr.status !== 'merged' && mainRevision !== (cr.revision_merged_ancestor ?? cr.revision_initial),
    urls: {
      location: urls.api(`/spaces/${cr.space_id}/change-requests/${cr.id}`),
      app: urls.app(`/s/${cr.space_id}/change-requests/${cr.number}`),
    },
  };
}
