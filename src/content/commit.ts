// The writers of a space's content: every content change goes through one of them. One writer per
// kind of change: `editMainContent` (the space's current revision) and `editChangeRequestContent`
// (a change request's latest revision). Each locks what it moves, checks that it may change, opens
// a draft, lets the caller mutate it, commits a new revision and moves the pointer, all inside the
// caller's transaction (derived data such as the search index is the caller's to refresh after
// the transaction commits).
import type { Queryable } from '../db/pool.js';
import { newId } from '../util/ids.js';
import { DomainError } from '../core/errors.js';
import { insertRevision, getRevision, type RevisionRow } from '../db/repos/revisions.js';
import { getSpace, lockSpace, setSpaceRevision, type SpaceRow } from '../db/repos/spaces.js';
import { getChangeRequest, updateChangeRequest, type ChangeRequestRow } from '../db/repos/change-requests.js';
import { Draft } from './draft.js';
import { loadSnapshot, type Snapshot } from './snapshot.js';

interface CommitMeta {
  type?: 'edits' | 'merge' | 'rollback' | 'update' | 'computed';
  git?: Record<string, unknown>;
  changeRequestId?: string | null;
  createdBy?: string | null;
  /** Extra parents beyond the base revision (a merge). */
  extraParents?: string[];
  /** Id of the new revision when chosen in advance (an import announces it before running); default: a new id. */
  id?: string;
}

/** What a locked space answers a direct edit. */
const LOCKED_MESSAGE = 'This space is locked: its content cannot be edited while editMode is "locked"';

/** The space's editMode is "locked": it takes no direct edits (a conflict). */
export class SpaceLockedError extends DomainError {
  constructor(message = LOCKED_MESSAGE) {
    super('conflict', message);
    this.name = 'SpaceLockedError';
  }
}

/** The space or change request to write was deleted (or purged) since the caller's access check (not found). */
export class WriteTargetGoneError extends DomainError {
  constructor(
    readonly target: 'space' | 'change-request',
    message: string,
  ) {
    super('not-found', message);
    this.name = 'WriteTargetGoneError';
  }
}

/** A conflict unless the space takes direct edits of its content (editMode is not "locked"). */
export function requireUnlocked(space: Pick<SpaceRow, 'edit_mode'>, message = LOCKED_MESSAGE): void {
  if (space.edit_mode === 'locked') throw new SpaceLockedError(message);
}

/** Snapshot of one revision of a space. */
export async function revisionSnapshot(
  db: Queryable,
  spaceId: string,
  revisionId: string,
): Promise<{ revision: RevisionRow; snapshot: Snapshot }> {
  const revision = await getRevision(db, spaceId, revisionId);
  if (!revision) throw new Error(`Revision ${revisionId} of space ${spaceId} not found`);
  return { revision, snapshot: await loadSnapshot(db, spaceId, revision.root_hash) };
}

/** Write a draft as a new revision (objects + revision row) without moving any pointer. */
export async function commitDraft(c: Queryable, spaceId: string, draft: Draft, meta: CommitMeta): Promise<RevisionRow> {
  const rootHash = await draft.writeObjects(c, spaceId);
  return insertRevision(c, {
    id: meta.id ?? newId(),
    spaceId,
    rootHash,
    parents: [...(draft.baseRevisionId ? [draft.baseRevisionId] : []), ...(meta.extraParents ?? [])],
    type: meta.type,
    git: meta.git,
    changeRequestId: meta.changeRequestId,
    createdBy: meta.createdBy,
  });
}

/** Open a draft on a revision; that revision becomes the parent of what the draft commits. */
async function openDraft(db: Queryable, spaceId: string, revisionId: string): Promise<Draft> {
  const { snapshot } = await revisionSnapshot(db, spaceId, revisionId);
  return new Draft(snapshot, revisionId);
}

/** Commit metadata, or a function of what `mutate` returned (known once the write holds its locks). */
type MetaOf<T, M = CommitMeta> = M | ((result: T) => M);

interface ContentWrite<T> {
  /** The new revision, or the current one when nothing was committed. */
  revision: RevisionRow;
  /** False when nothing was committed: the draft changed nothing and the write is not a merge. */
  changed: boolean;
  draft: Draft;
  /** What `mutate` returned. */
  result: T;
}

