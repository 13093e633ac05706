import type { Processor } from './types.js';
import { asJobFailure } from './failures.js';
import { processOpenAPISpec as processSpec } from '../src/services/openapi-processing.js';

/** Fetch, parse, validate and store an OpenAPI spec version (src/services/openapi-processing.ts). */
export const processOpenAPISpec: Processor<'openapi.process'> = ({ specId }, ctx) => processSpec(ctx.app, specId, ctx).catch(asJobFailure);
