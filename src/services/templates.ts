import type { AppContext } from '../context.js';
import type { Queryable } from '../db/pool.js';
import type { Draft } from '../content/draft.js';
import { badRequest } from '../http/errors.js';

/** Placeholder until built-in templates land. */
export async function applyTemplate(
  _app: AppContext,
  _db: Queryable,
  _spaceId: string,
  _draft: Draft,
  templateId: string,
  _params: { contentRefs?: Record<string, { kind: 'file'; file: string }> },
): Promise<void> {
  throw badRequest(`Invalid request: unknown template "${templateId}"`);
}
