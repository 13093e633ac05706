// The work of the `import.website` job: crawl a website into a space or a change request (see
// src/import/website.ts). An ImportError is the run's final outcome; a deleted space skips it.
import type { AppContext } from '../context.js';
import type { ImportWebsitePayload } from '../queue/registry.js';
import { JobSkipped } from '../queue/errors.js';
import { getSpace } from '../db/repos/spaces.js';
import { importWebsite } from '../import/website.js';
import { afterChangeRequestChange, afterImport } from './content-hooks.js';
import type { OperationRun } from './operation-run.js';

export async function runWebsiteImport(app: AppContext, payload: ImportWebsitePayload, run: Omit<OperationRun, 'fence'>) {
  if (!(await getSpace(app.db, payload.spaceId))) throw new JobSkipped('The space was deleted');
  return importWebsite(app, payload, {
    createdBy: run.operation.created_by,
    progress: run.progress,
    log: run.log,
    afterContentChange: (spaceId) => afterImport(app, spaceId),
    afterChangeRequestChange: (spaceId, changeRequestId) => afterChangeRequestChange(app, spaceId, changeRequestId),
  });
}
