// Which published sites a change reaches, for the renderer's revalidation (src/services/sites/revalidation.ts).
import type { Queryable } from '../pool.js';

/** Published sites that show `spaceId` in one of their site spaces. */
export async function publishedSitesOfSpace(db: Queryable, spaceId: string): Promise<{ id: string; organization_id: string }[]> {
  const { rows } = await db.query<{ id: string; organization_id: string }>(
    `SELECT s.id, s.organization_id FROM sites s
      WHERE s.published AND s.id IN (SELECT site_id FROM site_spaces WHERE space_id = $1)`,
    [spaceId],
  );
  return rows;
}
