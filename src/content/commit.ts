import type pg from 'pg';
import type { Queryable } from '../db/pool.js';
import { newId } from '../util/ids.js';
import { notFound } from '../core/errors.js';
import { insertRevision, getRevision, type RevisionRow } from '../db/repos/revisions.js';
import { lockSpace, setSpaceRevision } from '../db/repos/spaces.js';
import { Draft } from './draft.js';
import { loadSnapshot, type Snapshot } from './snapshot.js';

export interface CommitMeta {
  type?: 'edits' | 'merge' | 'rollback' | 'update' | 'computed';
  git?: Record<string, unknown>;
  changeRequestId?: string | null;
  createdBy?: string | null;
  /** Extra parents beyond the base revision (a merge). */
  extraParents?: string[];
  /** Id of the new revision when chosen in advance (an import announces it before running); default: a new id. */
  id?: string;
}

/** Snapshot of one revision of a space. */
export async function revisionSnapshot(db: Queryable, spaceId: string, revisionId: string): Promise<{ revision: RevisionRow; snapshot: Snapshot }> {
  const revision = await getRevision(db, spaceId, revisionId);
  if (!revision) throw new Error(`Revision ${revisionId} of space ${spaceId} not found`);
  return { revision, snapshot: await loadSnapshot(db, spaceId, revision.root_hash) };
}

/** Write a draft as a new revision (objects + revision row) without moving the space's pointer. */
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
export async function openDraft(db: Queryable, spaceId: string, revisionId: string): Promise<Draft> {
  const { snapshot } = await revisionSnapshot(db, spaceId, revisionId);
  return new Draft(snapshot, revisionId);
}

/**
 * Change a space's main content: inside the caller's transaction, lock the space row (writers of
 * one space queue here), open a draft on its current revision, apply `mutate`, commit a new
 * revision and make it current. Returns the revision and whether anything changed.
 */
export async function editMainContent(
  c: pg.PoolClient,
  spaceId: string,
  mutate: (draft: Draft) => unknown,
  meta: CommitMeta = {},
): Promise<{ revision: RevisionRow; changed: boolean; draft: Draft }> {
  const space = await lockSpace(c, spaceId);
  // Deleted (or purged) between the caller's access check and this lock: gone for this request too.
  if (!space) throw notFound(`Space "${spaceId}" not found`);
  const draft = await openDraft(c, spaceId, space.revision_id);
  await mutate(draft);
  if (draft.unchanged) return { revision: (await getRevision(c, spaceId, space.revision_id))!, changed: false, draft };
  const revision = await commitDraft(c, spaceId, draft, meta);
  await setSpaceRevision(c, spaceId, revision.id);
  return { revision, changed: true, draft };
}
