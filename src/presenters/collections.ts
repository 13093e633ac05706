import type { AppContext } from '../context.js';
import type { CollectionRow } from '../db/repos/collections.js';
import { appUrls } from './urls.js';

/** What the caller may do on a collection (computed by src/policies/collections.ts). */
export interface CollectionPermissions {
  view: boolean;
  admin: boolean;
  viewInviteLinks: boolean;
  create: boolean;
}

export function toCollection(app: AppContext, c: CollectionRow, permissions: CollectionPermissions) {
  const urls = appUrls(app);
  return {
    object: 'collection',
    id: c.id,
    title: c.title,
    ...(c.description !== null ? { description: c.description } : {}),
    organization: c.organization_id,
    ...(c.parent_id ? { parent: c.parent_id } : {}),
    defaultLevel: c.default_level,
    urls: {
      location: urls.api(`/collections/${c.id}`),
      app: urls.app(`/o/${c.organization_id}/c/${c.id}`),
    },
    permissions,
  };
}
