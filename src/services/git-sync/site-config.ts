/**
 * Whole sites from docs.yaml (issue 27, item 4): make a site's structure match a parsed docs.yaml
 * (src/git/format/docs-yaml.ts), and give back the config its current structure says (for writing
 * docs.yaml back after the structure changed through the API).
 *
 * Identity. Every section, section group and site space made from the file keeps the file's `key`
 * (`git_key`): a later sync finds it by key, whatever its title, path or directory became. A site
 * whose structure was made through the API (no keys yet) is adopted on its first sync: a section by
 * its path, a group by its title, a site space by its space within its section.
 *
 * Spaces. Each `content.directory` is shown by one space of the organization: the space a site space
 * of that key already shows (a key keeps its space when its directory moves), else the one the
 * caller's `spaceForDirectory` gives (an existing space synced from that directory, or a new one);
 * the list comes back so the caller syncs each space from its directory. A language variant
 * (`directory: null` with a `language`) is the translation of its section's default space into that
 * language (src/services/translations.ts): made when missing, with its result space created at once
 * (a copy of the source until its first run translates it), so the variant shows from the first
 * sync; `refreshLanguageVariants` starts the runs that keep it up to date after the source changed.
 *
 * Removal. An entry gone from the file is gone from the site; its space stays. Applying the same
 * config again writes nothing (each change is compared first), so the site's version does not move.
 */
import type { PoolClient } from 'pg';
import type { AppContext } from '../../context.js';
import { withTx, type Queryable } from '../../db/pool.js';
import * as structure from '../../db/repos/site-structure.js';
import { bumpSiteVersion, getSite, lockSiteStructure, updateSite } from '../../db/repos/sites.js';
import { getSpace } from '../../db/repos/spaces.js';
import * as translations from '../../db/repos/translations.js';
import { getSiteGitConfig, putSiteGitConfig } from '../../db/repos/site-git-configs.js';
import { invalid, notFound } from '../../core/errors.js';
import { newId } from '../../util/ids.js';
import { conditionError } from '../../sites/conditions.js';
import { slugify, uniquePath } from '../../sites/structure.js';
import { TRANSLATION_LANGUAGES } from '../../translate/index.js';
import {
  normalizeDirectory,
  sectionsOf,
  spacesOf,
  type DocsYamlConfig,
  type DocsYamlGroup,
  type DocsYamlNode,
  type DocsYamlSection,
  type DocsYamlSpace,
  type Localized,
} from '../../git/format/docs-yaml.js';
import { childrenOf, loadTree, type SiteTree } from '../sites/structure.js';
import { EMPTY_DOCUMENT, instructionsHash, queueRun } from '../translations.js';
import { createResultSpace } from '../translation-run.js';
import { enqueue } from '../operations.js';
import type { OperationRow } from '../../db/repos/operations.js';

/** The space showing one `content.directory` of the file. */
export interface AppliedSiteSpace {
  key: string;
  /** As written in the file (resolve it with resolveDirectory and the sync's project directory). */
  directory: string;
  language?: string;
  spaceId: string;
  siteSpaceId: string;
}

/** A language variant: the translation of its section's default space. */
export interface AppliedVariant {
  key: string;
  language: string;
  sourceSpaceId: string;
  translationId: string | null;
  spaceId: string;
  siteSpaceId: string;
  /** The translation was made by this call (its first run was queued). */
  created: boolean;
}

export interface ApplySiteConfigResult {
  /** Whether the site's structure or title changed. */
  changed: boolean;
  spaces: AppliedSiteSpace[];
  variants: AppliedVariant[];
  /** Entries left out, each naming its key. */
  warnings: string[];
}

export interface ApplySiteConfigInput {
  siteId: string;
  config: DocsYamlConfig;
  /**
   * The space (id) of the site's organization to show `directory` (as written in the file) for an
   * entry whose key the site does not have yet: one already synced from that directory, or a new
   * one. Called once per directory.
   */
  spaceForDirectory: (directory: string, entry: DocsYamlSpace) => Promise<string>;
  /** Who new translations and their runs are recorded as made by (the sync's owner); null: nobody. */
  createdBy?: string | null;
}

