// SQL of the search index (tables in migrations/0003_search.sql). Kept beside the search code
// rather than in src/db/repos because nothing else reads these tables.
import type { Queryable } from '../pool.js';

// Namespace of the per-space advisory lock (two-int form: namespace, hashtext(space id)).
const LOCK_NAMESPACE = 727_003;

export interface IndexedPage {
  page_id: string;
  body_hash: string;
  title: string;
  description: string;
  path: string;
  ancestors: string[];
}

export type PageRow = IndexedPage;

export interface SectionRow {
  pageId: string;
  /** The page's path (as its search_pages row). */
  path: string;
  ord: number;
  sectionId: string;
  title: string;
  body: string;
  /** Normalized text for the configured parser (CJK blanked out), per weight. */
  pageTitle: string;
  description: string;
  sectionTitle: string;
  /** null when it is `body` as it is (most bodies: no CJK, nothing NFKC changes), which is then not sent twice. */
  bodyText: string | null;
  /** tsvector literal of the CJK bigrams. */
  cjk: string;
}

export interface IndexState {
  language: string | null;
  deleted: boolean;
  revisionId: string;
  rootHash: string | null;
  indexedRevision: string | null;
  indexedRoot: string | null;
  indexedConfig: string | null;
}

/**
 * The state row must exist before an indexing transaction: inserting it takes a key-share lock on
 * the space row until commit, which would hold up writers of the space (they lock it FOR UPDATE).
 * Run outside any transaction; does nothing for a space that does not exist.
 */
export async function ensureStateRow(db: Queryable, spaceId: string): Promise<void> {
  await db.query('INSERT INTO search_spaces (space_id) SELECT id FROM spaces WHERE id = $1 ON CONFLICT (space_id) DO NOTHING', [spaceId]);
}

/** Serializes indexing of one space until the end of the caller's transaction. */
export async function lockSpaceIndex(db: Queryable, spaceId: string): Promise<void> {
  await db.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [LOCK_NAMESPACE, spaceId]);
}

export async function indexState(db: Queryable, spaceId: string): Promise<IndexState | null> {
  const { rows } = await db.query(
    `SELECT s.language, s.deleted_at IS NOT NULL AS deleted, s.revision_id, r.root_hash,
            ss.revision_id AS indexed_revision, ss.root_hash AS indexed_root, ss.config AS indexed_config
       FROM spaces s
       JOIN search_spaces ss ON ss.space_id = s.id
       LEFT JOIN revisions r ON r.id = s.revision_id AND r.space_id = s.id
      WHERE s.id = $1`,
    [spaceId],
  );
  const r = rows[0];
  if (!r) return null;
  return {
    language: r.language,
    deleted: r.deleted,
    revisionId: r.revision_id,
    rootHash: r.root_hash,
    indexedRevision: r.indexed_revision,
    indexedRoot: r.indexed_root,
    indexedConfig: r.indexed_config,
  };
}

export async function setIndexState(db: Queryable, spaceId: string, s: { revisionId: string; rootHash: string; config: string }) {
  await db.query(
    'UPDATE search_spaces SET revision_id = $2, root_hash = $3, config = $4, indexed_at = clock_timestamp() WHERE space_id = $1',
    [spaceId, s.revisionId, s.rootHash, s.config],
  );
}

export async function indexedPages(db: Queryable, spaceId: string): Promise<Map<string, IndexedPage>> {
  const { rows } = await db.query<IndexedPage>(
    'SELECT page_id, body_hash, title, description, path, ancestors FROM search_pages WHERE space_id = $1',
    [spaceId],
  );
  return new Map(rows.map((r) => [r.page_id, r]));
}

export async function deleteAllPages(db: Queryable, spaceId: string): Promise<void> {
  await db.query('DELETE FROM search_sections WHERE space_id = $1', [spaceId]);
  await db.query('DELETE FROM search_pages WHERE space_id = $1', [spaceId]);
}

