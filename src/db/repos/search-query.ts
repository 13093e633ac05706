// Queries over the search index (src/search/search.ts): compiling a query under each space's
// text-search configuration, ranking matching pages, and the matching sections of listed pages.
// The index itself is written by src/db/repos/search.ts.
import type { Queryable } from '../pool.js';

/** Spaces whose index was built with one text-search configuration, and the query compiled under it. */
export interface QueryGroup {
  config: string;
  spaceIds: string[];
  /** The full tsquery (text form) under this configuration. */
  tsquery: string;
  /** Its words outside CJK runs only (for ts_headline), or null. */
  latin: string | null;
}

export interface RankedPageRow {
  space_id: string;
  space_title: string;
  page_id: string;
  score: number;
  title: string;
  description: string;
  path: string;
  ancestors: string[];
  /** Position among all matching pages (1 = best). */
  rank: number;
}

export interface SectionHitRow {
  space_id: string;
  page_id: string;
  section_id: string;
  title: string;
  body: string;
  /** ts_rank of the section (page title and description included). */
  r: number;
  /** ts_rank counting only the section's own title and body. */
  own: number;
  highlighted: string | null;
}

/** ts_headline reads this much of a section body to place the snippet. */
const HEADLINE_CHARS = 20_000;
/** ts_rank weights {D, C, B, A} counting only a section's own text (its title and body). */
const OWN_WEIGHTS = '{0.1,0,0.4,0}';

/** `websearch_to_tsquery` of `text` under each configuration (text form; '' when only stop words). */
export async function compileQueries(db: Queryable, text: string, configs: string[]): Promise<Map<string, string>> {
  const { rows } = await db.query<{ config: string; q: string }>(
    'SELECT c AS config, websearch_to_tsquery(c::regconfig, $1)::text AS q FROM unnest($2::text[]) AS c',
    [text, configs],
  );
  return new Map(rows.map((r) => [r.config, r.q]));
}

/** `WITH ... rk`: every matching page of the groups' spaces with its score and global rank. */
function rankedSql(groups: QueryGroup[], params: unknown[]): string {
  const matches = groups
    .map((g) => {
      params.push(g.spaceIds, g.tsquery);
      const spaces = `$${params.length - 1}::text[]`;
      const tsq = `$${params.length}::tsquery`;
      return `SELECT sec.space_id, sec.page_id, ts_rank(sec.tsv, ${tsq}) AS r
                FROM search_sections sec WHERE sec.space_id = ANY(${spaces}) AND sec.tsv @@ ${tsq}`;
    })
    .join('\n UNION ALL ');
  return `WITH m AS (${matches}),
     p AS (SELECT space_id, page_id, max(r) AS score FROM m GROUP BY space_id, page_id),
     rk AS (
       SELECT p.space_id, s.title AS space_title, p.page_id, p.score, sp.title, sp.description, sp.path, sp.ancestors,
              row_number() OVER (ORDER BY p.score DESC, p.space_id, sp.path, p.page_id) AS rank
         FROM p
         JOIN search_pages sp ON sp.space_id = p.space_id AND sp.page_id = p.page_id
         JOIN spaces s ON s.id = p.space_id AND s.deleted_at IS NULL
     )`;
}

/**
 * Matching pages in rank order: `limit` of them after `offset`, with how many match in all. The
 * same order as rankedSql's `rank`, without numbering every match: pages are grouped and counted
 * once, ordered with the path their sections carry (the tie-break), and their rows read only for
 * the listed ones.
 */
