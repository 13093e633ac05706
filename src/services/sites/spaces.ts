/**
 * Site spaces: the variants of a section, or the entries of a site without sections (see
 * sections.ts for the rules they share). Bound: 500 site spaces per site.
 */
import type { AppContext } from '../../context.js';
import type { Principal } from '../../auth/principal.js';
import { withTx, type Queryable } from '../../db/pool.js';
import * as repo from '../../db/repos/site-structure.js';
import { bumpSiteVersion, lockSiteStructure, type SiteRow } from '../../db/repos/sites.js';
import { requireSite } from '../../policies/sites.js';
import { invalid, conflict, notFound } from '../../core/errors.js';
import { pageInMemory } from '../../core/pagination.js';
import { newId } from '../../util/ids.js';
import { slugify, uniquePath } from '../../sites/structure.js';
import { requireOrgSpace } from './sites.js';
import { checkCondition, checkPath, chosenSpace, type SpaceChoice } from './sections.js';
import { loadTree, presentItem, sectionsInOrder, siteSpacesIn, sortItem, TreePresenter, urlOptions, type SiteTree } from './structure.js';

export const MAX_SITE_SPACES = 500;

type Pointer<K extends string> = { type: string } & Record<K, string>;

export async function listSiteSpaces(
  app: AppContext,
  p: Principal,
  orgId: string,
  siteId: string,
  q: { page?: string; limit?: number; shareKey?: string; default?: boolean },
) {
  const { site } = await requireSite(app.db, p, orgId, siteId, 'read');
  const presenter = await TreePresenter.create(app, p, await loadTree(app.db, site), await urlOptions(app, siteId, q.shareKey));
  const tree = presenter.tree;
  // Reading order: section by section (or the root), each in its own order.
  const containers = tree.sections.length ? sectionsInOrder(tree).map((s) => s.id) : [null];
  let ordered = containers.flatMap((id) => siteSpacesIn(tree, id));
  if (q.default !== undefined) {
    const defaultSection = tree.sections.find((s) => s.is_default)?.id ?? null;
    const isDefault = (ss: repo.SiteSpaceRow) => ss.is_default && ss.section_id === defaultSection;
    ordered = ordered.filter((ss) => isDefault(ss) === q.default);
  }
  const items = ordered.map((ss, i) => ({ ss, i }));
  return pageInMemory(
    items,
    q,
    (x) => [x.i],
    (x) => presenter.siteSpace(x.ss),
  );
}

function containerOf(tree: SiteTree, sectionId: string | undefined): string | null {
  if (sectionId !== undefined) {
    if (!tree.sections.some((s) => s.id === sectionId))
      throw invalid(`Invalid request: body.sectionId: section "${sectionId}" is not in this site`);
    return sectionId;
  }
  if (!tree.sections.length) return null;
  return (tree.sections.find((s) => s.is_default) ?? sectionsInOrder(tree)[0]).id;
}

async function checkNewSiteSpace(db: Queryable, site: SiteRow, sectionId: string | undefined) {
  const tree = await loadTree(db, site);
  const all = await repo.listAllSiteSpaces(db, site.id);
  if (all.length >= MAX_SITE_SPACES) throw invalid(`Invalid request: a site has at most ${MAX_SITE_SPACES} site spaces`);
  return { tree, all, container: containerOf(tree, sectionId) };
}

export async function addSiteSpace(
  app: AppContext,
  p: Principal,
  orgId: string,
  siteId: string,
  body: SpaceChoice & { sectionId?: string; title?: string; hidden?: boolean; pageId?: string | null },
) {
  const { site } = await requireSite(app.db, p, orgId, siteId, 'admin');
  // Refuse what the insert would refuse before a new space is made for nothing (checked again under the lock).
  await checkNewSiteSpace(app.db, site, body.sectionId);
  const space = await chosenSpace(app, p, site, body, body.title);
  const id = newId();
  await withTx(app.db, async (c) => {
    await lockSiteStructure(c, siteId);
    const { tree, all, container } = await checkNewSiteSpace(c, site, body.sectionId);
    const siblings = all.filter((ss) => ss.section_id === container);
    if (siblings.some((ss) => ss.space_id === space.id))
      throw conflict(`Space "${space.id}" is already in this ${container ? 'section' : 'site'}; a space appears once per section`);
    await repo.insertSiteSpace(c, {
      id,
      siteId,
      sectionId: container,
      spaceId: space.id,
      path: uniquePath(
        await defaultVariantPath(c, space.id, body.title ?? space.title, siblings),
        siblings.map((s) => s.path),
      ),
      title: body.title ?? null,
      isDefault: !siblings.some((ss) => ss.is_default),
      position: (siteSpacesIn(tree, container).at(-1)?.position ?? 0) + 1,
    });
    if (body.hidden !== undefined || body.pageId !== undefined)
      await repo.updateSiteSpace(c, id, { hidden: body.hidden, pageId: body.pageId });
    await bumpSiteVersion(c, siteId);
  });
  return presentItem(app, p, site, { type: 'site-space', id });
}

