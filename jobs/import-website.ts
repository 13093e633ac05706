import type { Processor } from './types.js';
import { JobFailure, JobSkipped } from '../src/queue/errors.js';
import { getSpace } from '../src/db/repos/spaces.js';
import { importWebsite, ImportError } from '../src/import/website.js';
import { afterImport } from '../src/services/content-hooks.js';

/** Crawl a website into a space or a change request (see src/import/website.ts). */
export const processWebsiteImport: Processor<'import.website'> = async (payload, ctx) => {
  if (!(await getSpace(ctx.app.db, payload.spaceId))) throw new JobSkipped('The space was deleted');
  try {
    return await importWebsite(ctx.app, payload, {
      createdBy: ctx.operation.created_by,
      progress: ctx.progress,
      log: ctx.log,
      afterContentChange: (spaceId) => afterImport(ctx.app, spaceId),
    });
  } catch (err) {
    if (err instanceof ImportError) throw new JobFailure(err.message);
    throw err;
  }
};
