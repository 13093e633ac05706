import { randomBytes } from 'node:crypto';
import type { AppContext } from '../context.js';
import type { Principal } from '../auth/principal.js';
import type { Role } from '../core/roles.js';
import { dropForeignGrants } from '../db/repos/grants.js';
import { withTx } from '../db/pool.js';
import * as spaces from '../db/repos/spaces.js';
import type { SpaceRow } from '../db/repos/spaces.js';
import { insertRevision, getRevision } from '../db/repos/revisions.js';
import { copySpaceBlobs } from '../db/repos/space-blobs.js';
import { nextPosition } from '../db/repos/siblings.js';
import { copyIndex } from '../db/repos/search.js';
import { getSpecBySlug, getVersion } from '../db/repos/openapi.js';
import { copyObjects } from '../content/objects.js';
import { Draft } from '../content/draft.js';
import { commitDraft } from '../content/commit.js';
import { invalid, conflict, forbidden } from '../core/errors.js';
import { newId } from '../util/ids.js';
import { requireOrg } from '../policies/organizations.js';
import { requireSpace, spacePermissions, accessContext } from '../policies/spaces.js';
import { requireParent } from '../policies/collections.js';
import { toSpace } from '../presenters/spaces.js';
import { afterContentChange } from './content-hooks.js';
import { applyTemplate } from './templates.js';
import { placeAmongSiblings, type Position } from './positions.js';
import { setSpaceMergeRules, type MergeRules } from './reviews.js';

/** The Space object as a caller with `role` on it sees it. */
export function presentSpace(app: AppContext, s: SpaceRow, role: Role | null, opts: { shareKey?: string } = {}) {
  return toSpace(app, s, spacePermissions(role), opts);
}

interface CreateSpaceInput {
  title?: string;
  emoji?: string;
  parent?: string;
  language?: string;
  editMode?: 'live' | 'locked';
  visibility?: string;
  empty?: boolean;
  template?: { id: string; params?: { contentRefs?: Record<string, { kind: 'file'; file: string }> } };
  /** An OpenAPI computed source (ComputedContentSourceRevisionOpenAPI): the space's content is computed from the spec. */
  computedSource?: {
    type: 'builtin:openapi';
    dependencies: { spec: { ref: { kind: 'openapi'; spec: string } } };
    props: { models: boolean; downloadLink?: boolean; grouping?: 'by-tag' | 'by-operation' };
  };
}

export async function createSpace(app: AppContext, p: Principal, orgId: string, input: CreateSpaceInput) {
  await requireOrg(app.db, p, orgId, 'createContent');
  if (input.parent) await requireParent(app.db, await accessContext(app.db, orgId, p.userId), orgId, input.parent, 'body.parent');
  if (input.visibility === 'in-collection' && !input.parent)
    throw invalid('Invalid request: body.visibility: in-collection needs a parent collection');
  const sources = [input.template && 'template', input.computedSource && 'computedSource', input.empty && 'empty'].filter(Boolean);
  if (sources.length > 1)
    throw invalid(`Invalid request: body: give at most one of template, computedSource and empty (got ${sources.join(', ')})`);
  const computedPages = input.computedSource ? await computedSourcePages(app, orgId, input.computedSource) : null;
  const id = await withTx(app.db, async (c) => {
    const id = newId();
    await spaces.insertSpace(c, {
      id,
      orgId,
      parentId: input.parent ?? null,
      title: input.title ?? '',
      emoji: input.emoji ?? '',
      visibility: input.visibility ?? (input.parent ? 'in-collection' : 'private'),
      editMode: input.editMode ?? 'live',
      defaultLevel: 'inherit',
      language: input.language ?? null,
      position: await nextPosition(c, orgId, input.parent ?? null),
      revisionId: '',
      shareKey: randomBytes(12).toString('base64url'),
      createdBy: p.userId,
    });
    const draft = new Draft(null);
    if (input.template) await applyTemplate(id, draft, input.template.id, input.template.params ?? {});
    else if (computedPages) for (const page of computedPages) draft.insertPage(null, page);
    else if (!input.empty) draft.insertPage(null, { title: 'Introduction', markdown: '' });
    const revision = await commitDraft(c, id, draft, { createdBy: p.userId });
    await spaces.setSpaceRevision(c, id, revision.id);
    return id;
  });
  await afterContentChange(app, id);
  return getSpace(app, p, id);
}

