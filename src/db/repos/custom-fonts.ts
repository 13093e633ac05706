// Custom fonts of an organization and the signed uploads their files arrive through (issue 29).
import type { Queryable } from '../pool.js';

export interface StorageUploadRow {
  id: string;
  organization_id: string;
  kind: string;
  name: string;
  content_type: string;
  size: string;
  key: string;
  blob_key: string | null;
  sha256: string | null;
  format: string | null;
  created_by: string | null;
  expires_at: Date;
  uploaded_at: Date | null;
}

export interface FontFaceRow {
  weight: number;
  key: string;
  blobKey: string;
  format: string;
  contentType: string;
}

export interface CustomFontRow {
  id: string;
  organization_id: string;
  font_family: string;
  faces: FontFaceRow[];
  created_at: Date;
  updated_at: Date;
}

export async function insertUpload(
  db: Queryable,
  u: {
    id: string;
    orgId: string;
    kind: string;
    name: string;
    contentType: string;
    size: number;
    key: string;
    createdBy: string;
    expiresAt: Date;
  },
): Promise<void> {
  await db.query(
    `INSERT INTO storage_uploads (id, organization_id, kind, name, content_type, size, key, created_by, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [u.id, u.orgId, u.kind, u.name, u.contentType, u.size, u.key, u.createdBy, u.expiresAt],
  );
}

export async function getUpload(db: Queryable, id: string): Promise<StorageUploadRow | null> {
  const { rows } = await db.query('SELECT * FROM storage_uploads WHERE id = $1', [id]);
  return rows[0] ?? null;
}

export async function uploadsByKeys(db: Queryable, orgId: string, keys: string[]): Promise<StorageUploadRow[]> {
  const { rows } = await db.query('SELECT * FROM storage_uploads WHERE organization_id = $1 AND key = ANY($2)', [orgId, keys]);
  return rows;
}

export async function countPendingUploads(db: Queryable, orgId: string): Promise<number> {
  const { rows } = await db.query(
    'SELECT count(*)::int AS n FROM storage_uploads WHERE organization_id = $1 AND uploaded_at IS NULL AND expires_at > now()',
    [orgId],
  );
  return rows[0].n;
}

/** Marks the upload received; false when another PUT got there first. */
export async function completeUpload(db: Queryable, id: string, f: { blobKey: string; sha256: string; format: string }): Promise<boolean> {
  const r = await db.query(
    `UPDATE storage_uploads SET blob_key = $2, sha256 = $3, format = $4, uploaded_at = clock_timestamp()
     WHERE id = $1 AND uploaded_at IS NULL`,
    [id, f.blobKey, f.sha256, f.format],
  );
  return (r.rowCount ?? 0) > 0;
}

export async function listFonts(db: Queryable, orgId: string): Promise<CustomFontRow[]> {
  const { rows } = await db.query('SELECT * FROM custom_fonts WHERE organization_id = $1 ORDER BY created_at, id', [orgId]);
  return rows;
}

export async function countFonts(db: Queryable, orgId: string): Promise<number> {
  const { rows } = await db.query('SELECT count(*)::int AS n FROM custom_fonts WHERE organization_id = $1', [orgId]);
  return rows[0].n;
}

export async function getFont(db: Queryable, id: string): Promise<CustomFontRow | null> {
  const { rows } = await db.query('SELECT * FROM custom_fonts WHERE id = $1', [id]);
  return rows[0] ?? null;
}

export async function insertFont(db: Queryable, f: { id: string; orgId: string; family: string; faces: FontFaceRow[] }): Promise<void> {
  await db.query('INSERT INTO custom_fonts (id, organization_id, font_family, faces) VALUES ($1, $2, $3, $4)', [
    f.id,
    f.orgId,
    f.family,
    JSON.stringify(f.faces),
  ]);
}

export async function updateFont(db: Queryable, id: string, family: string, faces: FontFaceRow[]): Promise<void> {
  await db.query('UPDATE custom_fonts SET font_family = $2, faces = $3, updated_at = clock_timestamp() WHERE id = $1', [
    id,
    family,
    JSON.stringify(faces),
  ]);
}

export async function deleteFont(db: Queryable, orgId: string, id: string): Promise<boolean> {
  const r = await db.query('DELETE FROM custom_fonts WHERE organization_id = $1 AND id = $2', [orgId, id]);
  return (r.rowCount ?? 0) > 0;
}

/**
 * Forget the font uploads made before `before` that no custom font uses (never used, or their font
 * deleted or changed), and queue their bytes in blob_garbage (the purge deletes them); one
 * statement, so an upload is either kept or gone with its bytes queued. Returns how many went.
 */
export async function sweepUnusedFontUploads(db: Queryable, before: Date): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `WITH gone AS (
       DELETE FROM storage_uploads u
        WHERE u.kind = 'customization_font' AND u.created_at < $1
          AND NOT EXISTS (SELECT 1 FROM custom_fonts f, jsonb_array_elements(f.faces) face
                           WHERE f.organization_id = u.organization_id AND face->>'key' = u.key)
       RETURNING u.blob_key),
     queued AS (
       INSERT INTO blob_garbage (blob_key) SELECT blob_key FROM gone WHERE blob_key IS NOT NULL ORDER BY blob_key
       ON CONFLICT DO NOTHING)
     SELECT count(*)::int AS n FROM gone`,
    [before],
  );
  return rows[0].n;
}
