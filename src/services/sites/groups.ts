/**
 * Section groups: headings that gather sections (and, in 0.202.0, other groups) in a site's
 * navigation. A group shares its level's sibling order with the sections beside it. Deleting a group
 * puts its children back at its place in its parent level, in their order; the sections are never
 * deleted. Site admins only for every change; at most 50 groups per site, nested 5 deep.
 */
import type { AppContext } from '../../context.js';
import type { Principal } from '../../auth/principal.js';
import type { PoolClient } from 'pg';
import { withTx } from '../../db/pool.js';
import * as repo from '../../db/repos/site-structure.js';
import { bumpSiteVersion, lockSiteStructure, type SiteRow } from '../../db/repos/sites.js';
import { requireSite } from '../../policies/sites.js';
import { invalid, notFound } from '../../core/errors.js';
import { pageInMemory } from '../../core/pagination.js';
import { newId } from '../../util/ids.js';
import { childrenOf, loadTree, presentItem, sortItem, TreePresenter, type SiteTree } from './structure.js';

const MAX_GROUPS = 50;
const MAX_DEPTH = 5;

/** Groups in reading order (depth first). */
function groupsInOrder(tree: SiteTree) {
  const out: repo.GroupRow[] = [];
  const walk = (parent: string | null, depth: number) => {
    for (const c of childrenOf(tree, parent))
      if (c.type === 'site-section-group') {
        out.push(c.row as repo.GroupRow);
        if (depth < MAX_DEPTH * 2) walk(c.id, depth + 1);
      }
  };
  walk(null, 0);
  return out;
}

function depthOf(tree: SiteTree, groupId: string | null): number {
  let depth = 0;
  for (
    let g = tree.groups.find((x) => x.id === groupId);
    g && depth <= MAX_DEPTH * 2;
    g = tree.groups.find((x) => x.id === g!.parent_group_id)
  )
    depth++;
  return depth;
}

function requireGroupIn(tree: SiteTree, id: string, field?: string): repo.GroupRow {
  const g = tree.groups.find((x) => x.id === id);
  if (!g)
    throw field
      ? invalid(`Invalid request: ${field}: group "${id}" is not in this site`)
      : notFound(`Section group "${id}" not found in this site`);
  return g;
}

function requireSectionIn(tree: SiteTree, id: string, field: string): repo.SectionRow {
  const s = tree.sections.find((x) => x.id === id);
  if (!s) throw invalid(`Invalid request: ${field}: section "${id}" is not in this site`);
  return s;
}

/** Write `ordered` (items of one level) as positions 1..n under `parent`. */
async function writeLevel(c: PoolClient, parent: string | null, ordered: { type: string; id: string }[]): Promise<void> {
  for (const [i, item] of ordered.entries()) {
    if (item.type === 'site-section') await repo.updateSection(c, item.id, { groupId: parent, position: i + 1 });
    else await repo.updateGroup(c, item.id, { parentId: parent, position: i + 1 });
  }
}

const presentGroup = (app: AppContext, p: Principal, site: SiteRow, id: string) =>
  presentItem(app, p, site, { type: 'site-section-group', id });

export async function listGroups(app: AppContext, p: Principal, orgId: string, siteId: string, q: { page?: string; limit?: number }) {
  const { site } = await requireSite(app.db, p, orgId, siteId, 'read');
  const presenter = await TreePresenter.create(app, p, await loadTree(app.db, site), {}, 'all');
  const items = groupsInOrder(presenter.tree).map((g, i) => ({ g, i }));
  return pageInMemory(
    items,
    q,
    (x) => [x.i],
    (x) => presenter.group(x.g),
  );
}

export async function createGroup(
  app: AppContext,
  p: Principal,
  orgId: string,
  siteId: string,
  body: { title: string; icon?: string | null; sections?: string[]; parent?: string | null },
) {
  const { site } = await requireSite(app.db, p, orgId, siteId, 'admin');
  const id = newId();
  await withTx(app.db, async (c) => {
    await lockSiteStructure(c, siteId);
    const tree = await loadTree(c, site);
    if (tree.groups.length >= MAX_GROUPS) throw invalid(`Invalid request: a site has at most ${MAX_GROUPS} section groups`);
    const parent = body.parent ?? null;
    if (parent) requireGroupIn(tree, parent, 'body.parent');
    if (depthOf(tree, parent) >= MAX_DEPTH) throw invalid(`Invalid request: body.parent: groups nest at most ${MAX_DEPTH} deep`);
    const sections = [...new Set(body.sections ?? [])].map((s, i) => requireSectionIn(tree, s, `body.sections.${i}`));
    await repo.insertGroup(c, {
      id,
      siteId,
      parentId: parent,
      title: body.title,
      icon: body.icon ?? null,
      position: (childrenOf(tree, parent).at(-1)?.position ?? 0) + 1,
    });
    await writeLevel(
      c,
      id,
      sections.map((s) => ({ type: 'site-section', id: s.id })),
    );
    await bumpSiteVersion(c, siteId);
  });
  return presentGroup(app, p, site, id);
}

