import type { Processor } from './types.js';
import { runTranslation } from '../src/services/translation-run.js';

/** Translate a space's changed pages into its translation's result space (src/services/translation-run.ts). */
export const processTranslationRun: Processor<'translation.run'> = (payload, ctx) =>
  runTranslation(ctx.app, payload.translationId, {
    operationId: ctx.operation.id,
    createdBy: ctx.operation.created_by,
    log: ctx.log,
    progress: ctx.progress,
    fence: ctx.fence,
  });
