import { createHash } from 'node:crypto';
import type { AppContext } from '../context.js';
import type { Principal } from '../auth/principal.js';
import { invalid } from '../core/errors.js';
import { DEFAULT_LIMIT, decodeCursor, encodeCursor, type ListPage } from '../core/pagination.js';
import { pageAppUrl } from '../content/present.js';
import { requireOrg } from '../policies/organizations.js';
import { requireSpace, visibleSpaces } from '../policies/spaces.js';
import { readAhead, searchPages, searchSpaces, type PageMatch } from '../search/search.js';

// Search of a space and of an organization (the spaces the user can see), over the index that
// src/search/ keeps and queries. Lists are paginated by an offset carried in an opaque cursor bound
// to the query: results are ranked, and `rank` is the position in that ranking.

interface SearchParams {
  query: string;
  page?: string;
  limit?: number;
}

/** Pages listed per space in organization results (a space's search lists them all). */
const MAX_PAGES_PER_SPACE = 20;

export async function searchSpace(app: AppContext, p: Principal, spaceId: string, q: SearchParams) {
  // The search's first read overlaps the access check; nothing of it is used unless that passes.
  const early = readAhead(app, [spaceId], q.query);
  await requireSpace(app.db, p, spaceId, 'read');
  const offset = decodeOffset(q, `space:${spaceId}`);
  const { total, pages } = await searchPages(app, [spaceId], q.query, { offset, limit: q.limit ?? DEFAULT_LIMIT }, early);
  const out: ListPage<unknown> = { items: pages.map((m) => pageResult(app, m)), count: total };
  if (pages.length && offset + pages.length < total) out.next = { page: encodeOffset(offset + pages.length, q, `space:${spaceId}`) };
  return out;
}

export async function searchOrganization(app: AppContext, p: Principal, orgId: string, q: SearchParams) {
  await requireOrg(app.db, p, orgId, 'view');
  const visible = await visibleSpaces(app, orgId, p.userId);
  return searchSpaceSet(
    app,
    visible.map((v) => v.space.id),
    q,
    `org:${orgId}`,
  );
}

/**
 * Results grouped by space over `spaceIds` (already filtered to what the caller may read), as the
 * organization search lists them; `scope` binds the cursor (site search uses it too).
 */
export async function searchSpaceSet(app: AppContext, spaceIds: string[], q: SearchParams, scope: string) {
  const offset = decodeOffset(q, scope);
  const { total, spaces } = await searchSpaces(app, spaceIds, q.query, {
    offset,
    limit: q.limit ?? DEFAULT_LIMIT,
    pagesPerSpace: MAX_PAGES_PER_SPACE,
  });
  const items = spaces.map((s) => ({
    type: 'space' as const,
    id: s.id,
    title: s.title,
    score: s.score,
    pages: s.pages.map((m) => pageResult(app, m)),
  }));
  const out: ListPage<unknown> = { items, count: total };
  if (items.length && offset + items.length < total) out.next = { page: encodeOffset(offset + items.length, q, scope) };
  return out;
}

function pageResult(app: AppContext, m: PageMatch) {
  const pageUrl = pageAppUrl(app, m.spaceId, { id: m.pageId });
  const sections = m.sections
    .filter((s) => s.sectionId || s.title || s.body)
    .map((s) => ({
      id: s.sectionId,
      title: s.title,
      path: s.sectionId ? `${m.path}#${s.sectionId}` : m.path,
      score: s.score,
      resultType: s.own ? ('section' as const) : ('page' as const),
      body: s.body,
      urls: { app: s.sectionId ? `${pageUrl}#${encodeURIComponent(s.sectionId)}` : pageUrl },
    }));
  return {
    id: m.pageId,
    title: m.title,
    description: m.description,
    path: m.path,
    score: m.score,
    rank: m.rank,
    ancestors: m.ancestors.map((title) => ({ title })),
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
    throw invalid('Invalid request: query.page: not a page identifier returned by this search');
  }
  return offset as number;
}
