// GitBook's renderer on our API (issue 29 item 6). Three parts:
// - getPublishedContentByUrl / resolvePublishedContentByUrl: a URL -> what it shows and a site
//   token (`apiToken`). Token-free: they answer only what a reader of that URL may already see.
// - the reads a site token is accepted for (siteTokenRoutes, same paths as the API's): the server
//   sends a request whose bearer is a site token here and nowhere else (serveWithSiteToken), so a
//   site token is refused (403) by every other operation, writes included.
// - site file links (non-expiring while the revision is published).
import type { IncomingMessage } from 'node:http';
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { AppContext } from '../context.js';
import { route, ok, okJson, userFileReply, type Reply, type RouteDef, type Method } from '../http/route.js';
import { buildRouter } from '../http/router.js';
import { entityId, listQuery, queryObject, validate } from '../http/validate.js';
import { readJsonBody } from '../http/body.js';
import { clientAddress } from '../http/client-address.js';
import { forbidden, invalid, unauthenticated } from '../core/errors.js';
import { verifySiteToken } from '../auth/site-token.js';
import { resolvePublishedUrl, MAX_URL_LENGTH } from '../services/sites/published-content.js';
import {
  openScope,
  publishedSiteForScope,
  requireScopeSite,
  scopeRevision,
  scopeSpace,
  searchableSpaces,
  specContentForScope,
  conditionalFiltered,
  documentOfRevision,
  type SiteScope,
} from '../services/sites/published-content-reads.js';
import { openSiteFile, withSiteFileUrls } from '../services/sites/published-content-files.js';
import { redirectOfSite } from '../services/sites/redirects.js';
import { presentSpace } from '../services/spaces.js';
import { searchSpaceSet } from '../services/search.js';
import * as content from '../services/content.js';
import * as history from '../services/history.js';
import { readFlags, pageFlags } from './content.js';
import { siteSearchBody } from './sites/access.js';

const boolString = z.enum(['true', 'false']).optional();
const claims = z.record(z.string().max(200), z.unknown()).refine((o) => Object.keys(o).length <= 50, { message: 'at most 50 claims' });

export const publishedContentRoutes = [
  route({
    method: 'GET',
    path: '/v1/urls/published',
    summary: 'getPublishedContentByUrl (deprecated form): resolve a URL of a published site',
    auth: false,
    query: { url: z.string().min(1).max(MAX_URL_LENGTH), visitorAuthToken: z.string().max(8192).optional(), redirectOnError: boolString },
    handler: async ({ app, query }) =>
      ok(
        await resolvePublishedUrl(app, {
          url: query.url,
          visitorToken: query.visitorAuthToken,
          redirectOnError: query.redirectOnError === 'true',
        }),
      ),
  }),
  route({
    method: 'POST',
    path: '/v1/urls/published',
    summary: 'resolvePublishedContentByUrl: resolve a URL of a published site',
    auth: false,
    // Unknown fields are ignored (the renderer adds a `cacheBust` to miss caches keyed on the body).
    body: z.object({
      url: z.string().min(1).max(MAX_URL_LENGTH),
      redirectOnError: z.boolean().optional(),
      visitor: z
        .object({
          type: z.enum(['human', 'agent']).optional(),
          jwtToken: z.string().max(8192).optional(),
          unsignedClaims: claims.optional(),
        })
        .optional(),
    }),
    handler: async ({ app, body }) =>
      ok(
        await resolvePublishedUrl(app, {
          url: body.url,
          visitorToken: body.visitor?.jwtToken,
          unsignedClaims: body.visitor?.unsignedClaims,
          redirectOnError: body.redirectOnError ?? false,
        }),
      ),
  }),
  route({
    method: 'GET',
    path: '/files/site/:siteId/:spaceId/:revisionId/:sha256',
    summary: 'A file of a published revision (links given to site tokens)',
    auth: false,
    params: { siteId: entityId, spaceId: entityId, revisionId: entityId, sha256: z.string().regex(/^[0-9a-f]{64}$/) },
    query: { name: z.string().max(500), type: z.string().max(200), sig: z.string().max(100) },
    handler: async ({ app, params, query }): Promise<Reply> => {
      const f = await openSiteFile(app, params, query);
      // The link works while the revision is published: caches revalidate.
      return userFileReply(f, 'public, max-age=300');
    },
  }),
];

// ---- reads a site token is accepted for ------------------------------------------------------------

