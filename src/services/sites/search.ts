/**
 * Search over a site's content: the spaces of its site spaces that the caller may read, with the
 * organization search's index and result shape (results grouped by space). Scopes: `all` (every
 * site space), `specific` (`siteSpaceIds`), and `default` / `current` (each section's default site
 * space, plus `currentSiteSpace` / `siteSpaceId` when given; the default without a scope). Hidden
 * and conditional variants are not filtered here: callers of the API are members, and the reader
 * site applies conditions itself.
 */
import type { AppContext } from '../../context.js';
import type { Principal } from '../../auth/principal.js';

import { spacesByIds } from '../../db/repos/site-structure.js';
import { accessWithSpaceGrants, spaceRole } from '../../policies/spaces.js';
import { requireSite } from '../../policies/sites.js';
import { invalid } from '../../core/errors.js';
import { loadTree } from './structure.js';
import { searchSpaceSet } from '../search.js';

export interface SiteSearchBody {
  query: string;
  scope?: { mode: string; currentSiteSpace?: string; siteSpaceIds?: string[]; restrictTo?: string };
  mode?: string;
  siteSpaceIds?: string[];
  siteSpaceId?: string;
}

export async function searchSite(
  app: AppContext,
  p: Principal,
  orgId: string,
  siteId: string,
  body: SiteSearchBody,
  q: { page?: string; limit?: number },
) {
  const { site } = await requireSite(app.db, p, orgId, siteId, 'read');
  const tree = await loadTree(app.db, site);
  const mode = body.scope?.mode ?? body.mode ?? 'default';
  const specific = body.scope?.siteSpaceIds ?? body.siteSpaceIds;
  const current = body.scope?.currentSiteSpace ?? body.siteSpaceId;
  let chosen = tree.siteSpaces;
  if (mode === 'specific' || (specific && mode !== 'all')) {
    const wanted = new Set(specific ?? []);
    for (const id of wanted)
      if (!tree.siteSpaces.some((ss) => ss.id === id))
        throw invalid(`Invalid request: body.siteSpaceIds: site space "${id}" is not in this site`);
    chosen = tree.siteSpaces.filter((ss) => wanted.has(ss.id));
  } else if (mode !== 'all') {
    chosen = tree.siteSpaces.filter((ss) => ss.is_default || ss.id === current);
  }
  const ids = [...new Set(chosen.map((ss) => ss.space_id))];
  const [rows, { ctx, spaceGrants: explicit }] = await Promise.all([
    spacesByIds(app.db, ids, { counters: false }),
    accessWithSpaceGrants(app.db, orgId, p, ids),
  ]);
  const readable = rows.filter((r) => spaceRole(ctx, r, explicit.get(r.id))).map((r) => r.id);
  return searchSpaceSet(
    app,
    readable,
    { query: body.query, page: q.page, limit: q.limit },
    `site:${siteId}:${mode}:${[...chosen.map((c) => c.id)].join(',')}`,
  );
}
