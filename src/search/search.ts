import type { AppContext } from '../context.js';
import { prepareQuery, type PreparedQuery } from './cjk.js';
import { catchUpSpace } from './indexer.js';
import * as repo from '../db/repos/search.js';
import * as query from '../db/repos/search-query.js';
import type { QueryGroup, RankedPageRow } from '../db/repos/search-query.js';
import { MATCH_START, MATCH_STOP, SNIPPET_MAX, snippet } from './snippet.js';
import { spaceTextConfig } from './text-config.js';
import { indexKey, memoryIndex } from './memory.js';
import { MemoryIndex } from './memory-index.js';
import { parseTsQuery, uniqueOperands, type TsQuery, type Weights } from './tsquery.js';
import { firstMatches } from './highlight.js';
import { snippetText } from './snippet.js';

// Searching the index (see indexer.ts). A query is websearch syntax ("quoted phrases", or, -not)
// under each space's text-search configuration, ANDed with the bigrams of its CJK runs. A section
// matches when all terms occur in its page title, its own title, its page description or its body
// (so "docker install" finds the "Install" section of the "Docker" page). Pages are ranked by their
// best section (ts_rank; weights: page title A, section title B, description C, body D, so a title
// match outranks any body-only match), ties by path; `rank` is the position in that ranking. Who
// may search which spaces, and how results are paginated and shown, is src/services/search.ts.

/** Sections listed per page result (best first). */
const MAX_SECTIONS_PER_PAGE = 10;
const HEADLINE_OPTIONS = `StartSel=${MATCH_START}, StopSel=${MATCH_STOP}, HighlightAll=true`;

/** A section shown for a matching page, its body cut to a snippet around the match. */
interface SectionMatch {
  sectionId: string;
  title: string;
  body: string;
  score: number;
  /** True when the section matched through its own title or body (not only its page's title or description). */
  own: boolean;
}

/** A matching page: where it is, its score and rank, and the sections to show. */
export interface PageMatch {
  spaceId: string;
  spaceTitle: string;
  pageId: string;
  title: string;
  description: string;
  path: string;
  ancestors: string[];
  score: number;
  rank: number;
  sections: SectionMatch[];
}

/** The first read of a search (see queryGroups), begun before the caller's access check ends. */
export type EarlyRead = Promise<repo.FreshnessRow[]>;

/**
 * Begin the first read of a search of `spaceIds` (their index state and the query compiled under
 * it) while the caller still checks access: it changes nothing and is only used once that passed
 * (pass it to searchPages). A rejection is left to searchPages; unused, it is ignored.
 */
export function readAhead(app: AppContext, spaceIds: string[], text: string): EarlyRead {
  const early = repo.freshness(app.db, spaceIds, prepareQuery(text).latin);
  early.catch(() => {});
  return early;
}

/** Matching pages of `spaceIds`, best first: `limit` of them after `offset`, and how many match in all. */
export async function searchPages(
  app: AppContext,
  spaceIds: string[],
  text: string,
  at: { offset: number; limit: number },
  early?: EarlyRead,
  options: { memory?: boolean } = {},
): Promise<{ total: number; pages: PageMatch[] }> {
  const prepared = prepareQuery(text);
  const { groups, spaces } = await queryGroups(app, spaceIds, prepared, early);
  if (!groups.length) return { total: 0, pages: [] };
  const memory = options.memory !== false ? rankInMemory(app, groups, spaces, at) : null;
  if (memory) return { total: memory.total, pages: await withSectionsFromMemory(app, groups[0], memory, prepared) };
  const ranked = await query.rankedPages(app.db, groups, at.offset, at.limit);
  return { total: ranked.total, pages: await withSections(app, groups, ranked.pages, prepared) };
}

/**
 * Spaces of `spaceIds` with matching pages, in the order of their best page: `limit` of them after
 * `offset` (and how many match in all), each with its best `pagesPerSpace` pages.
 */
export async function searchSpaces(
  app: AppContext,
  spaceIds: string[],
  text: string,
  at: { offset: number; limit: number; pagesPerSpace: number },
): Promise<{ total: number; spaces: { id: string; title: string; score: number; pages: PageMatch[] }[] }> {
  const prepared = prepareQuery(text);
  const { groups } = await queryGroups(app, spaceIds, prepared);
  if (!groups.length) return { total: 0, spaces: [] };
  const { total, pages } = await query.rankedSpaces(app.db, groups, at.offset, at.limit, at.pagesPerSpace);
  const matches = await withSections(app, groups, pages, prepared);
  const spaces = new Map<string, { id: string; title: string; score: number; pages: PageMatch[] }>();
  pages.forEach((r, i) => {
    let s = spaces.get(r.space_id);
    if (!s) spaces.set(r.space_id, (s = { id: r.space_id, title: r.space_title, score: r.space_score, pages: [] }));
    s.pages.push(matches[i]);
  });
  return { total, spaces: [...spaces.values()] };
}

