// The work of the `pdf.render` job: one PDF export (a row of pdf_renders) printed by Chromium.
import type { AppContext } from '../context.js';
import { JobSkipped } from '../queue/errors.js';
import * as renders from '../db/repos/pdf-renders.js';
import { getSpace } from '../db/repos/spaces.js';
import { getChangeRequest } from '../db/repos/change-requests.js';
import { buildExport, PageRenderError, parseScope } from '../render/document.js';
import { printPdf, pdfPageCount } from '../render/pdf.js';
import type { OperationRun } from './operation-run.js';

/** Loading the HTML and printing it may each take this long (a 2-core machine prints ~10 pages/s). */
const RENDER_TIMEOUT_MS = 120_000;

const SUPERSEDED = 'Superseded by a newer request for the same PDF';

/** One key per attempt's operation: a superseded operation can delete its own bytes safely. */
function pdfBlobKey(spaceId: string, renderId: string, operationId: string) {
  return `pdf/${spaceId}/${renderId}/${operationId}.pdf`;
}

export type PdfRenderResult =
  { renderId: string; alreadyRendered: true } | { renderId: string; sections: number; pdfPages: number; size: number };

/**
 * Render one PDF export with Chromium and store it in the BlobStore. Only the operation the render
 * currently belongs to may complete it (JobSkipped otherwise). A page that cannot be rendered marks
 * the render failed and throws its PageRenderError ("page '<title>': <reason>", a final failure);
 * nothing is stored. Chromium crashes and timeouts are thrown as they are (retried, JOB_ATTEMPTS).
 */
export async function renderPdfExport(
  app: AppContext,
  renderId: string,
  run: Pick<OperationRun, 'operation' | 'progress'>,
): Promise<PdfRenderResult> {
  const { operation } = run;
  const row = await renders.getRender(app.db, renderId);
  if (!row) throw new JobSkipped('The PDF export no longer exists');
  if (row.operation_id !== operation.id) throw new JobSkipped(SUPERSEDED);
  if (row.status === 'ready') return { renderId, alreadyRendered: true };
  const space = await getSpace(app.db, row.space_id);
  if (!space) throw new JobSkipped('The space was deleted');
  const cr = row.change_request_id ? await getChangeRequest(app.db, row.space_id, row.change_request_id) : null;
  if (row.change_request_id && !cr) throw new JobSkipped('The change request was deleted');

  const scope = parseScope(row.scope);
  const subtitle = [
    cr ? `Change request #${cr.number}${cr.subject ? `: ${cr.subject}` : ''}` : 'Main content',
    `Revision ${row.revision_id}`,
  ];
  let built;
  try {
    built = await buildExport(
      app,
      {
        spaceId: row.space_id,
        revisionId: row.revision_id,
        organizationId: row.organization_id,
        scope,
        title: space.title || 'Untitled space',
        subtitle,
      },
      (f) => run.progress(0.1 + 0.4 * f),
    );
  } catch (err) {
    if (err instanceof PageRenderError) await renders.markRenderFailed(app.db, renderId, operation.id, err.message);
    throw err;
  }
  await run.progress(0.5);

  const pdf = await printPdf(built.html, { executablePath: app.config.chromiumPath, timeoutMs: RENDER_TIMEOUT_MS });
  await run.progress(0.9);

  // Store first, then make it visible: a crash in between leaves an unreferenced blob (overwritten
  // by the retry of the same operation), never a ready render without bytes.
  const key = pdfBlobKey(row.space_id, renderId, operation.id);
  await app.blobs.put(key, pdf, { contentType: 'application/pdf' });
  const pageCount = pdfPageCount(pdf);
  if (!(await renders.markRenderReady(app.db, renderId, operation.id, { blobKey: key, size: pdf.length, pageCount }))) {
    await app.blobs.delete(key).catch(() => {});
    throw new JobSkipped(SUPERSEDED);
  }
  return { renderId, sections: built.pages, pdfPages: pageCount, size: pdf.length };
}
