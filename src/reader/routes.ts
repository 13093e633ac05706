// The reader-facing site: `PUBLIC_URL/site/{siteId}/…`, token-free. Access per request (the
// site's visibility, a share key or visitor token turned into an HttpOnly cookie and re-checked on
// every request), then the page, its Markdown, machine files (robots, sitemap, llms), search, and
// the hashed assets. Rendered pages are cached by their immutable key (site version, revision,
// page, audience) and answer 304 to a matching If-None-Match.
import type { IncomingMessage } from 'node:http';
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { LRUCache } from 'lru-cache';
import type { AppContext } from '../context.js';
import { route, type Reply } from '../http/route.js';
import { entityId } from '../http/validate.js';
import { cookieValue } from '../http/cookies.js';
import { isDomainError, notFound } from '../core/errors.js';
import { HttpError } from '../http/errors.js';
import { effectiveCustomization } from '../sites/customization.js';
import {
  locatePage,
  publishedSite,
  readerMarkdown,
  readerPage,
  readerPagePdf,
  readerCustomization,
  readerSettings,
  type ServedSite,
} from '../services/sites/reader.js';
import { readerPages, searchReaderSite } from '../services/sites/reader-lists.js';
import { llmsFullStream } from '../services/sites/agents.js';
import { askReaderSite } from '../services/ask.js';
import { serveMcp } from './mcp.js';
import { serveReaderInsights } from './insights-endpoint.js';
import { answerHtml } from './answer-html.js';
import { askStreamReply } from './ask-stream.js';
import { siteAtHost, siteHostName, type HostedSite } from '../services/sites/hosts.js';
import { siteBaseUrl, sitePathBaseUrl } from '../presenters/sites.js';
import { decodeOrKeep } from '../util/uri.js';
import {
  admit,
  commonHeaders,
  csp,
  html,
  login,
  logout,
  previewCookie,
  Redirect,
  requestUrl,
  startPreview,
  TEXT_CSP,
  wantsHtml,
  type Reader,
} from './access.js';
import { assetByName, assetsVersion } from './assets.js';
import { siteFont, siteRedirect, sitemapXml, spaceRedirect, themeExtras } from './site-extras.js';
import { readerExternalLinks } from '../services/sites/external-links.js';
import { askEnabled, askHtml, notFoundHtml, pageHtml, searchHtml, themeStylesheet, type Chrome } from './layout.js';

/** Rendered pages by render key; entries expire before the signed file URLs inside them do. */
// Kept as the bytes sent: a cached page is written as it is, not measured and encoded again per request.
const rendered = new LRUCache<string, Buffer>({ max: 500, maxSize: 64 * 1024 * 1024, sizeCalculation: (b) => Math.max(1, b.length) });

function chrome(app: AppContext, site: ServedSite, extra: Partial<Chrome> = {}): Chrome {
  const settings = readerCustomization(app, effectiveCustomization(site.customization));
  const base = site.base;
  return {
    base,
    title: typeof settings.title === 'string' ? settings.title : site.title,
    settings,
    themeCss: `${base}/~site/theme/${site.version}.css`,
    noindex: site.visibility !== 'public' || !site.published,
    signOut: site.visibility === 'visitor-auth' ? `${base}/~site/auth/logout` : undefined,
    ...extra,
  };
}