/**
 * The path a new site space gets when none is given: its title's slug, or, for a language variant
 * (a space whose language differs from a space already in the section, such as a translation of
 * it), the language code: readers find the French variant of `/docs` at `/docs/fr`, as on GitBook.
 */
async function defaultVariantPath(db: Queryable, spaceId: string, title: string, siblings: { space_id: string }[]): Promise<string> {
  const [own, ...others] = await repo.spacesByIds(db, [spaceId, ...siblings.map((s) => s.space_id)]).then((rows) => {
    const byId = new Map(rows.map((r) => [r.id, r]));
    return [byId.get(spaceId), ...siblings.map((s) => byId.get(s.space_id))];
  });
  const language = own?.language;
  if (language && others.some((o) => o && o.language !== language)) return slugify(language, 'space');
  return slugify(title, 'space');
}

/** 204 whether or not the site space existed. */
export async function deleteSiteSpace(app: AppContext, p: Principal, orgId: string, siteId: string, siteSpaceId: string) {
  await requireSite(app.db, p, orgId, siteId, 'admin');
  await withTx(app.db, async (c) => {
    await lockSiteStructure(c, siteId);
    const all = await repo.listAllSiteSpaces(c, siteId);
    const ss = all.find((x) => x.id === siteSpaceId);
    if (!ss) return;
    await repo.deleteSiteSpace(c, siteId, siteSpaceId);
    if (ss.is_default) {
      const next = all.find((x) => x.id !== siteSpaceId && x.section_id === ss.section_id);
      await repo.setDefaultSiteSpace(c, siteId, ss.section_id, next?.id ?? null);
    }
    await bumpSiteVersion(c, siteId);
  });
}

export interface SiteSpacePatch {
  path?: string;
  condition?: string | null;
  spaceId?: string;
  hidden?: boolean;
  pageId?: string | null;
  title?: string | null;
}

export async function updateSiteSpace(
  app: AppContext,
  p: Principal,
  orgId: string,
  siteId: string,
  siteSpaceId: string,
  patch: SiteSpacePatch,
) {
  const { site } = await requireSite(app.db, p, orgId, siteId, 'admin');
  checkCondition(patch.condition, 'body.condition');
  checkPath(patch.path, 'body.path');
  if (patch.spaceId !== undefined) await requireOrgSpace(app, p, orgId, patch.spaceId, 'body.spaceId');
  await withTx(app.db, async (c) => {
    await lockSiteStructure(c, siteId);
    const all = await repo.listAllSiteSpaces(c, siteId);
    const ss = all.find((x) => x.id === siteSpaceId);
    if (!ss) throw notFound(`Site space "${siteSpaceId}" not found in this site`);
    const siblings = all.filter((x) => x.section_id === ss.section_id && x.id !== siteSpaceId);
    if (patch.path !== undefined && siblings.some((x) => x.path === patch.path))
      throw conflict(`Another site space of this ${ss.section_id ? 'section' : 'site'} already has the path "${patch.path}"`);
    if (patch.spaceId !== undefined && siblings.some((x) => x.space_id === patch.spaceId))
      throw conflict(`Space "${patch.spaceId}" is already in this ${ss.section_id ? 'section' : 'site'}`);
    await repo.updateSiteSpace(c, siteSpaceId, patch as Record<string, unknown>);
    await bumpSiteVersion(c, siteId);
  });
  return presentItem(app, p, site, { type: 'site-space', id: siteSpaceId });
}

export async function moveSiteSpace(
  app: AppContext,
  p: Principal,
  orgId: string,
  siteId: string,
  siteSpaceId: string,
  position?: { before?: Pointer<'siteSpace'>; after?: Pointer<'siteSpace'> },
) {
  const { site } = await requireSite(app.db, p, orgId, siteId, 'admin');
  const ptr = (x?: Pointer<'siteSpace'>) => (x ? { type: 'site-space', id: x.siteSpace } : undefined);
  await sortItem(app, site, { type: 'site-space', id: siteSpaceId }, { before: ptr(position?.before), after: ptr(position?.after) });
  return presentItem(app, p, site, { type: 'site-space', id: siteSpaceId });
}
