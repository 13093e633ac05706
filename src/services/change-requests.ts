import type { AppContext } from '../context.js';
import type { Principal } from '../auth/principal.js';
import { withTx } from '../db/pool.js';
import * as crs from '../db/repos/change-requests.js';
import type { ChangeRequestRow, ChangeRequestStatus } from '../db/repos/change-requests.js';
import { getSpace, lockSpace } from '../db/repos/spaces.js';
import { getRevision } from '../db/repos/revisions.js';
import { buildPage, decodeCursor, DEFAULT_LIMIT } from '../core/pagination.js';
import { DomainError, invalid, conflict, notFound, limitExceeded } from '../core/errors.js';
import { newId } from '../util/ids.js';
import { editChangeRequestContent, editMainContent, revisionSnapshot } from '../content/commit.js';
import { mergeInto, type MergeConflict } from '../content/merge.js';
import { applyBatch, BatchError, checkBatchBodies, type ContentChange, type StoredFile } from '../content/batch.js';
import { DraftError } from '../content/draft.js';
import { safeFetch, FetchFailedError, FetchTimeoutError } from '../net/safe-fetch.js';
import { requireSpace } from '../policies/spaces.js';
import { requireChangeRequest, requireEditable } from '../policies/change-requests.js';
import { appUrls } from '../presenters/urls.js';
import { toChangeRequest } from '../presenters/change-requests.js';
import { storeFileBytes } from '../content/files.js';
import { afterChangeRequestChange, afterContentChange } from './content-hooks.js';
import type { ContentTarget } from './content.js';
import { checkMergeRules } from './reviews.js';
import { checkDescription, resolveLinks, type ChangeRequestLinkInput } from './change-request-details.js';

/** Where a change request's content is read from (its latest revision). */
export async function changeRequestTarget(
  app: AppContext,
  p: Principal,
  spaceId: string,
  ref: string,
): Promise<ContentTarget & { cr: ChangeRequestRow }> {
  const { space, cr } = await requireChangeRequest(app, p, spaceId, ref);
  return { spaceId, revisionId: cr.revision, organizationId: space.organization_id, cr };
}

export async function listChangeRequests(
  app: AppContext,
  p: Principal,
  spaceId: string,
  q: { page?: string; limit?: number; status?: ChangeRequestStatus; creator?: string },
) {
  const { space } = await requireSpace(app.db, p, spaceId, 'read');
  const limit = q.limit ?? DEFAULT_LIMIT;
  const after = decodeCursor(q.page, 1) as [number] | undefined;
  const { rows, count } = await crs.listChangeRequests(app.db, spaceId, {
    status: q.status,
    creator: q.creator,
    limit,
    afterNumber: after?.[0],
  });
  return buildPage(
    rows,
    limit,
    count,
    (r) => [r.number],
    (r) => toChangeRequest(app, r, space.revision_id),
  );
}

export async function createChangeRequest(app: AppContext, p: Principal, spaceId: string, subject: string) {
  await requireSpace(app.db, p, spaceId, 'edit');
  const id = newId();
  const revision = await withTx(app.db, async (c) => {
    const space = await lockSpace(c, spaceId);
    if (!space) throw notFound(`Space "${spaceId}" not found`);
    const number = await crs.nextChangeRequestNumber(c, spaceId);
    await crs.insertChangeRequest(c, { id, spaceId, number, subject, createdBy: p.userId, revision: space.revision_id });
    return space.revision_id;
  });
  return toChangeRequest(app, (await crs.getChangeRequest(app.db, spaceId, id))!, revision);
}

export async function getChangeRequest(app: AppContext, p: Principal, spaceId: string, ref: string) {
  const { space, cr } = await requireChangeRequest(app, p, spaceId, ref);
  return toChangeRequest(app, cr, space.revision_id);
}

export async function updateChangeRequest(
  app: AppContext,
  p: Principal,
  spaceId: string,
  ref: string,
  patch: {
    subject?: string;
    status?: 'draft' | 'open' | 'archived';
    description?: Record<string, unknown>;
    links?: ChangeRequestLinkInput[];
  },
) {
  const { cr } = await requireChangeRequest(app, p, spaceId, ref, 'edit');
  if (cr.status === 'merged' && patch.status) throw conflict('A merged change request cannot change status');
  // Checked (on the Markdown pool) before the transaction: no row lock waits on it.
  const description = patch.description === undefined ? undefined : await checkDescription(app, patch.description, 'body.description');
  await withTx(app.db, async (c) => {
    // Links given by id are matched against the links kept now, under the row's lock: two writes
    // of the list one after the other, never one over a list it did not see.
    const links = patch.links && resolveLinks((await crs.getChangeRequest(c, spaceId, cr.id, true))!.links, patch.links, 'body.links');
    const fields = { subject: patch.subject, status: patch.status, description, links };
    // Re-checked in the UPDATE itself: a merge committing meanwhile wins.
    if (patch.status && !(await crs.updateChangeRequest(c, cr.id, fields, { unlessMerged: true }))) {
      throw conflict('A merged change request cannot change status');
    }
    if (!patch.status) await crs.updateChangeRequest(c, cr.id, fields);
  });
  return getChangeRequest(app, p, spaceId, cr.id);
}

