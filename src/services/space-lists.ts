import type { AppContext } from '../context.js';
import type { Principal } from '../auth/principal.js';
import { pageInMemory } from '../core/pagination.js';
import { requireOrg } from '../policies/organizations.js';
import { spacePermissions, visibleSpaces, type VisibleSpace } from '../policies/spaces.js';
import { toSpace } from '../presenters/spaces.js';

/** The stable sibling order of spaces: (position, created, id). */
export const siblingKey = (v: VisibleSpace) => [v.space.position, v.space.created_key, v.space.id];

export async function listOrgSpaces(app: AppContext, p: Principal, orgId: string, q: { page?: string; limit?: number }) {
  await requireOrg(app.db, p, orgId, 'view');
  return pageInMemory(await visibleSpaces(app, orgId, p.userId), q, siblingKey, (v) => toSpace(app, v.space, spacePermissions(v.role)));
}