async function machineFile(app: AppContext, r: Reader, name: string): Promise<Reply | null> {
  const base = r.site.base;
  const text = (body: string, type: string): Reply => ({
    status: 200,
    body,
    headers: { ...commonHeaders(r), 'content-type': type, 'content-security-policy': TEXT_CSP },
  });
  if (name === 'robots.txt') {
    const body =
      r.site.visibility === 'public' ? `User-agent: *\nAllow: /\n\nSitemap: ${base}/sitemap.xml\n` : 'User-agent: *\nDisallow: /\n';
    return text(body, 'text/plain; charset=utf-8');
  }
  if (name === 'sitemap.xml') {
    if (r.site.visibility !== 'public') return null;
    return text(await sitemapXml(app, r.site, r.ctx), 'application/xml; charset=utf-8'); // src/reader/site-extras.ts
  }
  if (name === 'llms.txt') {
    const pages = await readerPages(app, r.site, r.ctx);
    const lines = [`# ${chrome(app, r.site).title}`, ''];
    let heading: string | null = null;
    for (const p of pages) {
      const h = [p.section, p.variant].filter(Boolean).join(' / ');
      if (h !== heading) lines.push('', `## ${h}`, '');
      heading = h;
      lines.push(`- [${p.title}](${mdUrl(p.url, base)})${p.description ? `: ${p.description}` : ''}`);
    }
    return text(`${lines.join('\n')}\n`, 'text/plain; charset=utf-8');
  }
  if (name === 'llms-full.txt') {
    // Streamed page by page (src/services/sites/agents.ts): a 10,000-page site is never held whole.
    const reply = text('', 'text/plain; charset=utf-8');
    return { ...reply, body: undefined, stream: await llmsFullStream(app, r.site, r.ctx) };
  }
  return null;
}

function mdUrl(url: string, base: string): string {
  return url === `${base}/` || url === base ? `${base}/index.md` : `${url}.md`;
}

function segmentsOf(path: string): string[] {
  return path
    .split('/')
    .filter(Boolean)
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    });
}

async function servePage(app: AppContext, req: IncomingMessage, r: Reader, rest: string): Promise<Reply> {
  const wantsMarkdown = rest.endsWith('.md') || /\btext\/markdown\b/.test(String(req.headers.accept ?? ''));
  const path = rest.endsWith('.md') ? rest.slice(0, -3).replace(/(^|\/)index$/, '') : rest;
  const loc = await locatePage(app, r.site, segmentsOf(path), r.ctx);
  const headers = commonHeaders(r);
  if (wantsMarkdown) {
    return {
      status: 200,
      body: await readerMarkdown(app, loc, r.ctx),
      headers: {
        ...headers,
        'content-type': 'text/markdown; charset=utf-8',
        'content-security-policy': TEXT_CSP,
        vary: headers.vary ? `${headers.vary}, Accept` : 'Accept',
      },
    };
  }
  const externalLinks = await readerExternalLinks(app, r.site, r.ctx);
  const etag = `"${loc.key}.${assetsVersion}.${createHash('sha256').update(JSON.stringify(externalLinks)).digest('base64url').slice(0, 12)}"`;
  headers.etag = etag;
  headers['content-security-policy'] = csp(r.site);
  headers.vary = headers.vary ? `${headers.vary}, Accept` : 'Accept';
  if (req.headers['if-none-match'] === etag) return { status: 304, headers };
  let body = rendered.get(etag);
  if (!body) {
    const page = await readerPage(app, loc, r.ctx);
    // The canonical URL: the site's custom host when it has one, whichever base served this copy.
    const canonical = `${siteBaseUrl(app, r.site)}/${loc.path}`;
    const text = pageHtml(
      page,
      chrome(app, r.site, {
        settings: page.settings,
        title: page.title,
        canonical,
        description: loc.page.node.description ?? undefined,
        noindex: !page.indexable,
        sections: page.sections,
        headerLinks: page.headerLinks,
        externalLinks,
        themeCss: `${page.base}/~site/theme/${r.site.version}-${loc.siteSpace.id}.css`,
        ogImage: page.cover?.light,
      }),
    );
    body = Buffer.from(text);
    rendered.set(etag, body, { ttl: Math.max(1000, (app.config.fileUrlTtlSeconds * 1000) / 2) });
  }
  return html(200, body, headers);
}

/** The origin of a site base or PUBLIC_URL (a handful per process: parsed once each). */
const origins = new LRUCache<string, string>({ max: 1000 });
function originOf(url: string): string {
  let origin = origins.get(url);
  if (origin === undefined) origins.set(url, (origin = new URL(url).origin));
  return origin;
}

/** Where one request reaches a site: its id (null: a site host with no site at this path) and base. */
interface SiteTarget {
  siteId: string | null;
  base: string;
}