const canonical = (v: unknown): string =>
  v && typeof v === 'object' && !Array.isArray(v)
    ? `{${Object.keys(v)
        .sort()
        .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
        .join(',')}}`
    : JSON.stringify(v ?? null);
const localizedOrNull = (l: Localized | undefined) => (l && Object.keys(l).length ? l : null);

/** The fields of `want` that differ from `have` (localized texts compared by content). */
function diff(have: Record<string, unknown>, want: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(want)) if (canonical(have[k]) !== canonical(v)) out[k] = v;
  return out;
}

function checkConditionOf(node: { key: string; condition?: string }) {
  const error = node.condition ? conditionError(node.condition) : null;
  if (error) throw invalid(`docs.yaml: "${node.key}": condition: ${error}`);
}

// ---- spaces and language variants (before the structure's transaction) -----------------------------

interface Resolved {
  /** Site-space key -> the space it shows. */
  spaceOf: Map<string, string>;
  spaces: Omit<AppliedSiteSpace, 'siteSpaceId'>[];
  variants: Omit<AppliedVariant, 'siteSpaceId'>[];
  toEnqueue: OperationRow[];
  warnings: string[];
}

const LANGUAGES = new Set<string>(TRANSLATION_LANGUAGES);

async function resolveSpaces(
  app: AppContext,
  orgId: string,
  siteId: string,
  config: DocsYamlConfig,
  input: ApplySiteConfigInput,
): Promise<Resolved> {
  const rows = await structure.listAllSiteSpaces(app.db, siteId);
  const byKey = new Map(rows.filter((r) => r.git_key).map((r) => [r.git_key!, r]));
  const out: Resolved = { spaceOf: new Map(), spaces: [], variants: [], toEnqueue: [], warnings: [] };
  const byDirectory = new Map<string, string>();
  const entries = spacesOf(config.site.structure);
  const known = await translations.listOrgTranslations(app.db, orgId);
  const translationOf = (spaceId: string) => known.find((t) => t.result_space_id === spaceId);

  for (const { space } of entries) {
    const dir = space.content.directory;
    if (dir === null) continue;
    // A key keeps its space when its directory moves; not the translation it showed as a variant.
    const kept = byKey.get(space.key)?.space_id;
    let spaceId = kept && !translationOf(kept) ? kept : undefined;
    if (!spaceId) {
      const norm = normalizeDirectory(dir);
      spaceId = byDirectory.get(norm);
      if (!spaceId) {
        spaceId = await input.spaceForDirectory(dir, space);
        const row = await getSpace(app.db, spaceId, { counters: false });
        if (!row || row.organization_id !== orgId)
          throw invalid(`docs.yaml: "${space.key}": the space for "${dir}" is not a space of the site's organization`);
      }
    }
    byDirectory.set(normalizeDirectory(dir), spaceId);
    out.spaceOf.set(space.key, spaceId);
    out.spaces.push({ key: space.key, directory: dir, ...(space.content.language ? { language: space.content.language } : {}), spaceId });
  }

  for (const { space, section } of entries) {
    if (space.content.directory !== null) continue;
    const existing = byKey.get(space.key);
    const language = space.content.language;
    const t = existing && translationOf(existing.space_id);
    // A key keeps its space: the variant made on an earlier sync (or adopted) stays as it is, unless
    // the file now asks for another language (then the translation into that one shows instead).
    if (existing && (!language || t?.language === language)) {
      out.spaceOf.set(space.key, existing.space_id);
      out.variants.push({
        key: space.key,
        language: language ?? t?.language ?? '',
        sourceSpaceId: t?.source_space_id ?? '',
        translationId: t?.id ?? null,
        spaceId: existing.space_id,
        created: false,
      });
      continue;
    }
    if (!language) {
      out.warnings.push(`docs.yaml: "${space.key}": a space without a directory needs content.language (a language variant); left out`);
      continue;
    }
    const siblings = section ? section.children : entries.filter((e) => e.section === null).map((e) => e.space);
    const source = siblings.find((s) => s.default && s.content.directory !== null) ?? siblings.find((s) => s.content.directory !== null);
    const sourceSpaceId = source && out.spaceOf.get(source.key);
    if (!source || !sourceSpaceId) {
      out.warnings.push(`docs.yaml: "${space.key}": no space with a directory beside it to translate into "${language}"; left out`);
      continue;
    }
    const sourceRow = (await getSpace(app.db, sourceSpaceId, { counters: false }))!;
    const from = source.content.language ?? sourceRow.language ?? 'en';
    if (!LANGUAGES.has(language) || !LANGUAGES.has(from) || from === language) {
      out.warnings.push(`docs.yaml: "${space.key}": cannot translate ${from} into ${language}; left out`);
      continue;
    }
    const variant = await ensureTranslation(app, known, sourceRow, from, language, input.createdBy ?? null);
    if (variant.op) out.toEnqueue.push(variant.op);
    out.spaceOf.set(space.key, variant.spaceId);
    out.variants.push({
      key: space.key,
      language,
      sourceSpaceId,
      translationId: variant.translationId,
      spaceId: variant.spaceId,
      created: variant.created,
    });
  }
  return out;
}

