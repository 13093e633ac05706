// The reader site's own insights endpoint, `~gitbook/insights` on the site's origin (src/reader/insights.ts
// has the script that calls it): the same service as trackEventsInSiteById.
import type { IncomingMessage } from 'node:http';
import type { AppContext } from '../context.js';
import type { Reply } from '../http/route.js';
import type { ServedSite } from '../services/sites/reader.js';
import { trackForSite } from '../routes/sites/insights.js';
import { notFound } from '../core/errors.js';
import { admit, Redirect } from './access.js';

/**
 * POST `~gitbook/insights` on the site's origin: the reader's events, with the claims the site
 * verified for this reader. A reader the site would not let in is answered 204 and dropped.
 */
export async function serveReaderInsights(app: AppContext, req: IncomingMessage, site: ServedSite): Promise<Reply> {
  if (req.method !== 'POST') throw notFound();
  let claims: Record<string, unknown>;
  try {
    const reader = await admit(app, req, site);
    claims = (reader.ctx.visitor?.claims as Record<string, unknown> | undefined) ?? {};
  } catch (err) {
    if (!(err instanceof Redirect)) throw err;
    req.resume();
    return { status: 204, headers: { 'cache-control': 'no-store' } };
  }
  return trackForSite(app, req, null, site.id, claims);
}
