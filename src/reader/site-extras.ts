// The reader's side of issue 29 items 1 and 2, kept apart from routes.ts: site redirects (checked
// before the page), `.gitbook.yaml` redirects of the spaces a site shows (checked when nothing is
// at the path), the custom font files a site serves, its stylesheet's extra rules, and sitemap.xml
// (with the hreflang alternates of pages in language variants).
import type { IncomingMessage } from 'node:http';
import type { AppContext } from '../context.js';
import type { Reply } from '../http/route.js';
import { notFound } from '../core/errors.js';
import { siteRedirectFor, spaceRedirectFor } from '../services/sites/redirects.js';
import { openFontFile, siteCustomFonts } from '../services/sites/fonts.js';
import { firstReadable, readerStructure, readingOrder, snapshotOf, type ServedSite } from '../services/sites/reader.js';
import { readerPages } from '../services/sites/reader-lists.js';
import type { Snapshot } from '../content/snapshot.js';
import { alternateVariants, hreflangAlternates, hreflangOf, type Alternate } from '../sites/alternates.js';
import { sitePath, variantsOf, type ReaderSection, type ReaderSiteSpace } from '../sites/reader.js';
import { withQuery } from '../sites/redirects.js';
import type { ConditionContext } from '../sites/conditions.js';
import { customFontCss, HEADER_EXTRA_CSS } from './layout-links.js';
import { requestUrl } from './access.js';

const redirectReply = (status: number, location: string): Reply => ({
  status,
  headers: { location, 'cache-control': status === 308 || status === 301 ? 'public, max-age=300' : 'no-store', 'x-robots-tag': 'noindex' },
});

/** A live site redirect for this request (the request's query string kept), or null. */
export async function siteRedirect(app: AppContext, req: IncomingMessage, site: ServedSite, rest: string): Promise<Reply | null> {
  const r = await siteRedirectFor(app, site, rest.replace(/\.md$/, ''));
  return r ? redirectReply(r.status, withQuery(r.location, requestUrl(req).search)) : null;
}

/** The `.gitbook.yaml` redirect of the space a missing path falls in (301, query kept), or null. */
export async function spaceRedirect(
  app: AppContext,
  req: IncomingMessage,
  site: ServedSite,
  ctx: ConditionContext,
  segments: string[],
): Promise<Reply | null> {
  const { visible, spaces } = await readerStructure(app, site, ctx);
  const target = await spaceRedirectFor(app, site, visible, spaces, segments);
  return target ? redirectReply(301, withQuery(target, requestUrl(req).search)) : null;
}

/** `~site/fonts/{fontId}/{weight}`: a custom font file of the site's organization. */
export async function siteFont(app: AppContext, site: ServedSite, rest: string): Promise<Reply | null> {
  const m = /^~site\/fonts\/([\w-]{1,128})\/(\d{1,4})$/.exec(rest);
  if (!m) return null;
  const weight = Number(m[2]);
  if (weight < 1 || weight > 1000) throw notFound();
  const f = await openFontFile(app, m[1], weight, site.organization_id);
  return {
    status: 200,
    stream: f.stream,
    headers: {
      'content-type': f.contentType,
      'content-length': String(f.size),
      'cache-control': 'public, max-age=3600',
      'x-content-type-options': 'nosniff',
    },
  };
}

/** The per-site stylesheet's rules beyond colors: the header's menu and the custom fonts. */
export async function themeExtras(app: AppContext, site: ServedSite, settings: Record<string, any>): Promise<string> {
  return `${HEADER_EXTRA_CSS}\n${customFontCss(await siteCustomFonts(app, site.organization_id, settings.styling))}\n`;
}

const xml = (s: string) => s.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The paths of a revision's pages a sitemap lists (readable, not hidden, not under a hidden page,
 * not `noIndex` nor under one): the path index alternates are matched in, built once per revision.
 */
