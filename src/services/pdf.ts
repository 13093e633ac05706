// PDF export of a change request's content (GET .../change-requests/{id}/pdf) or of a space's
// main content (GET /spaces/{id}/pdf).
//
// The request answers at once with `{url}`: a signed link, valid for one hour, that needs no token
// (`/pdf/<renderId>?exp=<unix seconds>&sig=<HMAC>`). Rendering runs as a `pdf.render` job; its
// operation is named by the `Location` header (GET /v1/operations/{id} shows its progress).
//
// Selection (query): nothing -> every page; `page=<id>` -> that page and its sub-pages;
// `only=true&page=<id>` -> that page alone; `only=true` without `page` is a 400.
//
// The same (space, revision, change request or main, selection) is rendered once: later requests
// get a new link to the same render (no new operation), until a render fails; the next request
// after a failure starts a new attempt. The link answers:
//   200 application/pdf         the PDF is ready
//   202 + Retry-After           not ready yet (queued or running); the body is the usual error
//                               shape `{"error": {"code": 202, "message": "..."}}`
//   422                         the render failed; the message gives the reason (for example
//                               "page 'Setup': image file <id> is missing")
//   403                         the signature does not match (tampered or foreign link)
//   410                         the link expired (request a new one)
//   404                         no such render (its space or change request was purged)
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { AppContext } from '../context.js';
import type { Principal } from '../auth/principal.js';
import { withTx } from '../db/pool.js';
import * as renders from '../db/repos/pdf-renders.js';
import type { PdfRenderState } from '../db/repos/pdf-renders.js';
import type { OperationRow } from '../db/repos/operations.js';
import { forbidden, gone, invalid, notFound, unprocessable } from '../core/errors.js';
import { revisionSnapshot } from '../content/commit.js';
import { slugify } from '../content/markdown.js';
import { newId } from '../util/ids.js';
import { scopeKey, type Scope } from '../render/document.js';
import { createOperation, enqueue } from './operations.js';
import { operationLocation } from '../presenters/operations.js';
import { requireSpace } from '../policies/spaces.js';
import { requireChangeRequest } from '../policies/change-requests.js';

/** How long a link works (the public description: "The URL will work for 1h"). */
export const PDF_URL_TTL_SECONDS = 3600;
/** What the not-ready answer asks clients to wait before trying again. */
const RETRY_AFTER_SECONDS = 2;

export interface PdfQuery {
  only: boolean;
  page?: string;
}

export interface PdfLink {
  url: string;
  /** The operation rendering (or having rendered) this PDF. */
  location: string;
}

function sign(secret: string, renderId: string, exp: number): string {
  return createHmac('sha256', secret).update(`pdf\n${renderId}\n${exp}`).digest('base64url');
}

/** A link to a render, valid for PDF_URL_TTL_SECONDS from now. */
export function pdfUrl(app: AppContext, renderId: string, nowMs = Date.now()): string {
  const exp = Math.floor(nowMs / 1000) + PDF_URL_TTL_SECONDS;
  return `${app.config.publicUrl}/pdf/${renderId}?exp=${exp}&sig=${sign(app.secret, renderId, exp)}`;
}

function scopeOf(q: PdfQuery): Scope {
  if (q.only && !q.page) throw invalid('Invalid request: query.page: required when only=true (the page to export)');
  if (!q.page) return { kind: 'all' };
  return q.only ? { kind: 'page', pageId: q.page } : { kind: 'section', pageId: q.page };
}

interface ExportTarget {
  spaceId: string;
  spaceTitle: string;
  organizationId: string;
  revisionId: string;
  changeRequest: { id: string; number: number } | null;
}

/** PDF of a change request's latest content. Reading the change request is enough (space:read). */
export async function requestChangeRequestPdf(app: AppContext, p: Principal, spaceId: string, ref: string, q: PdfQuery): Promise<PdfLink> {
  const { space, cr } = await requireChangeRequest(app, p, spaceId, ref, 'read');
  const target = {
    spaceId,
    spaceTitle: space.title,
    organizationId: space.organization_id,
    revisionId: cr.revision,
    changeRequest: { id: cr.id, number: cr.number },
  };
  return requestPdf(app, p, target, q);
}

/** PDF of a space's main content (its current revision). */
export async function requestSpacePdf(app: AppContext, p: Principal, spaceId: string, q: PdfQuery): Promise<PdfLink> {
  const { space } = await requireSpace(app.db, p, spaceId, 'read');
  const target = {
    spaceId,
    spaceTitle: space.title,
    organizationId: space.organization_id,
    revisionId: space.revision_id,
    changeRequest: null,
  };
  return requestPdf(app, p, target, q);
}

/** A render whose blob is stored, a render in progress, or one that failed (with the reason). */
function effectiveState(r: PdfRenderState): { status: 'ready' | 'pending' | 'failed'; error?: string } {
  if (r.status === 'ready') return { status: 'ready' };
  if (r.status === 'failed') return { status: 'failed', error: r.error ?? r.op_error ?? 'The render failed' };
  // The operation ended without the processor recording it (retries exhausted, job lost, skipped).
  if (r.op_status === null) return { status: 'failed', error: 'The render operation was lost' };
  if (r.op_status === 'failed' || r.op_status === 'skipped' || r.op_status === 'succeeded') {
    return { status: 'failed', error: r.op_error ?? `The render operation ended (${r.op_status}) without a PDF` };
  }
  return { status: 'pending' };
}

