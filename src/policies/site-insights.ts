// Who may read a site's insights (aggregateSiteEvents, listSiteVisitorSegments): a member who can
// see the site (404 otherwise) and who edits it, either through their organization role (editor,
// creator, admin) or through the site's own grants. Readers of the site, and organization
// members with only the read role, get a 403: insights hold what visitors searched and wrote in
// their feedback, which is for the people who write the docs.
import type { Principal } from '../auth/principal.js';
import type { Queryable } from '../db/pool.js';
import { atLeast } from '../core/roles.js';
import { forbidden } from '../core/errors.js';
import { requireSite, type SiteAccess } from './sites.js';

export async function requireSiteInsights(db: Queryable, p: Principal, orgId: string, siteId: string): Promise<SiteAccess> {
  const access = await requireSite(db, p, orgId, siteId, 'read');
  if (!atLeast(access.role, 'edit') && !atLeast(access.orgRole ?? null, 'edit'))
    throw forbidden("Reading a site's insights needs the edit role on the site or in its organization");
  return access;
}
