import type { Processor } from './types.js';
import { asJobFailure } from './failures.js';
import { aggregateInsights } from '../src/services/sites/insights.js';

/** 'insights.aggregate' (a timer): fold site insights events into rollups, delete raw events past retention. */
export const processInsightsAggregate: Processor<'insights.aggregate'> = (_payload, ctx) => aggregateInsights(ctx.app).catch(asJobFailure);
