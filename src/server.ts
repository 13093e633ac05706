import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { AppContext } from './context.js';
import { buildRouter } from './http/router.js';
import type { RouteDef, Reply } from './http/route.js';
import { notFound, unauthenticated, forbidden, invalid } from './core/errors.js';
import { HttpError, errorBody, errorReply } from './http/errors.js';
import { readJsonBody } from './http/body.js';
import { queryObject, validate } from './http/validate.js';
import { authenticate } from './services/identity.js';
import { SESSION_COOKIE, sessionPrincipal } from './services/sso.js';
import { actionOfRoute, auditApiCall, organizationsOfCall, registerAuditedRoutes } from './services/audit.js';
import { cookieValue } from './http/cookies.js';
import { clientAddress } from './http/client-address.js';
import { getUser } from './db/repos/users.js';
import { apiRoutes } from './routes/index.js';
import { systemRoutes } from './routes/system.js';
import { referenceRoutes } from './routes/reference.js';
import { createMetrics } from './ops/metrics.js';
import { createDashboard } from './ops/dashboard.js';
import { createRateLimiter, rateLimitHeaders } from './http/rate-limit.js';
import { parseTarget } from './http/path.js';
import { decodeOrKeep } from './util/uri.js';
import { databaseErrorReply } from './http/db-errors.js';
import { drainable } from './http/shutdown.js';
import type { Principal } from './auth/principal.js';
import { hostedSite, serveHosted } from './reader/routes.js';
import { isSiteToken } from './auth/site-token.js';
import { serveWithSiteToken } from './routes/published-content.js';
import { afterSiteWrite } from './services/sites/revalidation.js';
import type { Logger } from './log.js';

export interface ApiServer {
  server: http.Server;
  /**
   * Stop accepting, answer in-flight and keep-alive requests with `Connection: close`, close idle
   * sockets; resolves once every request handler returned (bounded by SHUTDOWN_TIMEOUT_MS).
   */
  close(): Promise<void>;
}

const REQUEST_ID = /^[\w.:-]{1,128}$/;

function bearer(req: IncomingMessage): string | null {
  const h = req.headers.authorization;
  if (!h) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m ? m[1] : '';
}

/** Write a reply; for HEAD, the same status and headers (length included) without the body. */
function send(res: ServerResponse, reply: Reply, head = false) {
  if (reply.headers) for (const k in reply.headers) res.setHeader(k, reply.headers[k]);
  res.statusCode = reply.status;
  if (reply.stream) {
    if (head) {
      reply.stream.destroy();
      res.end();
      return;
    }
    reply.stream.on('error', () => res.destroy());
    reply.stream.pipe(res);
    return;
  }
  if (reply.chunks) {
    let length = 0;
    for (const c of reply.chunks) length += c.length;
    res.setHeader('content-length', length);
    if (head) {
      res.end();
      return;
    }
    // One write of all the parts (corked until end), none of them copied into a whole.
    res.cork();
    for (const c of reply.chunks) res.write(c);
    res.end();
    return;
  }
  let payload: string | Buffer | undefined;
  if (reply.json !== undefined) {
    res.setHeader('content-type', 'application/json; charset=utf-8');
    payload = reply.json;
  } else if (reply.body === undefined || reply.status === 204) {
    payload = undefined;
  } else if (typeof reply.body === 'string' || Buffer.isBuffer(reply.body)) {
    if (!res.hasHeader('content-type')) res.setHeader('content-type', 'text/plain; charset=utf-8');
    payload = reply.body;
  } else {
    res.setHeader('content-type', 'application/json; charset=utf-8');
    payload = JSON.stringify(reply.body);
  }
  if (payload === undefined) {
    res.end();
    return;
  }
  res.setHeader('content-length', Buffer.byteLength(payload));
  res.end(head ? undefined : payload);
}

/** A request's logger (its id bound), made on first use: at the default level only the final line uses it. */
class RequestLog {
  private made: Logger | undefined;
  constructor(
    private readonly base: Logger,
    private readonly requestId: string,
  ) {}
  get(): Logger {
    return (this.made ??= this.base.child({ reqId: this.requestId }));
  }
}

/** What a route handler gets (src/http/route.ts); `log` is the request's logger. */
class RequestContext {
  constructor(
    readonly app: AppContext,
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly params: unknown,
    readonly query: unknown,
    readonly body: unknown,
    readonly principal: Principal | undefined,
    readonly requestId: string,
    private readonly requestLog: RequestLog,
  ) {}
  get log(): Logger {
    return this.requestLog.get();
  }
}

