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

// The sibling order itself (fractional positions, before/after pointers) is src/core/ordering.ts,
// shared with the spaces and collections of an organization.
export { placeAmong, PlacementError, type Sibling, type SiblingPointer, type PlaceResult } from '../core/ordering.js';

/** The item that becomes default when the default one leaves: the first remaining in order. */
export function nextDefault<T extends { id: string }>(ordered: T[], leaving: string): T | undefined {
  return ordered.find((x) => x.id !== leaving);
}
