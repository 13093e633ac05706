import type { Processor } from './types.js';
import { asJobFailure } from './failures.js';
import { runWebsiteImport } from '../src/services/website-import-run.js';

/** Crawl a website into a space or a change request (src/services/website-import-run.ts). */
export const processWebsiteImport: Processor<'import.website'> = (payload, ctx) =>
  runWebsiteImport(ctx.app, payload, ctx).catch(asJobFailure);
