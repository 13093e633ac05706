// What a reader may list of a published site: every page they may see (for sitemap.xml, llms.txt
// and llms-full.txt), search over those pages, and where a space's page lives on an open site (the
// per-space view's redirect). The same visibility filter as navigation (src/services/sites/reader.ts).
import type { AppContext } from '../../context.js';
import { openSitesShowingSpace } from '../../db/repos/sites.js';
import type { TreePage } from '../../content/snapshot.js';
import { readerContext, sitePath, variantsOf, type ReaderSection } from '../../sites/reader.js';
import type { ConditionContext } from '../../sites/conditions.js';
import { siteBaseUrl } from '../../presenters/sites.js';
import { searchSpaceSet } from '../search.js';
import { readerStructure, readingOrder, snapshotOf, type ServedSite } from './reader.js';

export interface ListedPage {
  section: string | null;
  variant: string;
  title: string;
  description: string | null;
  url: string;
  noIndex: boolean;
  spaceId: string;
  page: TreePage;
}

/** Every page a reader may see: per visible section, each switchable variant's readable pages. */
export async function readerPages(app: AppContext, site: ServedSite, ctx: ConditionContext, limit = 5000): Promise<ListedPage[]> {
  const { spaces, visible } = await readerStructure(app, site, ctx);
  const base = site.base;
  const out: ListedPage[] = [];
  const sections: (ReaderSection | null)[] = visible.sections.length ? visible.sections : [null];
  for (const section of sections) {
    for (const ss of variantsOf(visible, section).filter((x) => !x.hidden)) {
      const space = spaces.get(ss.space_id)!;
      const snapshot = await snapshotOf(app, space);
      const noIndexed = new Set<string>();
      for (const p of snapshot.ordered)
        if (p.node.noIndex || p.node.noRobotsIndex || (p.parentId && noIndexed.has(p.parentId))) noIndexed.add(p.node.id);
      for (const p of readingOrder(snapshot)) {
        if (out.length >= limit) return out;
        out.push({
          section: section?.title ?? null,
          variant: ss.title ?? space.title,
          title: p.node.title,
          description: p.node.description ?? null,
          url: `${base}/${sitePath(visible, section, ss, p.path)}`,
          noIndex: noIndexed.has(p.node.id),
          spaceId: space.id,
          page: p,
        });
      }
    }
  }
  return out;
}

export interface ReaderSearchHit {
  title: string;
  url: string;
  snippet: string;
  /** Where the page lives: its section and variant ("Guides / v2"), null on a site of one space. */
  section: string | null;
}

/** Search over the visible site spaces' spaces; results link into the site. */
export async function searchReaderSite(
  app: AppContext,
  site: ServedSite,
  ctx: ConditionContext,
  query: string,
): Promise<ReaderSearchHit[]> {
  const pages = await readerPages(app, site, ctx);
  const byPage = new Map(pages.map((p) => [`${p.spaceId}:${p.page.node.id}`, p]));
  const spaceIds = [...new Set(pages.map((p) => p.spaceId))];
  if (!spaceIds.length || !query.trim()) return [];
  const found = await searchSpaceSet(app, spaceIds, { query, limit: 20 }, `reader:${site.id}`);
  // A hit names its section, and its variant where the section has more than one.
  const variants = new Map<string | null, Set<string>>();
  for (const p of pages) variants.set(p.section, (variants.get(p.section) ?? new Set()).add(p.variant));
  const where = (p: ListedPage) =>
    [p.section, (variants.get(p.section)?.size ?? 0) > 1 ? p.variant : null].filter(Boolean).join(' / ') || null;
  const hits: ReaderSearchHit[] = [];
  for (const s of found.items as { id: string; pages: { id: string; title: string; sections?: { body?: string }[] }[] }[]) {
    for (const p of s.pages) {
      const listed = byPage.get(`${s.id}:${p.id}`);
      if (!listed) continue; // hidden, or in a variant the reader cannot switch to
      hits.push({
        title: listed.title,
        url: listed.url,
        snippet: p.sections?.find((x) => x.body)?.body ?? listed.description ?? '',
        section: where(listed),
      });
    }
  }
  return hits.slice(0, 50);
}

/**
 * Where a page of a space lives on a published site open to anyone (public or unlisted; the oldest
 * such site showing the space in a variant an anonymous reader sees), or null: the per-space view
 * sends its readers there.
 */
export async function openSiteUrlOfSpacePage(app: AppContext, spaceId: string, pagePath: string): Promise<string | null> {
  for (const site of await openSitesShowingSpace(app.db, spaceId)) {
    const { visible } = await readerStructure(app, site, readerContext({}, {}));
    for (const section of visible.sections.length ? visible.sections : [null]) {
      const ss = variantsOf(visible, section).find((x) => x.space_id === spaceId && !x.hidden);
      if (!ss) continue;
      const path = sitePath(visible, section, ss, pagePath);
      const base = siteBaseUrl(app, site); // the canonical one (a custom host when configured)
      return path ? `${base}/${path}` : base;
    }
  }
  return null;
}
