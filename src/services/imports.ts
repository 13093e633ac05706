// Content import from a website (POST .../content/import, on a space's main content or on a
// change request). The request only validates and records the operation: the `import.website`
// job crawls and writes (src/import/website.ts). The answer is 201 at once, with a `Location`
// naming the operation, and the id of the revision the import will create: the id is allocated
// here and the job commits its revision under exactly that id, so a client can wait for the
// space's (or change request's) revision to become it. `importedResources`/`totalResources` are 0
// in that answer; the operation's result holds the real counts when it has succeeded.
import type { AppContext } from '../context.js';
import { checkFetchUrl } from '../net/safe-fetch.js';
import type { Principal } from '../auth/principal.js';
import { withTx } from '../db/pool.js';
import { invalid } from '../core/errors.js';
import { requireUnlocked } from '../content/commit.js';
import { newId } from '../util/ids.js';
import { createOperation, enqueue } from './operations.js';
import { operationLocation } from '../presenters/operations.js';
import { requireSpace } from '../policies/spaces.js';
import { requireChangeRequest, requireEditable } from '../policies/change-requests.js';

export interface ImportRequest {
  url: string;
  source: 'website';
}

export interface ImportAccepted {
  body: { revision: string; importedResources: number; totalResources: number };
  location: string;
}

function checkUrl(app: AppContext, raw: string): string {
  const u = new URL(raw);
  // Refuse at once what the crawler's fetch would refuse (private addresses, bad schemes).
  try {
    checkFetchUrl(raw, app.config.fetch.allowPrivate);
  } catch (err) {
    throw invalid(`Invalid request: body.url: ${(err as Error).message}`);
  }
  // Credentials would sit in clear in the operation's payload and be sent to every page.
  if (u.username || u.password) throw invalid('Invalid request: body.url: must not contain credentials');
  u.hash = '';
  return u.href;
}

export async function startImport(
  app: AppContext,
  p: Principal,
  spaceId: string,
  body: ImportRequest,
  changeRequestRef?: string,
): Promise<ImportAccepted> {
  let organizationId: string;
  let changeRequestId: string | undefined;
  if (changeRequestRef !== undefined) {
    const { space, cr } = await requireChangeRequest(app, p, spaceId, changeRequestRef, 'edit');
    requireEditable(cr);
    organizationId = space.organization_id;
    changeRequestId = cr.id;
  } else {
    const { space } = await requireSpace(app.db, p, spaceId, 'edit');
    requireUnlocked(space); // checked again by the job's writer, in case the space is locked meanwhile
    organizationId = space.organization_id;
  }
  const url = checkUrl(app, body.url);
  const revisionId = newId();
  const op = await withTx(app.db, (c) =>
    createOperation(c, 'import.website', {
      organizationId,
      payload: { spaceId, ...(changeRequestId ? { changeRequestId } : {}), url, revisionId },
      targetType: changeRequestId ? 'change-request' : 'space',
      targetId: changeRequestId ?? spaceId,
      createdBy: p.userId,
    }),
  );
  await enqueue(app, op);
  return { body: { revision: revisionId, importedResources: 0, totalResources: 0 }, location: operationLocation(app, op.id) };
}
