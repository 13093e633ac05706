import type { Principal } from '../auth/principal.js';
import type { Queryable } from '../db/pool.js';
import { getChangeRequest, type ChangeRequestRow } from '../db/repos/change-requests.js';
import type { Role } from '../core/roles.js';
import { conflict, notFound } from '../core/errors.js';
import { requireSpace } from './spaces.js';

/**
 * Space access plus the change request (by id or number); `needed` is the role required on the
 * space. An unknown change request is a 404, checked after the space's own access.
 */
export async function requireChangeRequest(app: { db: Queryable }, p: Principal, spaceId: string, ref: string, needed: Role = 'read') {
  const access = await requireSpace(app.db, p, spaceId, needed);
  const cr = await getChangeRequest(app.db, spaceId, ref);
  if (!cr) throw notFound(`Change request "${ref}" not found`);
  return { ...access, cr };
}

/** 409 unless the change request's content may still change (not merged, not archived). */
export function requireEditable(cr: Pick<ChangeRequestRow, 'status' | 'number'>) {
  if (cr.status === 'merged') throw conflict(`Change request #${cr.number} is merged: its content can no longer change`);
  if (cr.status === 'archived') throw conflict(`Change request #${cr.number} is archived: reopen it first`);
}
