// Site insights (issue 29, item 3): trackEventsInSiteById (token-free: the reader site calls it),
// aggregateSiteEvents and listSiteVisitorSegments (members who edit the site: src/policies/site-insights.ts).
import type { IncomingMessage } from 'node:http';
import type { AppContext } from '../../context.js';
import { route, ok, noContent, type Reply } from '../../http/route.js';
import { readRawBody } from '../../http/body.js';
import { clientAddress } from '../../http/client-address.js';
import { validate } from '../../http/validate.js';
import { createRateLimiter } from '../../http/rate-limit.js';
import { invalid } from '../../core/errors.js';
import { HttpError } from '../../http/errors.js';
import * as insights from '../../services/sites/insights.js';
import { MAX_BODY_BYTES, trackEventsBody } from '../../sites/insights.js';
import { aggregationBody } from '../../sites/insights-query.js';
import { siteParams } from './sites.js';

const SITE = '/v1/orgs/:organizationId/sites/:siteId';

const limiters = new WeakMap<AppContext, ReturnType<typeof createRateLimiter>>();
function limiter(app: AppContext) {
  let l = limiters.get(app);
  if (!l)
    limiters.set(
      app,
      (l = createRateLimiter(app.jobs.connection, `${app.config.queuePrefix}:insights`, app.config.insights.perVisitorPerMinute)),
    );
  return l;
}

/**
 * A request's events (read within MAX_BODY_BYTES). JSON only: a page of another origin cannot send
 * that without a CORS preflight, which this API never grants, so no other site can make its
 * visitors' browsers post events here (the reader's script sends a JSON Blob, same-origin).
 */
function parseEvents(req: IncomingMessage, raw: Buffer) {
  const type = String(req.headers['content-type'] ?? 'application/json').toLowerCase();
  if (!/^application\/([\w.+-]*\+)?json\b/.test(type))
    throw new HttpError(415, `Unsupported Content-Type "${type}": send application/json`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    throw invalid('Invalid request: body: not valid JSON');
  }
  return validate(trackEventsBody, parsed, 'body').events;
}

const optedOut = (req: IncomingMessage) => req.headers.dnt === '1' || req.headers['sec-gpc'] === '1';

/**
 * Track a batch for a site: the API's operation and the reader's own endpoint share it. Events are
 * dropped (204 all the same) when the request opts out (DNT, GPC) or the site has insights off.
 */
export async function trackForSite(
  app: AppContext,
  req: IncomingMessage,
  orgId: string | null,
  siteId: string,
  claims?: Record<string, unknown>,
): Promise<Reply> {
  const raw = await readRawBody(req, MAX_BODY_BYTES, 'An events batch');
  const site = await insights.trackableSite(app, orgId, siteId);
  const events = parseEvents(req, raw);
  const request: insights.TrackRequest = {
    address: clientAddress(req, app.config) ?? 'unknown',
    userAgent: String(req.headers['user-agent'] ?? '').slice(0, 1024),
    optedOut: optedOut(req),
    claims,
  };
  if (!insights.dropsEvents(site, request) && events.length)
    await limiter(app)(`${site.id}:${insights.requestVisitor(app, site, request)}`);
  await insights.trackEvents(app, site, events, request);
  return noContent({ 'cache-control': 'no-store' });
}

export const siteInsightsRoutes = [
  route({
    method: 'POST',
    path: `${SITE}/insights/events`,
    summary: "Track events of a published site's readers (no token: the site calls it)",
    auth: false,
    rawBody: true,
    params: siteParams,
    handler: async ({ app, req, params }) => trackForSite(app, req, params.organizationId, params.siteId),
  }),
  route({
    method: 'POST',
    path: `${SITE}/insights/events/aggregate`,
    params: siteParams,
    body: aggregationBody,
    handler: async ({ app, principal, params, body }) =>
      ok(await insights.aggregateSiteEvents(app, principal, params.organizationId, params.siteId, body)),
  }),
  route({
    method: 'GET',
    path: `${SITE}/insights/visitor-segments`,
    params: siteParams,
    handler: async ({ app, principal, params }) =>
      ok(await insights.listSiteVisitorSegments(app, principal, params.organizationId, params.siteId)),
  }),
];
