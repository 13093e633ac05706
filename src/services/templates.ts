// Built-in space templates (src/content/templates/): applied when a space is created with
// `template: {id, params}` and by POST /v1/spaces/{spaceId}/content/template.
//
// Applying to a space that already has content APPENDS the template's pages after the existing
// top-level pages (nothing is overwritten or removed; a clashing slug gets a `-2` suffix), in one
// new revision. Pages get fresh ids each time, and links between them are written as `/pages/<id>`,
// so they stay valid when pages are renamed or moved.
//
// With `changeRequestId`, the pages are appended to that change request's content instead.
//
// `params.contentRefs` fills a template's named slots (see GET /v1/templates) with a file of the
// space's current revision (an image file): an `image` slot becomes an image in a page, a `cover`
// slot the cover of a page. A slot left out is simply omitted (no broken image).
import type { AppContext } from '../context.js';
import type { Principal } from '../auth/principal.js';
import { withTx } from '../db/pool.js';
import type { Draft } from '../content/draft.js';
import { editChangeRequestContent, editMainContent } from '../content/commit.js';
import { getTemplate, instantiateTemplate, describeTemplate, TEMPLATES, type TemplatePageInstance } from '../content/templates/index.js';
import { invalid } from '../core/errors.js';
import { newId } from '../util/ids.js';
import { requireSpace } from '../policies/spaces.js';
import { afterChangeRequestChange, afterContentChange } from './content-hooks.js';
import { requireChangeRequest, requireEditable } from '../policies/change-requests.js';

export interface TemplateContentRef {
  kind: 'file';
  file: string;
  /** The public ContentRefFile may name the file's space; only the space itself is accepted. */
  space?: string;
}

export interface TemplateParams {
  contentRefs?: Record<string, TemplateContentRef>;
}

export function listTemplates() {
  const items = [...TEMPLATES.values()].map(describeTemplate);
  return { items, count: items.length };
}

/**
 * Add a template's pages to `draft` (the space's content being written in the caller's transaction).
 * `field` is where the template sits in the request body, for error messages: `body.template` when
 * creating a space (the default, as src/services/spaces.ts calls it), `body` for the apply route.
 * Throws 400 (naming the field) for an unknown template, an unknown slot or a missing file; the
 * draft is untouched when it throws.
 */
export async function applyTemplate(
  spaceId: string,
  draft: Draft,
  templateId: string,
  params: TemplateParams,
  opts: { field?: string } = {},
): Promise<void> {
  const field = opts.field ?? 'body.template';
  const template = getTemplate(templateId);
  if (!template) {
    throw invalid(`Invalid request: ${field}.id: unknown template "${templateId}" (available: ${[...TEMPLATES.keys()].join(', ')})`);
  }
  const files: Record<string, string> = {};
  for (const [name, ref] of Object.entries(params.contentRefs ?? {})) {
    const where = `${field}.params.contentRefs.${name}`;
    const slot = template.slots[name];
    if (!slot) {
      const accepted = Object.keys(template.slots);
      throw invalid(
        `Invalid request: ${where}: template "${templateId}" has no content ref "${name}" (accepted: ${accepted.join(', ') || 'none'})`,
      );
    }
    if (ref.kind !== 'file') throw invalid(`Invalid request: ${where}.kind: must be "file"`);
    if (ref.space !== undefined && ref.space !== spaceId)
      throw invalid(`Invalid request: ${where}.space: only files of this space can be used`);
    const file = draft.base?.filesById.get(ref.file);
    if (!file || !draft.hasFile(ref.file)) throw invalid(`Invalid request: ${where}: file "${ref.file}" does not exist in the space`);
    if (!file.contentType.startsWith('image/')) {
      throw invalid(`Invalid request: ${where}: file "${ref.file}" is ${file.contentType}, not an image (${slot.description})`);
    }
    files[name] = ref.file;
  }
  const pages = instantiateTemplate(template, { files, date: new Date().toISOString().slice(0, 10), newId });
  const insert = (parentId: string | null, p: TemplatePageInstance) => {
    draft.insertPage(parentId, {
      id: p.id,
      title: p.title,
      emoji: p.emoji,
      description: p.description,
      markdown: p.markdown,
      cover: p.cover,
      layout: p.layout,
    });
    for (const c of p.children) insert(p.id, c);
  };
  for (const p of pages) insert(null, p);
}

/**
 * POST /v1/spaces/{spaceId}/content/template: append a template's pages to the main content, or to
 * a change request's content when `changeRequestId` is given (the CR gets one new revision; main is
 * untouched; content refs must then be files of the change request's content). Needs `edit`.
 */
export async function applyTemplateToSpace(
  app: AppContext,
  p: Principal,
  spaceId: string,
  body: { id: string; params?: TemplateParams; changeRequestId?: string },
): Promise<void> {
  const apply = (draft: Draft) => applyTemplate(spaceId, draft, body.id, body.params ?? {}, { field: 'body' });
  if (body.changeRequestId !== undefined) {
    const { cr } = await requireChangeRequest(app, p, spaceId, body.changeRequestId, 'edit');
    await withTx(app.db, (c) => editChangeRequestContent(c, spaceId, cr.id, apply, { createdBy: p.userId }, { check: requireEditable }));
    await afterChangeRequestChange(app, spaceId, cr.id);
    return;
  }
  await requireSpace(app.db, p, spaceId, 'edit');
  // A locked space takes no direct edits (the writer refuses it; a change request may still be
  // prepared and merged later).
  await withTx(app.db, (c) => editMainContent(c, spaceId, apply, { createdBy: p.userId }));
  await afterContentChange(app, spaceId);
}
