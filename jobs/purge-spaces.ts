import type { Processor } from './types.js';
import { asJobFailure } from './failures.js';
import { purgeDeletedSpaces } from '../src/services/purge.js';

export type { PurgeResult } from '../src/services/purge.js';

/** 'spaces.purge': permanently remove spaces deleted past their retention, then their unreferenced bytes (src/services/purge.ts). */
export const purgeSpaces: Processor<'spaces.purge'> = (payload, ctx) => purgeDeletedSpaces(ctx.app, payload, ctx).catch(asJobFailure);
