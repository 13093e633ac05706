// Structure rules of a site, independent of storage: paths readers address, and the one stable
// sibling order shared by the items of a level (sections and groups at the root or inside a group;
// site spaces inside a section or at the root of a site without sections).

/** A URL path segment from a title: lower case, ASCII letters, digits and dashes, 1..100 characters. */
export function slugify(title: string, fallback = 'section'): string {
  const slug = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 90)
    .replace(/-+$/g, '');
  return slug || fallback;
}

/** `wanted`, or `wanted-2`, `wanted-3`... : the first not in `taken`. */
export function uniquePath(wanted: string, taken: Iterable<string>): string {
  const set = new Set(taken);
  if (!set.has(wanted)) return wanted;
  for (let i = 2; ; i++) {
    const candidate = `${wanted.slice(0, 95)}-${i}`;
    if (!set.has(candidate)) return candidate;
  }
}

export interface Sibling {
  type: string;
  id: string;
  position: number;
}

export interface SiblingPointer {
  type: string;
  id: string;
}

export interface PlaceResult {
  position: number;
  /** Positions to write first (1..n in current order) when neighbours left no room. */
  renumber?: Sibling[];
}

export class PlacementError extends Error {}

/**
 * The position that puts `self` before/after a sibling (siblings sorted by their order, `self`
 * included or not). No pointer: last. Fractional positions; when two neighbours leave no room the
 * siblings are renumbered 1..n first.
 */
export function placeAmong(
  siblings: Sibling[],
  self: SiblingPointer,
  position?: { before?: SiblingPointer; after?: SiblingPointer },
): PlaceResult {
  let list = siblings.filter((s) => !(s.type === self.type && s.id === self.id));
  if (!position || (!position.before && !position.after)) return { position: (list.at(-1)?.position ?? 0) + 1 };
  const find = (p: SiblingPointer, field: string) => {
    const i = list.findIndex((s) => s.type === p.type && s.id === p.id);
    if (i < 0) throw new PlacementError(`body.position.${field}: ${p.type} "${p.id}" is not a sibling at this level`);
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

/** The item that becomes default when the default one leaves: the first remaining in order. */
export function nextDefault<T extends { id: string }>(ordered: T[], leaving: string): T | undefined {
  return ordered.find((x) => x.id !== leaving);
}
