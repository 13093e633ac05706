// The page tree of an import follows the site's URL paths: `/docs/guide/install` goes under
// `/docs/guide` when that page was imported (else under its nearest imported ancestor path, else
// at the top level). The start page is the first top-level page and never a parent: importing
// `https://example.com/docs/` gives `[Docs home, Guide [Install, ...], Reference, ...]` rather than
// one page holding the whole site. Siblings keep discovery order.
import { ancestorKeys, type CrawlScope } from './scope.js';

interface TreeEntry {
  key: string;
  /** Key of the parent page; null at the top level. */
  parent: string | null;
}

/** Pages in an order where each parent comes before its children (depth-first, discovery order). */
export function buildTree(scope: CrawlScope, startKey: string, keys: string[]): TreeEntry[] {
  const present = new Set(keys);
  const parentOf = new Map<string, string | null>();
  for (const key of keys) {
    let parent: string | null = null;
    if (key !== startKey) {
      for (const candidates of ancestorKeys(scope, key)) {
        const hit = candidates.find((k) => k !== key && k !== startKey && present.has(k));
        if (hit) {
          parent = hit;
          break;
        }
      }
    }
    parentOf.set(key, parent);
  }
  const children = new Map<string | null, string[]>();
  for (const key of keys) {
    const p = parentOf.get(key)!;
    if (!children.has(p)) children.set(p, []);
    children.get(p)!.push(key);
  }
  const out: TreeEntry[] = [];
  const walk = (parent: string | null) => {
    for (const key of children.get(parent) ?? []) {
      out.push({ key, parent });
      walk(key);
    }
  };
  walk(null);
  return out;
}
