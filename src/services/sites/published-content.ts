/**
 * getPublishedContentByUrl / resolvePublishedContentByUrl (issue 29 item 6): a URL of a published
 * site (PUBLIC_URL/site/{id}/…, the site's custom hostname, or its organization's host and
 * basename) -> the site, section, site space, space, revision and page path it shows, with the
 * reader's access applied exactly as the reader site applies it (src/reader/access.ts): a share
 * key (the `share` parameter), a visitor token (`visitorAuthToken`, `visitor.jwtToken` or the
 * URL's `jwt_token`), adaptive claims (`visitor.unsignedClaims`, `visitor.*` parameters), and the
 * conditions of sections and site spaces. A site redirect or a `.gitbook.yaml` redirect answers a
 * path with no page. The `apiToken` is a site token (src/auth/site-token.ts) for this site and
 * these claims.
 */
import { createHash } from 'node:crypto';
import type { AppContext } from '../../context.js';
import { invalid, isDomainError, notFound, unauthenticated } from '../../core/errors.js';
import { signSiteToken } from '../../auth/site-token.js';
import { sitePathBaseUrl } from '../../presenters/sites.js';
import { readerContext, resolveSitePath, sitePath, signedClaims, variantsOf } from '../../sites/reader.js';
import { siteAtHost, siteHostName } from './hosts.js';
import { publishedSite, readerStructure, shareKeyOpens, snapshotOf, verifyVisitorToken, type ServedSite } from './reader.js';
import { siteRedirectFor, spaceRedirectFor } from './redirects.js';
import { adaptiveClaims, visitorKeyFingerprint } from './published-content-reads.js';

export const MAX_URL_LENGTH = 2048;

export interface LookupInput {
  url: string;
  /** A visitor token (the deprecated GET's `visitorAuthToken`, the POST's `visitor.jwtToken`). */
  visitorToken?: string;
  unsignedClaims?: Record<string, unknown>;
  redirectOnError?: boolean;
}

export type PublishedLookup =
  | { target: 'application' | 'content'; redirect: string }
  | {
      site: string;
      siteSection?: string;
      siteSpace: string;
      space: string;
      revision: string;
      pathname: string;
      basePath: string;
      siteBasePath: string;
      apiToken: string;
      organization: string;
      shareKey?: string;
      complete: boolean;
      contextId?: string;
      canonicalUrl: string;
    };

const trim = (s: string) => s.replace(/^\/+|\/+$/g, '');
const decode = (s: string) => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

/** The site a URL names and where it is served, or null. */
async function siteOfUrl(app: AppContext, url: URL): Promise<{ siteId: string; base: string; rest: string } | null> {
  const api = new URL(app.config.publicUrl);
  if (url.host.toLowerCase() === api.host.toLowerCase()) {
    const prefix = api.pathname.replace(/\/+$/, '');
    const m = /^\/site\/([A-Za-z0-9_-]{1,128})(?:\/(.*))?$/.exec(url.pathname.slice(prefix.length));
    if (!url.pathname.startsWith(prefix) || !m) return null;
    return { siteId: m[1], base: sitePathBaseUrl(app, m[1]), rest: trim(decode(m[2] ?? '')) };
  }
  const host = siteHostName(app, url.host);
  if (!host) return null;
  const hosted = await siteAtHost(app, host, decode(url.pathname));
  // The base as the URL reaches the site (its scheme and port: a renderer may serve it over https
  // on another port than PUBLIC_URL's), with the basename the host gave.
  return hosted?.siteId
    ? { siteId: hosted.siteId, base: `${url.origin}${new URL(hosted.base).pathname.replace(/\/+$/, '')}`, rest: hosted.rest }
    : null;
}

const withSlashes = (p: string) => (p ? `/${trim(p)}/`.replace(/\/{2,}/g, '/') : '/');

