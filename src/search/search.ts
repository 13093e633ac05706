import { createHash } from 'node:crypto';
import type { AppContext } from '../context.js';
import type { Principal } from '../auth/principal.js';
import type { Queryable } from '../db/pool.js';
import { badRequest } from '../core/errors.js';
import { DEFAULT_LIMIT, decodeCursor, encodeCursor, type ListPage } from '../core/pagination.js';
import { pageAppUrl } from '../content/present.js';
import { requireOrg } from '../core/access/organizations.js';
import { requireSpace, visibleSpaces } from '../core/access/spaces.js';
import { prepareQuery, type PreparedQuery } from './cjk.js';
import { reindexSpace } from './indexer.js';
import * as repo from '../db/repos/search.js';
import { MATCH_START, MATCH_STOP, snippet } from './snippet.js';
import { spaceTextConfig } from './text-config.js';

// Searching the index (see indexer.ts). A query is websearch syntax ("quoted phrases", or, -not)
// under each space's text-search configuration, ANDed with the bigrams of its CJK runs. A section
// matches when all terms occur in its page title, its own title, its page description or its body
// (so "docker install" finds the "Install" section of the "Docker" page). Pages are ranked by their
// best section (ts_rank; weights: page title A, section title B, description C, body D, so a title
// match outranks any body-only match), ties by path. Lists are paginated by an offset carried in an
// opaque cursor bound to the query: results are ranked, and `rank` is the position in that ranking.

export interface SearchParams {
  query: string;
  page?: string;
  limit?: number;
}

/** Sections listed per page result (best first). */
const MAX_SECTIONS_PER_PAGE = 10;
/** Pages listed per space in organization results (a space's search lists them all). */
const MAX_PAGES_PER_SPACE = 20;
/** ts_headline reads this much of a section body to place the snippet. */
const HEADLINE_CHARS = 20_000;
/** ts_rank weights {D, C, B, A} counting only a section's own text (its title and body). */
const OWN_WEIGHTS = '{0.1,0,0.4,0}';
const HEADLINE_OPTIONS = `StartSel=${MATCH_START}, StopSel=${MATCH_STOP}, HighlightAll=true`;

interface Group {
  config: string;
  spaceIds: string[];
  /** The full tsquery (text form) under this configuration. */
  tsquery: string;
  /** Its words outside CJK runs only (for ts_headline), or null. */
  latin: string | null;
}

interface RankedRow {
  space_id: string;
  space_title: string;
  page_id: string;
  score: number;
  title: string;
  description: string;
  path: string;
  ancestors: string[];
  rank: number;
}

export async function searchSpace(app: AppContext, p: Principal, spaceId: string, q: SearchParams) {
  await requireSpace(app.db, p, spaceId, 'read');
  const offset = decodeOffset(q, `space:${spaceId}`);
  const limit = q.limit ?? DEFAULT_LIMIT;
  const prepared = prepareQuery(q.query);
  const groups = await queryGroups(app, [spaceId], prepared);
  if (!groups.length) return { items: [], count: 0 };

  const params: unknown[] = [];
  const ranked = rankedSql(groups, params);
  params.push(offset, limit);
  const { rows } = await app.db.query<RankedRow & { total: number }>(
    `${ranked}
     SELECT t.total, r.* FROM (SELECT count(*) AS total FROM rk) t
       LEFT JOIN LATERAL (SELECT * FROM rk ORDER BY rank OFFSET $${params.length - 1} LIMIT $${params.length}) r ON true
      ORDER BY r.rank`,
    params,
  );
  const total = rows[0]?.total ?? 0;
  const pages = rows.filter((r) => r.page_id !== null);
  const sections = await sectionsOf(app.db, groups, pages, prepared);
  const out: ListPage<unknown> = { items: pages.map((r) => pageResult(app, r, sections.get(key(r)) ?? [])), count: total };
  if (pages.length && offset + pages.length < total) out.next = { page: encodeOffset(offset + pages.length, q, `space:${spaceId}`) };
  return out;
}

