// Make a result space's draft mirror a source revision: the same page ids, tree and order, the
// same non-text fields and files, with translated title, description and body for the pages
// given and the result's current text kept for the others. Pages gone from the source go; moves
// and reorders are applied without touching any text.
import { createHash } from 'node:crypto';
import { ASSIGNABLE_FIELDS, type Draft, type PageFields } from '../content/draft.js';
import { canonicalJson } from '../content/objects.js';
import type { Snapshot } from '../content/snapshot.js';
import type { PageNode } from '../content/types.js';

export interface TranslatedPage {
  title: string;
  description?: string;
  markdown: string;
}

/** What a page's translation depends on: its text, the instructions, the provider and the target. */
export function pageSourceHash(page: PageNode, context: string): string {
  return createHash('sha256')
    .update(canonicalJson({ t: page.title, d: page.description ?? null, b: page.body ?? null, c: context }))
    .digest('base64url')
    .slice(0, 32);
}

const TEXT_FIELDS = new Set(['title', 'description']);

/** The source's non-text fields that differ from the result page (null: remove). */
function fieldPatch(source: PageNode, result: Readonly<Omit<PageNode, 'children'>>): PageFields {
  const patch: Record<string, unknown> = {};
  for (const key of ASSIGNABLE_FIELDS) {
    if (TEXT_FIELDS.has(key)) continue;
    const a = (source as unknown as Record<string, unknown>)[key];
    const b = (result as unknown as Record<string, unknown>)[key];
    if (canonicalJson(a ?? null) !== canonicalJson(b ?? null)) patch[key] = a === undefined ? null : a;
  }
  if (source.slug !== result.slug) patch.slug = source.slug;
  return patch as PageFields;
}

function allFields(source: PageNode): PageFields {
  const out: Record<string, unknown> = {};
  for (const key of ASSIGNABLE_FIELDS) {
    const v = (source as unknown as Record<string, unknown>)[key];
    if (v !== undefined) out[key] = v;
  }
  return out as PageFields;
}

/** Mirror `source` into `draft` (opened on the result's current revision `base`). */
export function mirrorInto(draft: Draft, base: Snapshot, source: Snapshot, translated: Map<string, TranslatedPage>): void {
  // Pages the source no longer has (a subtree goes with its root).
  for (const p of base.ordered) if (!source.byId.has(p.node.id) && draft.has(p.node.id)) draft.deletePage(p.node.id);
  for (const tp of source.ordered) {
    const node = tp.node;
    const siblings = tp.parentId === null ? source.pages : source.byId.get(tp.parentId)!.children;
    const index = siblings.indexOf(tp);
    const t = translated.get(node.id);
    if (!draft.has(node.id)) {
      draft.insertPage(
        tp.parentId,
        { ...allFields(node), id: node.id, slug: node.slug, title: t?.title ?? node.title, ...(t ? textFields(t) : {}) },
        index,
      );
      continue;
    }
    const patch: PageFields = { ...fieldPatch(node, draft.page(node.id)!), ...(t ? textFields(t) : {}) };
    if (Object.keys(patch).length) draft.updatePage(node.id, patch);
    if (draft.parentOf(node.id) !== tp.parentId || draft.childIds(tp.parentId)[index] !== node.id) {
      draft.movePage(node.id, tp.parentId, index);
    }
  }
  for (const f of base.files) if (!source.filesById.has(f.id)) draft.deleteFile(f.id);
  for (const f of source.files) {
    if (draft.hasFile(f.id)) continue;
    const { hash: _h, kind: _k, createdAt: _c, ...file } = f;
    draft.insertFile(file);
  }
  if (canonicalJson(base.root.variables) !== canonicalJson(source.root.variables)) draft.setVariables(source.root.variables);
}

function textFields(t: TranslatedPage): PageFields {
  return { title: t.title, description: t.description ?? null, markdown: t.markdown };
}