export function createApiServer(app: AppContext): ApiServer {
  const metrics = createMetrics(app);
  let draining = false;
  const routes: RouteDef[] = [...(systemRoutes(metrics, () => draining) as RouteDef[]).map((r) => ({ tag: 'System', ...r })), ...apiRoutes];
  routes.push(...referenceRoutes(() => routes));
  const router = buildRouter(routes);
  registerAuditedRoutes(routes);
  // Whether a route's successful calls are recorded in the audit log (src/services/audit.ts).
  const audited = new WeakMap<RouteDef, boolean>();
  const isAudited = (r: RouteDef) => {
    let a = audited.get(r);
    if (a === undefined) audited.set(r, (a = r.auth !== false && actionOfRoute(r.method, r.path) !== null));
    return a;
  };
  const dashboard = createDashboard(app);
  const rateLimit = createRateLimiter(app.jobs.connection, app.config.queuePrefix, app.config.rateLimitPerMinute);
  const adminPath = app.config.adminPath;
  const schemas = new WeakMap<RouteDef, { params: z.ZodType; query: z.ZodType }>();
  const compiled = (r: RouteDef) => {
    let s = schemas.get(r);
    if (!s) {
      s = { params: z.object(r.params ?? {}), query: z.object(r.query ?? {}) };
      schemas.set(r, s);
    }
    return s;
  };

  async function limit(res: ServerResponse, key: string) {
    const state = await rateLimit(key);
    if (!state) return;
    for (const [k, v] of Object.entries(rateLimitHeaders(app.config.rateLimitPerMinute, state.remaining, state.reset))) res.setHeader(k, v);
  }

  /** Operators only. Browsers may pass ?token= once: it is moved into an HttpOnly cookie. */
  async function serveDashboard(req: IncomingMessage, res: ServerResponse, url: URL) {
    await limit(res, `ip:${clientAddress(req, app.config) ?? 'unknown'}`);
    const fromQuery = url.searchParams.get('token');
    const fromCookie = /(?:^|;\s*)dp_admin_token=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
    const token = bearer(req) ?? fromQuery ?? (fromCookie ? decodeOrKeep(fromCookie) : null);
    if (token === null) throw unauthenticated();
    const principal = await authenticate(app.db, token);
    if (!principal) throw unauthenticated('Invalid or expired access token');
    const user = await getUser(app.db, principal.userId);
    if (!user?.is_operator) throw forbidden('The job dashboard is for operators only');
    if (fromQuery) {
      url.searchParams.delete('token');
      res.writeHead(303, {
        'set-cookie': `dp_admin_token=${encodeURIComponent(fromQuery)}; Path=${adminPath}; HttpOnly; SameSite=Strict`,
        location: url.pathname + url.search,
      });
      res.end();
      return;
    }
    dashboard(req, res);
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const started = process.hrtime.bigint();
    const incoming = req.headers['x-request-id'];
    const requestId = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader('x-request-id', requestId);
    const log = new RequestLog(app.log, requestId);
    const method = req.method ?? 'GET';
    const head = method === 'HEAD';
    let routeLabel = 'unmatched';
    let path = '/';
    try {
      // Routing sees the path exactly as sent: never normalized (see src/http/path.ts).
      const target = parseTarget(req.url);
      path = target.path;
      // A Host naming a published site (its custom hostname, or its organization's host) gets that
      // site and nothing else: no API, dashboard or sign-in there (docs/sites.md "Where a site lives").
      const hosted = await hostedSite(app, req.headers.host, path);
      if (hosted) {
        routeLabel = 'site-host';
        // The site's MCP endpoint (src/reader/mcp.ts) takes POST; everything else on a site is read.
        const mcp = hosted.rest === '~gitbook/mcp';
        const insights = hosted.rest === '~gitbook/insights'; // the reader's own events (src/reader/insights.ts)
        if (method !== 'GET' && method !== 'HEAD' && !((mcp || insights) && method === 'POST'))
          throw new HttpError(405, `Method ${method} is not allowed on ${path}`, { allow: mcp ? 'GET, HEAD, POST' : 'GET, HEAD' });
        await limit(res, `ip:${clientAddress(req, app.config) ?? 'unknown'}`);
        send(res, await serveHosted(app, req, hosted), head);
        return;
      }
      if (path === adminPath || path.startsWith(`${adminPath}/`)) {
        routeLabel = adminPath;
        await serveDashboard(req, res, new URL(`http://local${path}${target.search ? `?${target.search}` : ''}`));
        return;
      }
      const m = router.match(head ? 'GET' : method, path);
      // A site token (the renderer's apiToken) is accepted by its own reads only (src/routes/published-content.ts);
      // token-free routes ignore it as they ignore any bearer.
      const siteToken = bearer(req);
      if (siteToken && isSiteToken(siteToken) && !(m && 'route' in m && m.route.auth === false)) {
        routeLabel = 'site-token';
        send(res, await serveWithSiteToken(app, req, method, path, target.searchParams, siteToken, (key) => limit(res, key)), head);
        return;
      }
      if (!m) throw notFound(`No route for ${method} ${path}`);
      if ('allowed' in m) {
        const allowed = m.allowed.includes('GET') ? [...m.allowed, 'HEAD'] : m.allowed;
        throw new HttpError(405, `Method ${method} is not allowed on ${path}`, { allow: allowed.join(', ') });
      }
      const route = m.route;
      routeLabel = route.name ?? route.path;
      // Rate limit: an authenticated caller per token; anyone else (no token, a wrong one) per
      // client address, so made-up tokens cannot buy fresh budgets.
      let principal: Principal | undefined; // token-free routes get none (PublicRequestContext)
      if (route.auth !== false) {
        const token = bearer(req);
        const cookie = route.session && token === null ? cookieValue(req, SESSION_COOKIE) : undefined;
        const found = token ? await authenticate(app.db, token) : cookie ? await sessionPrincipal(app, cookie) : null;
        if (!found) {
          await limit(res, `ip:${clientAddress(req, app.config) ?? 'unknown'}`);
          throw token === null && !cookie ? unauthenticated() : unauthenticated('Invalid or expired access token or session');
        }
        principal = found;
        await limit(res, `t:${found.tokenId}`);
      } else if (route.rateLimited !== false) {
        await limit(res, `ip:${clientAddress(req, app.config) ?? 'unknown'}`);
      }
      const s = compiled(route);
      const params = validate(s.params, m.params, 'path');
      const query = validate(s.query, target.search ? queryObject(target.searchParams) : {}, 'query');
      let body: unknown;
      if (route.body) {
        const raw = await readJsonBody(req, app.config.bodyLimitBytes);
        if (raw === undefined && route.bodyRequired !== false) throw invalid('Invalid request: body: a JSON body is required');
        body = raw === undefined ? undefined : validate(route.body, raw, 'body');
      } else if (!route.rawBody && method !== 'GET' && method !== 'HEAD' && method !== 'DELETE') {
        await readJsonBody(req, app.config.bodyLimitBytes); // enforce the limit, ignore content
      }
      // The organizations of an audited change, found before it runs (a deletion would hide them after).
      const auditOrgs = principal && isAudited(route) ? await organizationsOfCall(app, params as Record<string, unknown>) : null;
      const reply = await route.handler(new RequestContext(app, req, res, params, query, body, principal, requestId, log) as never);
      if (auditOrgs?.length && principal) {
        await auditApiCall(
          app,
          {
            method,
            route: route.path,
            params: params as Record<string, unknown>,
            principal,
            organizationIds: auditOrgs,
            status: reply.status,
            body: reply.body,
            clientAddress: clientAddress(req, app.config),
            requestId,
          },
          log.get(),
        );
      }
      // A change to a published site's settings or structure is announced to GitBook's renderer (src/services/sites/revalidation.ts).
      const siteId = (params as { siteId?: unknown }).siteId;
      if (auditOrgs && reply.status < 300 && typeof siteId === 'string') await afterSiteWrite(app, siteId);
      send(res, reply, head);
    } catch (err) {
      if (res.headersSent) {
        log.get().error({ err }, 'error after response started');
        res.destroy();
        return;
      }
      const known = errorReply(err);
      if (known) {
        send(res, { status: known.status, body: errorBody(known.status, known.message), headers: known.headers }, head);
        return;
      }
      const fromDb = databaseErrorReply(err);
      if (fromDb) {
        if (fromDb.status >= 500) log.get().warn({ err }, 'database conflict answered as retryable');
        send(res, { status: fromDb.status, body: errorBody(fromDb.status, fromDb.message), headers: fromDb.headers }, head);
        return;
      }
      log.get().error({ err }, 'unhandled error');
      send(res, { status: 500, body: errorBody(500, `Internal server error (request ${requestId})`) }, head);
    } finally {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      metrics.observeHttp(routeLabel, method, res.statusCode, seconds);
      if (app.log.isLevelEnabled('info')) {
        // Invite and sign-in tokens travel in paths (/invites/{token}, /sign-in/{token}): never written to the log.
        const logged = /\/(inv|sil)_/.test(path) ? path.replace(/\/(inv|sil)_[^/?]*/g, '/$1_[redacted]') : path;
        log.get().info({ method, path: logged, route: routeLabel, status: res.statusCode, ms: Math.round(seconds * 1000) }, 'request');
      }
    }
  }

  const server = http.createServer();
  // Requests Node refuses before they reach a handler (malformed, headers too large, too slow)
  // still get the API's error body, when the socket can still carry one.
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (!socket.writable || (socket as { _httpMessage?: unknown })._httpMessage) {
      socket.destroy();
      return;
    }
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    const reason = status === 431 ? 'Request Header Fields Too Large' : status === 408 ? 'Request Timeout' : 'Bad Request';
    const message =
      status === 431
        ? 'Request headers are too large'
        : status === 408
          ? 'The request took too long to arrive'
          : `Malformed HTTP request (${err.code ?? 'parse error'})`;
    const body = JSON.stringify(errorBody(status, message));
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
  server.keepAliveTimeout = 5_000;
  server.headersTimeout = 30_000;
  server.requestTimeout = 120_000;
  // Serves requests with `handle`; close() drains them (src/http/shutdown.ts).
  const shutdown = drainable(server, handle, {
    timeoutMs: app.config.shutdownTimeoutMs,
    onTimeout: (left) => app.log.warn(left, 'shutdown timeout: closing the connections and requests still open'),
  });

  return {
    server,
    close: () => {
      draining = true; // /readyz answers 503 from now on, so a load balancer stops sending
      return shutdown.drain();
    },
  };
}
