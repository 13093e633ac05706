/**
 * A site's structure as the API shows it, and the sibling order it keeps.
 *
 * A site without sections lists its site spaces at its root (`{type: "siteSpaces"}`); once it has a
 * section, every site space belongs to a section (`{type: "sections"}`), and the root holds
 * sections and section groups sharing one sibling order (as does each group). Site spaces keep
 * their own order inside their section. `sortSiteStructure` reorders an item among its siblings;
 * moving between levels goes through the item's own update (a section's `siteSectionGroupId`).
 *
 * External links (src/services/sites/external-links.ts) show in a `sections` structure: root links
 * in `structure`, a group's links in its `children`, each level's links after its sections and
 * groups. A link keeps its own order (`position`, one sequence for the whole site, not shared with
 * the sections), so no relative order between a level's sections and links is kept to follow. A
 * `siteSpaces` structure has no place for links in the description's shape: they are left out.
 */
import type { AppContext } from '../../context.js';
import type { Principal } from '../../auth/principal.js';
import type { Queryable } from '../../db/pool.js';
import { withTx } from '../../db/pool.js';
import * as repo from '../../db/repos/site-structure.js';
import type { GroupRow, SectionRow, SiteSpaceRow } from '../../db/repos/site-structure.js';
import { bumpSiteVersion, lockSiteStructure, type SiteRow } from '../../db/repos/sites.js';
import { listExternalLinks, type ExternalLinkRow } from '../../db/repos/site-external-links.js';

import { accessWithSpaceGrants, spaceRole } from '../../policies/spaces.js';
import { requireSite } from '../../policies/sites.js';
import { invalid, notFound } from '../../core/errors.js';
import { toGroup, toSection, toSiteSpace, type UrlOptions } from '../../presenters/sites.js';
import { toSiteExternalLink } from '../../presenters/site-settings.js';
import { placeAmong, PlacementError, type Sibling, type SiblingPointer } from '../../sites/structure.js';
import { presentSpace } from '../spaces.js';
import { validShareKey } from './share-links.js';

export interface SiteTree {
  site: SiteRow;
  sections: SectionRow[];
  groups: GroupRow[];
  siteSpaces: SiteSpaceRow[];
}

export async function loadTree(db: Queryable, site: SiteRow): Promise<SiteTree> {
  // One query at a time: `db` may be a transaction's client.
  const sections = await repo.listSections(db, site.id);
  const groups = await repo.listGroups(db, site.id);
  const siteSpaces = await repo.listSiteSpaces(db, site.id);
  return { site, sections, groups, siteSpaces };
}

/** Presents the items of one loaded tree for one caller (Space objects carry the caller's permissions). */
export class TreePresenter {
  private constructor(
    private app: AppContext,
    readonly tree: SiteTree,
    private spaces: Map<string, object & { title: string }>,
    private opts: UrlOptions,
    /** The external links shown, in the site's order (`position`). */
    private links: ExternalLinkRow[],
  ) {}

  /**
   * For a member. `links`: the site's external links to show, for an answer that holds them (the
   * structure, section groups): `all` (drafts and conditional ones included, as every section shows
   * to members whatever its condition) or `live` (not draft: what the site publishes); `none` (the
   * default: sections and site spaces hold no links) reads none.
   */
  static async create(
    app: AppContext,
    p: Principal,
    tree: SiteTree,
    opts: UrlOptions = {},
    links: 'all' | 'live' | 'none' = 'none',
  ): Promise<TreePresenter> {
    const ids = [...new Set(tree.siteSpaces.map((s) => s.space_id))];
    const [rows, { ctx, spaceGrants: explicit }, shown] = await Promise.all([
      repo.spacesByIds(app.db, ids),
      accessWithSpaceGrants(app.db, tree.site.organization_id, p, ids),
      links === 'none' ? [] : listExternalLinks(app.db, tree.site.id).then((all) => (links === 'live' ? all.filter((l) => !l.draft) : all)),
    ]);
    const spaces = new Map(rows.map((r) => [r.id, presentSpace(app, r, spaceRole(ctx, r, explicit.get(r.id)))]));
    // A space trashed between the two reads leaves the site like the others in the trash.
    const live = { ...tree, siteSpaces: tree.siteSpaces.filter((ss) => spaces.has(ss.space_id)) };
    return new TreePresenter(app, live, spaces, opts, shown);
  }

