// site_git_configs: the docs.yaml config a site last applied (src/services/git-sync/site-config.ts).
import type { Queryable } from '../pool.js';

export async function getSiteGitConfig(db: Queryable, siteId: string): Promise<unknown> {
  const { rows } = await db.query<{ config: unknown }>('SELECT config FROM site_git_configs WHERE site_id = $1', [siteId]);
  return rows[0]?.config ?? null;
}

/** Stores the config as given (json: key order kept); true when it differed from the stored one. */
export async function putSiteGitConfig(db: Queryable, siteId: string, configJson: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO site_git_configs (site_id, config) VALUES ($1, $2::json)
     ON CONFLICT (site_id) DO UPDATE SET config = EXCLUDED.config, updated_at = clock_timestamp()
       WHERE site_git_configs.config::text IS DISTINCT FROM EXCLUDED.config::text`,
    [siteId, configJson],
  );
  return (rowCount ?? 0) > 0;
}
