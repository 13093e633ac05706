import type { AppContext } from '../context.js';
import type { TranslationRow } from '../db/repos/translations.js';
import { appUrls } from './urls.js';

/** What the caller may do on a translation (src/policies/translations.ts). */
export interface TranslationPermissions {
  view: boolean;
  edit: boolean;
}

export function translationLocation(app: AppContext, t: Pick<TranslationRow, 'id' | 'organization_id'>): string {
  return appUrls(app).api(`/orgs/${t.organization_id}/translations/${t.id}`);
}

export function toTranslation(app: AppContext, t: TranslationRow, permissions: TranslationPermissions) {
  return {
    object: 'translation',
    id: t.id,
    status: t.status,
    source: { space: t.source_space_id, language: t.source_language },
    language: t.language,
    instructions: t.instructions,
    ...(t.result_space_id && t.result_revision_id
      ? { result: { space: t.result_space_id, revision: t.result_revision_id, language: t.language } }
      : {}),
    createdAt: t.created_at.toISOString(),
    updatedAt: t.updated_at.toISOString(),
    stats: {
      runs: t.runs,
      totalWords: Number(t.total_words),
      totalPages: Number(t.total_pages),
      totalDuration: t.total_duration,
      latestRunDuration: t.latest_run_duration,
      latestPages: t.latest_pages,
      latestWords: t.latest_words,
    },
    permissions,
    urls: { location: translationLocation(app, t) },
  };
}