  /**
   * For a site token's reader (no member): the given spaces only, presented without a role, and the
   * given external links (those the reader sees; a link whose group is not in `tree` shows at the root).
   */
  static forReader(
    app: AppContext,
    tree: SiteTree,
    rows: Parameters<typeof presentSpace>[1][],
    opts: UrlOptions = {},
    links: ExternalLinkRow[] = [],
  ): TreePresenter {
    const spaces = new Map(rows.map((r) => [r.id, presentSpace(app, r, null)]));
    const groups = new Set(tree.groups.map((g) => g.id));
    const placed = links.map((l) => (l.section_group_id && !groups.has(l.section_group_id) ? { ...l, section_group_id: null } : l));
    return new TreePresenter(app, { ...tree, siteSpaces: tree.siteSpaces.filter((ss) => spaces.has(ss.space_id)) }, spaces, opts, placed);
  }

  /** The external links directly under a group (null: the root), in the site's order. */
  private linksIn(groupId: string | null): object[] {
    return this.links.filter((l) => (l.section_group_id ?? null) === groupId).map(toSiteExternalLink);
  }

  siteSpace(ss: SiteSpaceRow) {
    const section = ss.section_id ? this.tree.sections.find((s) => s.id === ss.section_id) : undefined;
    return toSiteSpace(this.app, ss, this.spaces.get(ss.space_id)!, { site: this.tree.site, section }, this.opts);
  }

  section(s: SectionRow) {
    const variants = this.tree.siteSpaces.filter((ss) => ss.section_id === s.id).map((ss) => this.siteSpace(ss));
    return toSection(this.app, this.tree.site, s, variants, this.opts);
  }

  group(g: GroupRow, depth = 0): object {
    const sections = this.tree.sections.filter((s) => s.group_id === g.id);
    const children =
      depth > 10
        ? []
        : childrenOf(this.tree, g.id).map((c) =>
            c.type === 'site-section' ? this.section(c.row as SectionRow) : this.group(c.row as GroupRow, depth + 1),
          );
    return toGroup(
      g,
      sections.map((s) => this.section(s)),
      [...children, ...this.linksIn(g.id)],
    );
  }

  structure() {
    if (!this.tree.sections.length)
      return { type: 'siteSpaces', structure: this.tree.siteSpaces.filter((ss) => ss.section_id === null).map((ss) => this.siteSpace(ss)) };
    return {
      type: 'sections',
      structure: [
        ...childrenOf(this.tree, null).map((c) =>
          c.type === 'site-section' ? this.section(c.row as SectionRow) : this.group(c.row as GroupRow),
        ),
        ...this.linksIn(null),
      ],
    };
  }
}

type Child = Sibling & { created_at: Date; row: SectionRow | GroupRow };

