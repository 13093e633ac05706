// A change request's description and external links (the description's ChangeRequest
// `description` and `links`), as PATCH /spaces/{spaceId}/change-requests/{id} and requestReviewers
// give them: the checks both writes share.
import type { AppContext } from '../context.js';
import type { ChangeRequestLinkRow } from '../db/repos/change-requests.js';
import { LIMITS } from '../content/limits.js';
import { invalid } from '../core/errors.js';
import { newId } from '../util/ids.js';

/** Largest description, in characters of its JSON text. */
export const MAX_DESCRIPTION_JSON = 100_000;
/** Most links of one change request (the description's ChangeRequestLinks `maxItems`). */
export const MAX_LINKS = 10;

/** A link as a request gives it (ChangeRequestLinkInput): `id` names an existing link to update; without it, a new link. */
export interface ChangeRequestLinkInput {
  id?: string;
  ref: { kind: 'url'; url: string };
  title?: string;
}

/**
 * The description as it is stored: the document as given, once it has the shape of a JSON document
 * and passes the content limits of a comment (checked and converted on the Markdown pool, as a
 * comment's document is), and its JSON text is at most MAX_DESCRIPTION_JSON characters. A 400
 * naming `field` (and the node at fault) otherwise.
 */
export async function checkDescription(app: AppContext, doc: Record<string, unknown>, field: string): Promise<Record<string, unknown>> {
  // The shape and the nesting first (iterative, on the pool's side): the size below stringifies it.
  const out = await app.markdown.fromDocument(doc, LIMITS.commentChars);
  if ('violation' in out)
    throw invalid(`Invalid request: ${field}${out.violation.path ? `.${out.violation.path}` : ''}: ${out.violation.message}`);
  const size = JSON.stringify(doc).length;
  if (size > MAX_DESCRIPTION_JSON)
    throw invalid(
      `Invalid request: ${field}: ${size.toLocaleString('en-US')} characters of JSON, more than the ${MAX_DESCRIPTION_JSON.toLocaleString('en-US')} a description may have`,
    );
  return doc;
}

/**
 * The links a change request keeps after a write giving `given`: the list given replaces the one
 * kept (a link left out is removed), in the order given; a link with an `id` updates that link (it
 * must be one of `current`), one without gets a new id. A 400 naming `field` otherwise.
 */
export function resolveLinks(
  current: readonly ChangeRequestLinkRow[],
  given: readonly ChangeRequestLinkInput[],
  field: string,
): ChangeRequestLinkRow[] {
  if (given.length > MAX_LINKS) throw invalid(`Invalid request: ${field}: at most ${MAX_LINKS} links`);
  const known = new Set(current.map((l) => l.id));
  const seen = new Set<string>();
  return given.map((l, i) => {
    if (l.id !== undefined) {
      if (!known.has(l.id))
        throw invalid(`Invalid request: ${field}[${i}].id: "${l.id}" is not a link of this change request (omit the id to add a link)`);
      if (seen.has(l.id)) throw invalid(`Invalid request: ${field}[${i}].id: "${l.id}" is given twice`);
      seen.add(l.id);
    }
    return { id: l.id ?? newId(), ref: { kind: 'url', url: l.ref.url }, ...(l.title !== undefined ? { title: l.title } : {}) };
  });
}

/**
 * Whether a description says something (the `require_change_request_description` merge rule): a
 * leaf with text other than white space, or a block that is not a paragraph (an image, a code
 * block...). Iterative, over a document already bounded on write.
 */
export function descriptionHasContent(doc: Record<string, unknown> | null): boolean {
  if (!doc) return false;
  const stack: unknown[] = Array.isArray(doc.nodes) ? [...doc.nodes] : [];
  while (stack.length) {
    const n = stack.pop();
    if (!n || typeof n !== 'object') continue;
    const node = n as { object?: unknown; type?: unknown; text?: unknown; leaves?: unknown; nodes?: unknown };
    if (typeof node.text === 'string' && node.text.trim()) return true;
    if (node.object === 'block' && node.type !== 'paragraph') return true;
    if (Array.isArray(node.leaves)) stack.push(...node.leaves);
    if (Array.isArray(node.nodes)) stack.push(...node.nodes);
  }
  return false;
}
