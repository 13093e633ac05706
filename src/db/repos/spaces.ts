import type { Queryable } from '../pool.js';
import { updateColumns } from '../patch.js';
import { columnsOf } from '../columns.js';

export interface SpaceRow {
  id: string;
  organization_id: string;
  parent_id: string | null;
  title: string;
  emoji: string;
  visibility: string;
  edit_mode: 'live' | 'locked';
  default_level: string | null;
  language: string | null;
  position: number;
  revision_id: string;
  share_key: string;
  git_sync: Record<string, unknown> | null;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
  comments: number;
  change_requests: number;
  change_requests_open: number;
  change_requests_draft: number;
  /** The space's own merge rules (null: inherit); read with the counters, null without them. */
  merge_rules: Record<string, unknown> | null;
}

// Counters are computed, never stored, so they are true at all times. `comments` counts the open
// comments on the space's main content (change requests have their own counter).
export const SPACE_COLUMNS = `${columnsOf('spaces', 's')},
  (SELECT count(*) FROM comments c WHERE c.space_id = s.id AND c.change_request_id IS NULL AND c.status = 'open') AS comments,
  (SELECT count(*) FROM change_requests cr WHERE cr.space_id = s.id) AS change_requests,
  (SELECT count(*) FROM change_requests cr WHERE cr.space_id = s.id AND cr.status = 'open') AS change_requests_open,
  (SELECT count(*) FROM change_requests cr WHERE cr.space_id = s.id AND cr.status = 'draft') AS change_requests_draft,
  (SELECT m.rules FROM space_merge_rules m WHERE m.space_id = s.id) AS merge_rules`;

