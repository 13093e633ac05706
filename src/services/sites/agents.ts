// What agents and the Ask box read of a published site, for one reader: search over the pages that
// reader may see (the visible site spaces' spaces are searched, then every hit is checked against
// the reader's page list, so a hidden page, an unreadable variant or another site's space never
// leaves this function: filter before retrieval), one page as Markdown by its URL or path, and
// llms-full.txt as a stream of the pages in reading order (never the whole file in memory).
import { Readable } from 'node:stream';
import { LRUCache } from 'lru-cache';
import type { AppContext } from '../../context.js';
import type { ConditionContext } from '../../sites/conditions.js';
import { isDomainError } from '../../core/errors.js';
import { searchSpaceSet } from '../search.js';
import { readerPages, type ListedPage } from './reader-lists.js';
import { locatePage, readerMarkdown, readerStructure, type ServedSite } from './reader.js';

/** Pages listed per site for agents (search and llms-full.txt): a 10,000-page site fits. */
export const MAX_AGENT_PAGES = 20_000;
export const MAX_AGENT_QUERY = 200;

/**
 * A reader's page list per site state (the live-spaces map, replaced whenever the site or one of its
 * spaces changes, as locatePage's memo) and audience: agents search many times between changes,
 * and listing a 10,000-page site walks every page.
 */
const pageLists = new WeakMap<object, LRUCache<string, ListedPage[]>>();

async function listedPages(app: AppContext, site: ServedSite, ctx: ConditionContext): Promise<ListedPage[]> {
  const state = site.liveSpaces;
  if (!state) return readerPages(app, site, ctx, MAX_AGENT_PAGES);
  let memo = pageLists.get(state);
  if (!memo) pageLists.set(state, (memo = new LRUCache<string, ListedPage[]>({ max: 8 })));
  const key = JSON.stringify([site.base, site.version, ctx]);
  let pages = memo.get(key);
  if (!pages) memo.set(key, (pages = await readerPages(app, site, ctx, MAX_AGENT_PAGES)));
  return pages;
}

export interface AgentHit {
  title: string;
  url: string;
  /** Section and variant ("Guides / v2"), null on a site of one space. */
  section: string | null;
  snippet: string;
  noIndex: boolean;
  spaceId: string;
  pageId: string;
  revisionId: string;
  /** The matched sections of the page (anchor ids and their text), best first. */
  sections: { id: string | null; body: string }[];
}

type FoundPage = { id: string; title: string; description?: string; sections?: { id?: string | null; body?: string }[] };

/** Ranked hits over what `ctx` may read of `site` (at most `limit`). */
export async function searchReadable(
  app: AppContext,
  site: ServedSite,
  ctx: ConditionContext,
  query: string,
  limit = 20,
): Promise<AgentHit[]> {
  const q = query.slice(0, MAX_AGENT_QUERY);
  if (!q.trim()) return [];
  const [pages, { spaces }] = await Promise.all([listedPages(app, site, ctx), readerStructure(app, site, ctx)]);
  const byPage = new Map<string, ListedPage>();
  for (const p of pages) if (!byPage.has(`${p.spaceId}:${p.page.node.id}`)) byPage.set(`${p.spaceId}:${p.page.node.id}`, p);
  const spaceIds = [...new Set(pages.map((p) => p.spaceId))];
  if (!spaceIds.length) return [];
  const found = await searchSpaceSet(app, spaceIds, { query: q, limit: Math.min(50, limit * 2) }, `agent:${site.id}`);
  const variants = new Map<string | null, Set<string>>();
  for (const p of pages) variants.set(p.section, (variants.get(p.section) ?? new Set()).add(p.variant));
  const where = (p: ListedPage) =>
    [p.section, (variants.get(p.section)?.size ?? 0) > 1 ? p.variant : null].filter(Boolean).join(' / ') || null;
  const hits: AgentHit[] = [];
  for (const s of found.items as { id: string; pages: FoundPage[] }[]) {
    for (const p of s.pages) {
      const listed = byPage.get(`${s.id}:${p.id}`);
      if (!listed) continue; // hidden, or in a variant this reader cannot switch to
      const sections = (p.sections ?? []).filter((x) => x.body).map((x) => ({ id: x.id ?? null, body: x.body! }));
      hits.push({
        title: listed.title,
        url: listed.url,
        section: where(listed),
        snippet: sections[0]?.body ?? listed.description ?? '',
        noIndex: listed.noIndex,
        spaceId: s.id,
        pageId: p.id,
        revisionId: spaces.get(s.id)?.revision_id ?? '',
        sections,
      });
    }
  }
  return hits.slice(0, limit);
}

const decodedSegments = (path: string) =>
  path
    .split('/')
    .filter(Boolean)
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    });

/** The path segments under the site's base of a page URL or path (`.md`, query and fragment dropped), or null. */
export function pageSegments(site: ServedSite, urlOrPath: string): string[] | null {
  let path: string;
  const basePath = new URL(site.base).pathname.replace(/\/+$/, '');
  if (/^[a-z][a-z\d+.-]*:/i.test(urlOrPath)) {
    let u: URL;
    try {
      u = new URL(urlOrPath);
    } catch {
      return null;
    }
    if (u.origin !== new URL(site.base).origin) return null;
    path = u.pathname;
    if (path !== basePath && !path.startsWith(`${basePath}/`)) return null;
    path = path.slice(basePath.length);
  } else {
    path = urlOrPath.replace(/[?#].*$/, '');
    if (basePath && (path === basePath || path.startsWith(`${basePath}/`))) path = path.slice(basePath.length);
  }
  return decodedSegments(path.replace(/\.md$/, '').replace(/(^|\/)index$/, ''));
}

/** One page as Markdown (title first), or null when the reader may not read it or it is not there. */
export async function readablePage(
  app: AppContext,
  site: ServedSite,
  ctx: ConditionContext,
  urlOrPath: string,
): Promise<{ title: string; url: string; markdown: string } | null> {
  const segments = pageSegments(site, urlOrPath);
  if (!segments) return null;
  try {
    const loc = await locatePage(app, site, segments, ctx);
    return {
      title: loc.page.node.title,
      url: loc.path ? `${site.base}/${loc.path}` : site.base,
      markdown: await readerMarkdown(app, loc, ctx),
    };
  } catch (err) {
    if (isDomainError(err, 'not-found')) return null;
    throw err;
  }
}

/**
 * llms-full.txt as a stream: every page the reader may see, in reading order, as Markdown joined by
 * `---` rules; one page is rendered at a time, as the client reads (the same bytes as the whole
 * file built at once).
 */
export async function llmsFullStream(app: AppContext, site: ServedSite, ctx: ConditionContext): Promise<Readable> {
  const pages = await listedPages(app, site, ctx);
  const base = site.base;
  async function* parts() {
    for (const [i, p] of pages.entries()) {
      const loc = await locatePage(app, site, decodedSegments(p.url.slice(base.length)), ctx);
      yield `${i ? '\n\n---\n\n' : ''}${await readerMarkdown(app, loc, ctx)}`;
    }
    yield '\n';
  }
  return Readable.from(parts(), { objectMode: false, highWaterMark: 64 * 1024 });
}
