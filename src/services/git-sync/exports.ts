// What a Git Sync export commits: one commit per change-request merge since the last sync,
// authored by the user who merged with the change request's subject as message; the other edits
// between merges one commit each run of them, with a plain message.
import type { AppContext } from '../../context.js';
import { getRevision, type RevisionRow } from '../../db/repos/revisions.js';
import { getChangeRequest } from '../../db/repos/change-requests.js';
import { getUser } from '../../db/repos/users.js';

export interface ExportStep {
  revisionId: string;
  message: string;
  author?: { name: string; email: string };
}

/** How far back the revisions since the last sync are walked, and the most commits one run makes. */
const MAX_WALK = 200;
const MAX_COMMITS = 20;

function plainMessage(title: string) {
  return `Update "${title}" from the docs platform`;
}

async function userAuthor(app: AppContext, userId: string | null): Promise<ExportStep['author']> {
  if (!userId) return undefined;
  const u = await getUser(app.db, userId);
  return u?.email ? { name: u.display_name || u.email, email: u.email } : undefined;
}

/** The commit of a merge revision: the change request's subject, its merger as author. */
export async function mergeStep(app: AppContext, spaceId: string, rev: RevisionRow): Promise<ExportStep | null> {
  if (rev.type !== 'merge' || !rev.change_request_id) return null;
  const cr = await getChangeRequest(app.db, spaceId, rev.change_request_id);
  if (!cr) return null;
  return {
    revisionId: rev.id,
    message: cr.subject.trim() || `Merge change request #${cr.number}`,
    author: cr.merger_email ? { name: cr.merger_name || cr.merger_email, email: cr.merger_email } : await userAuthor(app, rev.created_by),
  };
}

/**
 * The commits exporting the space from `syncedRevision` to `current` makes, oldest first. When the
 * revisions between cannot be walked (no synced revision, too many), one commit of `current`.
 */
export async function exportSteps(
  app: AppContext,
  spaceId: string,
  spaceTitle: string,
  syncedRevision: string | null,
  current: string,
): Promise<ExportStep[]> {
  const single = async (): Promise<ExportStep[]> => {
    const rev = await getRevision(app.db, spaceId, current);
    const merge = rev ? await mergeStep(app, spaceId, rev) : null;
    return [merge ?? { revisionId: current, message: plainMessage(spaceTitle), author: await userAuthor(app, rev?.created_by ?? null) }];
  };
  if (!syncedRevision) return single();
  const chain: RevisionRow[] = [];
  let id: string | undefined = current;
  while (id && id !== syncedRevision && chain.length < MAX_WALK) {
    const rev = await getRevision(app.db, spaceId, id);
    if (!rev) break;
    chain.push(rev);
    id = rev.parents[0];
  }
  if (id !== syncedRevision) return single();
  chain.reverse();
  const steps: ExportStep[] = [];
  let plain: RevisionRow | null = null;
  const flush = async () => {
    if (plain) steps.push({ revisionId: plain.id, message: plainMessage(spaceTitle), author: await userAuthor(app, plain.created_by) });
    plain = null;
  };
  for (const rev of chain) {
    const merge = await mergeStep(app, spaceId, rev);
    if (merge) {
      await flush();
      steps.push(merge);
    } else plain = rev;
  }
  await flush();
  return steps.length > MAX_COMMITS ? single() : steps;
}
