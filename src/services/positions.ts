import type { Queryable } from '../db/pool.js';
import { listSiblings, setSiblingPosition } from '../db/repos/siblings.js';
import { invalid } from '../core/errors.js';
import { placeAmong, PlacementError } from '../core/ordering.js';

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
  const siblings = await listSiblings(c, orgId, parentId);
  let placed;
  try {
    placed = placeAmong(
      siblings,
      self,
      position && { before: position.before && pointerId(position.before), after: position.after && pointerId(position.after) },
      'in the target parent',
    );
  } catch (err) {
    if (err instanceof PlacementError) throw invalid(`Invalid request: ${err.message}`);
    throw err;
  }
  // No room between equal or adjacent floats: the siblings are renumbered 1..n in their order first.
  for (const s of placed.renumber ?? []) await setSiblingPosition(c, s, s.position);
  return placed.position;
}
