// Both sides moved since the last sync: nothing lost, nothing forced. The repository's head is
// imported as a standalone revision and offered as a change request based on the revision of the
// last sync (so it shows the repository's changes); main and the remote stay as they are. Merging
// that change request makes the next run export the combined state on top of the remote head.
import type { AppContext } from '../../context.js';
import { withTx } from '../../db/pool.js';
import { derivedId } from '../../util/ids.js';
import * as crs from '../../db/repos/change-requests.js';
import { lockSpace } from '../../db/repos/spaces.js';
import { recordSyncConflict, type GitSyncRow } from '../../db/repos/git-syncs.js';

export const shortSha = (oid: string) => oid.slice(0, 7);
export const branchOf = (ref: string) => ref.replace(/^refs\/heads\//, '');

/** Id of the change request a run opens: a second run of the same operation finds it. */
export function conflictChangeRequestId(operationId: string): string {
  return derivedId('git-sync.conflict', operationId);
}

/**
 * Open the conflict's change request (once per operation) holding `revisionId` (the repository's
 * side), based on `base` (the revision of the last sync), and record the conflict on the sync.
 */
export async function openConflict(
  app: AppContext,
  s: GitSyncRow,
  o: { operationId: string; head: string; revisionId: string; base: string },
): Promise<{ changeRequest: string; number: number }> {
  const spaceId = s.space_id!;
  const id = conflictChangeRequestId(o.operationId);
  const subject = `Git Sync: changes from ${branchOf(s.ref)} at ${shortSha(o.head)}`;
  const number = await withTx(app.db, async (c) => {
    await lockSpace(c, spaceId);
    const existing = await crs.getChangeRequest(c, spaceId, id);
    if (existing) return existing.number;
    const n = await crs.nextChangeRequestNumber(c, spaceId);
    await crs.insertChangeRequest(c, { id, spaceId, number: n, subject, createdBy: null, revision: o.base });
    await crs.updateChangeRequest(c, id, { status: 'open', revision: o.revisionId });
    return n;
  });
  const message =
    `Both the repository (${branchOf(s.ref)} at ${shortSha(o.head)}) and the space changed since the last sync` +
    `${s.synced_commit ? ` (${shortSha(s.synced_commit)})` : ''}: the repository's changes are in change request #${number}; ` +
    'merge it to combine both and export the result';
  await recordSyncConflict(app.db, s, { changeRequestId: id, commit: o.head, message });
  return { changeRequest: id, number };
}
