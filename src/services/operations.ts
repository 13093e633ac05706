import type { AppContext } from '../context.js';
import type { Principal } from '../auth/principal.js';
import type { Queryable } from '../db/pool.js';
import * as ops from '../db/repos/operations.js';
import type { OperationRow } from '../db/repos/operations.js';
import { JOBS, type JobName, type JobPayloads } from '../queue/registry.js';
import { newId } from '../util/ids.js';
import { notFound } from '../core/errors.js';
import type { Role } from '../core/roles.js';
import { explicitSpaceRoles, getSpace } from '../db/repos/spaces.js';
import { getOrgForUser } from '../db/repos/organizations.js';
import { changeRequestSpaceId } from '../db/repos/change-requests.js';
import { orgPermissions, appUrls } from '../core/access/organizations.js';
import { accessContext, spaceRole } from '../core/access/spaces.js';

/**
 * Record a long-running operation inside the caller's transaction. The job is enqueued after the
 * commit by `enqueue`; if that fails (or the process dies in between) the reconciler enqueues it.
 */
export async function createOperation<K extends JobName>(
  c: Queryable,
  kind: K,
  o: { organizationId: string | null; payload: JobPayloads[K]; targetType?: string; targetId?: string; createdBy?: string },
): Promise<OperationRow> {
  return ops.insertOperation(c, {
    id: newId(),
    kind,
    queue: JOBS[kind].queue,
    organizationId: o.organizationId,
    payload: o.payload as Record<string, unknown>,
    targetType: o.targetType,
    targetId: o.targetId,
    createdBy: o.createdBy,
  });
}

/** Enqueue after commit. A Redis failure is logged, not thrown: the operation row is the truth. */
export async function enqueue(app: AppContext, op: OperationRow): Promise<void> {
  try {
    await app.jobs.enqueue(op);
  } catch (err) {
    app.log.warn({ err, operationId: op.id }, 'enqueue failed; the reconciler will retry');
  }
}

export function operationLocation(app: AppContext, id: string): string {
  return appUrls(app).api(`/operations/${id}`);
}

export function toOperation(app: AppContext, op: OperationRow) {
  return {
    object: 'operation',
    id: op.id,
    kind: op.kind,
    status: op.status,
    progress: op.progress,
    ...(op.target_type ? { target: { type: op.target_type, id: op.target_id } } : {}),
    ...(op.result !== null && op.result !== undefined ? { result: op.result } : {}),
    ...(op.error ? { error: op.error } : {}),
    attempts: op.attempts,
    createdAt: op.created_at.toISOString(),
    updatedAt: op.updated_at.toISOString(),
    ...(op.started_at ? { startedAt: op.started_at.toISOString() } : {}),
    ...(op.finished_at ? { finishedAt: op.finished_at.toISOString() } : {}),
    urls: { location: operationLocation(app, op.id) },
  };
}

/**
 * An operation is readable by whoever can see its target, and by no one else: the space (or the
 * space of the change request) for imports, exports and PDF renders, the organization for OpenAPI
 * specs. Anyone else gets the same 404 as for an unknown id, so ids reveal nothing. Creating an
 * operation grants nothing by itself: someone who lost access to the space loses its operations.
 */
export async function getOperation(app: AppContext, p: Principal, id: string) {
  const op = await ops.getOperation(app.db, id);
  if (!op || !(await canSeeTarget(app, p, op))) throw notFound(`Operation "${id}" not found`);
  return toOperation(app, op);
}

async function canSeeTarget(app: AppContext, p: Principal, op: OperationRow): Promise<boolean> {
  switch (op.target_type) {
    case 'space':
      return canSeeSpace(app, p, op, op.target_id);
    case 'change-request':
      return canSeeSpace(app, p, op, op.target_id ? await changeRequestSpaceId(app.db, op.target_id) : null);
    case 'openapi-spec':
      // Specs are organization-level: the organization's members read them (services/openapi.ts).
      return !!op.organization_id && (await orgAccess(app, p, op.organization_id)).member;
    default:
      // No target (or one without a policy of its own): its creator, or a member of its
      // organization with a role; guests see only what targets they can see.
      if (op.created_by && op.created_by === p.userId) return true;
      return !!op.organization_id && (await orgAccess(app, p, op.organization_id)).withRole;
  }
}

/** The space's own rules (deleted spaces included, so their last operations stay readable). */
async function canSeeSpace(app: AppContext, p: Principal, op: OperationRow, spaceId: string | null): Promise<boolean> {
  const space = spaceId ? await getSpace(app.db, spaceId, { includeDeleted: true, counters: false }) : null;
  if (!space) {
    // The target was purged: only an administrator of the organization that ran it may still look.
    return !!op.organization_id && (await orgAccess(app, p, op.organization_id)).admin;
  }
  const ctx = await accessContext(app.db, space.organization_id, p.userId);
  const explicit = (await explicitSpaceRoles(app.db, p.userId, [space.id])).get(space.id) as Role | undefined;
  return spaceRole(ctx, space, explicit) !== null;
}

async function orgAccess(app: AppContext, p: Principal, orgId: string) {
  const org = await getOrgForUser(app.db, orgId, p.userId);
  const perms = org ? orgPermissions(org) : null;
  return { member: !!perms?.view, withRole: !!perms?.access, admin: !!perms?.admin };
}
