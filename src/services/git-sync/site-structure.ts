// Whole sites from docs.yaml: the site's sections, section groups, site spaces and external links made to match a
// config inside one transaction (see site-config.ts); every write is compared first, so applying
// the same config again writes nothing.
import * as structure from '../../db/repos/site-structure.js';
import { getSite, updateSite } from '../../db/repos/sites.js';
import { invalid } from '../../core/errors.js';
import { newId } from '../../util/ids.js';
import { conditionError } from '../../sites/conditions.js';
import { sectionsOf, spacesOf, type DocsYamlConfig, type DocsYamlNode, type DocsYamlSection } from '../../git/format/docs-yaml.js';
import { loadTree } from '../sites/structure.js';
import { Matcher } from './site-matcher.js';
import { applyLinks } from './site-links.js';
import { diff, localizedOrNull, write, type Tx } from './site-tx.js';

function checkConditionOf(node: { key: string; condition?: string }) {
  const error = node.condition ? conditionError(node.condition) : null;
  if (error) throw invalid(`docs.yaml: "${node.key}": condition: ${error}`);
}

// ---- the structure ----------------------------------------------------------------------------------

export type { Tx } from './site-tx.js';

const tempPath = (id: string) => `~${id}`;

export async function applyStructure(tx: Tx, config: DocsYamlConfig, spaceOf: Map<string, string>): Promise<Map<string, string>> {
  const { c, siteId } = tx;
  const site = (await getSite(c, siteId))!;
  const tree = await loadTree(c, site);
  const all = await structure.listAllSiteSpaces(c, siteId);
  const m = new Matcher(tree, all);
  m.match(config, spaceOf);
  const entries = spacesOf(config.site.structure).filter((e) => spaceOf.has(e.space.key));
  const sections = sectionsOf(config.site.structure);

  // A space shows once per section: two entries of one section on one space cannot both be.
  const seen = new Map<string, string>();
  for (const { space, section } of entries) {
    const k = `${section?.key ?? ''}\0${spaceOf.get(space.key)}`;
    const other = seen.get(k);
    if (other) throw invalid(`docs.yaml: "${other}" and "${space.key}" show the same space in one section`);
    seen.set(k, space.key);
    checkConditionOf(space);
  }
  for (const s of sections) checkConditionOf(s);

  if (site.title !== config.site.title) await write(tx, () => updateSite(c, siteId, { title: config.site.title }));

  // 1. Site spaces no entry keeps leave first (their paths and spaces become free).
  for (const row of all) if (!m.isUsed(row.id)) await write(tx, () => structure.deleteSiteSpace(c, siteId, row.id));

  // 2. Groups, parents before children.
  const groupId = new Map<string, string>();
  const sectionId = new Map<string, string>();
  const placeLevel = async (nodes: DocsYamlNode[], parent: string | null) => {
    let position = 0;
    for (const n of nodes) {
      if (n.type === 'section-group') {
        position++;
        const want = {
          title: n.title,
          icon: n.icon ?? null,
          parentId: parent,
          position,
          gitKey: n.key,
          localizedTitle: localizedOrNull(n.localizedTitle),
        };
        const row = m.groupOf.get(n.key);
        let id = row?.id;
        if (!row) {
          id = newId();
          await write(tx, () =>
            structure.insertGroup(c, { id: id!, siteId, parentId: parent, title: n.title, icon: n.icon ?? null, position }),
          );
          await structure.updateGroup(c, id, { gitKey: n.key, localizedTitle: want.localizedTitle });
        } else {
          const have = {
            title: row.title,
            icon: row.icon,
            parentId: row.parent_group_id,
            position: row.position,
            gitKey: row.git_key ?? null,
            localizedTitle: row.localized_title ?? null,
          };
          const patch = diff(have, want);
          if (Object.keys(patch).length) await write(tx, () => structure.updateGroup(c, row.id, patch));
        }
        groupId.set(n.key, id!);
        await placeLevel(n.children, id!);
      } else if (n.type === 'section') {
        position++;
        await placeSection(n, parent, position);
      }
      // External links are placed once the groups are (step 5); spaces at the root are step 4.
    }
  };

  // 3. Sections: a changed path goes through a temporary one, so paths can swap between sections.
  const finalPaths: { id: string; path: string }[] = [];
  const placeSection = async (n: DocsYamlSection, parent: string | null, position: number) => {
    const want = {
      title: n.title,
      description: n.description ?? null,
      condition: n.condition ?? null,
      icon: n.icon ?? null,
      groupId: parent,
      position,
      gitKey: n.key,
      localizedTitle: localizedOrNull(n.localizedTitle),
      localizedDescription: localizedOrNull(n.localizedDescription),
    };
    const row = m.sectionOf.get(n.key);
    if (!row) {
      const id = newId();
      await write(tx, () =>
        structure.insertSection(c, {
          id,
          siteId,
          groupId: parent,
          title: n.title,
          path: tempPath(id),
          icon: n.icon ?? null,
          isDefault: false,
          position,
        }),
      );
      await structure.updateSection(c, id, want);
      finalPaths.push({ id, path: n.path });
      sectionId.set(n.key, id);
      return;
    }
    const have = {
      title: row.title,
      description: row.description,
      condition: row.condition,
      icon: row.icon,
      groupId: row.group_id,
      position: row.position,
      gitKey: row.git_key ?? null,
      localizedTitle: row.localized_title ?? null,
      localizedDescription: row.localized_description ?? null,
    };
    const patch = diff(have, want);
    if (row.path !== n.path) {
      patch.path = tempPath(row.id);
      finalPaths.push({ id: row.id, path: n.path });
    }
    if (Object.keys(patch).length) await write(tx, () => structure.updateSection(c, row.id, patch));
    sectionId.set(n.key, row.id);
  };
  await placeLevel(config.site.structure, null);
  for (const f of finalPaths) await structure.updateSection(c, f.id, { path: f.path });

  // 4. Site spaces, section by section (or the root of a site without sections).
  const spaceTitles = new Map(
    (await structure.spacesByIds(c, [...new Set(all.map((r) => r.space_id))], { counters: false })).map((sp) => [sp.id, sp.title]),
  );
  const siteSpaceId = new Map<string, string>();
  const ssFinalPaths: { id: string; path: string }[] = [];
  const containers = new Map<string | null, { key: string; isDefault: boolean }[]>();
  const defaults = new Map<string | null, string>();
  for (const { space, section } of entries) {
    const container = section ? sectionId.get(section.key)! : null;
    const list = containers.get(container) ?? [];
    list.push({ key: space.key, isDefault: !!space.default });
    containers.set(container, list);
  }
  for (const [container, list] of containers) {
    defaults.set(container, (list.find((x) => x.isDefault) ?? list[0]).key);
    let position = 0;
    for (const { key } of list) {
      position++;
      const space = entries.find((e) => e.space.key === key)!.space;
      const want = {
        sectionId: container,
        spaceId: spaceOf.get(key)!,
        title: space.title,
        hidden: space.hidden ?? false,
        condition: space.condition ?? null,
        position,
        gitKey: key,
        localizedTitle: localizedOrNull(space.localizedTitle),
      };
      const row = m.siteSpaceOf.get(key);
      if (!row) {
        const id = newId();
        await write(tx, () =>
          structure.insertSiteSpace(c, {
            id,
            siteId,
            sectionId: container,
            spaceId: want.spaceId,
            path: tempPath(id),
            title: space.title,
            isDefault: false,
            position,
          }),
        );
        await structure.updateSiteSpace(c, id, want);
        ssFinalPaths.push({ id, path: space.path });
        siteSpaceId.set(key, id);
        continue;
      }
      const have = {
        sectionId: row.section_id,
        spaceId: row.space_id,
        // A site space without a title of its own shows its space's: the same title is no change.
        title: row.title ?? (row.space_id === want.spaceId ? (spaceTitles.get(row.space_id) ?? null) : null),
        hidden: row.hidden,
        condition: row.condition,
        position: row.position,
        gitKey: row.git_key ?? null,
        localizedTitle: row.localized_title ?? null,
      };
      const patch = diff(have, want);
      if (patch.sectionId !== undefined && row.is_default)
        await write(tx, () => structure.setDefaultSiteSpace(c, siteId, row.section_id, null));
      if (row.path !== space.path) {
        patch.path = tempPath(row.id);
        ssFinalPaths.push({ id: row.id, path: space.path });
      }
      if (Object.keys(patch).length) await write(tx, () => structure.updateSiteSpace(c, row.id, patch));
      siteSpaceId.set(key, row.id);
    }
  }
  for (const f of ssFinalPaths) await structure.updateSiteSpace(c, f.id, { path: f.path });

  // 5. What no entry keeps goes (sections take nothing kept with them: their kept site spaces moved).
  for (const s of tree.sections) if (!m.isUsed(s.id)) await write(tx, () => structure.deleteSection(c, siteId, s.id));
  for (const g of tree.groups) if (!m.isUsed(g.id)) await write(tx, () => structure.deleteGroup(c, siteId, g.id));
  // External links, in the groups they now belong to (site-links.ts).
  await applyLinks(tx, config, groupId);

  // 6. Defaults: the marked (or first) section, and the marked (or first) site space of each.
  const after = await loadTree(c, site);
  const wantDefault = sections.length ? sectionId.get((sections.find((s) => s.default) ?? sections[0]).key)! : null;
  const haveDefault = after.sections.find((s) => s.is_default)?.id ?? null;
  if (wantDefault !== haveDefault) await write(tx, () => structure.setDefaultSection(c, siteId, wantDefault));
  const afterAll = await structure.listAllSiteSpaces(c, siteId);
  for (const [container, key] of defaults) {
    const id = siteSpaceId.get(key)!;
    const current = afterAll.find((r) => r.section_id === container && r.is_default)?.id;
    if (current !== id) await write(tx, () => structure.setDefaultSiteSpace(c, siteId, container, id));
  }
  return siteSpaceId;
}
