import type { Processor } from './types.js';
import { asJobFailure } from './failures.js';
import { indexSpaceLinks } from '../src/services/link-indexing.js';

/** Store the links of a space's or a change request's current revision (src/services/link-indexing.ts). Starts at once. */
export const processLinksIndex: Processor<'links.index'> = ({ spaceId, changeRequestId }, ctx) =>
  indexSpaceLinks(ctx.app, spaceId, changeRequestId).catch(asJobFailure);