const listedPaths = new WeakMap<Snapshot, Set<string>>();
function indexablePaths(snapshot: Snapshot): Set<string> {
  let paths = listedPaths.get(snapshot);
  if (!paths) {
    const noIndexed = new Set<string>();
    for (const p of snapshot.ordered)
      if (p.node.noIndex || p.node.noRobotsIndex || (p.parentId && noIndexed.has(p.parentId))) noIndexed.add(p.node.id);
    paths = new Set(readingOrder(snapshot).flatMap((p) => (noIndexed.has(p.node.id) ? [] : [p.path])));
    listedPaths.set(snapshot, paths);
  }
  return paths;
}

/**
 * `sitemap.xml` (public sites): every page the reader may see but `noIndex` ones, at its canonical
 * URL (a variant's first page at the variant's home, as `<link rel=canonical>` has it), each with an
 * `<xhtml:link rel="alternate" hreflang>` per language variant of its section listing the same page
 * (and `x-default`, the section's default variant), the rule of the page head
 * (src/sites/alternates.ts) among the URLs the sitemap lists. Work: one lookup per page and variant.
 */
export async function sitemapXml(app: AppContext, site: ServedSite, ctx: ConditionContext): Promise<string> {
  const { visible, spaces } = await readerStructure(app, site, ctx);
  const sections: (ReaderSection | null)[] = visible.sections.length ? visible.sections : [null];
  // One URL per page, the canonical one: a variant's first page is listed at the variant's home.
  const homes = new Map<string, string>();
  const firstPaths = new Map<string, string>();
  for (const section of sections)
    for (const ss of variantsOf(visible, section).filter((x) => !x.hidden)) {
      const first = firstReadable(await snapshotOf(app, spaces.get(ss.space_id)!));
      if (!first) continue;
      firstPaths.set(ss.id, first.path);
      homes.set(`${site.base}/${sitePath(visible, section, ss, first.path)}`, `${site.base}/${sitePath(visible, section, ss, '')}`);
    }
  const pages = (await readerPages(app, site, ctx)).filter((p) => !p.noIndex).map((p) => homes.get(p.url) ?? p.url);
  const listed = new Set(pages);
  const alternates = new Map<string, Alternate[]>();
  for (const section of sections) {
    const variants = alternateVariants(visible, section);
    const languageOf = (id: string) => spaces.get(id)?.language;
    if (variants.length < 2 || !variants.some((ss) => hreflangOf(languageOf(ss.space_id)))) continue;
    const paths = new Map<string, Set<string>>();
    const prefixes = new Map<string, string>();
    for (const ss of variants) {
      paths.set(ss.id, indexablePaths(await snapshotOf(app, spaces.get(ss.space_id)!)));
      prefixes.set(ss.id, sitePath(visible, section, ss, ''));
    }
    for (const ss of variants)
      for (const path of paths.get(ss.id)!) {
        // sitePath's URL, with each variant's prefix made once.
        const encoded = path.split('/').map(encodeURIComponent).join('/');
        const url = (x: ReaderSiteSpace) =>
          `${site.base}/${[prefixes.get(x.id), firstPaths.get(x.id) === path ? '' : encoded].filter(Boolean).join('/')}`;
        const own = url(ss);
        if (!listed.has(own)) continue;
        const alts = hreflangAlternates(visible, section, ss, {
          languageOf: (x) => languageOf(x.space_id),
          has: (x) => !!paths.get(x.id)?.has(path) && listed.has(url(x)),
          href: url,
        });
        if (alts.length) alternates.set(own, alts);
      }
  }
  const entry = (loc: string) =>
    `<url><loc>${xml(loc)}</loc>${(alternates.get(loc) ?? [])
      .map((a) => `<xhtml:link rel="alternate" hreflang="${xml(a.hreflang)}" href="${xml(a.href)}"/>`)
      .join('')}</url>`;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">\n${pages.map(entry).join('\n')}\n</urlset>\n`;
}
