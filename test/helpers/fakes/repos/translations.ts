// Fake of src/db/repos/translations.ts: translations, their page hashes and segment memory, and
// the organization glossary.
import type * as real from '../../../../src/db/repos/translations.js';
import type { TranslationRow } from '../../../../src/db/repos/translations.js';
import { copy, now, tables, type StoredTranslation } from '../store.js';

function present(t: StoredTranslation): TranslationRow {
  return { ...copy(t), total_pages: tables.translationPages.get(t.id)?.size ?? 0 };
}

function update(id: string, patch: Partial<StoredTranslation>) {
  const t = tables.translations.get(id);
  if (t) Object.assign(t, patch, { updated_at: now() });
}

export const insertTranslation: typeof real.insertTranslation = async (_db, t) => {
  if ([...tables.translations.values()].some((x) => x.source_space_id === t.sourceSpaceId && x.language === t.language))
    throw Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505' });
  const at = now();
  tables.translations.set(t.id, {
    id: t.id,
    organization_id: t.orgId,
    source_space_id: t.sourceSpaceId,
    source_language: t.sourceLanguage,
    language: t.language,
    instructions: copy(t.instructions) as Record<string, unknown>,
    instructions_hash: t.instructionsHash,
    status: 'pending',
    result_space_id: null,
    result_revision_id: null,
    runs: 0,
    total_words: 0,
    total_duration: 0,
    latest_run_duration: 0,
    latest_pages: 0,
    latest_words: 0,
    last_error: null,
    last_source: null,
    created_by: t.createdBy,
    created_at: at,
    updated_at: at,
  });
};

export const getTranslation: typeof real.getTranslation = async (_db, id) => {
  const t = tables.translations.get(id);
  return t ? present(t) : null;
};

export const listOrgTranslations: typeof real.listOrgTranslations = async (_db, orgId) =>
  [...tables.translations.values()].filter((t) => t.organization_id === orgId).map(present);

export const translationExists: typeof real.translationExists = async (_db, sourceSpaceId, language) =>
  [...tables.translations.values()].some((t) => t.source_space_id === sourceSpaceId && t.language === language);

export const updateInstructions: typeof real.updateInstructions = async (_db, id, instructions, hash) =>
  update(id, { instructions: copy(instructions) as Record<string, unknown>, instructions_hash: hash });

export const deleteTranslation: typeof real.deleteTranslation = async (_db, id) => {
  if (!tables.translations.delete(id)) return false;
  tables.translationPages.delete(id);
  tables.translationMemory.delete(id);
  return true;
};

export const setStatus: typeof real.setStatus = async (_db, id, status, error) =>
  update(id, { status, ...(error !== undefined ? { last_error: error } : {}) });

export const revertStatus: typeof real.revertStatus = async (_db, id, error) => {
  const t = tables.translations.get(id);
  if (t) update(id, { status: t.result_revision_id === null ? 'pending' : 'completed', last_error: error });
};

export const setResultSpace: typeof real.setResultSpace = async (_db, id, spaceId) => {
  const t = tables.translations.get(id);
  if (t) t.result_space_id = spaceId;
};

export const completeRun: typeof real.completeRun = async (_db, id, r) => {
  const t = tables.translations.get(id);
  if (!t) return;
  update(id, {
    status: 'completed',
    result_revision_id: r.revisionId,
    runs: t.runs + 1,
    latest_run_duration: r.durationS,
    total_duration: t.total_duration + r.durationS,
    latest_pages: r.pages,
    latest_words: r.words,
    total_words: Number(t.total_words) + r.words,
    last_error: null,
    last_source: r.source,
  });
};

const pagesOf = (id: string) => {
  if (!tables.translationPages.has(id)) tables.translationPages.set(id, new Map());
  return tables.translationPages.get(id)!;
};
const memoryOf = (id: string) => {
  if (!tables.translationMemory.has(id)) tables.translationMemory.set(id, new Map());
  return tables.translationMemory.get(id)!;
};

export const pageHashes: typeof real.pageHashes = async (_db, id) => new Map(tables.translationPages.get(id) ?? []);

export const upsertPageHashes: typeof real.upsertPageHashes = async (_db, id, pages) => {
  for (const p of pages) pagesOf(id).set(p.id, p.hash);
};

export const deletePageHashes: typeof real.deletePageHashes = async (_db, id, pageIds) => {
  for (const p of pageIds) tables.translationPages.get(id)?.delete(p);
};

export const clearPageHashes: typeof real.clearPageHashes = async (_db, id) => void tables.translationPages.delete(id);

export const memoryGet: typeof real.memoryGet = async (_db, id, keys) => {
  const m = tables.translationMemory.get(id);
  return new Map(keys.filter((k) => m?.has(k)).map((k) => [k, m!.get(k)!]));
};

export const memoryPut: typeof real.memoryPut = async (_db, id, entries) => {
  for (const [k, v] of entries) memoryOf(id).set(k, v);
};

export const clearMemory: typeof real.clearMemory = async (_db, id) => void tables.translationMemory.delete(id);

// ---- glossary

const glossaryOf = (orgId: string) =>
  [...tables.glossary.values()]
    .filter((e) => e.organization_id === orgId)
    .sort((a, b) => a.created_at.getTime() - b.created_at.getTime() || (a.id < b.id ? -1 : 1));

export const listGlossary: typeof real.listGlossary = async (_db, orgId) => glossaryOf(orgId).map(copy);

export const getGlossaryEntry: typeof real.getGlossaryEntry = async (_db, orgId, id) => {
  const e = tables.glossary.get(id);
  return e && e.organization_id === orgId ? copy(e) : null;
};

export const countGlossary: typeof real.countGlossary = async (_db, orgId) => glossaryOf(orgId).length;

export const lockGlossary: typeof real.lockGlossary = async () => {};

export const insertGlossaryEntry: typeof real.insertGlossaryEntry = async (_db, orgId, id, translations) => {
  const at = now();
  tables.glossary.set(id, { id, organization_id: orgId, translations: copy(translations), created_at: at, updated_at: at });
};

export const updateGlossaryEntry: typeof real.updateGlossaryEntry = async (_db, orgId, id, translations) => {
  const e = tables.glossary.get(id);
  if (!e || e.organization_id !== orgId) return false;
  Object.assign(e, { translations: copy(translations), updated_at: now() });
  return true;
};

export const deleteGlossaryEntry: typeof real.deleteGlossaryEntry = async (_db, orgId, id) =>
  tables.glossary.get(id)?.organization_id === orgId && tables.glossary.delete(id);