export async function insertSpace(
  db: Queryable,
  s: {
    id: string;
    orgId: string;
    parentId: string | null;
    title: string;
    emoji: string;
    visibility: string;
    editMode: string;
    defaultLevel: string | null;
    language: string | null;
    position: number;
    revisionId: string;
    shareKey: string;
    createdBy: string;
  },
) {
  await db.query(
    `INSERT INTO spaces (id, organization_id, parent_id, title, emoji, visibility, edit_mode, default_level, language, position,
                         revision_id, share_key, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
    [
      s.id,
      s.orgId,
      s.parentId,
      s.title,
      s.emoji,
      s.visibility,
      s.editMode,
      s.defaultLevel,
      s.language,
      s.position,
      s.revisionId,
      s.shareKey,
      s.createdBy,
    ],
  );
}

/** The columns of a SpaceRow of `s`: with its counters, or with zeros in their place. */
export function spaceColumns(counters: boolean): string {
  return counters
    ? SPACE_COLUMNS
    : `${columnsOf('spaces', 's')}, 0 AS comments, 0 AS change_requests, 0 AS change_requests_open, 0 AS change_requests_draft, NULL::jsonb AS merge_rules`;
}

/**
 * A space by id. `counters: false` skips the four counter subqueries (access checks and locks do
 * not need them; the counters read as 0 then, so only presenters may rely on them).
 */
export async function getSpace(
  db: Queryable,
  id: string,
  opts: { includeDeleted?: boolean; forUpdate?: boolean; counters?: boolean } = {},
): Promise<SpaceRow | null> {
  const columns = spaceColumns(opts.counters !== false);
  // Named per variant (prepared once per connection): most requests load their space first.
  const { rows } = await db.query<SpaceRow>({
    name: `space_by_id_${opts.counters === false ? 'bare' : 'counted'}${opts.includeDeleted ? '_any' : ''}${opts.forUpdate ? '_lock' : ''}`,
    text: `SELECT ${columns} FROM spaces s WHERE s.id = $1 ${opts.includeDeleted ? '' : 'AND s.deleted_at IS NULL'}
     ${opts.forUpdate ? 'FOR NO KEY UPDATE OF s' : ''}`,
    values: [id],
  });
  return rows[0] ?? null;
}

/**
 * Lock a live space row (serializes writers of its content) and return its current revision.
 * FOR NO KEY UPDATE: writers exclude each other, while rows that merely reference the space (its
 * content objects stored ahead of a revision on another connection, a comment) may be inserted
 * meanwhile; a FOR UPDATE would make their foreign-key check wait for the writer.
 */
export async function lockSpace(db: Queryable, id: string): Promise<SpaceRow | null> {
  return getSpace(db, id, { forUpdate: true, counters: false });
}

export async function listSpaces(
  db: Queryable,
  where: { orgId: string; parentId?: string | null },
  limit: number,
  after?: [number, string, string],
) {
  const params: unknown[] = [where.orgId];
  const conds = ['s.organization_id = $1', 's.deleted_at IS NULL'];
  if (where.parentId !== undefined) {
    params.push(where.parentId);
    conds.push(`s.parent_id IS NOT DISTINCT FROM $${params.length}`);
  }
  const countParams = [...params];
  const countConds = [...conds];
  if (after) {
    params.push(after[0], after[1], after[2]);
    conds.push(`(s.position, s.created_at, s.id) > ($${params.length - 2}::float8, $${params.length - 1}::timestamptz, $${params.length})`);
  }
  params.push(limit);
  const { rows } = await db.query<SpaceRow & { created_key: string }>(
    `SELECT ${SPACE_COLUMNS}, s.created_at::text AS created_key FROM spaces s WHERE ${conds.join(' AND ')}
      ORDER BY s.position, s.created_at, s.id LIMIT $${params.length}`,
    params,
  );
  const { rows: c } = await db.query(`SELECT count(*) AS n FROM spaces s WHERE ${countConds.join(' AND ')}`, countParams);
  return { rows, count: c[0].n as number };
}

const PATCHABLE: Record<string, string> = {
  title: 'title',
  emoji: 'emoji',
  editMode: 'edit_mode',
  defaultLevel: 'default_level',
  language: 'language',
  visibility: 'visibility',
};

export async function updateSpace(db: Queryable, id: string, patch: object) {
  await updateColumns(db, 'spaces', id, patch, PATCHABLE);
}

export async function setSpaceRevision(db: Queryable, id: string, revisionId: string) {
  await db.query('UPDATE spaces SET revision_id = $2, updated_at = clock_timestamp() WHERE id = $1', [id, revisionId]);
}

export async function softDeleteSpace(db: Queryable, id: string, userId: string): Promise<boolean> {
  const { rowCount } = await db.query(
    'UPDATE spaces SET deleted_at = clock_timestamp(), deleted_by = $2 WHERE id = $1 AND deleted_at IS NULL',
    [id, userId],
  );
  return (rowCount ?? 0) > 0;
}

export async function restoreSpace(db: Queryable, id: string) {
  await db.query('UPDATE spaces SET deleted_at = NULL, deleted_by = NULL, updated_at = clock_timestamp() WHERE id = $1', [id]);
}

export async function setSpacePlace(db: Queryable, id: string, parentId: string | null, position: number) {
  await db.query('UPDATE spaces SET parent_id = $2, position = $3, updated_at = clock_timestamp() WHERE id = $1', [id, parentId, position]);
}

export async function setSpaceOrganization(db: Queryable, id: string, orgId: string, position: number) {
  await db.query('UPDATE spaces SET organization_id = $2, parent_id = NULL, position = $3, updated_at = clock_timestamp() WHERE id = $1', [
    id,
    orgId,
    position,
  ]);
  await db.query(
    'DELETE FROM space_members WHERE space_id = $1 AND user_id NOT IN (SELECT user_id FROM members WHERE organization_id = $2)',
    [id, orgId],
  );
}

export async function setSpaceMember(db: Queryable, spaceId: string, userId: string, role: string) {
  await db.query(
    `INSERT INTO space_members (space_id, user_id, role) VALUES ($1, $2, $3)
     ON CONFLICT (space_id, user_id) DO UPDATE SET role = EXCLUDED.role`,
    [spaceId, userId, role],
  );
}

/** Spaces deleted before `cutoff`, oldest first (purge candidates). */
export async function listDeletedBefore(db: Queryable, cutoff: Date, limit: number): Promise<string[]> {
  const { rows } = await db.query('SELECT id FROM spaces WHERE deleted_at < $1 ORDER BY deleted_at LIMIT $2', [cutoff, limit]);
  return rows.map((r) => r.id);
}

/** Spaces (live and soft-deleted) whose parent is one of `collectionIds`, in sibling order. */
export async function spacesInCollections(db: Queryable, collectionIds: string[]): Promise<SpaceRow[]> {
  if (!collectionIds.length) return [];
  const { rows } = await db.query<SpaceRow>(
    `SELECT ${SPACE_COLUMNS} FROM spaces s WHERE s.parent_id = ANY($1) ORDER BY s.position, s.created_at, s.id`,
    [collectionIds],
  );
  return rows;
}

/**
 * Take a space out of its collection to the top level, soft-deleting it (when live) by `deletedBy`.
 * A space already deleted keeps its deletion time.
 */
export async function detachAndSoftDeleteSpace(
  db: Queryable,
  id: string,
  s: { defaultLevel: string | null; visibility: string; position: number; deletedBy: string },
): Promise<void> {
  await db.query(
    `UPDATE spaces SET parent_id = NULL, default_level = $2, visibility = $3, position = $4,
            deleted_by = CASE WHEN deleted_at IS NULL THEN $5 ELSE deleted_by END,
            deleted_at = coalesce(deleted_at, clock_timestamp()), updated_at = clock_timestamp()
      WHERE id = $1`,
    [id, s.defaultLevel, s.visibility, s.position, s.deletedBy],
  );
}

/**
 * Move spaces to another organization keeping their parent collection (which moves with them);
 * explicit grants of users who are not members of the target organization are dropped.
 */
export async function setSpacesOrganizationKeepingParent(db: Queryable, ids: string[], orgId: string): Promise<void> {
  if (!ids.length) return;
  await db.query('UPDATE spaces SET organization_id = $2, updated_at = clock_timestamp() WHERE id = ANY($1)', [ids, orgId]);
  await db.query(
    'DELETE FROM space_members WHERE space_id = ANY($1) AND user_id NOT IN (SELECT user_id FROM members WHERE organization_id = $2)',
    [ids, orgId],
  );
}

/** Drop every explicit space grant `userId` holds in the organization's spaces (they leave with the membership). */
export async function deleteSpaceGrantsInOrganization(db: Queryable, orgId: string, userId: string): Promise<void> {
  await db.query('DELETE FROM space_members sm USING spaces s WHERE s.id = sm.space_id AND s.organization_id = $1 AND sm.user_id = $2', [
    orgId,
    userId,
  ]);
}
