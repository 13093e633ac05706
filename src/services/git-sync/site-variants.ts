// Whole sites from docs.yaml: the spaces a config's entries show (one per `content.directory`) and
// its language variants (translations of their section's default space), resolved before the
// structure's transaction; and the runs that keep the variants up to date (see site-config.ts).

import type { AppContext } from '../../context.js';
import { withTx } from '../../db/pool.js';
import * as structure from '../../db/repos/site-structure.js';
import { getSpace } from '../../db/repos/spaces.js';
import * as translations from '../../db/repos/translations.js';
import { invalid } from '../../core/errors.js';
import { newId } from '../../util/ids.js';
import { TRANSLATION_LANGUAGES } from '../../translate/index.js';
import { normalizeDirectory, spacesOf, type DocsYamlConfig } from '../../git/format/docs-yaml.js';
import { EMPTY_DOCUMENT, instructionsHash, queueRun } from '../translations.js';
import { createResultSpace } from '../translation-run.js';
import { enqueue } from '../operations.js';
import type { OperationRow } from '../../db/repos/operations.js';
import { siteVariantTranslations } from '../../db/repos/git-syncs.js';
import type { AppliedSiteSpace, AppliedVariant, ApplySiteConfigInput } from './site-config-types.js';

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

export async function resolveSpaces(
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

/**
 * Starts a run of every translation behind the site's language variants (a run asked for while one
 * is queued joins it; a run whose source did not change does nothing): call it after the variants'
 * source spaces were synced. Returns the operations started.
 */
export async function refreshLanguageVariants(app: AppContext, variants: AppliedVariant[], createdBy: string | null): Promise<string[]> {
  return refreshTranslations(
    app,
    variants.map((v) => v.translationId).filter((id): id is string => !!id),
    createdBy,
  );
}

/** Starts a run of each translation given (see refreshLanguageVariants); returns the operations started. */
export async function refreshTranslations(app: AppContext, translationIds: string[], createdBy: string | null): Promise<string[]> {
  const started: string[] = [];
  for (const id of translationIds) {
    const t = await translations.getTranslation(app.db, id);
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

/**
 * After a space synced into a site from docs.yaml imported new content: the language variants that
 * translate it (on sites synced from docs.yaml) run again. A failure is logged: the next site run
 * starts them too.
 */
export async function refreshVariantsOfSource(app: AppContext, sourceSpaceId: string): Promise<void> {
  try {
    const rows = await siteVariantTranslations(app.db, sourceSpaceId);
    for (const r of rows) await refreshTranslations(app, [r.translation_id], r.created_by);
  } catch (err) {
    app.log.error({ err, sourceSpaceId }, 'could not refresh the language variants of a synced space');
  }
}
