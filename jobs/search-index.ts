import type { Processor } from './types.js';
import { asJobFailure } from './failures.js';
import { indexSpaceForSearch } from '../src/services/search-indexing.js';

/** Bring a space's search index up to its current revision (src/services/search-indexing.ts). Starts at once. */
export const processSearchIndex: Processor<'search.index'> = ({ spaceId }, ctx) =>
  indexSpaceForSearch(ctx.app, spaceId).catch(asJobFailure);