/** Sections and groups directly under a group (null: the root), in their shared sibling order. */
export function childrenOf(tree: SiteTree, groupId: string | null): Child[] {
  const items: Child[] = [
    ...tree.sections
      .filter((s) => s.group_id === groupId)
      .map((row) => ({ type: 'site-section', id: row.id, position: row.position, created_at: row.created_at, row })),
    ...tree.groups
      .filter((g) => g.parent_group_id === groupId)
      .map((row) => ({ type: 'site-section-group', id: row.id, position: row.position, created_at: row.created_at, row })),
  ];
  return items.sort(
    (a, b) => a.position - b.position || a.created_at.getTime() - b.created_at.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}

/** Site spaces of one section (null: the root of a site without sections), in order. */
export function siteSpacesIn(tree: SiteTree, sectionId: string | null): SiteSpaceRow[] {
  return tree.siteSpaces.filter((ss) => ss.section_id === sectionId);
}

/** Sections in reading order (depth first through groups): the first is the fallback default. */
export function sectionsInOrder(tree: SiteTree): SectionRow[] {
  const out: SectionRow[] = [];
  const walk = (groupId: string | null, depth: number) => {
    for (const c of childrenOf(tree, groupId)) {
      if (c.type === 'site-section') out.push(c.row as SectionRow);
      else if (depth < 10) walk(c.id, depth + 1);
    }
  };
  walk(null, 0);
  return out;
}

/** Where the shareKey of a request is one of the site's active links, it is threaded into URLs. */
export async function urlOptions(app: AppContext, siteId: string, shareKey?: string): Promise<UrlOptions> {
  return shareKey && (await validShareKey(app.db, siteId, shareKey)) ? { shareKey } : {};
}

export async function getStructure(app: AppContext, p: Principal, orgId: string, siteId: string, q: { shareKey?: string }) {
  const { site } = await requireSite(app.db, p, orgId, siteId, 'read');
  const presenter = await TreePresenter.create(app, p, await loadTree(app.db, site), await urlOptions(app, siteId, q.shareKey), 'all');
  return presenter.structure();
}

export type StructureItemType = 'site-space' | 'site-section' | 'site-section-group' | 'site-external-link';
export interface StructurePointer {
  type: StructureItemType;
  id: string;
}

/** The siblings of an item in the loaded tree, or null when the item is not in it. */
function siblingsOf(tree: SiteTree, item: StructurePointer): Sibling[] | null {
  if (item.type === 'site-space') {
    const ss = tree.siteSpaces.find((x) => x.id === item.id);
    return ss ? siteSpacesIn(tree, ss.section_id).map((x) => ({ type: 'site-space', id: x.id, position: x.position })) : null;
  }
  if (item.type === 'site-section') {
    const s = tree.sections.find((x) => x.id === item.id);
    return s ? childrenOf(tree, s.group_id) : null;
  }
  if (item.type === 'site-section-group') {
    const g = tree.groups.find((x) => x.id === item.id);
    return g ? childrenOf(tree, g.parent_group_id) : null;
  }
  return null;
}

async function writePosition(c: Queryable, item: SiblingPointer, position: number): Promise<void> {
  if (item.type === 'site-space') await repo.updateSiteSpace(c, item.id, { position });
  else if (item.type === 'site-section') await repo.updateSection(c, item.id, { position });
  else await repo.updateGroup(c, item.id, { position });
}

/**
 * Put `item` before/after a sibling at its level (sortSiteStructure, and the deprecated moves).
 * 404 when the item is not in the site, 400 when the pointer is not a sibling.
 */
export async function sortItem(
  app: AppContext,
  site: SiteRow,
  item: StructurePointer,
  position?: { before?: SiblingPointer; after?: SiblingPointer },
) {
  await withTx(app.db, async (c) => {
    await lockSiteStructure(c, site.id);
    const tree = await loadTree(c, site);
    const siblings = siblingsOf(tree, item);
    if (!siblings) throw notFound(`${item.type} "${item.id}" not found in this site`);
    let placed;
    try {
      placed = placeAmong(siblings, item, position);
    } catch (err) {
      if (err instanceof PlacementError) throw invalid(`Invalid request: ${err.message}`);
      throw err;
    }
    for (const s of placed.renumber ?? []) await writePosition(c, s, s.position);
    await writePosition(c, item, placed.position);
    await bumpSiteVersion(c, site.id);
  });
}

/** One item of the site as the API shows it (after a write); 404 when it is gone meanwhile. */
export async function presentItem(app: AppContext, p: Principal, site: SiteRow, item: StructurePointer) {
  const presenter = await TreePresenter.create(
    app,
    p,
    await loadTree(app.db, site),
    {},
    item.type === 'site-section-group' ? 'all' : 'none',
  );
  const t = presenter.tree;
  const gone = () => notFound(`${item.type} "${item.id}" not found in this site`);
  if (item.type === 'site-space') {
    const ss = t.siteSpaces.find((x) => x.id === item.id);
    if (!ss) throw gone();
    return presenter.siteSpace(ss);
  }
  if (item.type === 'site-section') {
    const section = t.sections.find((x) => x.id === item.id);
    if (!section) throw gone();
    return presenter.section(section);
  }
  const group = t.groups.find((x) => x.id === item.id);
  if (!group) throw gone();
  return presenter.group(group);
}

export async function sortStructure(
  app: AppContext,
  p: Principal,
  orgId: string,
  siteId: string,
  body: { item: StructurePointer; position: { before?: StructurePointer; after?: StructurePointer } },
) {
  const { site } = await requireSite(app.db, p, orgId, siteId, 'admin');
  if (body.item.type === 'site-external-link') throw notFound(`site-external-link "${body.item.id}" not found in this site`);
  await sortItem(app, site, body.item, body.position);
  return presentItem(app, p, site, body.item);
}
