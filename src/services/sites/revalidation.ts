/**
 * Revalidation of GitBook's renderer (and of any CDN in front of a site): after a site's content
 * changes (a new revision of a space it publishes, publishing or unpublishing it, its customization)
 * the platform POSTs `{"tags": [...]}` to RENDERER_REVALIDATE_URL, signed like the renderer's
 * `/~gitbook/revalidate` endpoint checks it: `X-Gitbook-Signature` is the hex HMAC-SHA256 of the
 * exact body with RENDERER_REVALIDATE_SECRET (the renderer's GITBOOK_SECRET). The tags are the
 * renderer's cache tags (`site:<id>`, `space:<id>`, `url:<hostname>`), so a purge endpoint of a
 * CDN keyed on them works the same way. Delivered by a `sites.revalidate` job (retried with
 * backoff), never inside the request that made the change; the URL goes through the safe-fetch
 * policy (no private address unless RENDERER_ALLOW_PRIVATE).
 */
import { createHmac } from 'node:crypto';
import type { AppContext } from '../../context.js';
import { getSite } from '../../db/repos/sites.js';
import { queuedOperationFor } from '../../db/repos/operations.js';
import { publishedSitesOfSpace } from '../../db/repos/site-revalidation.js';
import { safeRequest } from '../../net/safe-request.js';
import { JobSkipped } from '../../queue/errors.js';
import { siteBaseUrl } from '../../presenters/sites.js';
import { createOperation, enqueue } from '../operations.js';
import { listSiteSpaces } from '../../db/repos/site-structure.js';

export const REVALIDATE_SIGNATURE_HEADER = 'x-gitbook-signature';

export function revalidationSignature(secret: string, body: string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

/**
 * Queue a revalidation of each site (one queued job per site is enough: it reads the site when it
 * runs). Nothing when no URL is configured. Never throws: a lost revalidation leaves a renderer
 * serving its cache until its own expiry, not a failed change.
 */
export async function scheduleSiteRevalidation(app: AppContext, sites: { id: string; organization_id: string }[]): Promise<void> {
  if (!app.config.renderer.revalidateUrl) return;
  for (const site of sites) {
    try {
      if (await queuedOperationFor(app.db, 'sites.revalidate', site.id)) continue;
      const op = await createOperation(app.db, 'sites.revalidate', {
        organizationId: site.organization_id,
        payload: { siteId: site.id },
        targetType: 'site',
        targetId: site.id,
      });
      await enqueue(app, op);
    } catch (err) {
      app.log.error({ err, siteId: site.id }, 'could not schedule the revalidation of a site');
    }
  }
}

/**
 * After a successful change under a site's API path (its settings, structure, redirects, links,
 * fonts, publication...): called centrally by the server, as the audit log is, for the site when it
 * is published. Never throws.
 */
export async function afterSiteWrite(app: AppContext, siteId: string): Promise<void> {
  if (!app.config.renderer.revalidateUrl) return;
  try {
    const site = await getSite(app.db, siteId);
    if (site?.published) await scheduleSiteRevalidation(app, [site]);
  } catch (err) {
    app.log.error({ err, siteId }, 'could not schedule the revalidation of a site');
  }
}

/** After a space's current revision changed: the published sites that show it. */
export async function scheduleRevalidationOfSpace(app: AppContext, spaceId: string): Promise<void> {
  if (!app.config.renderer.revalidateUrl) return;
  try {
    await scheduleSiteRevalidation(app, await publishedSitesOfSpace(app.db, spaceId));
  } catch (err) {
    app.log.error({ err, spaceId }, 'could not find the sites to revalidate');
  }
}

/** The renderer's cache tags of a site: the site, each space it shows, its host. */
export async function siteCacheTags(app: AppContext, siteId: string): Promise<string[] | null> {
  const site = await getSite(app.db, siteId);
  if (!site) return null;
  const siteSpaces = await listSiteSpaces(app.db, site.id);
  const tags = [`site:${site.id}`, ...[...new Set(siteSpaces.map((ss) => ss.space_id))].map((id) => `space:${id}`)];
  tags.push(`url:${new URL(siteBaseUrl(app, site)).hostname}`);
  return tags;
}

/** The `sites.revalidate` job: one signed POST; a non-2xx answer or no answer fails the attempt (retried). */
export async function revalidateSite(app: AppContext, siteId: string) {
  const { revalidateUrl: url, revalidateSecret: secret, allowPrivate } = app.config.renderer;
  if (!url) throw new JobSkipped('No RENDERER_REVALIDATE_URL is configured');
  const tags = await siteCacheTags(app, siteId);
  if (!tags) throw new JobSkipped('The site was deleted');
  const body = JSON.stringify({ tags });
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (secret) headers[REVALIDATE_SIGNATURE_HEADER] = revalidationSignature(secret, body);
  const r = await safeRequest(url, {
    method: 'POST',
    headers,
    body,
    timeoutMs: app.config.fetch.timeoutMs,
    maxBytes: 64 * 1024,
    allowPrivate: allowPrivate || app.config.fetch.allowPrivate,
  });
  if (r.status < 200 || r.status >= 300) throw new Error(`The revalidation URL answered ${r.status}`);
  return { siteId, tags, status: r.status };
}