/** Removes pages and their sections (no foreign key ties them: migration 0016). */
export async function deletePages(db: Queryable, spaceId: string, pageIds: string[]): Promise<void> {
  if (!pageIds.length) return;
  await db.query('DELETE FROM search_sections WHERE space_id = $1 AND page_id = ANY($2::text[])', [spaceId, pageIds]);
  await db.query('DELETE FROM search_pages WHERE space_id = $1 AND page_id = ANY($2::text[])', [spaceId, pageIds]);
}

/** New place of pages whose content did not change (a parent moved, renamed or re-slugged). */
export async function movePages(db: Queryable, spaceId: string, pages: { id: string; path: string; ancestors: string[] }[]) {
  if (!pages.length) return;
  await db.query(
    `WITH u AS (SELECT * FROM unnest($2::text[], $3::text[], $4::text[]) AS u(page_id, path, ancestors)),
     sections AS (
       UPDATE search_sections sec SET path = u.path FROM u
        WHERE sec.space_id = $1 AND sec.page_id = u.page_id AND sec.path IS DISTINCT FROM u.path)
     UPDATE search_pages sp SET path = u.path, ancestors = u.ancestors::jsonb FROM u
      WHERE sp.space_id = $1 AND sp.page_id = u.page_id`,
    [spaceId, pages.map((p) => p.id), pages.map((p) => p.path), pages.map((p) => JSON.stringify(p.ancestors))],
  );
}

export async function insertPages(db: Queryable, spaceId: string, pages: PageRow[]): Promise<void> {
  if (!pages.length) return;
  await db.query(
    `INSERT INTO search_pages (space_id, page_id, body_hash, title, description, path, ancestors)
     SELECT $1, u.page_id, u.body_hash, u.title, u.description, u.path, u.ancestors::jsonb
       FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[])
         AS u(page_id, body_hash, title, description, path, ancestors)`,
    [
      spaceId,
      pages.map((p) => p.page_id),
      pages.map((p) => p.body_hash),
      pages.map((p) => p.title),
      pages.map((p) => p.description),
      pages.map((p) => p.path),
      pages.map((p) => JSON.stringify(p.ancestors)),
    ],
  );
}

export async function insertSections(db: Queryable, spaceId: string, config: string, rows: SectionRow[]): Promise<void> {
  if (!rows.length) return;
  await db.query(
    `INSERT INTO search_sections (space_id, page_id, ord, section_id, title, body, path, tsv)
     SELECT $1, u.page_id, u.ord, u.section_id, u.title, u.body, u.path,
            setweight(to_tsvector($2::regconfig, u.page_title), 'A')
            || setweight(to_tsvector($2::regconfig, u.section_title), 'B')
            || setweight(to_tsvector($2::regconfig, u.description), 'C')
            || to_tsvector($2::regconfig, coalesce(u.body_text, u.body))
            || u.cjk::tsvector
       FROM unnest($3::text[], $4::int[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[])
         AS u(page_id, ord, section_id, title, body, page_title, section_title, description, body_text, cjk, path)`,
    [
      spaceId,
      config,
      rows.map((r) => r.pageId),
      rows.map((r) => r.ord),
      rows.map((r) => r.sectionId),
      rows.map((r) => r.title),
      rows.map((r) => r.body),
      rows.map((r) => r.pageTitle),
      rows.map((r) => r.sectionTitle),
      rows.map((r) => r.description),
      rows.map((r) => r.bodyText),
      rows.map((r) => r.cjk),
      rows.map((r) => r.path),
    ],
  );
}

/** A space's revision and language beside the state of its index, and the query compiled under the index's configuration. */
export interface FreshnessRow {
  id: string;
  revision_id: string;
  language: string | null;
  indexed_revision: string | null;
  /** The root the index holds (with `config`, the key of an in-memory copy). */
  indexed_root: string | null;
  config: string | null;
  q: string | null;
  title: string;
}

/**
 * Live spaces among `spaceIds` with what decides whether their index is current and, with `latin`,
 * `q`: websearch_to_tsquery of it under the configuration the index was built with (text form;
 * null when there is none, or no such configuration any more), so that a search of current
 * indexes needs no other round trip to compile its query.
 */
