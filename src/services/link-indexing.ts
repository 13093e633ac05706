// The work of the `links.index` job and its scheduling: after a space's content changed (import,
// merge, edit, template, translation; see content-hooks.ts), or a change request's content (an edit,
// an update from main, a template, a website import into it), the links of every page body of that
// current revision are stored (src/content/links.ts `indexRevisionLinks`), so that the first link,
// backlink or broken-link read of that revision, in any API process, parses nothing.
import type { AppContext } from '../context.js';
import { JobSkipped } from '../queue/errors.js';
import { getSpace } from '../db/repos/spaces.js';
import { getChangeRequest } from '../db/repos/change-requests.js';
import { queuedOperationFor } from '../db/repos/operations.js';
import { revisionSnapshot } from '../content/commit.js';
import { indexRevisionLinks } from '../content/links.js';
import { createOperation, enqueue, scheduleSpaceIndex } from './operations.js';

/**
 * Store the links of a space's current revision (or of a change request's, when one is named) and
 * mark its root indexed. Idempotent: a revision already indexed is left alone, bodies already stored
 * (by an earlier revision, or by a reader that got there first) are not parsed again. A deleted
 * space or change request skips it (JobSkipped).
 */
export async function indexSpaceLinks(app: AppContext, spaceId: string, changeRequestId?: string) {
  const space = await getSpace(app.db, spaceId);
  if (!space) throw new JobSkipped('The space was deleted');
  let revisionId = space.revision_id;
  if (changeRequestId) {
    const cr = await getChangeRequest(app.db, spaceId, changeRequestId);
    if (!cr) throw new JobSkipped('The change request was deleted');
    revisionId = cr.revision;
  }
  const { snapshot } = await revisionSnapshot(app.db, spaceId, revisionId);
  const out = await indexRevisionLinks(app.db, snapshot, (mds) => app.markdown.linksOrTimedOut(mds));
  return { spaceId, ...(changeRequestId ? { changeRequestId } : {}), revisionId, ...out };
}

/**
 * Ask for the link index of a space's current revision (after its content changed). One queued job
 * per space is enough: it reads the revision current when it runs. Never throws: a reader builds what
 * is missing itself (src/services/links.ts), so a lost job costs time, not answers.
 */
export async function scheduleLinkIndex(app: AppContext, spaceId: string): Promise<void> {
  try {
    if (await queuedOperationFor(app.db, 'links.index', spaceId)) return;
    await scheduleSpaceIndex(app, 'links.index', spaceId);
  } catch (err) {
    app.log.error({ err, spaceId }, 'could not schedule the link index');
  }
}

/**
 * The same for a change request's content, after it changed (one queued job per change request,
 * reading its revision when it runs). Never throws, for the same reason.
 */
export async function scheduleChangeRequestLinkIndex(app: AppContext, spaceId: string, changeRequestId: string): Promise<void> {
  try {
    if (await queuedOperationFor(app.db, 'links.index', changeRequestId)) return;
    const space = await getSpace(app.db, spaceId);
    if (!space) return;
    const op = await createOperation(app.db, 'links.index', {
      organizationId: space.organization_id,
      payload: { spaceId, changeRequestId },
      targetType: 'change-request',
      targetId: changeRequestId,
    });
    await enqueue(app, op);
  } catch (err) {
    app.log.error({ err, spaceId, changeRequestId }, 'could not schedule the link index of a change request');
  }
}