interface ScopedContext {
  app: AppContext;
  scope: SiteScope;
  params: any;
  query: any;
  body: any;
}
interface SiteTokenRoute {
  method: Method;
  path: string;
  params?: Record<string, z.ZodType>;
  query?: Record<string, z.ZodType>;
  body?: z.ZodType;
  handler: (c: ScopedContext) => Promise<Reply>;
}

const SITE = '/v1/orgs/:organizationId/sites/:siteId';
const REV = '/v1/spaces/:spaceId/revisions/:revisionId';
const siteParams = { organizationId: entityId, siteId: entityId };
const revParams = { spaceId: entityId, revisionId: entityId };
const shareKey = { shareKey: z.string().max(256).optional() };
const documentFlags = { evaluated: pageFlags.evaluated, dereferenced: pageFlags.dereferenced };

/** A JSON answer with the revision's file links made the site's (non-expiring while published). */
function scopedJson(app: AppContext, scope: SiteScope, json: string, spaceId: string, revisionId: string): Reply {
  return okJson(withSiteFileUrls(app, json, scope.site.id, spaceId, revisionId));
}
/** A read of a revision the site publishes; `body`: the answer holds page content (`{% if %}` filtered). */
const revisionRead =
  (read: (app: AppContext, t: content.ContentTarget, c: ScopedContext) => Promise<string | Buffer[] | object>, body = false) =>
  async (c: ScopedContext): Promise<Reply> => {
    const t = scopeRevision(c.scope, c.params.spaceId, c.params.revisionId);
    const out = await read(c.app, t, c);
    let json = typeof out === 'string' ? out : Array.isArray(out) ? Buffer.concat(out).toString('utf8') : JSON.stringify(out);
    if (body) json = await conditionalFiltered(c.app, c.scope, t, json, c.params.pageId);
    return scopedJson(c.app, c.scope, json, t.spaceId, t.revisionId);
  };

const siteTokenRoutes: SiteTokenRoute[] = [
  {
    method: 'GET',
    path: `${SITE}/published`,
    params: siteParams,
    query: shareKey,
    handler: async ({ app, scope, params, query }) => {
      requireScopeSite(scope, params.organizationId, params.siteId);
      return ok(await publishedSiteForScope(app, scope, query.shareKey));
    },
  },
  {
    method: 'GET',
    path: `${SITE}/redirect`,
    params: siteParams,
    query: { ...shareKey, source: z.string().min(1).max(2048) },
    handler: async ({ app, scope, params, query }) => {
      requireScopeSite(scope, params.organizationId, params.siteId);
      return ok(await redirectOfSite(app, scope.site, query.source));
    },
  },
  {
    method: 'POST',
    path: `${SITE}/search`,
    params: siteParams,
    query: listQuery,
    body: siteSearchBody,
    handler: async ({ app, scope, params, query, body }) => {
      requireScopeSite(scope, params.organizationId, params.siteId);
      const spaces = searchableSpaces(scope, body);
      const key = `site-token:${scope.site.id}:${spaces.join(',')}`;
      return ok(await searchSpaceSet(app, spaces, { query: body.query, page: query.page, limit: query.limit }, key));
    },
  },
  {
    method: 'GET',
    path: '/v1/spaces/:spaceId',
    params: { spaceId: entityId },
    query: shareKey,
    handler: async ({ app, scope, params }) => ok(presentSpace(app, scopeSpace(scope, params.spaceId), null)),
  },
  {
    method: 'GET',
    path: '/v1/spaces/:spaceId/documents/:documentId',
    params: { spaceId: entityId, documentId: entityId },
    query: { schema: z.enum(['current', 'next']).optional() },
    handler: async ({ app, scope, params }) => {
      const space = scopeSpace(scope, params.spaceId);
      const t = scopeRevision(scope, space.id, space.revision_id);
      return okJson(await conditionalFiltered(app, scope, t, await documentOfRevision(app, t, params.documentId)));
    },
  },
  {
    method: 'GET',
    path: REV,
    params: revParams,
    query: readFlags,
    handler: revisionRead((app, t, c) => history.revisionJson(app, t, c.query, t.revisionId)),
  },
  {
    method: 'GET',
    path: `${REV}/pages`,
    params: revParams,
    query: readFlags,
    handler: revisionRead((app, t, c) => content.readPagesJson(app, t, c.query)),
  },
  {
    method: 'GET',
    path: `${REV}/files`,
    params: revParams,
    query: { ...listQuery, ...readFlags },
    handler: revisionRead((app, t, c) => content.listFiles(app, t, c.query)),
  },
  {
    method: 'GET',
    path: `${REV}/files/:fileId`,
    params: { ...revParams, fileId: entityId },
    query: readFlags,
    handler: revisionRead((app, t, c) => content.readFile(app, t, c.params.fileId, c.query)),
  },
  {
    method: 'GET',
    path: `${REV}/page/:pageId`,
    params: { ...revParams, pageId: entityId },
    query: pageFlags,
    handler: revisionRead((app, t, c) => content.readPageJson(app, t, c.params.pageId, c.query), true),
  },
  {
    method: 'GET',
    path: `${REV}/page/:pageId/document`,
    params: { ...revParams, pageId: entityId },
    query: documentFlags,
    handler: revisionRead(async (app, t, c) => (await history.readPageDocument(app, t, c.params.pageId, c.query)) as object, true),
  },
  {
    method: 'GET',
    path: `${REV}/page/:pageId/meta-links`,
    params: { ...revParams, pageId: entityId },
    handler: revisionRead((app, t, c) => history.readPageMetaLinks(app, t, c.params.pageId)),
  },
  {
    method: 'GET',
    path: `${REV}/path/*`,
    params: { ...revParams, '*': z.string().min(1).max(2048) },
    query: pageFlags,
    handler: revisionRead((app, t, c) => history.readPageByPath(app, t, c.params['*'], c.query), true),
  },
  {
    method: 'GET',
    path: `${REV}/reusable-contents/:reusableContentId`,
    params: { ...revParams, reusableContentId: entityId },
    query: readFlags,
    handler: revisionRead((app, t, c) => history.readReusableContent(app, t, c.params.reusableContentId, c.query), true),
  },
  {
    method: 'GET',
    path: `${REV}/reusable-contents/:reusableContentId/document`,
    params: { ...revParams, reusableContentId: entityId },
    query: documentFlags,
    handler: revisionRead((app, t, c) => history.readReusableContentDocument(app, t, c.params.reusableContentId, c.query), true),
  },
  {
    method: 'GET',
    path: '/v1/orgs/:organizationId/openapi/:specSlug/versions/latest/content',
    params: { organizationId: entityId, specSlug: z.string().min(1).max(200) },
    handler: async ({ app, scope, params }) => ok(await specContentForScope(app, scope, params.organizationId, params.specSlug)),
  },
  {
    method: 'GET',
    path: '/v1/orgs/:organizationId/openapi/:specSlug/versions/:versionId/content',
    params: { organizationId: entityId, specSlug: z.string().min(1).max(200), versionId: entityId },
    handler: async ({ app, scope, params }) =>
      ok(await specContentForScope(app, scope, params.organizationId, params.specSlug, params.versionId)),
  },
];

