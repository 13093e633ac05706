import type { Queryable } from '../db/pool.js';
import { ASSIGNABLE_FIELDS, type Draft, type PageFields } from './draft.js';
import { canonicalJson, getObjects } from './objects.js';
import { loadBody, type Snapshot, type TreePage } from './snapshot.js';
import type { BodyNode, Hash, PageNode } from './types.js';

export interface MergeConflict {
  pageId: string;
  title: string;
  reason: string;
}

/**
 * A line-based three-way merge of a page's text (node-diff3): the merged text, or why not. Passed
 * in: it is quadratic in the lines that differ, so the service runs it off the event loop, within
 * a time limit (src/render/pool.ts).
 */
type TextMerger = (base: string, ours: string, theirs: string) => Promise<{ merged: string } | { conflict: string }>;

/** Page fields a merge compares and carries over (everything but identity, tree links and timestamps). */
const FIELDS = [...ASSIGNABLE_FIELDS, 'slug'] as const;

type Field = (typeof FIELDS)[number];

const fieldValue = (n: PageNode, f: Field) => canonicalJson(n[f] ?? null);
const sameContent = (a: PageNode, b: PageNode) => a.body === b.body && FIELDS.every((f) => fieldValue(a, f) === fieldValue(b, f));

type Place = { parent: string | null; after: string | null };

/**
 * Index of each page among its siblings, per sibling list. A list is never modified once its
 * snapshot is built (snapshots share unchanged subtrees, lists included), so the index of a list
 * is computed once, and only for the lists a merge looks at.
 */
const siblingIndex = new WeakMap<TreePage[], Map<TreePage, number>>();

/** Pages of a sibling list by id, computed once per list (lists never change, as above). */
const listIds = new WeakMap<TreePage[], Map<string, TreePage>>();

/**
 * The page of `id` in `s` and the list it sits in. `near` is the list of `s` where the page sits
 * unless it moved or is not there (the other side's counterpart of the list being walked): looked
 * up first, since ids are unique in a snapshot, sparing an index of every page of a large one.
 */
function locate(s: Snapshot, id: string, near: TreePage[] | undefined): { page: TreePage; list: TreePage[] } | undefined {
  if (near) {
    let ids = listIds.get(near);
    if (!ids) listIds.set(near, (ids = new Map(near.map((p) => [p.node.id, p]))));
    const page = ids.get(id);
    if (page) return { page, list: near };
  }
  const page = s.byId.get(id);
  return page && { page, list: page.parentId === null ? s.pages : s.byId.get(page.parentId)!.children };
}

/** Where a page sits: its parent and the sibling before it in `list`, its list. */
function place(list: TreePage[], p: TreePage): Place {
  let index = siblingIndex.get(list);
  if (!index) {
    index = new Map(list.map((x, i) => [x, i]));
    siblingIndex.set(list, index);
  }
  const i = index.get(p)!;
  return { parent: p.parentId, after: i > 0 ? list[i - 1].node.id : null };
}
const samePlace = (a: Place, b: Place) => a.parent === b.parent && a.after === b.after;

function fieldsOf(n: PageNode): PageFields {
  const out: Record<string, unknown> = {};
  for (const f of FIELDS) out[f] = n[f] ?? null;
  if (!n.hidden) out.hidden = false;
  if (!n.noIndex) out.noIndex = false;
  if (!n.noRobotsIndex) out.noRobotsIndex = false;
  return out as PageFields;
}

/**
 * Apply "their" changes since `base` onto `draft`, which was opened on "our" revision: a three-way
 * merge at page level (insertions, deletions, moves, each metadata field) and, when both sides
 * changed one page's text, a line-based diff3 of the bodies. Non-overlapping changes combine;
 * anything that cannot be combined is returned as a conflict naming the page (the caller then
 * commits nothing).
 */