async function serve(app: AppContext, req: IncomingMessage, at: SiteTarget, rest: string): Promise<Reply> {
  let site: ServedSite | null = null;
  let reader: Reader | null = null;
  try {
    if (rest.startsWith('~site/static/')) {
      const asset = assetByName(rest.slice('~site/static/'.length));
      if (!asset) throw notFound();
      return {
        status: 200,
        body: asset.body,
        headers: {
          'content-type': asset.type,
          'cache-control': 'public, max-age=31536000, immutable',
          'x-content-type-options': 'nosniff',
        },
      };
    }
    const siteId = at.siteId;
    if (siteId === null) throw notFound();
    if (rest === '~preview') return await startPreview(app, req, siteId, at.base);
    const preview = cookieValue(req, previewCookie(siteId));
    const api = originOf(app.config.publicUrl);
    site = { ...(await publishedSite(app, siteId, preview)), base: at.base, fileOrigin: originOf(at.base) === api ? undefined : api };
    if (rest === '~site/auth/login') return login(app, req, site);
    const theme = /^~site\/theme\/\d+(?:-([\w-]{1,128}))?\.css$/.exec(rest);
    if (theme) {
      const settings = await readerSettings(app, site, theme[1]);
      return {
        status: 200,
        body: themeStylesheet(settings) + (await themeExtras(app, site, settings)),
        headers: {
          'content-type': 'text/css; charset=utf-8',
          'cache-control': 'public, max-age=31536000, immutable',
          'x-content-type-options': 'nosniff',
        },
      };
    }
    if (rest === '~site/auth/logout') return logout(app, site);
    const font = await siteFont(app, site, rest);
    if (font) return font;
    if (rest === '~gitbook/mcp') return await serveMcp(app, req, site, chrome(app, site).title);
    if (rest === '~gitbook/insights') return await serveReaderInsights(app, req, site);
    reader = await admit(app, req, site);
    if (rest === '~site/ask/stream') {
      // The Ask box's answer as it grows (Server-Sent Events, src/reader/ask-stream.ts).
      if (!askEnabled(chrome(app, site).settings)) throw notFound();
      return await askStreamReply(app, req, reader, (requestUrl(req).searchParams.get('q') ?? '').slice(0, 512));
    }
    if (rest === 'ask' || rest === '~site/ask') {
      if (!askEnabled(chrome(app, site).settings)) throw notFound();
      // The Ask box: JSON for its script, a page without JavaScript.
      const q = (requestUrl(req).searchParams.get('q') ?? '').slice(0, 512);
      const answer = q.trim() ? await askReaderSite(app, site, reader.ctx, q) : null;
      const headers = { ...commonHeaders(reader), 'cache-control': 'private, no-store', 'x-robots-tag': 'noindex' };
      if (rest === '~site/ask')
        return {
          status: 200,
          body: { question: q, markdown: '', sources: [], ...answer, html: answerHtml(answer?.markdown ?? '') },
          headers,
        };
      return html(200, askHtml(chrome(app, site), q, answer), headers);
    }
    if (rest === 'search' || rest === '~site/search') {
      const q = (requestUrl(req).searchParams.get('q') ?? '').slice(0, 200);
      const hits = await searchReaderSite(app, site, reader.ctx, q);
      if (rest === '~site/search')
        return { status: 200, body: { query: q, items: hits }, headers: { ...commonHeaders(reader), 'x-robots-tag': 'noindex' } };
      const externalLinks = await readerExternalLinks(app, site, reader.ctx);
      return html(200, searchHtml(chrome(app, site, { externalLinks }), q, hits), { ...commonHeaders(reader), 'x-robots-tag': 'noindex' });
    }
    if (rest === '~site/pdf') {
      // The `pdf` page action: gated by the customization, then a shared render of the page.
      const loc = await locatePage(app, site, segmentsOf(requestUrl(req).searchParams.get('path') ?? ''), reader.ctx);
      const settings = await readerSettings(app, site, loc.siteSpace.id);
      if (!settings.pdf?.enabled) throw notFound();
      return { status: 302, headers: { location: await readerPagePdf(app, loc), 'cache-control': 'no-store', 'x-robots-tag': 'noindex' } };
    }
    const file = ['robots.txt', 'sitemap.xml', 'llms.txt', 'llms-full.txt'].includes(rest)
      ? await machineFile(app, reader, rest)
      : undefined;
    if (file) return file;
    if (file === null) throw notFound();
    const moved = rest.startsWith('~') ? null : await siteRedirect(app, req, site, rest);
    if (moved) return moved;
    try {
      return await servePage(app, req, reader, rest);
    } catch (err) {
      const old = isDomainError(err, 'not-found')
        ? await spaceRedirect(app, req, site, reader.ctx, segmentsOf(rest.replace(/\.md$/, '')))
        : null;
      if (old) return old;
      throw err;
    }
  } catch (err) {
    // Browsers get pages; API clients (no text/html in Accept) keep the API's JSON error body.
    if (err instanceof Redirect && err.reply.status === 401 && !wantsHtml(req))
      throw new HttpError(401, 'A valid visitor token is required');
    if (err instanceof Redirect) return err.reply;
    if (isDomainError(err, 'not-found') && wantsHtml(req)) {
      // A site the reader may enter gets its own 404 page; anything else reveals nothing.
      const headers: Record<string, string> = {
        'x-robots-tag': 'noindex',
        'cache-control': 'no-store',
        'content-security-policy': csp(null),
      };
      const known = reader && site ? chrome(app, site, { externalLinks: await readerExternalLinks(app, site, reader.ctx) }) : null;
      return html(404, notFoundHtml(known), headers);
    }
    throw err;
  }
}

