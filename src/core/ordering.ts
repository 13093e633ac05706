// One stable order among siblings: fractional positions, an item placed before or after a sibling
// (or last), the siblings renumbered 1..n only when two neighbours leave no room. Pure: callers read
// the siblings and write the positions (site structure; spaces and collections of an organization).

export interface Sibling {
  type: string;
  id: string;
  position: number;
}

export interface SiblingPointer {
  type: string;
  id: string;
}

export interface PlaceResult<T extends Sibling = Sibling> {
  position: number;
  /** Positions to write first (1..n in current order) when neighbours left no room. */
  renumber?: T[];
}

export class PlacementError extends Error {}

/**
 * The position that puts `self` before/after a sibling (siblings sorted by their order, `self`
 * included or not). No pointer: last. Fractional positions; when two neighbours leave no room the
 * siblings are renumbered 1..n first.
 */
export function placeAmong<T extends Sibling>(
  siblings: T[],
  self: SiblingPointer,
  position?: { before?: SiblingPointer; after?: SiblingPointer },
  /** How an error names the siblings' level ("at this level", "in the target parent"). */
  level = 'at this level',
): PlaceResult<T> {
  let list = siblings.filter((s) => !(s.type === self.type && s.id === self.id));
  if (!position || (!position.before && !position.after)) return { position: (list.at(-1)?.position ?? 0) + 1 };
  const find = (p: SiblingPointer, field: string) => {
    const i = list.findIndex((s) => s.type === p.type && s.id === p.id);
    if (i < 0) throw new PlacementError(`body.position.${field}: ${p.type} "${p.id}" is not a sibling ${level}`);
    return i;
  };
  const compute = (): number | null => {
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
      if (position.after && position.before) throw new PlacementError('body.position: "after" must come before "before"');
      return null;
    }
    if (lo === undefined) return hi! - 1;
    if (hi === undefined) return lo + 1;
    const mid = (lo + hi) / 2;
    return mid > lo && mid < hi ? mid : null;
  };
  const value = compute();
  if (value !== null) return { position: value };
  list = list.map((s, i) => ({ ...s, position: i + 1 }));
  const again = compute();
  if (again === null) throw new PlacementError('body.position cannot be satisfied');
  return { position: again, renumber: list };
}
