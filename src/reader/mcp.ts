// `<site>/~gitbook/mcp`: the site's MCP server (Streamable HTTP, stateless, JSON responses), the
// path GitBook serves it at. Access as on the site's pages for machine clients (agent-access.ts:
// share key in the URL, visitor token as a bearer, adaptive claims as `visitor.*` parameters);
// searches skip pages marked noIndex; the rate limit is the API's (per client address).
import type { IncomingMessage } from 'node:http';
import type { AppContext } from '../context.js';
import type { Reply } from '../http/route.js';
import { readJsonBody } from '../http/body.js';
import { HttpError } from '../http/errors.js';
import { handleMcpRequest, type DocsSource } from '../mcp/server.js';
import { readablePage, searchReadable } from '../services/sites/agents.js';
import type { ServedSite } from '../services/sites/reader.js';
import { admitAgent } from './agent-access.js';

/** A JSON-RPC message (or batch) is small: a tool call with a query or a URL. */
const MAX_MCP_BODY = 64 * 1024;
const SERVER_VERSION = '1.0.0';

export async function serveMcp(app: AppContext, req: IncomingMessage, site: ServedSite, siteTitle: string): Promise<Reply> {
  const reader = await admitAgent(app, req, site);
  // Stateless: no server-initiated stream to open (GET) and no session to end (DELETE).
  if (req.method !== 'POST')
    throw new HttpError(405, 'The MCP endpoint takes POST requests (Streamable HTTP, stateless)', { allow: 'POST' });
  const body = await readJsonBody(req, Math.min(MAX_MCP_BODY, app.config.bodyLimitBytes));
  const source: DocsSource = {
    title: siteTitle,
    search: async (query) => (await searchReadable(app, site, reader.ctx, query, 20)).filter((h) => !h.noIndex),
    page: (url) => readablePage(app, site, reader.ctx, url),
  };
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
  const request = new Request(`http://local${req.url ?? '/'}`, { method: 'POST', headers });
  const res = await handleMcpRequest(source, SERVER_VERSION, request, body);
  const out: Record<string, string> = { 'cache-control': 'no-store', 'x-robots-tag': 'noindex', 'x-content-type-options': 'nosniff' };
  res.headers.forEach((v, k) => (out[k] = v));
  const text = await res.text();
  if (res.status >= 400) {
    // A refusal of the transport (not JSON-RPC, wrong Accept, ...): the API's error body, as every
    // HTTP error of this server (MCP clients read the status; tool errors stay JSON-RPC results).
    let message = `MCP request refused (HTTP ${res.status})`;
    try {
      const m = (JSON.parse(text) as { error?: { message?: unknown } }).error?.message;
      if (typeof m === 'string' && m) message = m.slice(0, 500);
    } catch {
      /* the default message */
    }
    throw new HttpError(res.status, message, res.headers.get('allow') ? { allow: res.headers.get('allow')! } : undefined);
  }
  return { status: res.status, body: text || undefined, headers: out };
}
