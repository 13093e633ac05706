/**
 * duplicateSiteSpace (issue 29 item 2): a copy of the site space's space (content and files, as
 * duplicateSpace makes it) shown beside the original, right after it in the same section, with
 * the original's title, condition, visibility in menus and customization overrides. The caller
 * must administer the site and may create content in the organization. Bounded by the site's
 * site-space limit.
 */
import type { AppContext } from '../../context.js';
import type { Principal } from '../../auth/principal.js';
import { withTx } from '../../db/pool.js';
import * as repo from '../../db/repos/site-structure.js';
import { bumpSiteVersion, lockSiteStructure } from '../../db/repos/sites.js';
import { requireSite } from '../../policies/sites.js';
import { invalid, notFound } from '../../core/errors.js';
import { newId } from '../../util/ids.js';
import { uniquePath } from '../../sites/structure.js';
import { duplicateSpace } from '../spaces.js';
import { presentItem } from './structure.js';
import { MAX_SITE_SPACES } from './spaces.js';

export async function duplicateSiteSpace(app: AppContext, p: Principal, orgId: string, siteId: string, siteSpaceId: string) {
  const { site } = await requireSite(app.db, p, orgId, siteId, 'admin');
  const all = await repo.listAllSiteSpaces(app.db, siteId);
  const original = all.find((x) => x.id === siteSpaceId);
  if (!original) throw notFound(`Site space "${siteSpaceId}" not found in this site`);
  if (all.length >= MAX_SITE_SPACES) throw invalid(`Invalid request: a site has at most ${MAX_SITE_SPACES} site spaces`);
  const copy = await duplicateSpace(app, p, original.space_id);
  const id = newId();
  await withTx(app.db, async (c) => {
    await lockSiteStructure(c, siteId);
    const now = await repo.listAllSiteSpaces(c, siteId);
    const ss = now.find((x) => x.id === siteSpaceId);
    if (!ss) throw notFound(`Site space "${siteSpaceId}" not found in this site`);
    if (now.length >= MAX_SITE_SPACES) throw invalid(`Invalid request: a site has at most ${MAX_SITE_SPACES} site spaces`);
    const siblings = now.filter((x) => x.section_id === ss.section_id).sort((a, b) => a.position - b.position);
    const next = siblings[siblings.indexOf(ss) + 1];
    await repo.insertSiteSpace(c, {
      id,
      siteId,
      sectionId: ss.section_id,
      spaceId: copy.id,
      path: uniquePath(
        `${ss.path}-copy`,
        siblings.map((s) => s.path),
      ),
      title: ss.title,
      isDefault: false,
      position: next ? (ss.position + next.position) / 2 : ss.position + 1,
    });
    await repo.updateSiteSpace(c, id, { condition: ss.condition, hidden: ss.hidden, pageId: ss.page_id });
    if (ss.customization) await repo.setSiteSpaceCustomization(c, id, ss.customization);
    await bumpSiteVersion(c, siteId);
  });
  return presentItem(app, p, site, { type: 'site-space', id });
}
