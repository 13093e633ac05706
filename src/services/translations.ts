// Translations (seed 001): a localized copy of a space, produced by runs of the `translation.run`
// job (src/services/translation-run.ts). Create records the translation (status `pending`) and
// starts its first run; run starts another (a run asked for while one is still queued joins it);
// PUT changes the instructions, which makes the next run retranslate everything; DELETE removes the
// translation but keeps its result space (user content). Access: src/policies/translations.ts.
import { createHash } from 'node:crypto';
import type { AppContext } from '../context.js';
import type { Principal } from '../auth/principal.js';
import { withTx, type Queryable } from '../db/pool.js';
import * as repo from '../db/repos/translations.js';
import { queuedOperationFor } from '../db/repos/operations.js';
import { getSpace } from '../db/repos/spaces.js';
import { invalid, forbidden } from '../core/errors.js';
import { pageInMemory } from '../core/pagination.js';
import { newId } from '../util/ids.js';
import { canSeeSource, requireTranslation, translationOrg } from '../policies/translations.js';
import { roleOnSpace } from '../policies/spaces.js';
import { toTranslation, translationLocation } from '../presenters/translations.js';
import { operationLocation } from '../presenters/operations.js';
import { createOperation, enqueue } from './operations.js';
import type { OperationRow } from '../db/repos/operations.js';

export const RUN_JOB = 'translation.run';
export const EMPTY_DOCUMENT = { object: 'document', data: {}, nodes: [] };

export interface InstructionsDocument {
  object: 'document';
  data: Record<string, unknown>;
  nodes: Record<string, unknown>[];
  [k: string]: unknown;
}

/** Plain text of a document: the text of its leaves, one line per block (bounded walk, no recursion). */
export function documentText(doc: { nodes?: unknown[] } | null | undefined, maxChars = 20_000): string {
  const lines: string[] = [];
  for (const block of doc?.nodes ?? []) {
    let line = '';
    const todo: unknown[] = [block];
    let steps = 0;
    while (todo.length && steps++ < 100_000) {
      const n = todo.pop() as Record<string, unknown> | null;
      if (!n || typeof n !== 'object') continue;
      if (typeof n.text === 'string') line += n.text;
      for (const key of ['leaves', 'nodes'] as const) {
        const kids = n[key];
        if (Array.isArray(kids)) for (let i = kids.length - 1; i >= 0; i--) todo.push(kids[i]);
      }
    }
    if (line.trim()) lines.push(line.trim());
  }
  return lines.join('\n').slice(0, maxChars);
}

export function instructionsHash(doc: unknown): string {
  return createHash('sha256')
    .update(documentText(doc as { nodes?: unknown[] }))
    .digest('base64url')
    .slice(0, 24);
}

export async function listTranslations(app: AppContext, p: Principal, orgId: string, q: { page?: string; limit?: number }) {
  const permissions = await translationOrg(app.db, p, orgId);
  const rows = await repo.listOrgTranslations(app.db, orgId);
  const visible: repo.TranslationRow[] = [];
  for (const t of rows) if (await canSeeSource(app.db, p, t)) visible.push(t);
  return pageInMemory(
    visible,
    q,
    (t) => [t.created_at.toISOString(), t.id],
    (t) => toTranslation(app, t, permissions),
  );
}

export async function getTranslation(app: AppContext, p: Principal, orgId: string, id: string) {
  const { translation, permissions } = await requireTranslation(app.db, p, orgId, id);
  return toTranslation(app, translation, permissions);
}

/** Queue a run, or join the run already queued for this translation (one more run, not two). */
export async function queueRun(c: Queryable, t: { id: string; organization_id: string }, createdBy: string) {
  const queued = await queuedOperationFor(c, RUN_JOB, t.id);
  if (queued) return { op: queued, fresh: false };
  const op = await createOperation(c, RUN_JOB, {
    organizationId: t.organization_id,
    payload: { translationId: t.id },
    targetType: 'translation',
    targetId: t.id,
    createdBy,
  });
  return { op, fresh: true };
}

interface CreateInput {
  language: string;
  source: { space: string; language: string };
  instructions?: InstructionsDocument;
}

export async function createTranslation(app: AppContext, p: Principal, orgId: string, input: CreateInput) {
  const permissions = await translationOrg(app.db, p, orgId);
  if (!permissions.edit) throw forbidden('Your role in this organization does not allow creating translations');
  if (input.language === input.source.language) {
    throw invalid('Invalid request: body.language: must differ from body.source.language');
  }
  const space = await getSpace(app.db, input.source.space, { counters: false });
  if (!space || space.organization_id !== orgId || !(await roleOnSpace(app.db, p.userId, space)).role) {
    throw invalid(`Invalid request: body.source.space: space "${input.source.space}" does not exist in this organization`);
  }
  const duplicate = () => invalid(`Invalid request: body.language: space "${space.id}" already has a translation into "${input.language}"`);
  if (await repo.translationExists(app.db, space.id, input.language)) throw duplicate();
  const instructions = input.instructions ?? EMPTY_DOCUMENT;
  const id = newId();
  let op: OperationRow;
  try {
    op = await withTx(app.db, async (c) => {
      await repo.insertTranslation(c, {
        id,
        orgId,
        sourceSpaceId: space.id,
        sourceLanguage: input.source.language,
        language: input.language,
        instructions,
        instructionsHash: instructionsHash(instructions),
        createdBy: p.userId,
      });
      return (await queueRun(c, { id, organization_id: orgId }, p.userId)).op;
    });
  } catch (err) {
    if ((err as { code?: string }).code === '23505') throw duplicate();
    throw err;
  }
  await enqueue(app, op);
  const row = (await repo.getTranslation(app.db, id))!;
  return {
    translation: toTranslation(app, row, permissions),
    location: translationLocation(app, row),
    operation: operationLocation(app, op.id),
  };
}

export async function updateTranslation(app: AppContext, p: Principal, orgId: string, id: string, instructions: InstructionsDocument) {
  const { translation, permissions } = await requireTranslation(app.db, p, orgId, id, 'edit');
  const hash = instructionsHash(instructions);
  await withTx(app.db, async (c) => {
    await repo.updateInstructions(c, id, instructions, hash);
    // New instructions: page hashes and memory keys include the instructions' hash, so the next
    // run translates every page again; the old memory can never be hit again.
    if (hash !== translation.instructions_hash) await repo.clearMemory(c, id);
  });
  return toTranslation(app, (await repo.getTranslation(app.db, id))!, permissions);
}

/** True when a translation was deleted (205), false when there was none to delete (204). */
export async function deleteTranslation(app: AppContext, p: Principal, orgId: string, id: string): Promise<boolean> {
  await translationOrg(app.db, p, orgId);
  const existing = await repo.getTranslation(app.db, id);
  if (!existing || existing.organization_id !== orgId) return false;
  await requireTranslation(app.db, p, orgId, id, 'edit');
  return repo.deleteTranslation(app.db, id);
}

/** Start a run; returns the operation's location. */
export async function runTranslation(app: AppContext, p: Principal, orgId: string, id: string): Promise<string> {
  const { translation } = await requireTranslation(app.db, p, orgId, id, 'edit');
  const { op, fresh } = await withTx(app.db, async (c) => {
    await repo.getTranslation(c, id, true); // one caller at a time decides whether to join the queued run
    return queueRun(c, translation, p.userId);
  });
  if (fresh) await enqueue(app, op);
  return operationLocation(app, op.id);
}