export async function rankedPages(
  db: Queryable,
  groups: QueryGroup[],
  offset: number,
  limit: number,
): Promise<{ total: number; pages: RankedPageRow[] }> {
  const params: unknown[] = [groups.flatMap((g) => g.spaceIds)];
  const matches = groups
    .map((g) => {
      params.push(g.spaceIds, g.tsquery);
      const spaces = `$${params.length - 1}::text[]`;
      const tsq = `$${params.length}::tsquery`;
      return `SELECT sec.space_id, sec.page_id, sec.path, ts_rank(sec.tsv, ${tsq}) AS r
                FROM search_sections sec
               WHERE sec.space_id = ANY(${spaces}) AND sec.space_id = ANY(ARRAY(SELECT id FROM live)) AND sec.tsv @@ ${tsq}`;
    })
    .join('\n UNION ALL ');
  params.push(offset, limit);
  const n = params.length;
  // Named (prepared once per connection): its text depends only on the number of groups.
  const { rows } = await db.query<Omit<RankedPageRow, 'rank'> & { total: number }>({
    name: `search_ranked_pages_${groups.length}`,
    text: `WITH live AS (SELECT id, title FROM spaces WHERE id = ANY($1::text[]) AND deleted_at IS NULL),
     m AS (${matches}),
     p AS (SELECT space_id, page_id, max(path) AS path, max(r) AS score FROM m GROUP BY space_id, page_id),
     o AS (SELECT * FROM p ORDER BY score DESC, space_id, path, page_id
           OFFSET $${n - 1} LIMIT $${n})
     SELECT t.total, x.*
       FROM (SELECT count(*) AS total FROM p) t
       LEFT JOIN (SELECT o.space_id, live.title AS space_title, o.page_id, o.score, sp.title, sp.description, o.path, sp.ancestors
                    FROM o
                    JOIN search_pages sp ON sp.space_id = o.space_id AND sp.page_id = o.page_id
                    JOIN live ON live.id = o.space_id) x ON true
      ORDER BY x.score DESC, x.space_id, x.path, x.page_id`,
    values: params,
  });
  const pages = rows.filter((r) => r.page_id !== null).map(({ total: _, ...r }, i) => ({ ...r, rank: offset + i + 1 }));
  return { total: rows[0]?.total ?? 0, pages };
}

/**
 * Spaces with matching pages in the order of their best page (`limit` of them after `offset`, with
 * how many match in all), each with its best `perSpace` pages. A page's `rank` stays its position
 * among all matching pages.
 */
export async function rankedSpaces(
  db: Queryable,
  groups: QueryGroup[],
  offset: number,
  limit: number,
  perSpace: number,
): Promise<{ total: number; pages: (RankedPageRow & { space_score: number })[] }> {
  const params: unknown[] = [];
  const ranked = rankedSql(groups, params);
  params.push(offset, limit, perSpace);
  const n = params.length;
  const { rows } = await db.query<RankedPageRow & { total: number; space_score: number; best: number }>(
    `${ranked},
     sp AS (SELECT space_id, max(score) AS score, min(rank) AS best FROM rk GROUP BY space_id),
     sl AS (SELECT * FROM sp ORDER BY best OFFSET $${n - 2} LIMIT $${n - 1})
     SELECT t.total, sl.score AS space_score, sl.best, x.*
       FROM (SELECT count(*) AS total FROM sp) t
       LEFT JOIN sl ON true
       LEFT JOIN LATERAL (SELECT * FROM rk WHERE rk.space_id = sl.space_id ORDER BY rk.rank LIMIT $${n}) x ON true
      ORDER BY sl.best, x.rank`,
    params,
  );
  return { total: rows[0]?.total ?? 0, pages: rows.filter((r) => r.page_id !== null) };
}

/**
 * Sections of the given pages (of one group) to show for its query, at most `perPage` per page:
 * those matching through their own title or body, best first; for a page with none (it matched
 * through its title or description only), its best matching section alone. `highlighted` is the
 * ts_headline of the body (with `headlineOptions`) for those whose body is longer than
 * `headlineAbove` bytes (null for the others).
 */