export async function mergeInto(
  db: Queryable,
  spaceId: string,
  base: Snapshot,
  ours: Snapshot,
  theirs: Snapshot,
  draft: Draft,
  mergeText: TextMerger,
): Promise<MergeConflict[]> {
  const conflicts: MergeConflict[] = [];
  const conflict = (p: PageNode, reason: string) => conflicts.push({ pageId: p.id, title: p.title, reason });
  // Pages of ours the walks find are made known to the draft opened on it (it then finds the pages
  // it changes without indexing all of ours).
  const inOursOf = (id: string, near: TreePage[] | undefined) => {
    const found = locate(ours, id, near);
    if (found && draft.base === ours) draft.knowSourcePage(found.page);
    return found;
  };

  // 0. The bodies of their changed pages, in one statement: the walk below reads them one page
  //    at a time, in tree order, from the object cache.
  const bodies: Hash[] = [];
  changedBodies(base, theirs.pages, base.pages, bodies);
  if (bodies.length) await getObjects(db, spaceId, bodies);

  // 1. Insertions, moves and content changes, in their tree order (a parent before its children,
  //    a sibling before the one placed after it). A page with the same hash in the same place as in
  //    base has the same subtree (children are part of the hash): nothing below it to apply either,
  //    so only the paths that changed are walked.
  const apply = async (list: TreePage[], parent: string | null, baseNear?: TreePage[], oursNear?: TreePage[]) => {
    for (let i = 0; i < list.length; i++) {
      const t = list[i];
      // The very page object base has at the same index after the same sibling (snapshots share
      // unchanged subtrees): same node, subtree and place, nothing to apply. Spares the lookups
      // below for the unchanged siblings of a changed page (most of a wide list).
      if (baseNear?.[i] === t && (i === 0 || baseNear[i - 1].node.id === list[i - 1].node.id)) continue;
      const id = t.node.id;
      const inBase = locate(base, id, baseNear);
      const inOurs = inOursOf(id, oursNear);
      const [b, o] = [inBase?.page, inOurs?.page];
      const tPlace: Place = { parent, after: i > 0 ? list[i - 1].node.id : null };
      if (!b) {
        if (o) {
          if (!sameContent(o.node, t.node)) conflict(t.node, 'added on both sides with different content');
        } else if (tPlace.parent && !draft.has(tPlace.parent)) {
          conflict(t.node, 'added under a page that was deleted on the other side');
        } else {
          draft.insertPage(
            tPlace.parent,
            { ...fieldsOf(t.node), id, title: t.node.title, markdown: await loadBody(db, spaceId, t.node) },
            anchorIndex(draft, tPlace),
          );
        }
        await apply(t.children, id, undefined, o?.children);
        continue;
      }
      const basePlace = place(inBase!.list, b);
      const theirsMoved = !samePlace(basePlace, tPlace);
      // Same node hash in the same place: same fields, body and subtree; nothing of theirs to apply.
      if (b.hash === t.hash && !theirsMoved) continue;
      const theirsChanged = !sameContent(b.node, t.node);
      if (!o) {
        if (theirsChanged) conflict(t.node, 'deleted on one side and changed on the other');
      } else {
        if (theirsChanged) {
          const merged = await mergePage(db, spaceId, b.node, o.node, t.node, mergeText);
          if (typeof merged === 'string') conflict(t.node, merged);
          else if (merged) draft.updatePage(id, merged);
        }
        if (theirsMoved) {
          const ourPlace = place(inOurs!.list, o);
          const oursMoved = !samePlace(basePlace, ourPlace);
          if (!oursMoved) {
            if (tPlace.parent && !draft.has(tPlace.parent)) conflict(t.node, 'moved under a page that was deleted on the other side');
            else draft.movePage(id, tPlace.parent, anchorIndex(draft, tPlace, id));
          } else if (ourPlace.parent !== tPlace.parent) {
            conflict(t.node, 'moved to different places on both sides');
          }
        }
      }
      await apply(t.children, id, b.children, o?.children);
    }
  };
  await apply(theirs.pages, null, base.pages, ours.pages);

  // 2. Deletions: a page they deleted goes, unless we changed it (or added pages under it). A page
  //    theirs has with the same hash has its whole subtree there too: nothing below it was deleted.
  const remove = (list: TreePage[], theirsNear?: TreePage[], oursNear?: TreePage[]) => {
    for (let i = 0; i < list.length; i++) {
      const b = list[i];
      // The very page object theirs has at the same index: there, with the same subtree.
      if (theirsNear?.[i] === b) continue;
      const id = b.node.id;
      const t = locate(theirs, id, theirsNear)?.page;
      const o = inOursOf(id, oursNear)?.page;
      if (t) {
        if (t.hash !== b.hash) remove(b.children, t.children, o?.children);
        continue;
      }
      if (o && draft.has(id)) {
        if (!sameContent(b.node, o.node)) conflict(o.node, 'deleted on one side and changed on the other');
        else if (descendants(o).some((d) => !base.byId.has(d.node.id)))
          conflict(o.node, 'deleted on one side while pages were added under it on the other');
        else draft.deletePage(id);
      }
      remove(b.children, undefined, o?.children);
    }
  };
  remove(base.pages, theirs.pages, ours.pages);

  // 3. Files by id.
  for (const f of theirs.files) {
    const b = base.filesById.get(f.id);
    const o = ours.filesById.get(f.id);
    if (!b && !o) draft.insertFile(f);
    else if (b && o && b.hash !== f.hash && o.hash !== b.hash && o.hash !== f.hash) {
      conflicts.push({ pageId: f.id, title: f.name, reason: 'file changed on both sides' });
    }
  }
  for (const b of base.files) {
    if (!theirs.filesById.has(b.id) && ours.filesById.get(b.id)?.hash === b.hash && draft.hasFile(b.id)) draft.deleteFile(b.id);
  }

  // 4. Variables, key by key.
  const vb = base.root.variables;
  const vo = ours.root.variables;
  const vt = theirs.root.variables;
  if (canonicalJson(vt) !== canonicalJson(vb)) {
    const merged: Record<string, string> = { ...vo };
    for (const k of new Set([...Object.keys(vb), ...Object.keys(vt)])) {
      if (vt[k] === vb[k]) continue;
      if (vo[k] === vb[k]) {
        if (vt[k] === undefined) delete merged[k];
        else merged[k] = vt[k];
      } else if (vo[k] !== vt[k]) conflicts.push({ pageId: `variables.${k}`, title: k, reason: 'variable changed on both sides' });
    }
    draft.setVariables(merged);
  }
  return conflicts;
}