/**
 * The live spaces among `spaceIds` grouped by the text-search configuration their index was built
 * with, each group with the query compiled under it. A stale index (the space's revision or its
 * configuration changed without the index following, e.g. a failed reindex, a restored space, a
 * new SEARCH_TEXT_CONFIG or language, an import whose `search.index` job has not run yet) is brought
 * up to date first, waiting at most SEARCH_CATCH_UP_MS (config.searchCatchUpMs): past it the search
 * answers from the index as it is (the previous revision's; nothing for a space never indexed)
 * while the catch-up goes on in the background, one per space per process (indexer.ts catchUpSpace).
 */
async function queryGroups(
  app: AppContext,
  spaceIds: string[],
  prepared: PreparedQuery,
  early?: EarlyRead,
): Promise<{ groups: QueryGroup[]; spaces: repo.FreshnessRow[] }> {
  if (!prepared.latin && !prepared.cjk) return { groups: [], spaces: [] };
  let rows = await (early ?? repo.freshness(app.db, spaceIds, prepared.latin));
  const stale: string[] = [];
  for (const r of rows) {
    if (r.indexed_revision !== r.revision_id || r.config !== (await spaceTextConfig(app, r.language))) stale.push(r.id);
  }
  // One space after the other (an organization's search may find many stale: a new SEARCH_TEXT_CONFIG).
  const catchUp = async () => {
    for (const id of stale) {
      await catchUpSpace(app, id).catch((err) =>
        app.log.error({ err, spaceId: id }, 'search reindex failed; searching the index as it is'),
      );
    }
  };
  if (stale.length && (await withinBudget(catchUp(), app.config.searchCatchUpMs)))
    rows = await repo.freshness(app.db, spaceIds, prepared.latin);
  const byConfig = new Map<string, string[]>();
  const compiled = new Map<string, string>();
  for (const r of rows) {
    if (!r.config) continue; // never indexed
    const list = byConfig.get(r.config) ?? [];
    list.push(r.id);
    byConfig.set(r.config, list);
    if (r.q !== null) compiled.set(r.config, r.q);
  }
  if (!byConfig.size) return { groups: [], spaces: rows };
  const configs = [...byConfig.keys()];
  // Compiled with the freshness check; a configuration PostgreSQL no longer has fails here, as it would when searching.
  const missing = prepared.latin ? configs.filter((c) => !compiled.has(c)) : [];
  if (missing.length) for (const [c, q] of await query.compileQueries(app.db, prepared.latin, missing)) compiled.set(c, q);
  const groups: QueryGroup[] = [];
  for (const config of configs) {
    const latin = compiled.get(config) || null; // '' when only stop words
    const tsquery = latin && prepared.cjk ? `( ${latin} ) & ( ${prepared.cjk} )` : (latin ?? prepared.cjk);
    if (tsquery) groups.push({ config, spaceIds: byConfig.get(config)!, tsquery, latin });
  }
  return { groups, spaces: rows };
}

