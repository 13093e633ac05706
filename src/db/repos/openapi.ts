import type { Queryable } from '../pool.js';

export interface SpecRow {
  id: string;
  organization_id: string;
  slug: string;
  /** The URL as shown: without credentials when it had some (then `source_url_sealed` holds it whole). */
  source_url: string | null;
  /** The whole source URL, credentials included, sealed (src/net/url-secrets.ts); null when it had none. */
  source_url_sealed: string | null;
  source_text: string | null;
  processing_state: 'pending' | 'progress' | 'complete';
  processing_operation_id: string | null;
  visibility: 'private' | 'public';
  last_version: string | null;
  last_processed_at: Date | null;
  last_process_error_code: 'FETCH_TIMEOUT' | 'FETCH_ERROR' | 'PARSE_ERROR' | null;
  last_process_error: string | null;
  /** Warnings of the last successful processing (at most MAX_STORED_WARNINGS), and how many there were in all. */
  last_process_warnings: StoredWarning[];
  last_process_warning_count: number;
  created_at: Date;
  updated_at: Date;
}

/** A validation problem of a processed description (src/content/openapi-validate.ts). */
export interface StoredWarning {
  code: string;
  message: string;
}

/** Warnings stored per version and per spec; the count keeps the total. */
export const MAX_STORED_WARNINGS = 100;

/** How a source is stored: a URL (shown form, plus the sealed whole when it had credentials) or inline text. */
export interface SpecSourceColumns {
  url: string | null;
  urlSealed: string | null;
  text: string | null;
}

export async function listSpecs(db: Queryable, orgId: string, limit: number, after?: [string, string]) {
  const params: unknown[] = [orgId, limit + 1];
  let cond = '';
  if (after) {
    params.push(after[0], after[1]);
    cond = 'AND (created_at, id) > ($3::timestamptz, $4)';
  }
  const { rows } = await db.query<SpecRow & { sort_key: string }>(
    `SELECT *, created_at::text AS sort_key FROM openapi_specs WHERE organization_id = $1 ${cond}
      ORDER BY created_at, id LIMIT $2`,
    params,
  );
  const { rows: c } = await db.query('SELECT count(*) AS n FROM openapi_specs WHERE organization_id = $1', [orgId]);
  return { rows, count: c[0].n as number };
}

export async function getSpecBySlug(db: Queryable, orgId: string, slug: string, forUpdate = false): Promise<SpecRow | null> {
  const { rows } = await db.query<SpecRow>(
    `SELECT * FROM openapi_specs WHERE organization_id = $1 AND slug = $2 ${forUpdate ? 'FOR UPDATE' : ''}`,
    [orgId, slug],
  );
  return rows[0] ?? null;
}

export async function getSpec(db: Queryable, id: string, forUpdate = false): Promise<SpecRow | null> {
  const { rows } = await db.query<SpecRow>(`SELECT * FROM openapi_specs WHERE id = $1 ${forUpdate ? 'FOR UPDATE' : ''}`, [id]);
  return rows[0] ?? null;
}

/** Insert, or return null when the slug is already taken in the organization. */
export async function insertSpec(
  db: Queryable,
  s: {
    id: string;
    orgId: string;
    slug: string;
    sourceUrl: string | null;
    sourceUrlSealed?: string | null;
    sourceText: string | null;
    operationId: string;
  },
): Promise<SpecRow | null> {
  const { rows } = await db.query<SpecRow>(
    `INSERT INTO openapi_specs (id, organization_id, slug, source_url, source_url_sealed, source_text, processing_operation_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (organization_id, slug) DO NOTHING RETURNING *`,
    [s.id, s.orgId, s.slug, s.sourceUrl, s.sourceUrlSealed ?? null, s.sourceText, s.operationId],
  );
  return rows[0] ?? null;
}

/** A new source: processing starts over under a new operation. */
export async function resetSpecSource(db: Queryable, id: string, source: SpecSourceColumns, operationId: string) {
  await db.query(
    `UPDATE openapi_specs SET source_url = $2, source_url_sealed = $3, source_text = $4, processing_operation_id = $5,
            processing_state = 'pending', updated_at = clock_timestamp() WHERE id = $1`,
    [id, source.url, source.urlSealed, source.text, operationId],
  );
}

/**
 * Source URLs stored in clear that may carry credentials (user info or a query/fragment): rows
 * written before sources were sealed. Few, so read at every start-up.
 */
export async function listUnsealedSourceUrls(db: Queryable): Promise<{ id: string; source_url: string }[]> {
  const { rows } = await db.query(
    `SELECT id, source_url FROM openapi_specs
      WHERE source_url_sealed IS NULL AND source_url IS NOT NULL AND (source_url ~ '^[^/]*//[^/?#]*@' OR source_url ~ '[?#]')`,
  );
  return rows;
}

/** Replace a clear source URL by its shown form and sealed value, only if it is still that URL. */
export async function sealSourceUrl(db: Queryable, id: string, clear: string, shown: string, sealed: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE openapi_specs SET source_url = $3, source_url_sealed = $4
      WHERE id = $1 AND source_url = $2 AND source_url_sealed IS NULL`,
    [id, clear, shown, sealed],
  );
  return (rowCount ?? 0) > 0;
}

export async function setVisibility(db: Queryable, id: string, visibility: string) {
  await db.query('UPDATE openapi_specs SET visibility = $2, updated_at = clock_timestamp() WHERE id = $1', [id, visibility]);
}

/** Move to `progress`, only if this operation is still the one the spec waits for. */
export async function markSpecInProgress(db: Queryable, id: string, operationId: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE openapi_specs SET processing_state = 'progress', updated_at = clock_timestamp()
      WHERE id = $1 AND processing_operation_id = $2`,
    [id, operationId],
  );
  return (rowCount ?? 0) > 0;
}

