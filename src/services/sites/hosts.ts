/**
 * Which site a request's Host names, besides PUBLIC_URL/site/{id} (issue 12, "where it lives"): a
 * site's own custom hostname (the whole host is the site), or an organization's host (its custom
 * hostname, or its `hostname` label under SITES_DOMAIN) where the first path segments are a site's
 * basename, and the root is the organization's default site. Looked up on every request (indexed),
 * so a change of hostname or basename holds on the next request, on every instance.
 */
import type { AppContext } from '../../context.js';
import { orgSitesByHost, siteIdByHostname } from '../../db/repos/sites.js';
import { hostBaseUrl } from '../../presenters/sites.js';

export interface HostedSite {
  /** The site, or null when the host belongs to an organization but the path names none of its sites. */
  siteId: string | null;
  /** Where the site is served on this host: `{scheme}://{host}[:port][/{basename}]`. */
  base: string;
  /** The decoded path under `base`, without leading or trailing slashes. */
  rest: string;
}

const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;

const publicHostnames = new WeakMap<AppContext, string>();
/** The API's own host name (PUBLIC_URL's), parsed once per context: this runs on every request. */
function publicHostname(app: AppContext): string {
  let h = publicHostnames.get(app);
  if (h === undefined) publicHostnames.set(app, (h = new URL(app.config.publicUrl).hostname.toLowerCase()));
  return h;
}

/**
 * The site host named by a Host header: lowercase, port and trailing dot dropped. Null when it
 * cannot name a site: missing, the API's own host (PUBLIC_URL), an IP literal, a name without a dot.
 */
export function siteHostName(app: AppContext, header: string | undefined): string | null {
  if (!header || header.length > 600) return null;
  if (header.startsWith('[')) return null; // IPv6 literal
  const host = header.replace(/:\d*$/, '').replace(/\.$/, '').toLowerCase();
  if (!host.includes('.') || IPV4.test(host) || !/^[a-z0-9.-]+$/.test(host)) return null;
  if (host === publicHostname(app)) return null;
  return host;
}

const trim = (s: string) => s.replace(/^\/+|\/+$/g, '');

/** The site (and its base) a host serves `path` (decoded) from; null: the host serves no site. */
export async function siteAtHost(app: AppContext, host: string, path: string): Promise<HostedSite | null> {
  const own = await siteIdByHostname(app.db, host);
  if (own) return { siteId: own, base: hostBaseUrl(app, host), rest: trim(path) };
  const org = await orgSitesByHost(app.db, host, app.config.sitesDomain);
  if (!org) return null;
  // The longest basename that is a whole-segment prefix of the path wins.
  const match = org.sites
    .filter((s) => path === `/${s.basename}` || path.startsWith(`/${s.basename}/`))
    .sort((a, b) => b.basename.length - a.basename.length)[0];
  if (match) {
    const encoded = `/${match.basename.split('/').map(encodeURIComponent).join('/')}`;
    return { siteId: match.id, base: hostBaseUrl(app, host, encoded), rest: trim(path.slice(match.basename.length + 1)) };
  }
  return { siteId: org.defaultSite, base: hostBaseUrl(app, host), rest: trim(path) };
}