/** The translation of `source` into `language` with its result space, made when missing. */
async function ensureTranslation(
  app: AppContext,
  known: translations.TranslationRow[],
  source: NonNullable<Awaited<ReturnType<typeof getSpace>>>,
  from: string,
  language: string,
  createdBy: string | null,
): Promise<{ translationId: string; spaceId: string; created: boolean; op?: OperationRow }> {
  const found = known.find((t) => t.source_space_id === source.id && t.language === language);
  if (found?.result_space_id) return { translationId: found.id, spaceId: found.result_space_id, created: false };
  try {
    return await makeTranslation(app, known, found, source, from, language, createdBy);
  } catch (err) {
    // Made meanwhile by another call (one translation per space and language): use that one.
    if ((err as { code?: string }).code !== '23505' || found) throw err;
    known.splice(0, known.length, ...(await translations.listOrgTranslations(app.db, source.organization_id)));
    const made = known.find((t) => t.source_space_id === source.id && t.language === language);
    if (!made) throw err;
    return makeTranslation(app, known, made, source, from, language, createdBy);
  }
}

async function makeTranslation(
  app: AppContext,
  known: translations.TranslationRow[],
  found: translations.TranslationRow | undefined,
  source: NonNullable<Awaited<ReturnType<typeof getSpace>>>,
  from: string,
  language: string,
  createdBy: string | null,
): Promise<{ translationId: string; spaceId: string; created: boolean; op?: OperationRow }> {
  return withTx(app.db, async (c) => {
    if (found) {
      // Made through the API and not run yet: its result space is made now (the run fills it).
      const t = await translations.getTranslation(c, found.id, true);
      if (t?.result_space_id) return { translationId: t.id, spaceId: t.result_space_id, created: false };
      const spaceId = await createResultSpace(c, source, language, createdBy);
      await translations.setResultSpace(c, found.id, spaceId);
      return { translationId: found.id, spaceId, created: false };
    }
    const id = newId();
    await translations.insertTranslation(c, {
      id,
      orgId: source.organization_id,
      sourceSpaceId: source.id,
      sourceLanguage: from,
      language,
      instructions: EMPTY_DOCUMENT,
      instructionsHash: instructionsHash(EMPTY_DOCUMENT),
      createdBy: createdBy as string,
    });
    const spaceId = await createResultSpace(c, source, language, createdBy);
    await translations.setResultSpace(c, id, spaceId);
    const { op } = await queueRun(c, { id, organization_id: source.organization_id }, createdBy as string);
    known.push({ ...(await translations.getTranslation(c, id))! });
    return { translationId: id, spaceId, created: true, op };
  });
}

// ---- the structure ----------------------------------------------------------------------------------

/** Rows matched to the file's entries (by key, else adopted), and what is new. */
class Matcher {
  readonly groupOf = new Map<string, structure.GroupRow>();
  readonly sectionOf = new Map<string, structure.SectionRow>();
  readonly siteSpaceOf = new Map<string, structure.SiteSpaceRow>();
  private readonly used = new Set<string>();

  constructor(
    private readonly tree: SiteTree,
    private readonly allSiteSpaces: structure.SiteSpaceRow[],
  ) {}

  private take<T extends { id: string; git_key?: string | null }>(rows: T[], key: string, adopt: (r: T) => boolean): T | undefined {
    const row =
      rows.find((r) => r.git_key === key && !this.used.has(r.id)) ?? rows.find((r) => !r.git_key && !this.used.has(r.id) && adopt(r));
    if (row) this.used.add(row.id);
    return row;
  }