export async function matchingSections(
  db: Queryable,
  g: QueryGroup,
  pages: { space_id: string; page_id: string }[],
  opts: { perPage: number; headlineOptions: string; headlineAbove: number },
): Promise<SectionHitRow[]> {
  const perPage = Math.max(1, Math.trunc(opts.perPage)); // a whole number, inlined in the SQL
  const { rows } = await db.query<SectionHitRow>({
    name: `search_matching_sections_${perPage}`,
    text: `SELECT x.space_id, x.page_id, x.section_id, x.title, x.body, x.r, x.own,
            CASE WHEN x.own > 0 AND octet_length(x.body) > $7 THEN ts_headline($5::regconfig, left(x.body, ${HEADLINE_CHARS}), $4::tsquery, $6) END AS highlighted
       FROM (
         SELECT sec.space_id, sec.page_id, sec.ord, sec.section_id, sec.title, sec.body, h.r, h.own,
                row_number() OVER (PARTITION BY sec.space_id, sec.page_id ORDER BY h.own > 0 DESC, h.r DESC, sec.ord) AS n
           FROM search_sections sec
           JOIN unnest($1::text[], $2::text[]) AS want(space_id, page_id) ON want.space_id = sec.space_id AND want.page_id = sec.page_id
           CROSS JOIN LATERAL (SELECT ts_rank(sec.tsv, $3::tsquery) AS r, ts_rank('${OWN_WEIGHTS}', sec.tsv, $3::tsquery) AS own) h
          WHERE sec.tsv @@ $3::tsquery
       ) x
      WHERE x.n <= ${perPage} AND (x.own > 0 OR x.n = 1)
      ORDER BY x.space_id, x.page_id, x.n`,
    values: [
      pages.map((p) => p.space_id),
      pages.map((p) => p.page_id),
      g.tsquery,
      g.latin,
      g.config,
      opts.headlineOptions,
      opts.headlineAbove,
    ],
  });
  return rows;
}

/**
 * The canonical name of a text-search configuration (regconfig's text form: schema-qualified only
 * when not on the search path); throws PostgreSQL's 42704 (undefined_object) when there is none.
 */
export async function canonicalTextConfig(db: Queryable, name: string): Promise<string> {
  return (await db.query<{ c: string }>('SELECT $1::regconfig::text AS c', [name])).rows[0].c;
}

/** Names of the text-search configurations PostgreSQL ships (schema pg_catalog). */
export async function builtInTextConfigs(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ cfgname: string }>(
    `SELECT c.cfgname FROM pg_ts_config c JOIN pg_namespace n ON n.oid = c.cfgnamespace WHERE n.nspname = 'pg_catalog'`,
  );
  return rows.map((r) => r.cfgname);
}

/** Rows of the given sections (by page id and ord) of one space: what is shown of them. */
export async function sectionRows(
  db: Queryable,
  spaceId: string,
  keys: { pageId: string; ord: number }[],
): Promise<{ page_id: string; ord: number; section_id: string; title: string; body: string }[]> {
  if (!keys.length) return [];
  const { rows } = await db.query({
    name: 'search_section_rows',
    text: `SELECT sec.page_id, sec.ord, sec.section_id, sec.title, sec.body
       FROM unnest($2::text[], $3::int[]) AS want(page_id, ord)
       JOIN search_sections sec ON sec.space_id = $1 AND sec.page_id = want.page_id AND sec.ord = want.ord`,
    values: [spaceId, keys.map((k) => k.pageId), keys.map((k) => k.ord)],
  });
  return rows;
}

/** The lexemes each word gives under a text-search configuration (to_tsvector of the word alone). */
export async function wordLexemes(db: Queryable, config: string, words: string[]): Promise<Map<string, string[]>> {
  if (!words.length) return new Map();
  const { rows } = await db.query<{ w: string; lexemes: string[] }>({
    name: 'search_word_lexemes',
    text: `SELECT w, array(SELECT lexeme FROM unnest(to_tsvector($1::regconfig, w))) AS lexemes FROM unnest($2::text[]) AS w`,
    values: [config, words],
  });
  return new Map(rows.map((r) => [r.w, r.lexemes]));
}

/** ts_headline of (the beginning of) each body for `latin` (a tsquery), every match marked with `options`. */
export async function headlines(db: Queryable, config: string, latin: string, bodies: string[], options: string): Promise<string[]> {
  if (!bodies.length) return [];
  const { rows } = await db.query<{ h: string }>(
    `SELECT ts_headline($1::regconfig, left(b, ${HEADLINE_CHARS}), $2::tsquery, $3) AS h FROM unnest($4::text[]) WITH ORDINALITY AS u(b, n) ORDER BY n`,
    [config, latin, options, bodies],
  );
  return rows.map((r) => r.h);
}
