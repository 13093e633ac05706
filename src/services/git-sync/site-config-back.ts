// Whole sites from docs.yaml, the way back: the config a site's current structure gives, for writing
// docs.yaml back after the structure changed through the API (see site-config.ts).

import type { AppContext } from '../../context.js';
import { withTx, type Queryable } from '../../db/pool.js';
import * as structure from '../../db/repos/site-structure.js';
import { getSite, lockSiteStructure } from '../../db/repos/sites.js';
import * as translations from '../../db/repos/translations.js';
import { getSiteGitConfig, putSiteGitConfig } from '../../db/repos/site-git-configs.js';
import { listExternalLinks, updateExternalLink } from '../../db/repos/site-external-links.js';
import { notFound } from '../../core/errors.js';
import { slugify, uniquePath } from '../../sites/structure.js';
import {
  normalizeDirectory,
  type DocsYamlConfig,
  type DocsYamlExternalLink,
  type DocsYamlGroup,
  type DocsYamlNode,
  type DocsYamlSection,
  type DocsYamlSpace,
} from '../../git/format/docs-yaml.js';
import { childrenOf, loadTree } from '../sites/structure.js';
import { linkNode, placeLinks } from './site-links.js';

// ---- back to docs.yaml ---------------------------------------------------------------------------

function storedConfig(value: unknown): DocsYamlConfig | null {
  if (!value || typeof value !== 'object') return null;
  const c = value as DocsYamlConfig;
  return c.site && Array.isArray(c.site.structure) ? c : null;
}

function nodesByKey(nodes: DocsYamlNode[], out = new Map<string, DocsYamlNode>(), depth = 0): Map<string, DocsYamlNode> {
  for (const n of nodes) {
    out.set(n.key, n);
    if ((n.type === 'section-group' || n.type === 'section') && depth < 8) nodesByKey(n.children, out, depth + 1);
  }
  return out;
}

/** `default: true` when it is; otherwise what the file said (an explicit false stays written). */
const flag = (value: boolean, stored: boolean | undefined) => (value ? true : stored === false ? false : undefined);

/**
 * The docs.yaml config the site's current structure gives: titles, paths, descriptions, icons,
 * defaults, groups, external links, per-language titles and variants from the site; what the site
 * does not model (drafts of sections, groups and spaces, unknown keys, directories) from the config
 * last applied. A site space the file never had gets the directory `./<its path>` (the export
 * writes its space there; a space the site shows twice, one directory) or, when its space is the
 * translation of another, `directory: null` with its language. Entries made
 * through the API get their key now (kept on the row, as GitBook does when it saves the mapping),
 * and the config is remembered as the site's: the file written from it applies back unchanged.
 */
export async function siteConfigOf(app: AppContext, siteId: string): Promise<DocsYamlConfig> {
  const site = await getSite(app.db, siteId);
  if (!site) throw notFound(`Site "${siteId}" not found`);
  return withTx(app.db, async (c) => {
    await lockSiteStructure(c, siteId);
    const keys: { table: KeyTable; id: string; key: string }[] = [];
    const config = await configOf(c, site, keys);
    for (const k of keys) {
      if (k.table === 'section') await structure.updateSection(c, k.id, { gitKey: k.key });
      else if (k.table === 'group') await structure.updateGroup(c, k.id, { gitKey: k.key });
      else if (k.table === 'link') await updateExternalLink(c, k.id, { gitKey: k.key });
      else await structure.updateSiteSpace(c, k.id, { gitKey: k.key });
    }
    await putSiteGitConfig(c, siteId, JSON.stringify(config));
    return config;
  });
}

type KeyTable = 'section' | 'group' | 'site-space' | 'link';

