// translations, translation_pages, translation_memory.
import type { Queryable } from '../pool.js';

export interface TranslationRow {
  id: string;
  organization_id: string;
  source_space_id: string;
  source_language: string;
  language: string;
  instructions: Record<string, unknown>;
  instructions_hash: string;
  status: 'pending' | 'running' | 'completed';
  result_space_id: string | null;
  result_revision_id: string | null;
  runs: number;
  total_words: string | number;
  total_duration: number;
  latest_run_duration: number;
  latest_pages: number;
  latest_words: number;
  total_pages: string | number;
  last_error: string | null;
  last_source: string | null;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = `t.*, (SELECT count(*) FROM translation_pages tp WHERE tp.translation_id = t.id) AS total_pages`;

export async function insertTranslation(
  db: Queryable,
  t: {
    id: string;
    orgId: string;
    sourceSpaceId: string;
    sourceLanguage: string;
    language: string;
    instructions: unknown;
    instructionsHash: string;
    createdBy: string;
  },
): Promise<void> {
  await db.query(
    `INSERT INTO translations (id, organization_id, source_space_id, source_language, language, instructions, instructions_hash, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [t.id, t.orgId, t.sourceSpaceId, t.sourceLanguage, t.language, JSON.stringify(t.instructions), t.instructionsHash, t.createdBy],
  );
}

export async function getTranslation(db: Queryable, id: string, forUpdate = false): Promise<TranslationRow | null> {
  const { rows } = await db.query<TranslationRow>(
    forUpdate
      ? 'SELECT t.*, 0 AS total_pages FROM translations t WHERE id = $1 FOR UPDATE'
      : `SELECT ${COLUMNS} FROM translations t WHERE id = $1`,
    [id],
  );
  return rows[0] ?? null;
}

export async function listOrgTranslations(db: Queryable, orgId: string): Promise<TranslationRow[]> {
  const { rows } = await db.query<TranslationRow>(`SELECT ${COLUMNS} FROM translations t WHERE organization_id = $1`, [orgId]);
  return rows;
}

export async function translationExists(db: Queryable, sourceSpaceId: string, language: string): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM translations WHERE source_space_id = $1 AND language = $2', [sourceSpaceId, language]);
  return (rowCount ?? 0) > 0;
}

export async function updateInstructions(db: Queryable, id: string, instructions: unknown, hash: string): Promise<void> {
  await db.query('UPDATE translations SET instructions = $2, instructions_hash = $3, updated_at = clock_timestamp() WHERE id = $1', [
    id,
    JSON.stringify(instructions),
    hash,
  ]);
}

export async function deleteTranslation(db: Queryable, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM translations WHERE id = $1', [id]);
  return (rowCount ?? 0) > 0;
}

export async function setStatus(db: Queryable, id: string, status: TranslationRow['status'], error?: string | null): Promise<void> {
  await db.query(
    `UPDATE translations SET status = $2, updated_at = clock_timestamp()${error !== undefined ? ', last_error = $3' : ''} WHERE id = $1`,
    error !== undefined ? [id, status, error] : [id, status],
  );
}

/** After a failed run: `completed` when an earlier run produced a result, else `pending`. */
export async function revertStatus(db: Queryable, id: string, error: string): Promise<void> {
  await db.query(
    `UPDATE translations SET status = CASE WHEN result_revision_id IS NULL THEN 'pending' ELSE 'completed' END,
            last_error = $2, updated_at = clock_timestamp() WHERE id = $1`,
    [id, error],
  );
}

export async function setResultSpace(db: Queryable, id: string, spaceId: string): Promise<void> {
  await db.query('UPDATE translations SET result_space_id = $2 WHERE id = $1', [id, spaceId]);
}

export async function completeRun(
  db: Queryable,
  id: string,
  r: { revisionId: string; durationS: number; pages: number; words: number; source: string },
): Promise<void> {
  await db.query(
    `UPDATE translations SET status = 'completed', result_revision_id = $2, runs = runs + 1,
            latest_run_duration = $3::int, total_duration = total_duration + $3::int, latest_pages = $4,
            latest_words = $5::int, total_words = total_words + $5::int, last_error = NULL, last_source = $6,
            updated_at = clock_timestamp()
     WHERE id = $1`,
    [id, r.revisionId, r.durationS, r.pages, r.words, r.source],
  );
}

// ---- translation_pages ----------------------------------------------------------------------------

export async function pageHashes(db: Queryable, translationId: string): Promise<Map<string, string>> {
  const { rows } = await db.query<{ page_id: string; source_hash: string }>(
    'SELECT page_id, source_hash FROM translation_pages WHERE translation_id = $1',
    [translationId],
  );
  return new Map(rows.map((r) => [r.page_id, r.source_hash]));
}

export async function upsertPageHashes(db: Queryable, translationId: string, pages: { id: string; hash: string; words: number }[]) {
  if (!pages.length) return;
  await db.query(
    `INSERT INTO translation_pages (translation_id, page_id, source_hash, words)
     SELECT $1, * FROM unnest($2::text[], $3::text[], $4::int[])
     ON CONFLICT (translation_id, page_id) DO UPDATE
       SET source_hash = EXCLUDED.source_hash, words = EXCLUDED.words, translated_at = clock_timestamp()`,
    [translationId, pages.map((p) => p.id), pages.map((p) => p.hash), pages.map((p) => p.words)],
  );
}

export async function deletePageHashes(db: Queryable, translationId: string, pageIds: string[]) {
  if (!pageIds.length) return;
  await db.query('DELETE FROM translation_pages WHERE translation_id = $1 AND page_id = ANY($2::text[])', [translationId, pageIds]);
}

export async function clearPageHashes(db: Queryable, translationId: string) {
  await db.query('DELETE FROM translation_pages WHERE translation_id = $1', [translationId]);
}

// ---- translation_memory ---------------------------------------------------------------------------

export async function memoryGet(db: Queryable, translationId: string, keys: string[]): Promise<Map<string, string>> {
  if (!keys.length) return new Map();
  const { rows } = await db.query<{ key: string; translated: string }>(
    'SELECT key, translated FROM translation_memory WHERE translation_id = $1 AND key = ANY($2::text[])',
    [translationId, keys],
  );
  return new Map(rows.map((r) => [r.key, r.translated]));
}

export async function memoryPut(db: Queryable, translationId: string, entries: Map<string, string>): Promise<void> {
  if (!entries.size) return;
  await db.query(
    `INSERT INTO translation_memory (translation_id, key, translated)
     SELECT $1, * FROM unnest($2::text[], $3::text[]) ON CONFLICT (translation_id, key) DO UPDATE SET translated = EXCLUDED.translated`,
    [translationId, [...entries.keys()], [...entries.values()]],
  );
}

export async function clearMemory(db: Queryable, translationId: string): Promise<void> {
  await db.query('DELETE FROM translation_memory WHERE translation_id = $1', [translationId]);
}

// ---- translation_glossary -------------------------------------------------------------------------

export interface GlossaryRow {
  id: string;
  organization_id: string;
  translations: Record<string, string>;
  created_at: Date;
  updated_at: Date;
}

export async function listGlossary(db: Queryable, orgId: string): Promise<GlossaryRow[]> {
  const { rows } = await db.query<GlossaryRow>('SELECT * FROM translation_glossary WHERE organization_id = $1 ORDER BY created_at, id', [
    orgId,
  ]);
  return rows;
}

export async function getGlossaryEntry(db: Queryable, orgId: string, id: string): Promise<GlossaryRow | null> {
  const { rows } = await db.query<GlossaryRow>('SELECT * FROM translation_glossary WHERE organization_id = $1 AND id = $2', [orgId, id]);
  return rows[0] ?? null;
}

export async function countGlossary(db: Queryable, orgId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM translation_glossary WHERE organization_id = $1', [orgId]);
  return rows[0].n;
}

/** Serialize changes to one organization's glossary until the transaction ends (the size check holds). */
export async function lockGlossary(db: Queryable, orgId: string): Promise<void> {
  await db.query("SELECT pg_advisory_xact_lock(hashtext('translation_glossary:' || $1))", [orgId]);
}

export async function insertGlossaryEntry(db: Queryable, orgId: string, id: string, translations: Record<string, string>) {
  await db.query('INSERT INTO translation_glossary (id, organization_id, translations) VALUES ($1, $2, $3)', [
    id,
    orgId,
    JSON.stringify(translations),
  ]);
}

export async function updateGlossaryEntry(db: Queryable, orgId: string, id: string, translations: Record<string, string>) {
  const { rowCount } = await db.query(
    'UPDATE translation_glossary SET translations = $3, updated_at = clock_timestamp() WHERE organization_id = $1 AND id = $2',
    [orgId, id, JSON.stringify(translations)],
  );
  return (rowCount ?? 0) > 0;
}

export async function deleteGlossaryEntry(db: Queryable, orgId: string, id: string) {
  const { rowCount } = await db.query('DELETE FROM translation_glossary WHERE organization_id = $1 AND id = $2', [orgId, id]);
  return (rowCount ?? 0) > 0;
}