export async function completeSpec(
  db: Queryable,
  id: string,
  operationId: string,
  outcome: { versionId: string; warnings?: StoredWarning[]; warningCount?: number } | { errorCode: string; error: string },
): Promise<boolean> {
  const ok = 'versionId' in outcome;
  const warnings = ok ? (outcome.warnings ?? []).slice(0, MAX_STORED_WARNINGS) : [];
  const { rowCount } = await db.query(
    `UPDATE openapi_specs SET processing_state = 'complete', last_processed_at = clock_timestamp(), updated_at = clock_timestamp(),
            last_version = coalesce($3, last_version), last_process_error_code = $4, last_process_error = $5,
            last_process_warnings = $6::jsonb, last_process_warning_count = $7
      WHERE id = $1 AND processing_operation_id = $2`,
    [
      id,
      operationId,
      ok ? outcome.versionId : null,
      ok ? null : outcome.errorCode,
      ok ? null : outcome.error,
      JSON.stringify(warnings),
      ok ? (outcome.warningCount ?? warnings.length) : 0,
    ],
  );
  return (rowCount ?? 0) > 0;
}

export async function insertVersion(
  db: Queryable,
  v: {
    id: string;
    specId: string;
    blobKey: string;
    sha256: string;
    size: number;
    openapi: string;
    title?: string;
    apiVersion?: string;
    warnings?: StoredWarning[];
    /** Groups of operations (tag, '' for untagged; title), in reference order. */
    groups?: { key: string; title: string }[];
  },
) {
  const warnings = v.warnings ?? [];
  await db.query(
    `INSERT INTO openapi_spec_versions (id, spec_id, blob_key, sha256, size, openapi, title, api_version, warnings, warning_count, reference_groups)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10, $11::jsonb)`,
    [
      v.id,
      v.specId,
      v.blobKey,
      v.sha256,
      v.size,
      v.openapi,
      v.title ?? null,
      v.apiVersion ?? null,
      JSON.stringify(warnings.slice(0, MAX_STORED_WARNINGS)),
      warnings.length,
      JSON.stringify(v.groups ?? []),
    ],
  );
}

export async function getVersion(db: Queryable, specId: string, versionId: string) {
  const { rows } = await db.query('SELECT * FROM openapi_spec_versions WHERE spec_id = $1 AND id = $2', [specId, versionId]);
  return rows[0] ?? null;
}

/** The latest processed version of an organization's spec (by slug or id): its blob, and the spec's slug and visibility; null when none. */
export async function latestVersionBlob(
  db: Queryable,
  orgId: string,
  slugOrId: string,
): Promise<{ blobKey: string; slug: string; visibility: 'public' | 'private' } | null> {
  const { rows } = await db.query<{ blob_key: string; slug: string; visibility: 'public' | 'private' }>(
    `SELECT v.blob_key, s.slug, s.visibility FROM openapi_specs s JOIN openapi_spec_versions v ON v.id = s.last_version
      WHERE s.organization_id = $1 AND (s.slug = $2 OR s.id = $2)`,
    [orgId, slugOrId],
  );
  return rows[0] ? { blobKey: rows[0].blob_key, slug: rows[0].slug, visibility: rows[0].visibility } : null;
}

/** The slug of the organization's spec fetched from `url` (as shown, credentials removed), oldest first; null when none. */
export async function specSlugBySourceUrl(db: Queryable, orgId: string, url: string): Promise<string | null> {
  const { rows } = await db.query<{ slug: string }>(
    'SELECT slug FROM openapi_specs WHERE organization_id = $1 AND source_url = $2 ORDER BY created_at, id LIMIT 1',
    [orgId, url],
  );
  return rows[0]?.slug ?? null;
}

export function specBlobPrefix(specId: string) {
  return `openapi/${specId}/`;
}

/** Delete a spec; its blobs' prefix is queued for deletion in the same transaction. */
export async function deleteSpec(db: Queryable, id: string): Promise<string> {
  const prefix = specBlobPrefix(id);
  await db.query('INSERT INTO blob_garbage (blob_key) VALUES ($1) ON CONFLICT DO NOTHING', [prefix]);
  await db.query('DELETE FROM openapi_specs WHERE id = $1', [id]);
  return prefix;
}

/** Versions of a spec, newest first; keyset on (created_at as text, id). */
export async function listVersions(db: Queryable, specId: string, limit: number, after?: [string, string]) {
  const key = `to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US')`;
  const params: unknown[] = [specId];
  let where = 'spec_id = $1';
  if (after) {
    params.push(after[0], after[1]);
    where += ` AND (${key}, id) < ($2, $3)`;
  }
  params.push(limit + 1);
  const { rows } = await db.query<{ id: string; created_at: Date; sort_key: string }>(
    `SELECT id, created_at, ${key} AS sort_key FROM openapi_spec_versions WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
    params,
  );
  const c = await db.query<{ n: string }>('SELECT count(*) AS n FROM openapi_spec_versions WHERE spec_id = $1', [specId]);
  return { rows, count: Number(c.rows[0].n) };
}
