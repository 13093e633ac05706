/**
 * Site sections and site spaces (the variants of a section, or the root entries of a site without
 * sections). Site admins only for every change.
 *
 * Rules. Adding the first section to a site whose site spaces sit at its root moves them into a new
 * default section titled like the site, so nothing is lost. The first section is the default; when
 * the default section is deleted the first remaining one (reading order) becomes default. The
 * first site space of a section (or of the root) is its default, and when it leaves the first
 * remaining one takes over. Section paths are unique in the site and site-space paths within their
 * section (a clash is a 409). A space appears at most once per section. Conditions are checked on
 * write (400 with the position of the syntax error); PATCH leaves an absent field alone and removes
 * a field given as null. Bounds: 100 sections per site (site spaces: see spaces.ts).
 */
import type { AppContext } from '../../context.js';
import type { Principal } from '../../auth/principal.js';
import type { PoolClient } from 'pg';
import { withTx } from '../../db/pool.js';
import * as repo from '../../db/repos/site-structure.js';
import { bumpSiteVersion, lockSiteStructure, type SiteRow } from '../../db/repos/sites.js';
import { requireSite } from '../../policies/sites.js';
import { invalid, conflict, notFound } from '../../core/errors.js';
import { pageInMemory } from '../../core/pagination.js';
import { newId } from '../../util/ids.js';
import { conditionError } from '../../sites/conditions.js';
import { slugify, uniquePath } from '../../sites/structure.js';
import { createSpace } from '../spaces.js';
import { requireOrgSpace } from './sites.js';
import { childrenOf, loadTree, presentItem, sectionsInOrder, sortItem, TreePresenter, urlOptions, type SiteTree } from './structure.js';

export const MAX_SECTIONS = 100;

/** 400 naming `field` when `condition` does not parse. */
export function checkCondition(condition: string | null | undefined, field: string): void {
  if (condition === null || condition === undefined) return;
  const error = conditionError(condition);
  if (error) throw invalid(`Invalid request: ${field}: ${error}`);
}