/** 204 whether or not the group existed; its children take its place in its parent level. */
export async function deleteGroup(app: AppContext, p: Principal, orgId: string, siteId: string, groupId: string) {
  const { site } = await requireSite(app.db, p, orgId, siteId, 'admin');
  await withTx(app.db, async (c) => {
    await lockSiteStructure(c, siteId);
    const tree = await loadTree(c, site);
    const group = tree.groups.find((g) => g.id === groupId);
    if (!group) return;
    const level = childrenOf(tree, group.parent_group_id);
    const children = childrenOf(tree, groupId);
    const ordered = level.flatMap((item) => (item.type === 'site-section-group' && item.id === groupId ? children : [item]));
    await writeLevel(c, group.parent_group_id, ordered);
    await repo.deleteGroup(c, siteId, groupId);
    await bumpSiteVersion(c, siteId);
  });
}

export async function updateGroup(
  app: AppContext,
  p: Principal,
  orgId: string,
  siteId: string,
  groupId: string,
  body: { title?: string; icon?: string | null; parentSectionGroupId?: string | null },
) {
  const { site } = await requireSite(app.db, p, orgId, siteId, 'admin');
  await withTx(app.db, async (c) => {
    await lockSiteStructure(c, siteId);
    const tree = await loadTree(c, site);
    const group = requireGroupIn(tree, groupId);
    const patch: Record<string, unknown> = { title: body.title, icon: body.icon };
    const target = body.parentSectionGroupId;
    if (target !== undefined && target !== group.parent_group_id) {
      if (target !== null) {
        requireGroupIn(tree, target, 'body.parentSectionGroupId');
        for (
          let g: repo.GroupRow | undefined = tree.groups.find((x) => x.id === target);
          g;
          g = tree.groups.find((x) => x.id === g!.parent_group_id)
        )
          if (g.id === groupId)
            throw invalid('Invalid request: body.parentSectionGroupId: a group cannot be moved into itself or one of its groups');
        if (depthOf(tree, target) >= MAX_DEPTH)
          throw invalid(`Invalid request: body.parentSectionGroupId: groups nest at most ${MAX_DEPTH} deep`);
      }
      patch.parentId = target;
      patch.position = (childrenOf(tree, target).at(-1)?.position ?? 0) + 1;
    }
    await repo.updateGroup(c, groupId, patch);
    await bumpSiteVersion(c, siteId);
  });
  return presentGroup(app, p, site, groupId);
}

/** 0.137.0's addSectionToGroup: the section joins the group, last. */
export async function addSectionToGroup(app: AppContext, p: Principal, orgId: string, siteId: string, groupId: string, sectionId: string) {
  const { site } = await requireSite(app.db, p, orgId, siteId, 'admin');
  await withTx(app.db, async (c) => {
    await lockSiteStructure(c, siteId);
    const tree = await loadTree(c, site);
    requireGroupIn(tree, groupId);
    const section = requireSectionIn(tree, sectionId, 'body.sectionId');
    if (section.group_id !== groupId)
      await repo.updateSection(c, sectionId, { groupId, position: (childrenOf(tree, groupId).at(-1)?.position ?? 0) + 1 });
    await bumpSiteVersion(c, siteId);
  });
  return presentGroup(app, p, site, groupId);
}

/** 0.137.0's removeSectionFromGroup: the section goes to the group's level, right after it. 204 also when it was not in the group. */
export async function removeSectionFromGroup(
  app: AppContext,
  p: Principal,
  orgId: string,
  siteId: string,
  groupId: string,
  sectionId: string,
) {
  const { site } = await requireSite(app.db, p, orgId, siteId, 'admin');
  await withTx(app.db, async (c) => {
    await lockSiteStructure(c, siteId);
    const tree = await loadTree(c, site);
    const group = requireGroupIn(tree, groupId);
    const section = tree.sections.find((s) => s.id === sectionId);
    if (!section || section.group_id !== groupId) return;
    const level = childrenOf(tree, group.parent_group_id);
    const ordered = level.flatMap((item) => (item.id === groupId ? [item, { type: 'site-section', id: sectionId }] : [item]));
    await writeLevel(c, group.parent_group_id, ordered);
    await bumpSiteVersion(c, siteId);
  });
}

type GroupPointer = { type: 'site-section' | 'site-section-group'; id: string };

export async function moveGroup(
  app: AppContext,
  p: Principal,
  orgId: string,
  siteId: string,
  groupId: string,
  position?: { before?: GroupPointer; after?: GroupPointer },
) {
  const { site } = await requireSite(app.db, p, orgId, siteId, 'admin');
  await sortItem(app, site, { type: 'site-section-group', id: groupId }, position);
  return presentGroup(app, p, site, groupId);
}
