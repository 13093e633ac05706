import type { Processor } from './types.js';
import { asJobFailure } from './failures.js';
import { revalidateSite } from '../src/services/sites/revalidation.js';

/** Tell GitBook's renderer (or a CDN) that a site changed (src/services/sites/revalidation.ts). */
export const processSitesRevalidate: Processor<'sites.revalidate'> = ({ siteId }, ctx) =>
  revalidateSite(ctx.app, siteId).catch(asJobFailure);
