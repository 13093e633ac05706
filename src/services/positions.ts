import type { Queryable } from '../db/pool.js';
import { listSiblings, setSiblingPosition } from '../db/repos/siblings.js';
import { badRequest } from '../core/errors.js';

type Pointer = { type: 'space'; space: string } | { type: 'collection'; collection: string };
export interface Position {
  before?: Pointer;
  after?: Pointer;
}

function pointerId(p: Pointer): { type: 'space' | 'collection'; id: string } {
  return p.type === 'space' ? { type: 'space', id: p.space } : { type: 'collection', id: p.collection };
}

/**
 * The position value that puts `self` before/after a sibling under `parentId` (spaces and
 * collections share one ordering). Positions are fractional; when two neighbours leave no room,
 * the siblings are renumbered first. Without a position the item goes last.
 */
export async function placeAmongSiblings(
  c: Queryable,
  orgId: string,
  parentId: string | null,
  self: { type: 'space' | 'collection'; id: string },
  position?: Position,
): Promise<number> {
  let list = (await listSiblings(c, orgId, parentId)).filter((s) => !(s.type === self.type && s.id === self.id));
  if (!position || (!position.before && !position.after)) return (list.at(-1)?.position ?? 0) + 1;
  const find = (p: Pointer, field: string) => {
    const { type, id } = pointerId(p);
    const i = list.findIndex((s) => s.type === type && s.id === id);
    if (i < 0) throw badRequest(`Invalid request: body.position.${field}: ${type} "${id}" is not a sibling in the target parent`);
    return i;
  };
  const compute = () => {
    let lo: number | undefined;
    let hi: number | undefined;
    if (position.after) {
      const i = find(position.after, 'after');
      lo = list[i].position;
      hi = position.before ? undefined : list[i + 1]?.position;
    }
    if (position.before) {
      const i = find(position.before, 'before');
      hi = list[i].position;
      if (!position.after) lo = list[i - 1]?.position;
    }
    if (lo !== undefined && hi !== undefined && lo >= hi) {
      if (position.after && position.before) throw badRequest('Invalid request: body.position: "after" must come before "before"');
      return null;
    }
    if (lo === undefined) return hi! - 1;
    if (hi === undefined) return lo + 1;
    const mid = (lo + hi) / 2;
    return mid > lo && mid < hi ? mid : null;
  };
  let value = compute();
  if (value === null) {
    // No room between equal or adjacent floats: renumber 1..n in the current order, then retry.
    for (let i = 0; i < list.length; i++) {
      await setSiblingPosition(c, list[i], i + 1);
    }
    list = list.map((s, i) => ({ ...s, position: i + 1 }));
    value = compute();
    if (value === null) throw badRequest('Invalid request: body.position cannot be satisfied');
  }
  return value;
}
