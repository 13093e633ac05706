import type { AppContext } from '../context.js';
import type { SpaceRow } from '../db/repos/spaces.js';
import { appUrls } from './urls.js';

/** What the caller may do on a space, as the Space object reports it (computed by src/policies/spaces.ts). */
export interface SpacePermissions {
  view: boolean;
  access: boolean;
  admin: boolean;
  viewInviteLinks: boolean;
  edit: boolean;
  triggerGitSync: boolean;
  comment: boolean;
  merge: boolean;
  review: boolean;
  installIntegration: boolean;
}

/**
 * The Space object. The published URL of a share-link space is shown with its share key to
 * admins and to callers who presented that key (`opts.shareKey`).
 */
export function toSpace(app: AppContext, s: SpaceRow, permissions: SpacePermissions, opts: { shareKey?: string } = {}) {
  const urls = appUrls(app);
  const published = `${app.config.publicUrl}/s/${s.id}`;
  const showPublished = s.visibility !== 'private' && (s.visibility !== 'share-link' || opts.shareKey === s.share_key || permissions.admin);
  return {
    object: 'space',
    id: s.id,
    title: s.title,
    emoji: s.emoji,
    visibility: s.visibility,
    createdAt: s.created_at.toISOString(),
    updatedAt: s.updated_at.toISOString(),
    ...(s.deleted_at ? { deletedAt: s.deleted_at.toISOString() } : {}),
    editMode: s.edit_mode,
    mergeRules: s.merge_rules ?? { type: 'inherit' },
    urls: {
      location: urls.api(`/spaces/${s.id}`),
      app: urls.app(`/s/${s.id}`),
      ...(showPublished ? { published: s.visibility === 'share-link' ? `${published}?share=${s.share_key}` : published } : {}),
      ...(s.visibility === 'public' ? { public: published } : {}),
    },
    organization: s.organization_id,
    ...(s.parent_id ? { parent: s.parent_id } : {}),
    ...(s.language ? { language: s.language } : {}),
    ...(s.git_sync ? { gitSync: s.git_sync } : {}),
    revision: s.revision_id,
    defaultLevel: s.default_level,
    comments: s.comments,
    changeRequests: s.change_requests,
    changeRequestsOpen: s.change_requests_open,
    changeRequestsDraft: s.change_requests_draft,
    permissions,
  };
}