export async function freshness(db: Queryable, spaceIds: string[], latin = ''): Promise<FreshnessRow[]> {
  if (!spaceIds.length) return [];
  const { rows } = await db.query<FreshnessRow>({
    name: 'search_freshness',
    text: `SELECT s.id, s.title, s.revision_id, s.language, ss.revision_id AS indexed_revision, ss.root_hash AS indexed_root, ss.config,
            CASE WHEN $2 <> '' THEN (SELECT websearch_to_tsquery(c.oid::regconfig, $2)::text
                                       FROM pg_ts_config c WHERE c.oid::regconfig::text = ss.config) END AS q
       FROM spaces s LEFT JOIN search_spaces ss ON ss.space_id = s.id
      WHERE s.id = ANY($1::text[]) AND s.deleted_at IS NULL`,
    values: [spaceIds, latin],
  });
  return rows;
}

/**
 * Give a duplicated space the index of its source (same content, same page ids): rows copied in
 * SQL instead of parsing every page again inside the request. Whatever the source's index lacked
 * is caught up incrementally by the next reindex.
 */
export async function copyIndex(db: Queryable, fromSpace: string, toSpace: string): Promise<void> {
  // One statement, so one snapshot: a reindex of the source committing halfway through cannot leave
  // sections whose page was not copied (the foreign keys are checked at the end of the statement).
  await db.query(
    `WITH state AS (
       INSERT INTO search_spaces (space_id, revision_id, root_hash, config, indexed_at)
       SELECT $2, NULL, root_hash, config, clock_timestamp() FROM search_spaces WHERE space_id = $1
       ON CONFLICT (space_id) DO NOTHING
       RETURNING space_id),
     pages AS (
       INSERT INTO search_pages (space_id, page_id, body_hash, title, description, path, ancestors)
       SELECT state.space_id, p.page_id, p.body_hash, p.title, p.description, p.path, p.ancestors
       FROM search_pages p CROSS JOIN state WHERE p.space_id = $1
       RETURNING page_id)
     INSERT INTO search_sections (space_id, page_id, ord, section_id, title, body, path, tsv)
     SELECT $2, s.page_id, s.ord, s.section_id, s.title, s.body, s.path, s.tsv
     FROM search_sections s JOIN pages ON pages.page_id = s.page_id WHERE s.space_id = $1`,
    [fromSpace, toSpace],
  );
}

/** The root and configuration a space's index holds (null when never indexed). */
export async function indexHead(db: Queryable, spaceId: string): Promise<{ rootHash: string; config: string } | null> {
  const { rows } = await db.query<{ root_hash: string | null; config: string | null }>(
    'SELECT root_hash, config FROM search_spaces WHERE space_id = $1',
    [spaceId],
  );
  return rows[0]?.root_hash && rows[0].config ? { rootHash: rows[0].root_hash, config: rows[0].config } : null;
}

/** The indexed pages of a space in (path, page_id) order as this database sorts them (the tie-break of equal scores). */
export async function indexedPagesInOrder(db: Queryable, spaceId: string): Promise<IndexedPage[]> {
  const { rows } = await db.query<IndexedPage>(
    'SELECT page_id, body_hash, title, description, path, ancestors FROM search_pages WHERE space_id = $1 ORDER BY path, page_id',
    [spaceId],
  );
  return rows;
}

/** Up to `limit` sections after (`after.pageId`, `after.ord`), with their tsvector's text form. */
export async function sectionVectors(
  db: Queryable,
  spaceId: string,
  after: { pageId: string; ord: number },
  limit: number,
): Promise<{ page_id: string; ord: number; tsv: string }[]> {
  const { rows } = await db.query<{ page_id: string; ord: number; tsv: string }>(
    `SELECT page_id, ord, tsv::text AS tsv FROM search_sections
      WHERE space_id = $1 AND (page_id, ord) > ($2, $3) ORDER BY page_id, ord LIMIT $4`,
    [spaceId, after.pageId, after.ord, limit],
  );
  return rows;
}