function conflictError(what: string, conflicts: MergeConflict[]): DomainError {
  const pages = conflicts.map((c) => `"${c.title}" (${c.pageId}): ${c.reason}`).join('; ');
  return conflict(`${what} has conflicts on ${conflicts.length} page(s): ${pages}`);
}

const MAX_INLINE_FILE = 1024 * 1024;

/** Fetch or decode the bytes of every insert_files entry before any transaction opens. */
async function gatherFiles(
  app: AppContext,
  changes: ContentChange[],
): Promise<{ bytes: Buffer; contentType: string; input: StoredFile['input'] }[]> {
  const out: { bytes: Buffer; contentType: string; input: StoredFile['input'] }[] = [];
  for (let i = 0; i < changes.length; i++) {
    const c = changes[i];
    if (c.operation !== 'insert_files') continue;
    for (let j = 0; j < c.files.length; j++) {
      const f = c.files[j];
      const field = `body.changes[${i}].files[${j}]`;
      if (f.base64 !== undefined) {
        if (!f.contentType) throw invalid(`Invalid request: ${field}.contentType: required with base64`);
        const bytes = Buffer.from(f.base64, 'base64');
        if (bytes.length > MAX_INLINE_FILE) throw limitExceeded(`${field}.base64: inline files are limited to 1 MB; use a url`);
        out.push({ bytes, contentType: f.contentType, input: f });
      } else if (f.url) {
        try {
          const r = await safeFetch(f.url, {
            timeoutMs: app.config.fetch.timeoutMs,
            maxBytes: app.config.fetch.maxBytes,
            allowPrivate: app.config.fetch.allowPrivate,
          });
          const type =
            f.contentType ??
            String(r.headers['content-type'] ?? 'application/octet-stream')
              .split(';')[0]
              .trim();
          out.push({ bytes: r.body, contentType: type, input: f });
        } catch (err) {
          if (err instanceof FetchFailedError || err instanceof FetchTimeoutError)
            throw invalid(`Invalid request: ${field}.url: ${err.message}`);
          throw err;
        }
      } else {
        throw invalid(`Invalid request: ${field}: give either url or base64`);
      }
    }
  }
  return out;
}

/**
 * Apply a batch of content changes to a change request: one new revision for the whole batch, or
 * nothing at all when any change fails.
 */
export async function applyContentChanges(app: AppContext, p: Principal, spaceId: string, ref: string, given: ContentChange[]) {
  const { cr: found } = await requireChangeRequest(app, p, spaceId, ref, 'edit');
  // Before fetching any file: a closed change request answers at once (the writer checks again under its lock).
  requireEditable(found);
  // Bodies held to the content limits (and JSON documents converted) on the Markdown pool, before the transaction.
  let changes: ContentChange[];
  try {
    changes = await checkBatchBodies(given, app.markdown);
  } catch (err) {
    if (err instanceof BatchError) throw invalid(err.message);
    throw err;
  }
  const files = await gatherFiles(app, changes);
  const { result } = await withTx(app.db, (c) =>
    editChangeRequestContent(
      c,
      spaceId,
      found.id,
      async (draft, { cr }) => {
        const stored: StoredFile[] = [];
        for (const f of files)
          stored.push({ ...(await storeFileBytes(app, c, spaceId, f.bytes, f.contentType)), input: f.input, contentType: f.contentType });
        try {
          return await applyBatch(c, spaceId, draft, changes, stored, async (revision) => {
            const rev = revision ?? cr.revision_merged_ancestor ?? cr.revision_initial;
            if (!(await getRevision(c, spaceId, rev))) throw new DraftError(`revision "${rev}" does not exist in this space`);
            return (await revisionSnapshot(c, spaceId, rev)).snapshot;
          });
        } catch (err) {
          if (err instanceof BatchError) throw invalid(err.message);
          throw err;
        }
      },
      { createdBy: p.userId },
      { check: requireEditable },
    ),
  );
  await afterChangeRequestChange(app, spaceId, found.id);
  const space = await getSpace(app.db, spaceId);
  const cr = (await crs.getChangeRequest(app.db, spaceId, found.id))!;
  const { snapshot } = await revisionSnapshot(app.db, spaceId, cr.revision);
  return {
    changeRequest: toChangeRequest(app, cr, space!.revision_id),
    changes: result.outcomes.map((o) =>
      o.object === 'deleted_page'
        ? { object: 'deleted_page', page: o.id }
        : {
            object: o.object,
            ...(o.object === 'created_page' && o.ref ? { ref: o.ref } : {}),
            page: {
              object: 'page',
              id: o.id,
              urls: { location: appUrls(app).api(`/spaces/${spaceId}/change-requests/${cr.id}/content/page/${o.id}`) },
            },
          },
    ),
    insertedFiles: result.insertedFiles
      .map((id) => snapshot.filesById.get(id))
      .filter(Boolean)
      .map((f) => ({ id: f!.id, name: f!.name, contentType: f!.contentType, size: f!.size })),
  };
}

