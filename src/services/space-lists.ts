import type { AppContext } from '../context.js';
import type { Principal } from '../auth/principal.js';
import type { Role } from '../core/roles.js';
import { pageInMemory } from '../core/pagination.js';
import { listSpaces, explicitSpaceRoles, type SpaceRow } from '../db/repos/spaces.js';
import { requireOrg } from '../core/access/organizations.js';
import { accessContext, spaceRole } from '../core/access/spaces.js';
import { toSpace } from './spaces.js';

/**
 * Spaces (under `parentId` when given) that `userId` can see, each with that user's role, in the
 * stable sibling order (position, created, id).
 */
export async function visibleSpaces(app: AppContext, orgId: string, userId: string, parentId?: string | null) {
  const ctx = await accessContext(app.db, orgId, userId);
  const { rows } = await listSpaces(app.db, { orgId, parentId }, 100_000);
  const explicit = await explicitSpaceRoles(app.db, userId, rows.map((r) => r.id));
  return rows
    .map((space) => ({ space, role: spaceRole(ctx, space, explicit.get(space.id) as Role | undefined) }))
    .filter((x): x is { space: SpaceRow & { created_key: string }; role: Role } => x.role !== null);
}

type Visible = Awaited<ReturnType<typeof visibleSpaces>>[number];

/** The stable sibling order of spaces: (position, created, id). */
export const siblingKey = (v: Visible) => [v.space.position, v.space.created_key, v.space.id];

export async function listOrgSpaces(app: AppContext, p: Principal, orgId: string, q: { page?: string; limit?: number }) {
  await requireOrg(app.db, p, orgId, 'view');
  return pageInMemory(await visibleSpaces(app, orgId, p.userId), q, siblingKey, (v) => toSpace(app, v.space, v.role));
}
