// The work of the `links.index` job and its scheduling: after a space's content changed (import,
// merge, edit, template, translation; see content-hooks.ts), the links of every page body of its
// current revision are stored (src/content/links.ts `indexRevisionLinks`), so that the first link,
// backlink or broken-link read of that revision, in any API process, parses nothing.
import type { AppContext } from '../context.js';
import { JobSkipped } from '../queue/errors.js';
import { getSpace } from '../db/repos/spaces.js';
import { queuedOperationFor } from '../db/repos/operations.js';
import { revisionSnapshot } from '../content/commit.js';
import { indexRevisionLinks } from '../content/links.js';
import { scheduleSpaceIndex } from './operations.js';

/**
 * Store the links of a space's current revision and mark its root indexed. Idempotent: a revision
 * already indexed is left alone, bodies already stored (by an earlier revision, or by a reader that
 * got there first) are not parsed again. A deleted space skips it (JobSkipped).
 */
export async function indexSpaceLinks(app: AppContext, spaceId: string) {
  const space = await getSpace(app.db, spaceId);
  if (!space) throw new JobSkipped('The space was deleted');
  const { snapshot } = await revisionSnapshot(app.db, spaceId, space.revision_id);
  const out = await indexRevisionLinks(app.db, snapshot, (mds) => app.markdown.linksOrTimedOut(mds));
  return { spaceId, revisionId: space.revision_id, ...out };
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
