import type { Processor } from './types.js';
import { asJobFailure } from './failures.js';
import { renderPdfExport } from '../src/services/pdf-render.js';

/** Render one PDF export with Chromium into the BlobStore (src/services/pdf-render.ts). */
export const processPdfRender: Processor<'pdf.render'> = ({ renderId }, ctx) => renderPdfExport(ctx.app, renderId, ctx).catch(asJobFailure);