/**
 * The pages a space created from an OpenAPI computed source starts with: computed pages keeping
 * the source, evaluated when read from the spec's latest version. Split by tag (the description's
 * default "by-tag" grouping) when the spec has a processed version with more than one group: an
 * overview page, one page per tag (the ComputedContentSourceDocumentOpenAPI `doc`/`page` props say
 * which), and the models when asked; otherwise one page with the whole reference.
 */
async function computedSourcePages(app: AppContext, orgId: string, source: NonNullable<CreateSpaceInput['computedSource']>) {
  const slug = source.dependencies.spec.ref.spec;
  const spec = await getSpecBySlug(app.db, orgId, slug);
  if (!spec)
    throw invalid(`Invalid request: body.computedSource.dependencies.spec.ref.spec: no OpenAPI spec "${slug}" in this organization`);
  const version = spec.last_version ? await getVersion(app.db, spec.id, spec.last_version) : null;
  const groups = (version?.reference_groups ?? []) as { key: string; title: string }[];
  const page = (title: string, props: Record<string, unknown>) => ({
    title: title.slice(0, 100) || slug,
    type: 'computed' as const,
    computed: { type: source.type, dependencies: { spec: { ref: source.dependencies.spec.ref } }, props: { ...source.props, ...props } },
  });
  const title = String(version?.title ?? slug);
  if (groups.length < 2) return [page(title, {})];
  return [
    page(title, { doc: 'info' }),
    ...groups.map((g) => page(g.title, { doc: 'tag', page: g.key })),
    ...(source.props.models ? [page('Models', { doc: 'models' })] : []),
  ];
}

export async function getSpace(app: AppContext, p: Principal, spaceId: string, opts: { shareKey?: string } = {}) {
  const { space, role } = await requireSpace(app.db, p, spaceId, 'read', { counters: true });
  return presentSpace(app, space, role, opts);
}

interface SpacePatch {
  title?: string;
  emoji?: string;
  editMode?: 'live' | 'locked';
  defaultLevel?: Role | 'inherit' | null;
  language?: string;
  visibility?: string;
  mergeRules?: MergeRules;
}

export async function updateSpace(app: AppContext, p: Principal, spaceId: string, { mergeRules, ...patch }: SpacePatch) {
  const adminOnly =
    patch.editMode !== undefined || patch.defaultLevel !== undefined || patch.visibility !== undefined || mergeRules !== undefined;
  const { space } = await requireSpace(app.db, p, spaceId, adminOnly ? 'admin' : 'edit');
  if (patch.visibility === 'in-collection' && !space.parent_id)
    throw invalid('Invalid request: body.visibility: in-collection needs a parent collection');
  if (mergeRules !== undefined) await setSpaceMergeRules(app.db, spaceId, mergeRules);
  await spaces.updateSpace(app.db, spaceId, patch);
  return getSpace(app, p, spaceId);
}

/** Soft delete (admins). 204 also when the space does not exist or is already deleted. */
export async function deleteSpace(app: AppContext, p: Principal, spaceId: string) {
  const existing = await spaces.getSpace(app.db, spaceId);
  if (!existing) return;
  // Deleted ones included: a concurrent delete between the read above and this check must not
  // turn this one into a 404 (deleting answers 204 whether or not the space still existed).
  await requireSpace(app.db, p, spaceId, 'admin', { includeDeleted: true });
  // In a transaction so a deadlock with a concurrent writer is retried rather than surfaced.
  await withTx(app.db, (c) => spaces.softDeleteSpace(c, spaceId, p.userId));
}

