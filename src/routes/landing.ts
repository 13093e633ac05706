import { createHash } from 'node:crypto';
import Negotiator from 'negotiator';
import { route, type Reply } from '../http/route.js';
import { escapeHtml } from '../render/html.js';
import { serviceLinks, type ServiceLinks } from '../ops/welcome.js';
import { publicSites, type ListedSite } from '../services/sites/directory.js';

// GET / : where a newcomer goes from here. A small HTML page (or JSON, for `Accept:
// application/json`) linking to the API reference, the job dashboard, the health endpoints and the
// public sites readers may open. Without a token, so it lists only what anyone may see: published
// sites of `public` visibility (src/services/sites/directory.ts), at most SITES_LISTED.

const SITES_LISTED = 50;

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;color:#1b1b1b;max-width:46rem;margin:2rem auto;padding:0 1rem}
h1{font-size:1.6rem;margin:0 0 .25rem}h2{font-size:1.1rem;margin:1.75rem 0 .5rem}
ul{padding-left:1.2rem}li{margin:.25rem 0}code{background:#f3f3f3;padding:0 .25em;border-radius:3px}
.muted{color:#5c5c5c}`;

// Nothing but the one inline style block (by its hash): no script, no frame, no form.
const CSP = `default-src 'none'; style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

/**
 * Whether the client prefers JSON to HTML by its `Accept` header (negotiator: higher q first, then
 * the more specific range, then the order the client gave; axios' default, JSON and plain text and
 * the wildcard, asks for JSON). A tie, no header, or neither type acceptable gets HTML.
 */
export function prefersJson(accept: string | undefined): boolean {
  if (!accept) return false;
  return new Negotiator({ headers: { accept } }).mediaType(['text/html', 'application/json']) === 'application/json';
}

function page(links: ServiceLinks, adminPath: string, sites: ListedSite[], more: boolean): string {
  const e = escapeHtml;
  const siteList = sites.length
    ? `<ul>\n${sites.map((s) => `<li><a href="${e(s.url)}">${e(s.title)}</a></li>`).join('\n')}\n</ul>` +
      (more ? `\n<p class="muted">The first ${sites.length} are listed.</p>` : '')
    : '<p class="muted">No public site is published yet.</p>';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Docs platform</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>Docs platform</h1>
<p class="muted">This server hosts the documentation platform's API and its published sites.</p>
<h2>API</h2>
<ul>
<li><a href="/docs">API reference</a>: every operation, readable in a browser (<a href="/openapi.json">OpenAPI description</a>)</li>
<li>Base URL <code>${e(links.api)}</code>, with <code>Authorization: Bearer &lt;token&gt;</code></li>
</ul>
<h2>Operators</h2>
<ul>
<li><a href="${e(adminPath)}">Job dashboard</a> (operators' token)</li>
<li><a href="/healthz">Health</a>, <a href="/readyz">readiness</a>, <a href="/metrics">metrics</a></li>
</ul>
<h2>Published sites</h2>
${siteList}
</main>
</body>
</html>
`;
}

export const landingRoutes = [
  route({
    method: 'GET',
    path: '/',
    auth: false,
    summary: 'Home page: links to the reference, the job dashboard, the health endpoints and the public sites (HTML, or JSON)',
    handler: async ({ app, req }): Promise<Reply> => {
      const links = serviceLinks(app.config);
      const { sites, more } = await publicSites(app, SITES_LISTED);
      const common = { vary: 'accept', 'cache-control': 'no-cache' };
      if (prefersJson(req.headers.accept)) {
        return { status: 200, body: { links, sites, moreSites: more }, headers: common };
      }
      return {
        status: 200,
        body: page(links, app.config.adminPath, sites, more),
        headers: {
          ...common,
          'content-type': 'text/html; charset=utf-8',
          'content-security-policy': CSP,
          'x-content-type-options': 'nosniff',
          'referrer-policy': 'strict-origin-when-cross-origin',
        },
      };
    },
  }),
];