export async function searchOrganization(app: AppContext, p: Principal, orgId: string, q: SearchParams) {
  await requireOrg(app.db, p, orgId, 'view');
  const offset = decodeOffset(q, `org:${orgId}`);
  const limit = q.limit ?? DEFAULT_LIMIT;
  const prepared = prepareQuery(q.query);
  const visible = await visibleSpaces(app, orgId, p.userId);
  const groups = await queryGroups(app, visible.map((v) => v.space.id), prepared);
  if (!groups.length) return { items: [], count: 0 };

  const params: unknown[] = [];
  const ranked = rankedSql(groups, params);
  params.push(offset, limit, MAX_PAGES_PER_SPACE);
  const n = params.length;
  // Spaces in the order of their best page; each with its best pages. `rank` stays the page's
  // position among all matching pages of the organization.
  const { rows } = await app.db.query<RankedRow & { total: number; space_score: number; best: number }>(
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
  const total = rows[0]?.total ?? 0;
  const pages = rows.filter((r) => r.page_id !== null);
  const sections = await sectionsOf(app.db, groups, pages, prepared);
  const spaces = new Map<string, { type: 'space'; id: string; title: string; score: number; pages: unknown[] }>();
  for (const r of pages) {
    let s = spaces.get(r.space_id);
    if (!s) spaces.set(r.space_id, (s = { type: 'space', id: r.space_id, title: r.space_title, score: r.space_score, pages: [] }));
    s.pages.push(pageResult(app, r, sections.get(key(r)) ?? []));
  }
  const out: ListPage<unknown> = { items: [...spaces.values()], count: total };
  if (spaces.size && offset + spaces.size < total) out.next = { page: encodeOffset(offset + spaces.size, q, `org:${orgId}`) };
  return out;
}

/**
 * The live spaces among `spaceIds` grouped by the text-search configuration their index was built
 * with, each group with the query compiled under it. A stale index (the space's revision or its
 * configuration changed without the index following, e.g. a failed reindex, a restored space, a
 * new SEARCH_TEXT_CONFIG or language) is brought up to date first.
 */
async function queryGroups(app: AppContext, spaceIds: string[], prepared: PreparedQuery): Promise<Group[]> {
  if (!prepared.latin && !prepared.cjk) return [];
  let rows = await repo.freshness(app.db, spaceIds);
  let refreshed = false;
  for (const r of rows) {
    if (r.indexed_revision === r.revision_id && r.config === (await spaceTextConfig(app, r.language))) continue;
    try {
      await reindexSpace(app, r.id);
    } catch (err) {
      app.log.error({ err, spaceId: r.id }, 'search reindex failed; searching the index as it is');
    }
    refreshed = true;
  }
  if (refreshed) rows = await repo.freshness(app.db, spaceIds);
  const byConfig = new Map<string, string[]>();
  for (const r of rows) {
    if (!r.config) continue; // never indexed
    const list = byConfig.get(r.config) ?? [];
    list.push(r.id);
    byConfig.set(r.config, list);
  }
  if (!byConfig.size) return [];
  const configs = [...byConfig.keys()];
  const compiled = new Map<string, string>();
  if (prepared.latin) {
    const { rows: qs } = await app.db.query<{ config: string; q: string }>(
      'SELECT c AS config, websearch_to_tsquery(c::regconfig, $1)::text AS q FROM unnest($2::text[]) AS c',
      [prepared.latin, configs],
    );
    for (const r of qs) compiled.set(r.config, r.q);
  }
  const groups: Group[] = [];
  for (const config of configs) {
    const latin = compiled.get(config) || null; // '' when only stop words
    const tsquery = latin && prepared.cjk ? `( ${latin} ) & ( ${prepared.cjk} )` : (latin ?? prepared.cjk);
    if (tsquery) groups.push({ config, spaceIds: byConfig.get(config)!, tsquery, latin });
  }
  return groups;
}

/** `WITH ... rk`: every matching page of the groups' spaces with its score and global rank. */
function rankedSql(groups: Group[], params: unknown[]): string {
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

interface SectionHit {
  space_id: string;
  page_id: string;
  section_id: string;
  title: string;
  body: string;
  r: number;
  own: number;
  highlighted: string | null;
}

interface SectionResult {
  id: string;
  title: string;
  path: string;
  score: number;
  resultType: 'page' | 'section';
  body: string;
  urls: { app: string };
}

const key = (r: { space_id: string; page_id: string }) => `${r.space_id}\n${r.page_id}`;

/**
 * The sections to show for each listed page, keyed by space and page, with their snippets: those
 * matching through their own title or body, best first; when none does (the page matched by its
 * title or description), its first section.
 */
async function sectionsOf(db: Queryable, groups: Group[], pages: RankedRow[], prepared: PreparedQuery) {
  const out = new Map<string, SectionHit[]>();
  if (!pages.length) return out;
  const results = await Promise.all(
    groups.map(async (g) => {
      const inGroup = pages.filter((p) => g.spaceIds.includes(p.space_id));
      if (!inGroup.length) return [];
      const { rows } = await db.query<SectionHit>(
        `SELECT x.space_id, x.page_id, x.section_id, x.title, x.body, x.r, x.own,
                CASE WHEN x.own > 0 THEN ts_headline($5::regconfig, left(x.body, ${HEADLINE_CHARS}), $4::tsquery, $6) END AS highlighted
           FROM (
             SELECT sec.space_id, sec.page_id, sec.ord, sec.section_id, sec.title, sec.body, h.r, h.own,
                    row_number() OVER (PARTITION BY sec.space_id, sec.page_id ORDER BY h.own > 0 DESC, h.r DESC, sec.ord) AS n
               FROM search_sections sec
               JOIN unnest($1::text[], $2::text[]) AS want(space_id, page_id) ON want.space_id = sec.space_id AND want.page_id = sec.page_id
               CROSS JOIN LATERAL (SELECT ts_rank(sec.tsv, $3::tsquery) AS r, ts_rank('${OWN_WEIGHTS}', sec.tsv, $3::tsquery) AS own) h
              WHERE sec.tsv @@ $3::tsquery
           ) x
          WHERE x.n <= ${MAX_SECTIONS_PER_PAGE}
          ORDER BY x.space_id, x.page_id, x.n`,
        [inGroup.map((p) => p.space_id), inGroup.map((p) => p.page_id), g.tsquery, g.latin, g.config, HEADLINE_OPTIONS],
      );
      return rows;
    }),
  );
  for (const row of results.flat()) {
    const list = out.get(key(row)) ?? [];
    list.push(row);
    out.set(key(row), list);
  }
  for (const [k, list] of out) {
    const own = list.filter((s) => s.own > 0);
    const shown = own.length ? own : list.slice(0, 1);
    out.set(
      k,
      shown.map((s) => ({ ...s, body: snippet({ body: s.body, highlighted: s.highlighted, runs: s.own > 0 ? prepared.runs : [] }) })),
    );
  }
  return out;
}

function pageResult(app: AppContext, r: RankedRow, hits: SectionHit[]) {
  const pageUrl = pageAppUrl(app, r.space_id, { id: r.page_id });
  const sections: SectionResult[] = hits
    .filter((s) => s.section_id || s.title || s.body)
    .map((s) => ({
      id: s.section_id,
      title: s.title,
      path: s.section_id ? `${r.path}#${s.section_id}` : r.path,
      score: s.r,
      resultType: s.own > 0 ? 'section' : 'page',
      body: s.body,
      urls: { app: s.section_id ? `${pageUrl}#${encodeURIComponent(s.section_id)}` : pageUrl },
    }));
  return {
    id: r.page_id,
    title: r.title,
    description: r.description,
    path: r.path,
    score: r.score,
    rank: r.rank,
    ancestors: r.ancestors.map((title) => ({ title })),
    resultType: sections.some((s) => s.resultType === 'section') ? 'section' : 'page',
    sections,
    urls: { app: pageUrl },
  };
}

// Offset cursors bound to the query: a cursor from another query (or scope) is refused.
function fingerprint(q: SearchParams, scope: string): string {
  return createHash('sha256').update(`${scope}\n${q.query}`).digest('base64url').slice(0, 16);
}

function encodeOffset(offset: number, q: SearchParams, scope: string): string {
  return encodeCursor([offset, fingerprint(q, scope)]);
}

function decodeOffset(q: SearchParams, scope: string): number {
  const cursor = decodeCursor(q.page, 2);
  if (!cursor) return 0;
  const [offset, fp] = cursor;
  if (!Number.isInteger(offset) || (offset as number) < 0 || fp !== fingerprint(q, scope)) {
    throw badRequest('Invalid request: query.page: not a page identifier returned by this search');
  }
  return offset as number;
}
