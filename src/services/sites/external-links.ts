/**
 * External links of a site (issue 29 item 2): addExternalLinkToSite, updateSiteExternalLinkById,
 * deleteSiteExternalLinkById, and the links a reader sees in the site header and its mobile menu
 * (drafts left out, conditions evaluated against the reader's claims). Bound: MAX_LINKS per site.
 * Every write bumps the site version (rendered pages are keyed by it).
 */
import { LRUCache } from 'lru-cache';
import type { AppContext } from '../../context.js';
import type { Principal } from '../../auth/principal.js';
import { withTx, type Queryable } from '../../db/pool.js';
import * as repo from '../../db/repos/site-external-links.js';
import { listGroups } from '../../db/repos/site-structure.js';
import { bumpSiteVersion, lockSiteStructure, type SiteRow } from '../../db/repos/sites.js';
import { requireSite } from '../../policies/sites.js';
import { invalid, notFound } from '../../core/errors.js';
import { newId } from '../../util/ids.js';
import { toSiteExternalLink } from '../../presenters/site-settings.js';
import { evaluateCondition, type ConditionContext } from '../../sites/conditions.js';
import { checkCondition } from './sections.js';
import { httpUrlError } from '../../util/uri.js';

export const MAX_LINKS = 50;

export interface ExternalLinkInput {
  title?: string;
  localizedTitle?: Record<string, string> | null;
  description?: string | null;
  localizedDescription?: Record<string, string> | null;
  icon?: string | null;
  url?: string;
  parent?: string | null;
  draft?: boolean;
  condition?: string | null;
}

function checkUrl(url: string | undefined) {
  const error = url === undefined ? null : httpUrlError(url);
  if (error) throw invalid(`Invalid request: body.url: ${error}`);
}

async function checkParent(db: Queryable, siteId: string, parent: string | null | undefined) {
  if (!parent) return;
  if (!(await listGroups(db, siteId)).some((g) => g.id === parent))
    throw invalid(`Invalid request: body.parent: section group "${parent}" is not in this site`);
}

function patchOf(body: ExternalLinkInput): repo.ExternalLinkPatch {
  const { parent, ...rest } = body;
  return { ...rest, ...(parent !== undefined ? { sectionGroupId: parent } : {}) };
}

export async function addExternalLink(
  app: AppContext,
  p: Principal,
  orgId: string,
  siteId: string,
  body: ExternalLinkInput & { title: string; url: string },
) {
  await requireSite(app.db, p, orgId, siteId, 'admin');
  checkUrl(body.url);
  checkCondition(body.condition, 'body.condition');
  const id = newId();
  await withTx(app.db, async (c) => {
    await lockSiteStructure(c, siteId);
    await checkParent(c, siteId, body.parent);
    const all = await repo.listExternalLinks(c, siteId);
    if (all.length >= MAX_LINKS) throw invalid(`Invalid request: a site has at most ${MAX_LINKS} external links`);
    await repo.insertExternalLink(c, {
      ...patchOf(body),
      id,
      siteId,
      title: body.title,
      url: body.url,
      position: (all.at(-1)?.position ?? 0) + 1,
    });
    await bumpSiteVersion(c, siteId);
  });
  return toSiteExternalLink((await repo.getExternalLink(app.db, siteId, id))!);
}

export async function updateExternalLink(
  app: AppContext,
  p: Principal,
  orgId: string,
  siteId: string,
  linkId: string,
  body: ExternalLinkInput,
) {
  await requireSite(app.db, p, orgId, siteId, 'admin');
  checkUrl(body.url);
  checkCondition(body.condition, 'body.condition');
  await withTx(app.db, async (c) => {
    await lockSiteStructure(c, siteId);
    if (!(await repo.getExternalLink(c, siteId, linkId))) throw notFound(`External link "${linkId}" not found in this site`);
    await checkParent(c, siteId, body.parent);
    await repo.updateExternalLink(c, linkId, patchOf(body));
    await bumpSiteVersion(c, siteId);
  });
  return toSiteExternalLink((await repo.getExternalLink(app.db, siteId, linkId))!);
}

/** true when it existed (205), false when not (204). */
export async function deleteExternalLink(app: AppContext, p: Principal, orgId: string, siteId: string, linkId: string): Promise<boolean> {
  await requireSite(app.db, p, orgId, siteId, 'admin');
  return withTx(app.db, async (c) => {
    await lockSiteStructure(c, siteId);
    const gone = await repo.deleteExternalLink(c, siteId, linkId);
    if (gone) await bumpSiteVersion(c, siteId);
    return gone;
  });
}

const perVersion = new LRUCache<string, repo.ExternalLinkRow[]>({ max: 500 });

/** The site's live external links, in order (read once per site version). */
export async function liveExternalLinks(app: AppContext, site: SiteRow): Promise<repo.ExternalLinkRow[]> {
  const key = `${site.id}:${site.version}`;
  let rows = perVersion.get(key);
  if (!rows) {
    rows = (await repo.listExternalLinks(app.db, site.id)).filter((l) => !l.draft);
    perVersion.set(key, rows);
  }
  return rows;
}

/** The rows of the external links one reader sees: live ones whose condition holds for their claims, in order. */
export async function visibleExternalLinks(app: AppContext, site: SiteRow, ctx: ConditionContext): Promise<repo.ExternalLinkRow[]> {
  return (await liveExternalLinks(app, site)).filter((l) => evaluateCondition(l.condition, ctx));
}

/** The external links one reader sees (`visibleExternalLinks`), as the reader site's header takes them. */
export async function readerExternalLinks(
  app: AppContext,
  site: SiteRow,
  ctx: ConditionContext,
): Promise<{ title: string; href: string; parent: string | null }[]> {
  return (await visibleExternalLinks(app, site, ctx)).map((l) => ({ title: l.title, href: l.url, parent: l.section_group_id }));
}