/**
 * Body hashes of the pages of `list` (and below) whose body differs from base's (or that base has
 * not), along the paths that changed: what mergeInto's walk will read of theirs.
 */
function changedBodies(base: Snapshot, list: TreePage[], baseNear: TreePage[] | undefined, out: Hash[]) {
  for (let i = 0; i < list.length; i++) {
    const t = list[i];
    if (baseNear?.[i] === t) continue; // the very object base has: same subtree
    const b = locate(base, t.node.id, baseNear)?.page;
    if (b?.hash === t.hash) continue; // same node hash: same body and subtree, wherever it moved
    if (t.node.body && t.node.body !== b?.node.body) out.push(t.node.body);
    changedBodies(base, t.children, b?.children, out);
  }
}

function descendants(p: TreePage): TreePage[] {
  return p.children.flatMap((c) => [c, ...descendants(c)]);
}

/** Index among the new parent's children right after the anchor sibling (first when none). */
function anchorIndex(draft: Draft, at: { parent: string | null; after: string | null }, self?: string): number {
  const ids = draft.childIds(at.parent).filter((x) => x !== self);
  if (!at.after) return 0;
  const i = ids.indexOf(at.after);
  return i < 0 ? ids.length : i + 1;
}

/**
 * Field-wise merge of one page changed on their side: returns the fields to set, null when ours
 * already has everything, or a conflict reason.
 */
async function mergePage(
  db: Queryable,
  spaceId: string,
  b: PageNode,
  o: PageNode,
  t: PageNode,
  mergeText: TextMerger,
): Promise<PageFields | null | string> {
  if (sameContent(o, t)) return null;
  if (sameContent(o, b)) return { ...fieldsOf(t), ...(t.body !== o.body ? { markdown: await loadBody(db, spaceId, t) } : {}) };
  const out: Record<string, unknown> = {};
  const clashing: string[] = [];
  for (const f of FIELDS) {
    const [bv, ov, tv] = [fieldValue(b, f), fieldValue(o, f), fieldValue(t, f)];
    if (tv === bv || ov === tv) continue;
    if (ov === bv) out[f] = t[f] ?? (f === 'hidden' || f === 'noIndex' || f === 'noRobotsIndex' ? false : null);
    else clashing.push(f);
  }
  if (clashing.length) return `both sides changed ${clashing.join(', ')}`;
  if (t.body !== b.body && o.body !== t.body) {
    if (o.body === b.body) out.markdown = await loadBody(db, spaceId, t);
    else {
      // The three texts in one statement (those not in the object cache): `db` is the caller's
      // transaction, whose connection runs one query at a time.
      const objs = await getObjects(
        db,
        spaceId,
        [b.body, o.body, t.body].filter((h): h is Hash => !!h),
      );
      const [bt, ot, tt] = [b, o, t].map((p) => (p.body ? (objs.get(p.body) as BodyNode).markdown : ''));
      const text = await mergeText(bt, ot, tt);
      if ('conflict' in text) return text.conflict;
      out.markdown = text.merged;
    }
  }
  return Object.keys(out).length ? (out as PageFields) : null;
}
