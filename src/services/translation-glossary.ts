// The organization's translation glossary (`/orgs/{org}/translations-glossary`, 0.202.0): entries
// mapping languages to the term to use in each. Members read it; members who may create content
// change it, in batches of insert/update/delete operations applied all or nothing. Each run gives
// the provider the entries that have both its source and target language (the OpenAI-compatible
// adapter puts them in its prompt); a glossary change makes the next run retranslate.
import { createHash } from 'node:crypto';
import type { AppContext } from '../context.js';
import type { Principal } from '../auth/principal.js';
import { withTx, type Queryable } from '../db/pool.js';
import * as repo from '../db/repos/translations.js';
import { invalid, forbidden, notFound } from '../core/errors.js';
import { pageInMemory } from '../core/pagination.js';
import { newId } from '../util/ids.js';
import { translationOrg } from '../policies/translations.js';
import { appUrls } from '../presenters/urls.js';

/** Most entries one organization's glossary holds. */
export const MAX_GLOSSARY_ENTRIES = 5000;

export type GlossaryOperation =
  | { type: 'insert'; translations: Record<string, string> }
  | { type: 'update'; id: string; translations: Record<string, string> }
  | { type: 'delete'; id: string };

function toEntry(app: AppContext, e: repo.GlossaryRow) {
  return {
    object: 'glossary-entry',
    id: e.id,
    translations: e.translations,
    createdAt: e.created_at.toISOString(),
    updatedAt: e.updated_at.toISOString(),
    urls: { location: appUrls(app).api(`/orgs/${e.organization_id}/translations-glossary/${e.id}`) },
  };
}

export async function listGlossary(app: AppContext, p: Principal, orgId: string, q: { page?: string; limit?: number; orderBy?: string }) {
  await translationOrg(app.db, p, orgId);
  const rows = await repo.listGlossary(app.db, orgId);
  // orderBy: sort by the term in that language (entries without it last).
  const key = (e: repo.GlossaryRow) =>
    q.orderBy
      ? [e.translations[q.orderBy] === undefined ? 1 : 0, e.translations[q.orderBy] ?? '', e.id]
      : [e.created_at.toISOString(), e.id];
  return pageInMemory(rows, q, key, (e) => toEntry(app, e));
}

export async function getGlossaryEntry(app: AppContext, p: Principal, orgId: string, id: string) {
  await translationOrg(app.db, p, orgId);
  const e = await repo.getGlossaryEntry(app.db, orgId, id);
  if (!e) throw notFound(`Glossary entry "${id}" not found`);
  return toEntry(app, e);
}

export async function updateGlossary(app: AppContext, p: Principal, orgId: string, operations: GlossaryOperation[]): Promise<void> {
  const perms = await translationOrg(app.db, p, orgId);
  if (!perms.edit) throw forbidden('Your role in this organization does not allow changing the glossary');
  await withTx(app.db, async (c) => {
    await repo.lockGlossary(c, orgId);
    let size = await repo.countGlossary(c, orgId);
    for (const [i, op] of operations.entries()) {
      if (op.type === 'insert') {
        if (++size > MAX_GLOSSARY_ENTRIES)
          throw invalid(`Invalid request: body.operations: a glossary holds at most ${MAX_GLOSSARY_ENTRIES} entries`);
        await repo.insertGlossaryEntry(c, orgId, newId(), op.translations);
      } else if (op.type === 'update') {
        if (!(await repo.updateGlossaryEntry(c, orgId, op.id, op.translations))) {
          throw invalid(`Invalid request: body.operations[${i}].id: glossary entry "${op.id}" not found`);
        }
      } else if (await repo.deleteGlossaryEntry(c, orgId, op.id)) size--;
    }
  });
}

/** The glossary pairs for one language pair, and a hash of them (part of what a page's translation depends on). */
export async function glossaryFor(db: Queryable, orgId: string, source: string, target: string) {
  const pairs = (await repo.listGlossary(db, orgId))
    .filter((e) => e.translations[source] && e.translations[target])
    .map((e) => ({ source: e.translations[source], target: e.translations[target] }))
    .sort((a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : 0));
  const hash = pairs.length ? createHash('sha256').update(JSON.stringify(pairs)).digest('base64url').slice(0, 24) : '';
  return { pairs, hash };
}