export async function resolvePublishedUrl(app: AppContext, input: LookupInput, nowMs = Date.now()): Promise<PublishedLookup> {
  if (input.url.length > MAX_URL_LENGTH) throw invalid(`Invalid request: url: must be at most ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(input.url);
  } catch {
    throw invalid('Invalid request: url: must be an absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid('Invalid request: url: must be an http(s) URL');
  const noContent = () => notFound(`No content found for the URL "${url.origin}${url.pathname}"`);
  const located = await siteOfUrl(app, url);
  if (!located) throw noContent();
  let row;
  try {
    row = await publishedSite(app, located.siteId);
  } catch (err) {
    if (isDomainError(err) && err.kind === 'not-found') throw noContent();
    throw err;
  }
  const site: ServedSite = { ...row, base: located.base };
  let siteBasePath = new URL(site.base).pathname.replace(/\/+$/, '');
  let rest = located.rest;
  let keyInPath = false;

  // Access, as the reader site decides it.
  let shareKey: string | undefined;
  let signed: Record<string, unknown> = {};
  let notAfter: number | undefined;
  if (site.visibility === 'share-link') {
    // The key as the reader site takes it (`?share=`), or as GitBook's URLs carry it: the first
    // segment under the site (`<site>/<key>/<path>`; the renderer drops query strings).
    shareKey = url.searchParams.get('share') ?? undefined;
    if (!shareKey) {
      const first = rest.split('/')[0];
      if (first && first.length <= 256 && (await shareKeyOpens(app, site, first))) {
        shareKey = first;
        keyInPath = true;
        rest = rest.slice(first.length + 1);
        siteBasePath += `/${encodeURIComponent(first)}`;
      }
    }
    if (!keyInPath && !(await shareKeyOpens(app, site, shareKey))) throw noContent();
  } else if (site.visibility === 'visitor-auth') {
    const token = input.visitorToken ?? url.searchParams.get('jwt_token') ?? '';
    const check = token ? await verifyVisitorToken(app, site, token) : ({ ok: false, reason: 'none' } as const);
    if (!check.ok) {
      if (input.redirectOnError && site.auth_fallback_url) {
        const fallback = new URL(site.auth_fallback_url);
        fallback.searchParams.set('location', url.pathname);
        return { target: 'application', redirect: fallback.toString() };
      }
      throw unauthenticated(`This site needs a valid visitor token (${check.reason})`);
    }
    signed = signedClaims(check.payload);
    notAfter = check.exp;
  } else if (site.visibility !== 'public' && site.visibility !== 'unlisted') {
    throw noContent();
  }
  const fromUrl = new URLSearchParams();
  for (const [k, v] of url.searchParams) if (k.startsWith('visitor.')) fromUrl.append(k, v);
  const unsigned = adaptiveClaims(site, input.unsignedClaims ?? {}, fromUrl);
  const ctx = readerContext(signed, unsigned);

  const segments = rest.split('/').filter(Boolean);
  const { spaces, visible } = await readerStructure(app, site, ctx);
  const r = resolveSitePath(visible, segments);
  if (!r) throw noContent();
  const space = spaces.get(r.siteSpace.space_id);
  if (!space) throw noContent();
  if (r.pagePath) {
    // A path with no page: the site's redirects, then the space's `.gitbook.yaml` ones.
    const snapshot = await snapshotOf(app, space);
    if (!snapshot.byPath.has(r.pagePath)) {
      const moved = (await siteRedirectFor(app, site, rest))?.location ?? (await spaceRedirectFor(app, site, visible, spaces, segments));
      if (moved) {
        let target = new URL(moved, site.base).toString();
        // A key taken from the path stays in it.
        if (keyInPath && target.startsWith(`${site.base}/`))
          target = `${site.base}/${encodeURIComponent(shareKey!)}${target.slice(site.base.length)}`;
        return { target: 'content', redirect: target };
      }
    }
  }

  const sectionPart = sitePath(visible, r.section, r.siteSpace, '');
  const variants = variantsOf(visible, r.section);
  // Complete: no section or variant segment could follow in this URL (the renderer also looks up
  // shorter prefixes of a URL and keeps one only when it is complete).
  const sectionNamed = !!r.section && r.section.id !== visible.defaultSection?.id;
  const variantNamed = sectionPart.split('/').filter(Boolean).length > (sectionNamed ? 1 : 0);
  const complete =
    !!r.pagePath || variantNamed || (sectionNamed ? variants.length <= 1 : visible.sections.length <= 1 && variants.length <= 1);
  const visitorKey = site.visibility === 'visitor-auth' ? await visitorKeyFingerprint(app, site) : undefined;
  const claims = Object.keys(signed).length || Object.keys(unsigned).length;
  const apiToken = await signSiteToken(
    app.secret,
    { site: site.id, organization: site.organization_id, shareKey, visitor: visitorKey, signed, unsigned },
    nowMs,
    notAfter,
  );
  const canonicalPath = sitePath(visible, r.section, r.siteSpace, r.pagePath);
  return {
    site: site.id,
    ...(r.section ? { siteSection: r.section.id } : {}),
    siteSpace: r.siteSpace.id,
    space: space.id,
    revision: space.revision_id,
    pathname: r.pagePath,
    basePath: withSlashes(`${siteBasePath}/${sectionPart}`),
    siteBasePath: withSlashes(siteBasePath),
    apiToken,
    organization: site.organization_id,
    ...(shareKey ? { shareKey } : {}),
    complete,
    ...(claims
      ? {
          contextId: createHash('sha256')
            .update(JSON.stringify([signed, unsigned]))
            .digest('base64url')
            .slice(0, 24),
        }
      : {}),
    canonicalUrl: canonicalPath ? `${site.base}/${canonicalPath}` : `${site.base}/`,
  };
}