/**
 * PDF of one page of a space's current revision for a reader of a published site: the site
 * checked the reader's access; renders are shared by (revision, page), so readers cannot start
 * more than one per page and revision.
 */
export async function requestReaderPagePdf(
  app: AppContext,
  space: { id: string; title: string; organization_id: string; revision_id: string },
  pageId: string,
): Promise<PdfLink> {
  const target = {
    spaceId: space.id,
    spaceTitle: space.title,
    organizationId: space.organization_id,
    revisionId: space.revision_id,
    changeRequest: null,
  };
  return requestPdf(app, null, target, { only: true, page: pageId });
}

async function requestPdf(app: AppContext, p: Principal | null, t: ExportTarget, q: PdfQuery): Promise<PdfLink> {
  const scope = scopeOf(q);
  let page = null;
  if (scope.kind !== 'all') {
    page = (await revisionSnapshot(app.db, t.spaceId, t.revisionId)).snapshot.byId.get(scope.pageId) ?? null;
    if (!page) throw notFound(`Page "${scope.pageId}" not found`);
  }
  const key: renders.RenderKey = {
    spaceId: t.spaceId,
    revisionId: t.revisionId,
    changeRequestId: t.changeRequest?.id ?? null,
    scope: scopeKey(scope),
  };

  const existing = await renders.findRender(app.db, key);
  if (existing && (await reusable(app, existing))) {
    return { url: pdfUrl(app, existing.id), location: operationLocation(app, existing.operation_id) };
  }

  const fileName = [
    slugify(t.spaceTitle) || 'space',
    t.changeRequest ? `cr-${t.changeRequest.number}` : null,
    page ? slugify(page.node.title) || page.node.id : null,
  ]
    .filter(Boolean)
    .join('-');
  const { renderId, operationId, op } = await withTx(app.db, async (c) => {
    await renders.lockRenderKey(c, key);
    const row = await renders.findRender(c, key);
    if (row && (await reusable(app, row))) return { renderId: row.id, operationId: row.operation_id, op: null as OperationRow | null };
    const id = row?.id ?? newId();
    const op = await createOperation(c, 'pdf.render', {
      organizationId: t.organizationId,
      payload: { renderId: id },
      targetType: t.changeRequest ? 'change-request' : 'space',
      targetId: t.changeRequest?.id ?? t.spaceId,
      createdBy: p?.userId,
    });
    if (row) await renders.restartRender(c, id, op.id);
    else await renders.insertRender(c, { ...key, id, organizationId: t.organizationId, operationId: op.id, fileName: `${fileName}.pdf` });
    return { renderId: id, operationId: op.id, op };
  });
  if (op) await enqueue(app, op);
  return { url: pdfUrl(app, renderId), location: operationLocation(app, operationId) };
}

/** Serve the render as it is, unless it failed or its stored PDF has gone missing: then render again. */
async function reusable(app: AppContext, r: PdfRenderState): Promise<boolean> {
  const state = effectiveState(r);
  if (state.status === 'failed') return false;
  if (state.status === 'ready') return (await app.blobs.head(r.blob_key!)) !== null;
  return true;
}

/** What a PDF link answers when it does not fail: the PDF, or "not ready yet". */
export type PdfDownload =
  | { kind: 'pending'; message: string; retryAfterSeconds: number; location: string }
  | { kind: 'ready'; stream: Readable; size: number; fileName: string; maxAgeSeconds: number };

/** GET /pdf/{renderId}?exp&sig: the PDF, or why not (see the table at the top of this file). */
export async function openPdf(
  app: AppContext,
  renderId: string,
  q: { exp: number; sig: string },
  nowMs = Date.now(),
): Promise<PdfDownload> {
  const expected = Buffer.from(sign(app.secret, renderId, q.exp));
  const given = Buffer.from(q.sig);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
    throw forbidden('Invalid PDF link: the signature does not match');
  }
  if (q.exp * 1000 <= nowMs) {
    throw gone(`This PDF link expired at ${new Date(q.exp * 1000).toISOString()}; request a new one`);
  }
  const r = await renders.getRender(app.db, renderId);
  if (!r) throw notFound('This PDF export no longer exists');
  const state = effectiveState(r);
  const location = operationLocation(app, r.operation_id);
  if (state.status === 'failed') throw unprocessable(`The PDF could not be rendered: ${state.error}`, { location });
  if (state.status === 'pending') {
    const what = r.op_status === 'running' ? 'rendering' : 'waiting to be rendered';
    return {
      kind: 'pending',
      message: `The PDF is not ready yet (${what}); retry in ${RETRY_AFTER_SECONDS} seconds`,
      retryAfterSeconds: RETRY_AFTER_SECONDS,
      location,
    };
  }
  const stored = await app.blobs.getStream(r.blob_key!);
  if (!stored) throw notFound('The PDF is no longer stored; request a new link to render it again');
  return {
    kind: 'ready',
    stream: stored.stream,
    size: stored.size,
    fileName: r.file_name,
    maxAgeSeconds: Math.max(0, q.exp - Math.floor(nowMs / 1000)),
  };
}