  match(config: DocsYamlConfig, spaceOf: Map<string, string>) {
    const walk = (nodes: DocsYamlNode[]) => {
      for (const n of nodes) {
        if (n.type === 'section-group') {
          const g = this.take(this.tree.groups, n.key, (r) => r.title === n.title);
          if (g) this.groupOf.set(n.key, g);
          walk(n.children);
        } else if (n.type === 'section') {
          const s = this.take(this.tree.sections, n.key, (r) => r.path === n.path);
          if (s) this.sectionOf.set(n.key, s);
        }
      }
    };
    walk(config.site.structure);
    for (const { space, section } of spacesOf(config.site.structure)) {
      const container = section ? (this.sectionOf.get(section.key)?.id ?? null) : null;
      const wanted = spaceOf.get(space.key);
      const row = this.take(
        this.allSiteSpaces,
        space.key,
        (r) => r.space_id === wanted && r.section_id === container && (section === null || container !== null),
      );
      if (row) this.siteSpaceOf.set(space.key, row);
    }
  }

  isUsed(id: string) {
    return this.used.has(id);
  }
}

interface Tx {
  c: PoolClient;
  siteId: string;
  changed: boolean;
}

async function write(tx: Tx, fn: () => Promise<unknown>) {
  tx.changed = true;
  await fn();
}

const tempPath = (id: string) => `~${id}`;

