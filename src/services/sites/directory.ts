// The sites anyone may find, as the home page lists them (src/routes/landing.ts): published,
// public, showing at least one live space; nothing a reader without a link or token could not open.
import type { AppContext } from '../../context.js';
import { listPublicSites } from '../../db/repos/sites.js';
import { siteBaseUrl } from '../../presenters/sites.js';

export interface ListedSite {
  title: string;
  /** Where readers open it: its canonical base URL (custom hostname, organization host, or PUBLIC_URL/site/{id}). */
  url: string;
}

/** At most `limit` public sites, by title; `more` when others were left out. */
export async function publicSites(app: AppContext, limit = 50): Promise<{ sites: ListedSite[]; more: boolean }> {
  const rows = await listPublicSites(app.db, limit + 1);
  return {
    sites: rows.slice(0, limit).map((s) => ({ title: s.title, url: siteBaseUrl(app, s) })),
    more: rows.length > limit,
  };
}