/** Restore a soft-deleted space within the window (admins). Restoring a live space returns it. */
export async function restoreSpace(app: AppContext, p: Principal, spaceId: string) {
  const { space } = await requireSpace(app.db, p, spaceId, 'admin', { includeDeleted: true });
  if (space.deleted_at) {
    // The restore window is the retention period: the purge job removes the space after it.
    const days = app.config.purge.retentionDays;
    const ageMs = Date.now() - space.deleted_at.getTime();
    if (ageMs > days * 86_400_000) {
      throw conflict(`Space "${spaceId}" was deleted more than ${days} days ago and can no longer be restored`);
    }
    await spaces.restoreSpace(app.db, spaceId);
  }
  return getSpace(app, p, spaceId);
}

/** A full copy of the content and files; file bytes are shared, not copied. */
export async function duplicateSpace(app: AppContext, p: Principal, spaceId: string) {
  const { space } = await requireSpace(app.db, p, spaceId, 'read');
  await requireOrg(app.db, p, space.organization_id, 'createContent');
  const id = await withTx(app.db, async (c) => {
    const id = newId();
    const source = await getRevision(c, spaceId, space.revision_id);
    await spaces.insertSpace(c, {
      id,
      orgId: space.organization_id,
      parentId: space.parent_id,
      title: `${space.title} (copy)`.slice(0, 50),
      emoji: space.emoji,
      visibility: space.visibility,
      editMode: space.edit_mode,
      defaultLevel: space.default_level,
      language: space.language,
      position: await nextPosition(c, space.organization_id, space.parent_id),
      revisionId: '',
      shareKey: randomBytes(12).toString('base64url'),
      createdBy: p.userId,
    });
    await copyObjects(c, spaceId, id);
    await copySpaceBlobs(c, spaceId, id);
    const revision = await insertRevision(c, { id: newId(), spaceId: id, rootHash: source!.root_hash, parents: [], createdBy: p.userId });
    await spaces.setSpaceRevision(c, id, revision.id);
    await copyIndex(c, spaceId, id); // same content: no page is parsed again in this request
    return id;
  });
  await afterContentChange(app, id);
  return getSpace(app, p, id);
}

export async function moveSpace(app: AppContext, p: Principal, spaceId: string, body: { parent?: string | null; position?: Position }) {
  const { space, ctx } = await requireSpace(app.db, p, spaceId, 'admin');
  const parent = body.parent === undefined ? space.parent_id : body.parent;
  // Moving into a collection needs create there, as for collections (a hidden one reads as missing).
  if (parent && parent !== space.parent_id) await requireParent(app.db, ctx, space.organization_id, parent, 'body.parent');
  await withTx(app.db, async (c) => {
    const position = await placeAmongSiblings(c, space.organization_id, parent, { type: 'space', id: spaceId }, body.position);
    await spaces.setSpacePlace(c, spaceId, parent, position);
    if (!parent && space.visibility === 'in-collection') await spaces.updateSpace(c, spaceId, { visibility: 'private' });
  });
  return getSpace(app, p, spaceId);
}

/** Move a space to another organization; the caller must administer both. */
export async function transferSpace(app: AppContext, p: Principal, spaceId: string, targetOrgId: string) {
  const { space } = await requireSpace(app.db, p, spaceId, 'admin');
  const source = await requireOrg(app.db, p, space.organization_id, 'view');
  if (!source.permissions.admin) throw forbidden('Only an admin of the source organization can transfer a space');
  await requireOrg(app.db, p, targetOrgId, 'admin');
  if (targetOrgId === space.organization_id) return getSpace(app, p, spaceId);
  await withTx(app.db, async (c) => {
    await spaces.setSpaceOrganization(c, spaceId, targetOrgId, await nextPosition(c, targetOrgId, null));
    await dropForeignGrants(c, 'space', [spaceId], targetOrgId);
    if (space.visibility === 'in-collection') await spaces.updateSpace(c, spaceId, { visibility: 'private' });
  });
  return getSpace(app, p, spaceId);
}