const router = buildRouter(siteTokenRoutes as unknown as RouteDef[]);
const compiled = new WeakMap<SiteTokenRoute, { params: z.ZodType; query: z.ZodType }>();

/**
 * A request whose bearer token is a site token: only the reads above, for the token's site and
 * what its claims show; anything else is refused with a 403 saying so (an invalid or expired
 * token, or a site that no longer opens to it, is a 401).
 */
export async function serveWithSiteToken(
  app: AppContext,
  req: IncomingMessage,
  method: string,
  path: string,
  search: URLSearchParams,
  token: string,
  limit: (key: string) => Promise<void>,
): Promise<Reply> {
  const grant = await verifySiteToken(app.secret, token);
  // Rate limit: a valid token per token (as API tokens are), anything else per client address.
  if (!grant) {
    await limit(`ip:${clientAddress(req, app.config) ?? 'unknown'}`);
    throw unauthenticated('Invalid or expired site token; resolve the URL again for a new one');
  }
  await limit(`st:${createHash('sha256').update(token).digest('base64url').slice(0, 22)}`);
  const m = router.match(method === 'HEAD' ? 'GET' : method, path);
  if (!m || 'allowed' in m)
    throw forbidden(`A site token only reads the content its site publishes; it is not accepted for ${method} ${path}`);
  const r = m.route as unknown as SiteTokenRoute;
  let s = compiled.get(r);
  if (!s) compiled.set(r, (s = { params: z.object(r.params ?? {}), query: z.object(r.query ?? {}) }));
  const params = validate(s.params, m.params, 'path');
  const query = validate(s.query, queryObject(search), 'query');
  let body: unknown;
  if (r.body) {
    const raw = await readJsonBody(req, app.config.bodyLimitBytes);
    if (raw === undefined) throw invalid('Invalid request: body: a JSON body is required');
    body = validate(r.body, raw, 'body');
  }
  const scope = await openScope(app, grant);
  return r.handler({ app, scope, params, query, body });
}