async function applyStructure(tx: Tx, config: DocsYamlConfig, spaceOf: Map<string, string>): Promise<Map<string, string>> {
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
      // External links are kept in the stored config only (sites have none yet); spaces at the root are step 4.
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

/**
 * Makes the site match `config` (see the file's header). Throws not-found for an unknown site and
 * invalid for a config the site cannot take (a space of another organization, a bad condition, one
 * space twice in a section); entries it has to leave out are named in `warnings`.
 */
export async function applySiteConfig(app: AppContext, input: ApplySiteConfigInput): Promise<ApplySiteConfigResult> {
  const site = await getSite(app.db, input.siteId);
  if (!site) throw notFound(`Site "${input.siteId}" not found`);
  const { config } = input;
  const resolved = await resolveSpaces(app, site.organization_id, site.id, config, input);
  for (const op of resolved.toEnqueue) await enqueue(app, op);
  const { changed, siteSpaceId } = await withTx(app.db, async (c) => {
    await lockSiteStructure(c, site.id);
    const tx: Tx = { c, siteId: site.id, changed: false };
    const ids = await applyStructure(tx, config, resolved.spaceOf);
    if (tx.changed) await bumpSiteVersion(c, site.id);
    await putSiteGitConfig(c, site.id, JSON.stringify(config));
    return { changed: tx.changed, siteSpaceId: ids };
  });
  return {
    changed,
    spaces: resolved.spaces.map((s) => ({ ...s, siteSpaceId: siteSpaceId.get(s.key)! })),
    variants: resolved.variants.map((v) => ({ ...v, siteSpaceId: siteSpaceId.get(v.key)! })),
    warnings: resolved.warnings,
  };
}

/**
 * Starts a run of every translation behind the site's language variants (a run asked for while one
 * is queued joins it; a run whose source did not change does nothing): call it after the variants'
 * source spaces were synced. Returns the operations started.
 */
export async function refreshLanguageVariants(app: AppContext, variants: AppliedVariant[], createdBy: string | null): Promise<string[]> {
  const started: string[] = [];
  for (const v of variants) {
    if (!v.translationId) continue;
    const t = await translations.getTranslation(app.db, v.translationId);
    if (!t) continue;
    const { op, fresh } = await withTx(app.db, async (c) => {
      await translations.getTranslation(c, t.id, true);
      return queueRun(c, t, createdBy as string);
    });
    if (fresh) await enqueue(app, op);
    started.push(op.id);
  }
  return started;
}

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

/** Keeps the external links of a stored level in the new one: after the sibling they followed, else first. */
function withLinks(level: DocsYamlNode[], stored: DocsYamlNode[] | undefined): DocsYamlNode[] {
  if (!stored) return level;
  const out = [...level];
  stored.forEach((n, i) => {
    if (n.type !== 'external-link') return;
    const before = i > 0 ? stored[i - 1].key : null;
    const at = before === null ? -1 : out.findIndex((x) => x.key === before);
    out.splice(at + 1, 0, n);
  });
  return out;
}

/** `default: true` when it is; otherwise what the file said (an explicit false stays written). */
const flag = (value: boolean, stored: boolean | undefined) => (value ? true : stored === false ? false : undefined);

/**
 * The docs.yaml config the site's current structure gives: titles, paths, descriptions, icons,
 * defaults, groups, per-language titles and variants from the site; what the site does not model
 * (external links, drafts, unknown keys, directories) from the config last applied. A site space
 * the file never had gets the directory `./<its path>` (the export writes its space there) or,
 * when its space is the translation of another, `directory: null` with its language. Entries made
 * through the API get their key now (kept on the row, as GitBook does when it saves the mapping),
 * and the config is remembered as the site's: the file written from it applies back unchanged.
 */
export async function siteConfigOf(app: AppContext, siteId: string): Promise<DocsYamlConfig> {
  const site = await getSite(app.db, siteId);
  if (!site) throw notFound(`Site "${siteId}" not found`);
  return withTx(app.db, async (c) => {
    await lockSiteStructure(c, siteId);
    const keys: { table: 'section' | 'group' | 'site-space'; id: string; key: string }[] = [];
    const config = await configOf(c, site, keys);
    for (const k of keys) {
      if (k.table === 'section') await structure.updateSection(c, k.id, { gitKey: k.key });
      else if (k.table === 'group') await structure.updateGroup(c, k.id, { gitKey: k.key });
      else await structure.updateSiteSpace(c, k.id, { gitKey: k.key });
    }
    await putSiteGitConfig(c, siteId, JSON.stringify(config));
    return config;
  });
}

async function configOf(
  db: Queryable,
  site: NonNullable<Awaited<ReturnType<typeof getSite>>>,
  newKeys: { table: 'section' | 'group' | 'site-space'; id: string; key: string }[],
): Promise<DocsYamlConfig> {
  const tree = await loadTree(db, site);
  const rows = await structure.listAllSiteSpaces(db, site.id);
  const stored = storedConfig(await getSiteGitConfig(db, site.id));
  const storedKeys = nodesByKey(stored?.site.structure ?? []);
  const spaceIds = [...new Set(rows.map((r) => r.space_id))];
  const spaceRows = new Map((await structure.spacesByIds(db, spaceIds, { counters: false })).map((s) => [s.id, s]));
  const results = new Map(
    (await translations.listOrgTranslations(db, site.organization_id)).filter((t) => t.result_space_id).map((t) => [t.result_space_id!, t]),
  );

  const usedKeys = new Set<string>([...tree.sections, ...tree.groups, ...rows].map((r) => r.git_key).filter((k): k is string => !!k));
  const keyFor = (table: 'section' | 'group' | 'site-space', row: { id: string; git_key?: string | null }, wanted: string) => {
    if (row.git_key) return row.git_key;
    const key = uniquePath(wanted, usedKeys);
    usedKeys.add(key);
    newKeys.push({ table, id: row.id, key });
    return key;
  };
  const usedDirs = new Set<string>();
  for (const n of storedKeys.values())
    if (n.type === 'space' && n.content.directory !== null) usedDirs.add(normalizeDirectory(n.content.directory));

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
      const dir = uniquePath(slugify(row.path, 'space'), usedDirs);
      usedDirs.add(dir);
      content = { directory: `./${dir}`, ...(space?.language ? { language: space.language } : {}) };
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
      children: withLinks(level(g.id, depth + 1), was?.children) as DocsYamlGroup['children'],
      extra: was?.extra,
    } satisfies DocsYamlGroup);
  };

  const level = (parent: string | null, depth: number): DocsYamlNode[] =>
    depth > 8
      ? []
      : childrenOf(tree, parent).map((item) =>
          item.type === 'site-section' ? sectionNode(item.row as structure.SectionRow) : groupNode(item.row as structure.GroupRow, depth),
        );

  let nodes: DocsYamlNode[];
  if (tree.sections.length) {
    nodes = withLinks(level(null, 0), stored?.site.structure);
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