/** Bring a change request up to date with main: merge main's changes since its base into it. */
export async function updateFromMain(app: AppContext, p: Principal, spaceId: string, ref: string) {
  const { cr: found } = await requireChangeRequest(app, p, spaceId, ref, 'edit');
  const { revision } = await withTx(app.db, (c) =>
    editChangeRequestContent(
      c,
      spaceId,
      found.id,
      async (draft, { cr, space }) => {
        const baseId = cr.revision_merged_ancestor ?? cr.revision_initial;
        if (space.revision_id === baseId) return null; // already up to date: nothing to commit
        // One after the other: both read on the transaction's connection, which runs one query at a time.
        const base = await revisionSnapshot(c, spaceId, baseId);
        const main = await revisionSnapshot(c, spaceId, space.revision_id);
        const conflicts = await mergeInto(c, spaceId, base.snapshot, draft.base!, main.snapshot, draft, (b, o, t) =>
          app.markdown.mergeText(b, o, t),
        );
        if (conflicts.length) throw conflictError(`Updating change request #${cr.number} from main`, conflicts);
        return space.revision_id;
      },
      (main) => (main ? { type: 'update', createdBy: p.userId, extraParents: [main], mainMerged: main } : {}),
      { check: requireEditable },
    ),
  );
  await afterChangeRequestChange(app, spaceId, found.id);
  return { revision: revision.id, result: 'update' as const };
}

const MERGE_LOCKED_MESSAGE = 'This space is locked: change requests cannot be merged while editMode is "locked"';

/**
 * Merge a change request into main. Runs under the space row lock, so racing merges queue and
 * the later one merges against the earlier one's result: no change is lost. Refused for a locked
 * space, a merged or archived change request, or conflicts (409, nothing changed).
 */
export async function mergeChangeRequest(app: AppContext, p: Principal, spaceId: string, ref: string) {
  const { cr: found } = await requireChangeRequest(app, p, spaceId, ref, 'review');
  const { revision } = await withTx(app.db, async (c) => {
    const write = await editMainContent(
      c,
      spaceId,
      async (draft) => {
        // Locked after the space (the order of every writer that holds both).
        const cr = (await crs.getChangeRequest(c, spaceId, found.id, true))!;
        requireEditable(cr);
        // The space's merge rules (required approvals ...), checked under the locks (src/services/reviews.ts).
        await checkMergeRules(c, { id: spaceId, revision_id: draft.baseRevisionId! }, cr, p.userId);
        const baseId = cr.revision_merged_ancestor ?? cr.revision_initial;
        const theirs = await revisionSnapshot(c, spaceId, cr.revision);
        if (draft.baseRevisionId === baseId) {
          // Main did not move: the change request's content becomes main as it is.
          draft.reset(theirs.snapshot);
        } else {
          const base = await revisionSnapshot(c, spaceId, baseId);
          const conflicts = await mergeInto(c, spaceId, base.snapshot, draft.base!, theirs.snapshot, draft, (b, o, t) =>
            app.markdown.mergeText(b, o, t),
          );
          if (conflicts.length) throw conflictError(`Merging change request #${cr.number}`, conflicts);
        }
        return cr;
      },
      (cr) => ({ type: 'merge', changeRequestId: cr.id, createdBy: p.userId, extraParents: [cr.revision] }),
      { lockedMessage: MERGE_LOCKED_MESSAGE },
    );
    await crs.updateChangeRequest(c, write.result.id, { status: 'merged', revision_merged: write.revision.id, merged_by: p.userId });
    return write;
  });
  await afterContentChange(app, spaceId);
  return { revision: revision.id, result: 'merge' as const };
}