/** A path readers put in a URL: one segment, no slash, space, `?` or `#`. */
export function checkPath(path: string | undefined, field: string): void {
  if (path !== undefined && !/^[^\s/?#%\\]+$/.test(path))
    throw invalid(`Invalid request: ${field}: must be one URL segment (no slash, space, "?", "#" or "%")`);
}

export interface SpaceChoice {
  spaceId: string | null;
  template?: { id: string; params?: Record<string, unknown> };
}

/** The space a new section or site space shows: an existing one of the organization, or a new one. */
export async function chosenSpace(app: AppContext, p: Principal, site: SiteRow, body: SpaceChoice, title: string | undefined) {
  if (body.spaceId !== null) return requireOrgSpace(app, p, site.organization_id, body.spaceId, 'body.spaceId');
  const created = await createSpace(app, p, site.organization_id, {
    title: title ?? site.title,
    ...(body.template ? { template: body.template as never } : { empty: true }),
  });
  return { id: created.id, title: created.title };
}

function sectionTitle(wanted: string | null | undefined, spaceTitle: string): string {
  if (wanted) return wanted;
  const t = spaceTitle.trim();
  return t.length >= 2 ? t.slice(0, 128) : 'Section';
}

function checkNewSection(tree: SiteTree, groupId: string | null | undefined): void {
  if (tree.sections.length >= MAX_SECTIONS) throw invalid(`Invalid request: a site has at most ${MAX_SECTIONS} sections`);
  if (groupId && !tree.groups.some((g) => g.id === groupId))
    throw invalid(`Invalid request: body.siteSectionGroupId: group "${groupId}" is not in this site`);
}

/** Inserts a section (converting a site without sections first); returns its id. */
async function insertSection(
  c: PoolClient,
  site: SiteRow,
  space: { id: string; title: string },
  opts: { title?: string | null; icon?: string | null; groupId?: string | null },
): Promise<string> {
  let tree = await loadTree(c, site);
  checkNewSection(tree, opts.groupId);
  const taken = tree.sections.map((s) => s.path);
  if (!tree.sections.length && tree.siteSpaces.length) {
    // A site without sections gains its first one: its site spaces become a default section.
    const first = newId();
    const path = uniquePath(slugify(site.title), taken);
    taken.push(path);
    await repo.insertSection(c, {
      id: first,
      siteId: site.id,
      groupId: null,
      title: sectionTitle(null, site.title),
      path,
      icon: null,
      isDefault: true,
      position: 1,
    });
    await repo.moveRootSiteSpaces(c, site.id, first);
    tree = await loadTree(c, site);
  }
  const id = newId();
  const title = sectionTitle(opts.title, space.title);
  const level = childrenOf(tree, opts.groupId ?? null);
  await repo.insertSection(c, {
    id,
    siteId: site.id,
    groupId: opts.groupId ?? null,
    title,
    path: uniquePath(slugify(title), taken),
    icon: opts.icon ?? null,
    isDefault: tree.sections.length === 0,
    position: (level.at(-1)?.position ?? 0) + 1,
  });
  await repo.insertSiteSpace(c, {
    id: newId(),
    siteId: site.id,
    sectionId: id,
    spaceId: space.id,
    path: slugify(space.title, 'space'),
    title: null,
    isDefault: true,
    position: 1,
  });
  await bumpSiteVersion(c, site.id);
  return id;
}

async function presentSectionById(app: AppContext, p: Principal, site: SiteRow, id: string) {
  return presentItem(app, p, site, { type: 'site-section', id });
}

export async function listSections(
  app: AppContext,
  p: Principal,
  orgId: string,
  siteId: string,
  q: { page?: string; limit?: number; shareKey?: string },
) {
  const { site } = await requireSite(app.db, p, orgId, siteId, 'read');
  const presenter = await TreePresenter.create(app, p, await loadTree(app.db, site), await urlOptions(app, siteId, q.shareKey));
  const ordered = sectionsInOrder(presenter.tree).map((s, i) => ({ s, i }));
  return pageInMemory(
    ordered,
    q,
    (x) => [x.i],
    (x) => presenter.section(x.s),
  );
}

export async function addSection(
  app: AppContext,
  p: Principal,
  orgId: string,
  siteId: string,
  body: SpaceChoice & { title?: string | null; icon?: string | null; siteSectionGroupId?: string | null },
) {
  const { site } = await requireSite(app.db, p, orgId, siteId, 'admin');
  // Refuse what the insert would refuse before a new space is made for nothing (checked again under the lock).
  checkNewSection(await loadTree(app.db, site), body.siteSectionGroupId);
  const space = await chosenSpace(app, p, site, body, body.title ?? undefined);
  const id = await withTx(app.db, async (c) => {
    await lockSiteStructure(c, siteId);
    return insertSection(c, site, space, { title: body.title, icon: body.icon, groupId: body.siteSectionGroupId });
  });
  return presentSectionById(app, p, site, id);
}

/** 204 whether or not the section existed; its site spaces go with it. */
export async function deleteSection(app: AppContext, p: Principal, orgId: string, siteId: string, sectionId: string) {
  const { site } = await requireSite(app.db, p, orgId, siteId, 'admin');
  await withTx(app.db, async (c) => {
    await lockSiteStructure(c, siteId);
    const before = await loadTree(c, site);
    const section = before.sections.find((s) => s.id === sectionId);
    if (!section) return;
    await repo.deleteSection(c, siteId, sectionId);
    if (section.is_default) {
      const next = sectionsInOrder(before).find((s) => s.id !== sectionId);
      await repo.setDefaultSection(c, siteId, next?.id ?? null);
    }
    await bumpSiteVersion(c, siteId);
  });
}

export interface SectionPatch {
  title?: string;
  path?: string;
  defaultSiteSpace?: string;
  condition?: string | null;
  icon?: string | null;
  description?: string | null;
  siteSectionGroupId?: string | null;
}

export async function updateSection(app: AppContext, p: Principal, orgId: string, siteId: string, sectionId: string, patch: SectionPatch) {
  const { site } = await requireSite(app.db, p, orgId, siteId, 'admin');
  checkCondition(patch.condition, 'body.condition');
  checkPath(patch.path, 'body.path');
  await withTx(app.db, async (c) => {
    await lockSiteStructure(c, siteId);
    const tree = await loadTree(c, site);
    const section = tree.sections.find((s) => s.id === sectionId);
    if (!section) throw notFound(`Section "${sectionId}" not found in this site`);
    if (patch.path !== undefined && tree.sections.some((s) => s.id !== sectionId && s.path === patch.path))
      throw conflict(`Another section of this site already has the path "${patch.path}"`);
    if (patch.defaultSiteSpace !== undefined) {
      if (!tree.siteSpaces.some((ss) => ss.id === patch.defaultSiteSpace && ss.section_id === sectionId))
        throw invalid(`Invalid request: body.defaultSiteSpace: site space "${patch.defaultSiteSpace}" is not in this section`);
      await repo.setDefaultSiteSpace(c, siteId, sectionId, patch.defaultSiteSpace);
    }
    let place: { groupId: string | null; position: number } | undefined;
    if (patch.siteSectionGroupId !== undefined && patch.siteSectionGroupId !== section.group_id) {
      const target = patch.siteSectionGroupId;
      if (target !== null && !tree.groups.some((g) => g.id === target))
        throw invalid(`Invalid request: body.siteSectionGroupId: group "${target}" is not in this site`);
      place = { groupId: target, position: (childrenOf(tree, target).at(-1)?.position ?? 0) + 1 };
    }
    await repo.updateSection(c, sectionId, {
      title: patch.title,
      path: patch.path,
      condition: patch.condition,
      icon: patch.icon,
      description: patch.description,
      ...(place ?? {}),
    });
    await bumpSiteVersion(c, siteId);
  });
  return presentSectionById(app, p, site, sectionId);
}

type Pointer<K extends string> = { type: string } & Record<K, string>;

export async function moveSection(
  app: AppContext,
  p: Principal,
  orgId: string,
  siteId: string,
  sectionId: string,
  position?: { before?: Pointer<'siteSection'>; after?: Pointer<'siteSection'> },
) {
  const { site } = await requireSite(app.db, p, orgId, siteId, 'admin');
  const ptr = (x?: Pointer<'siteSection'>) => (x ? { type: 'site-section', id: x.siteSection } : undefined);
  await sortItem(app, site, { type: 'site-section', id: sectionId }, { before: ptr(position?.before), after: ptr(position?.after) });
  return presentSectionById(app, p, site, sectionId);
}