/** Commit the draft unless it changed nothing; a merge (extra parents) is recorded even then. */
async function commitUnlessUnchanged(c: Queryable, spaceId: string, draft: Draft, current: string, meta: CommitMeta) {
  if (draft.unchanged && !meta.extraParents?.length) return { revision: (await getRevision(c, spaceId, current))!, changed: false };
  return { revision: await commitDraft(c, spaceId, draft, meta), changed: true };
}

interface MainWriteOptions {
  /** Write even when the space is locked (git imports: the repository is the source of truth). */
  allowLocked?: boolean;
  /** The 409 message for a locked space (default LOCKED_MESSAGE). */
  lockedMessage?: string;
  /** false: commit the revision without making it the space's current one (a standalone git import). */
  makeCurrent?: boolean;
}

/**
 * Change a space's main content: inside the caller's transaction, lock the space row (writers of
 * one space queue here), refuse a locked space, open a draft on its current revision, apply
 * `mutate`, commit a new revision and make it current. A 404 (WriteTargetGoneError) when the space
 * was deleted since the caller's check, a 409 (SpaceLockedError) when it is locked.
 */
export async function editMainContent<T = unknown>(
  c: Queryable,
  spaceId: string,
  mutate: (draft: Draft, space: SpaceRow) => T | Promise<T>,
  meta: MetaOf<T> = {},
  opts: MainWriteOptions = {},
): Promise<ContentWrite<T>> {
  const space = await lockSpace(c, spaceId);
  if (!space) throw new WriteTargetGoneError('space', `Space "${spaceId}" not found`);
  if (!opts.allowLocked) requireUnlocked(space, opts.lockedMessage);
  const draft = await openDraft(c, spaceId, space.revision_id);
  const result = await mutate(draft, space);
  const m = typeof meta === 'function' ? meta(result) : meta;
  const { revision, changed } = await commitUnlessUnchanged(c, spaceId, draft, space.revision_id, m);
  if (changed && opts.makeCurrent !== false) await setSpaceRevision(c, spaceId, revision.id);
  return { revision, changed, draft, result };
}

/** Commit metadata of a change request's revision; `mainMerged`: the main revision an update from main brought in. */
type ChangeRequestCommitMeta = Omit<CommitMeta, 'changeRequestId'> & { mainMerged?: string };

interface ChangeRequestWriteOptions {
  /** Throws when the change request's content may no longer change (merged, archived): the caller's rule and message. */
  check: (cr: ChangeRequestRow) => void;
}

/**
 * Change a change request's content: inside the caller's transaction, lock the change request row
 * (writers of one change request queue here), check it may still change, open a draft on its
 * latest revision, apply `mutate` (which also gets the row and the space), commit a new revision
 * and make it the change request's. A locked space still takes change requests (they are merged
 * later, through `editMainContent`).
 */
export async function editChangeRequestContent<T = unknown>(
  c: Queryable,
  spaceId: string,
  changeRequestId: string,
  mutate: (draft: Draft, target: { cr: ChangeRequestRow; space: SpaceRow }) => T | Promise<T>,
  meta: MetaOf<T, ChangeRequestCommitMeta>,
  opts: ChangeRequestWriteOptions,
): Promise<ContentWrite<T> & { cr: ChangeRequestRow }> {
  const cr = await getChangeRequest(c, spaceId, changeRequestId, true);
  if (!cr) throw new WriteTargetGoneError('change-request', `Change request "${changeRequestId}" not found`);
  opts.check(cr);
  const space = await getSpace(c, spaceId, { counters: false });
  if (!space) throw new WriteTargetGoneError('space', `Space "${spaceId}" not found`);
  const draft = await openDraft(c, spaceId, cr.revision);
  const result = await mutate(draft, { cr, space });
  const { mainMerged, ...m } = typeof meta === 'function' ? meta(result) : meta;
  const { revision, changed } = await commitUnlessUnchanged(c, spaceId, draft, cr.revision, { ...m, changeRequestId: cr.id });
  if (changed) await updateChangeRequest(c, cr.id, { revision: revision.id, revision_merged_ancestor: mainMerged });
  return { revision, changed, draft, result, cr };
}