async function configOf(
  db: Queryable,
  site: NonNullable<Awaited<ReturnType<typeof getSite>>>,
  newKeys: { table: KeyTable; id: string; key: string }[],
): Promise<DocsYamlConfig> {
  const tree = await loadTree(db, site);
  const rows = await structure.listAllSiteSpaces(db, site.id);
  const linkRows = await listExternalLinks(db, site.id);
  const stored = storedConfig(await getSiteGitConfig(db, site.id));
  const storedKeys = nodesByKey(stored?.site.structure ?? []);
  const spaceIds = [...new Set(rows.map((r) => r.space_id))];
  const spaceRows = new Map((await structure.spacesByIds(db, spaceIds, { counters: false })).map((s) => [s.id, s]));
  const results = new Map(
    (await translations.listOrgTranslations(db, site.organization_id)).filter((t) => t.result_space_id).map((t) => [t.result_space_id!, t]),
  );

  const usedKeys = new Set<string>(
    [...tree.sections, ...tree.groups, ...rows, ...linkRows].map((r) => r.git_key).filter((k): k is string => !!k),
  );
  const keyFor = (table: KeyTable, row: { id: string; git_key?: string | null }, wanted: string) => {
    if (row.git_key) return row.git_key;
    const key = uniquePath(wanted, usedKeys);
    usedKeys.add(key);
    newKeys.push({ table, id: row.id, key });
    return key;
  };
  const usedDirs = new Set<string>();
  for (const n of storedKeys.values())
    if (n.type === 'space' && n.content.directory !== null) usedDirs.add(normalizeDirectory(n.content.directory));
  // One space, one directory: a site space added for a space the file already reads takes its directory.
  const dirOfSpace = new Map<string, string>();
  for (const r of rows) {
    const n = r.git_key ? storedKeys.get(r.git_key) : undefined;
    if (n?.type === 'space' && n.content.directory !== null && !dirOfSpace.has(r.space_id)) dirOfSpace.set(r.space_id, n.content.directory);
  }

  const spaceNode = (row: structure.SiteSpaceRow, sectionPath: string | null): DocsYamlSpace => {
    const key = keyFor('site-space', row, `space-${sectionPath ? `${sectionPath}-` : ''}${row.path}`);
    const old = storedKeys.get(key);
    const was = old?.type === 'space' ? old : undefined;
    const space = spaceRows.get(row.space_id);
    const translation = results.get(row.space_id);
    let content: DocsYamlSpace['content'];
    if (was) {
      content = { ...was.content, language: was.content.language ?? space?.language ?? undefined };
    } else if (translation) {
      content = { directory: null, language: translation.language };
    } else {
      let directory = dirOfSpace.get(row.space_id);
      if (directory === undefined) {
        const dir = uniquePath(slugify(row.path, 'space'), usedDirs);
        usedDirs.add(dir);
        directory = `./${dir}`;
        dirOfSpace.set(row.space_id, directory);
      }
      content = { directory, ...(space?.language ? { language: space.language } : {}) };
    }
    if (content.language === undefined) delete content.language;
    const node: DocsYamlSpace = {
      type: 'space',
      key,
      title: (row.title ?? space?.title) || row.path,
      ...(row.localized_title ? { localizedTitle: row.localized_title } : {}),
      path: row.path,
      default: flag(row.is_default, was?.default),
      hidden: row.hidden ? true : was?.hidden === false ? false : undefined,
      draft: was?.draft,
      condition: row.condition ?? undefined,
      content,
      extra: was?.extra,
    };
    return prune(node);
  };

  const sectionNode = (s: structure.SectionRow): DocsYamlSection => {
    const key = keyFor('section', s, `section-${s.path}`);
    const old = storedKeys.get(key);
    const was = old?.type === 'section' ? old : undefined;
    return prune({
      type: 'section',
      key,
      title: s.title,
      ...(s.localized_title ? { localizedTitle: s.localized_title } : {}),
      path: s.path,
      description: s.description ?? undefined,
      ...(s.localized_description ? { localizedDescription: s.localized_description } : {}),
      icon: s.icon ?? undefined,
      default: flag(s.is_default, was?.default),
      draft: was?.draft,
      condition: s.condition ?? undefined,
      children: rows.filter((r) => r.section_id === s.id).map((r) => spaceNode(r, s.path)),
      extra: was?.extra,
    } satisfies DocsYamlSection);
  };

  const groupNode = (g: structure.GroupRow, depth: number): DocsYamlGroup => {
    const key = keyFor('group', g, `section-group-${slugify(g.title, 'group')}`);
    const old = storedKeys.get(key);
    const was = old?.type === 'section-group' ? old : undefined;
    return prune({
      type: 'section-group',
      key,
      title: g.title,
      ...(g.localized_title ? { localizedTitle: g.localized_title } : {}),
      icon: g.icon ?? undefined,
      draft: was?.draft,
      children: placeLinks(level(g.id, depth + 1), linksIn(g.id), was?.children) as DocsYamlGroup['children'],
      extra: was?.extra,
    } satisfies DocsYamlGroup);
  };

  const level = (parent: string | null, depth: number): DocsYamlNode[] =>
    depth > 8
      ? []
      : childrenOf(tree, parent).map((item) =>
          item.type === 'site-section' ? sectionNode(item.row as structure.SectionRow) : groupNode(item.row as structure.GroupRow, depth),
        );

  // The site's external links of one level (a site without sections cannot list any in docs.yaml).
  const linksIn = (parent: string | null): DocsYamlExternalLink[] =>
    linkRows
      .filter((l) => l.section_group_id === parent)
      .map((l) => {
        const key = keyFor('link', l, `link-${slugify(l.title, 'link')}`);
        const old = storedKeys.get(key);
        return linkNode(l, key, old?.type === 'external-link' ? old : undefined);
      });

  let nodes: DocsYamlNode[];
  if (tree.sections.length) {
    nodes = placeLinks(level(null, 0), linksIn(null), stored?.site.structure);
  } else {
    nodes = rows.filter((r) => r.section_id === null).map((r) => spaceNode(r, null));
  }
  return prune({
    $schema: stored?.$schema,
    version: stored?.version,
    site: prune({ title: site.title, structure: nodes, extra: stored?.site.extra }),
    extra: stored?.extra,
  } satisfies DocsYamlConfig);
}

function prune<T extends object>(o: T): T {
  for (const k of Object.keys(o) as (keyof T)[]) if (o[k] === undefined) delete o[k];
  return o;
}