/** True when `work` settled within `ms` (0: not waited for); it goes on either way. */
async function withinBudget(work: Promise<unknown>, ms: number): Promise<boolean> {
  if (ms <= 0) return false;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(resolve, ms, false)));
  try {
    return await Promise.race([work.then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The ranked pages from this process's in-memory index (memory.ts) when the search is of one space
 * whose current index it holds and the query is one it answers (no phrase); null otherwise (a load
 * is then queued, and PostgreSQL answers).
 */
function rankInMemory(
  app: AppContext,
  groups: QueryGroup[],
  spaces: repo.FreshnessRow[],
  at: { offset: number; limit: number },
): { total: number; pages: RankedPageRow[]; index: MemoryIndex; tsquery: TsQuery } | null {
  if (groups.length !== 1 || groups[0].spaceIds.length !== 1) return null;
  const space = spaces.find((s) => s.id === groups[0].spaceIds[0]);
  if (!space?.indexed_root || !space.config || space.indexed_revision !== space.revision_id) return null;
  const tsquery = parseTsQuery(groups[0].tsquery);
  if (!tsquery || !MemoryIndex.supports(tsquery)) return null;
  const index = memoryIndex(app, space.id, indexKey(space.indexed_root, space.config));
  if (!index) return null;
  const { total, pages } = index.search(tsquery, at.offset, at.limit);
  return {
    index,
    tsquery,
    total,
    pages: pages.map((p, i) => ({
      space_id: space.id,
      space_title: space.title,
      page_id: p.page.id,
      score: p.score,
      title: p.page.title,
      description: p.page.description,
      path: p.page.path,
      ancestors: p.page.ancestors,
      rank: at.offset + i + 1,
    })),
  };
}

const key = (r: { space_id: string; page_id: string }) => `${r.space_id}\n${r.page_id}`;

/**
 * The listed pages with the sections to show, and their snippets: those matching through their
 * own title or body, best first; when none does (the page matched by its title or description),
 * its first section. Snippets are placed by placeSnippets, as for a ranking made in memory, so a
 * search answers the same whichever way it was ranked.
 */
async function withSections(app: AppContext, groups: QueryGroup[], pages: RankedPageRow[], prepared: PreparedQuery): Promise<PageMatch[]> {
  const hits = new Map<string, Hit[]>();
  if (pages.length) {
    await Promise.all(
      groups.map(async (g) => {
        const inGroup = pages.filter((p) => g.spaceIds.includes(p.space_id));
        if (!inGroup.length) return;
        const rows: Hit[] = await query.matchingSections(app.db, g, inGroup, {
          perPage: MAX_SECTIONS_PER_PAGE,
          headlineOptions: HEADLINE_OPTIONS,
          headlineAbove: NO_HEADLINE,
        });
        for (const row of rows) {
          const list = hits.get(key(row)) ?? [];
          list.push(row);
          hits.set(key(row), list);
        }
        await placeSnippets(app, g, rows);
      }),
    );
  }
  return assemble(pages, hits, prepared);
}

/** Page results from their ranked rows and the sections to show of each (keyed by space and page). */
function assemble(pages: RankedPageRow[], hits: Map<string, Hit[]>, prepared: PreparedQuery): PageMatch[] {
  return pages.map((r) => {
    const list = hits.get(key(r)) ?? [];
    const own = list.filter((s) => s.own > 0);
    const shown = own.length ? own : list.slice(0, 1);
    return {
      spaceId: r.space_id,
      spaceTitle: r.space_title,
      pageId: r.page_id,
      title: r.title,
      description: r.description,
      path: r.path,
      ancestors: r.ancestors,
      score: r.score,
      rank: r.rank,
      sections: shown.map((s) => ({
        sectionId: s.section_id,
        title: s.title,
        body: snippet({ body: s.body, highlighted: s.highlighted, at: s.at, runs: s.own > 0 ? prepared.runs : [] }),
        score: s.r,
        own: s.own > 0,
      })),
    };
  });
}

/** ts_rank weights {D, C, B, A} counting only a section's own text (search-query.ts OWN_WEIGHTS), as float4. */
const OWN_WEIGHTS: Weights = [0.1, 0, 0.4, 0].map(Math.fround) as unknown as Weights;

/**
 * withSections for a ranking made in memory: the sections to show are picked and ranked there,
 * their rows read by key, and their snippets placed by placeSnippets.
 */
async function withSectionsFromMemory(
  app: AppContext,
  g: QueryGroup,
  ranked: { pages: RankedPageRow[]; index: MemoryIndex; tsquery: TsQuery },
  prepared: PreparedQuery,
): Promise<PageMatch[]> {
  if (!ranked.pages.length) return [];
  const spaceId = ranked.pages[0].space_id;
  const picked = ranked.index.sections(
    ranked.tsquery,
    ranked.pages.map((p) => p.page_id),
    MAX_SECTIONS_PER_PAGE,
    OWN_WEIGHTS,
  );
  const keys = [...picked].flatMap(([pageId, list]) => list.map((h) => ({ pageId, ord: h.ord })));
  const rows = new Map((await query.sectionRows(app.db, spaceId, keys)).map((r) => [`${r.page_id}\n${r.ord}`, r]));
  const hits = new Map<string, Hit[]>();
  for (const [pageId, list] of picked) {
    const out: Hit[] = [];
    for (const h of list) {
      const row = rows.get(`${pageId}\n${h.ord}`);
      if (!row) continue;
      out.push({
        space_id: spaceId,
        page_id: pageId,
        section_id: row.section_id,
        title: row.title,
        body: row.body,
        r: h.r,
        own: h.own,
        highlighted: null,
      });
    }
    hits.set(key({ space_id: spaceId, page_id: pageId }), out);
  }
  await placeSnippets(app, g, [...hits.values()].flat());
  return assemble(ranked.pages, hits, prepared);
}

/** A section shown, with where its snippet starts when placed (see placeSnippets). */
type Hit = query.SectionHitRow & { at?: number };

/** ts_headline never runs inside the section statement (a body is never longer than this many bytes). */
const NO_HEADLINE = 2 ** 31 - 1;

/**
 * Where the snippet of each section matched through its own text starts: at the first word whose
 * lexemes are operands of the query (highlight.ts), ts_headline only for a body where no word is
 * (a token PostgreSQL's parser reads otherwise). A body of at most SNIPPET_MAX characters is its
 * whole snippet and is not placed. The same for every ranking, in memory or in PostgreSQL.
 */
async function placeSnippets(app: AppContext, g: QueryGroup, hits: Hit[]): Promise<void> {
  const toPlace = g.latin ? hits.filter((h) => h.own > 0 && Buffer.byteLength(h.body) > SNIPPET_MAX) : [];
  if (!toPlace.length) return;
  const latin = parseTsQuery(g.latin!);
  const at = latin
    ? await firstMatches(
        app,
        g.config,
        uniqueOperands(latin),
        toPlace.map((h) => snippetText(h.body)),
      )
    : toPlace.map(() => -1);
  toPlace.forEach((h, i) => (h.at = at[i]));
  const unplaced = toPlace.filter((h) => h.at! < 0);
  if (!unplaced.length) return;
  const marked = await query.headlines(
    app.db,
    g.config,
    g.latin!,
    unplaced.map((h) => h.body),
    HEADLINE_OPTIONS,
  );
  unplaced.forEach((h, i) => {
    h.at = undefined;
    h.highlighted = marked[i];
  });
}