/** Token-free routes of the reader site. */
export const readerSiteRoutes = [
  route({
    method: 'GET',
    path: '/site/:siteId',
    auth: false,
    params: { siteId: entityId },
    handler: async ({ app, req, params }) => serve(app, req, { siteId: params.siteId, base: sitePathBaseUrl(app, params.siteId) }, ''),
  }),
  route({
    method: 'GET',
    path: '/site/:siteId/*',
    auth: false,
    params: { siteId: entityId, '*': z.string().max(2000) },
    // find-my-way decoded the wildcard; segments are matched decoded.
    handler: async ({ app, req, params }) =>
      serve(app, req, { siteId: params.siteId, base: sitePathBaseUrl(app, params.siteId) }, params['*'].replace(/^\/+|\/+$/g, '')),
  }),
  route({
    method: 'POST',
    path: '/site/:siteId/~gitbook/mcp',
    summary: "The site's MCP server (Streamable HTTP)",
    auth: false,
    rawBody: true,
    params: { siteId: entityId },
    handler: async ({ app, req, params }) =>
      serve(app, req, { siteId: params.siteId, base: sitePathBaseUrl(app, params.siteId) }, '~gitbook/mcp'),
  }),
  route({
    method: 'POST',
    path: '/site/:siteId/~gitbook/insights',
    summary: "The reader site's own insights events (src/reader/insights-endpoint.ts)",
    auth: false,
    rawBody: true,
    params: { siteId: entityId },
    handler: async ({ app, req, params }) =>
      serve(app, req, { siteId: params.siteId, base: sitePathBaseUrl(app, params.siteId) }, '~gitbook/insights'),
  }),
];

/**
 * The site a request's Host names (its custom hostname, or its organization's host and basename),
 * or null when the host names none: then the request is the API's. `path` is as sent (not decoded).
 */
export function hostedSite(app: AppContext, hostHeader: string | undefined, path: string): Promise<HostedSite | null> | null {
  const host = siteHostName(app, hostHeader);
  return host ? siteAtHost(app, host, decodeOrKeep(path)) : null;
}

/** Serve a request on a site host: the same pages, files, search, assets and access as /site/{id}. */
export function serveHosted(app: AppContext, req: IncomingMessage, hosted: HostedSite): Promise<Reply> {
  return serve(app, req, hosted, hosted.rest);
}
