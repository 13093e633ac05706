// Whole sites from docs.yaml: the site's external links (src/services/sites/external-links.ts) made
// to match the file's `external-link` entries, and those entries given back for a write-back.
//
// Both sides hold the same fields (the description's GitSyncSiteStructureExternalLink and
// SiteExternalLink): title, localizedTitle, url, description, localizedDescription, icon, draft and
// condition; the entry's place (the root, or the section group it is listed under) is the link's
// `parent`. A link is known by its `key` (`git_key`, migration 0027); a link made through the API
// before the site's first sync is adopted by its URL. Keys the description does not know stay in
// the stored config and are written back with their link.
//
// Order. A site orders its links by `position` (one sequence; a reader shows each level's links in
// that order), while the file interleaves them with the sections and groups of their level. Applying
// keeps the positions when every level's links already come in the file's order (so a file written
// back applies without a write), else numbers them in file order. Writing back puts each link
// after the section or group it followed in the config last applied, and a link the file never
// had at the end of its level.
import * as repo from '../../db/repos/site-external-links.js';
import { invalid } from '../../core/errors.js';
import { newId } from '../../util/ids.js';
import { conditionError } from '../../sites/conditions.js';
import { sectionsOf, type DocsYamlConfig, type DocsYamlExternalLink, type DocsYamlNode } from '../../git/format/docs-yaml.js';
import { diff, localizedOrNull, write, type Tx } from './site-tx.js';
import { httpUrlError } from '../../util/uri.js';

interface Wanted {
  node: DocsYamlExternalLink;
  /** The section group it is listed under (null: the root). */
  parent: string | null;
  row?: repo.ExternalLinkRow;
}

/** The file's links in file order, each with the id of its section group (`groupId`: key to id). */
function linksOf(config: DocsYamlConfig, groupId: Map<string, string>): Wanted[] {
  const out: Wanted[] = [];
  const walk = (nodes: DocsYamlNode[], parent: string | null, depth: number) => {
    for (const n of nodes) {
      if (n.type === 'external-link') out.push({ node: n, parent });
      else if (n.type === 'section-group' && depth < 8) walk(n.children, groupId.get(n.key) ?? null, depth + 1);
    }
  };
  walk(config.site.structure, null, 0);
  return out;
}

function checkLink(n: DocsYamlExternalLink) {
  const error = n.condition ? conditionError(n.condition) : null;
  if (error) throw invalid(`docs.yaml: "${n.key}": condition: ${error}`);
  const urlError = httpUrlError(n.url);
  if (urlError) throw invalid(`docs.yaml: "${n.key}": url: ${urlError}`);
}

/**
 * The positions the links get: their current ones when each level's links (rows already there)
 * come in file order and none is new, else 1, 2, 3... in file order.
 */
function positionsOf(list: Wanted[]): number[] {
  const last = new Map<string | null, number>();
  let keep = list.every((w) => !!w.row);
  for (const w of list) {
    if (!keep) break;
    const before = last.get(w.parent);
    if (before !== undefined && w.row!.position <= before) keep = false;
    last.set(w.parent, w.row!.position);
  }
  return list.map((w, i) => (keep ? w.row!.position : i + 1));
}

/**
 * Makes the site's external links those of the file (inside the structure's transaction, once the
 * groups are placed): made, changed or removed by key, compared first. A file without sections
 * cannot list links (the description's rule): the site's links are then left as they are.
 */
export async function applyLinks(tx: Tx, config: DocsYamlConfig, groupId: Map<string, string>): Promise<void> {
  const { c, siteId } = tx;
  if (!sectionsOf(config.site.structure).length) return;
  const list = linksOf(config, groupId);
  for (const w of list) checkLink(w.node);
  const rows = await repo.listExternalLinks(c, siteId);
  const used = new Set<string>();
  for (const w of list) {
    w.row = rows.find((r) => r.git_key === w.node.key) ?? rows.find((r) => !r.git_key && !used.has(r.id) && r.url === w.node.url);
    if (w.row) used.add(w.row.id);
  }
  for (const r of rows) if (!used.has(r.id)) await write(tx, () => repo.deleteExternalLink(c, siteId, r.id));
  const positions = positionsOf(list);
  for (const [i, { node: n, parent, row }] of list.entries()) {
    const want = {
      sectionGroupId: parent,
      title: n.title,
      localizedTitle: localizedOrNull(n.localizedTitle),
      description: n.description ?? null,
      localizedDescription: localizedOrNull(n.localizedDescription),
      icon: n.icon ?? null,
      url: n.url,
      draft: n.draft ?? false,
      condition: n.condition ?? null,
      position: positions[i],
      gitKey: n.key,
    };
    if (!row) {
      await write(tx, () => repo.insertExternalLink(c, { ...want, id: newId(), siteId }));
      continue;
    }
    const have = {
      sectionGroupId: row.section_group_id,
      title: row.title,
      localizedTitle: row.localized_title ?? null,
      description: row.description,
      localizedDescription: row.localized_description ?? null,
      icon: row.icon,
      url: row.url,
      draft: row.draft,
      condition: row.condition,
      position: row.position,
      gitKey: row.git_key,
    };
    const patch = diff(have, want) as repo.ExternalLinkPatch;
    if (Object.keys(patch).length) await write(tx, () => repo.updateExternalLink(c, row.id, patch));
  }
}

// ---- back to docs.yaml ---------------------------------------------------------------------------

/**
 * A link row as a docs.yaml entry under `key`; `was` is its entry in the config last applied (an
 * explicit `draft: false` and unknown keys stay as written).
 */
export function linkNode(l: repo.ExternalLinkRow, key: string, was: DocsYamlExternalLink | undefined): DocsYamlExternalLink {
  const node: DocsYamlExternalLink = {
    type: 'external-link',
    key,
    title: l.title,
    ...(l.localized_title && Object.keys(l.localized_title).length ? { localizedTitle: l.localized_title } : {}),
    url: l.url,
    ...(l.description !== null ? { description: l.description } : {}),
    ...(l.localized_description && Object.keys(l.localized_description).length ? { localizedDescription: l.localized_description } : {}),
    ...(l.icon !== null ? { icon: l.icon } : {}),
    ...(l.draft ? { draft: true } : was?.draft === false ? { draft: false } : {}),
    ...(l.condition !== null ? { condition: l.condition } : {}),
    ...(was?.extra ? { extra: was.extra } : {}),
  };
  return node;
}

/**
 * A level of the structure with its links put in (`links` in the site's order): each after the
 * section or group it followed in the stored level (`stored`, the config last applied), after the
 * links already placed there; a link the stored level does not list goes at the end.
 */
export function placeLinks(level: DocsYamlNode[], links: DocsYamlExternalLink[], stored: DocsYamlNode[] | undefined): DocsYamlNode[] {
  const out = [...level];
  for (const link of links) {
    const i = stored ? stored.findIndex((n) => n.type === 'external-link' && n.key === link.key) : -1;
    let at = out.length;
    if (i >= 0) {
      let anchor = -1;
      for (let j = i - 1; j >= 0 && anchor < 0; j--) {
        const before = stored![j];
        if (before.type !== 'external-link') anchor = out.findIndex((x) => x.type !== 'external-link' && x.key === before.key);
      }
      at = anchor + 1;
      while (at < out.length && out[at].type === 'external-link') at++;
    }
    out.splice(at, 0, link);
  }
  return out;
}
