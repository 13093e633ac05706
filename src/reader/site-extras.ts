// The reader's side of issue 29 items 1 and 2, kept apart from routes.ts: site redirects (checked
// before the page), `.gitbook.yaml` redirects of the spaces a site shows (checked when nothing is
// at the path), the custom font files a site serves, and its stylesheet's extra rules.
import type { IncomingMessage } from 'node:http';
import type { AppContext } from '../context.js';
import type { Reply } from '../http/route.js';
import { notFound } from '../core/errors.js';
import { siteRedirectFor, spaceRedirectFor } from '../services/sites/redirects.js';
import { openFontFile, siteCustomFonts } from '../services/sites/fonts.js';
import { readerStructure, type ServedSite } from '../services/sites/reader.js';
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
