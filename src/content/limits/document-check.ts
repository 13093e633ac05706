// The JSON document and parsed-tree checks of src/content/limits.ts: iterative, whatever the depth.
import { LIMITS, fmt, type LimitName, type LimitViolation } from './values.js';

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function describe(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v;
}

const REF_INLINES = new Set(['link', 'inline-image']);
const REF_BLOCKS = new Set(['image', 'file']);

interface Frame {
  node: unknown;
  parent: Frame | null;
  key: string;
  depth: number;
  /** What the node must be: a child of a document, block or inline; a table fragment; a text leaf. */
  kind: 'node' | 'fragment' | 'leaf';
}

function pathOf(f: Frame | null): string {
  const parts: string[] = [];
  for (let x = f; x && x.parent; x = x.parent) parts.push(x.key);
  return parts.reverse().join('.').replace(/\.\[/g, '[');
}

/**
 * The first limit or shape rule a JSON document (GitBook's `{object: "document", nodes}`) breaks,
 * or null: every node an object of a known kind with the fields the converter reads, at most
 * LIMITS.documentDepth levels deep and LIMITS.nodes nodes and leaves. Iterative.
 */
export function checkDocument(doc: unknown): LimitViolation | null {
  if (!isObject(doc)) return { limit: 'shape', path: '', message: `must be a document object, not ${describe(doc)}` };
  if (!Array.isArray(doc.nodes)) return { limit: 'shape', path: 'nodes', message: 'must be an array of nodes' };
  let count = 0;
  const root: Frame = { node: doc, parent: null, key: '', depth: 0, kind: 'node' };
  const todo: Frame[] = [];
  // Each node is visited once, so the check is linear in the document; a list longer than the
  // node limit is refused before its frames are made.
  const pushAll = (parent: Frame, field: string, list: unknown[], kind: Frame['kind']) => {
    if (count + todo.length + list.length > LIMITS.nodes) return false;
    for (let i = list.length - 1; i >= 0; i--)
      todo.push({ node: list[i], parent, key: `${field}[${i}]`, depth: parent.depth + (kind === 'leaf' ? 0 : 1), kind });
    return true;
  };
  const tooMany: LimitViolation = { limit: 'nodes', path: '', message: `more than ${fmt(LIMITS.nodes)} nodes and leaves` };
  if (!pushAll(root, 'nodes', doc.nodes, 'node')) return tooMany;
  while (todo.length) {
    const f = todo.pop()!;
    const bad = (message: string, limit: LimitName = 'shape'): LimitViolation => ({ limit, path: pathOf(f), message });
    if (++count > LIMITS.nodes) return tooMany;
    if (f.depth > LIMITS.documentDepth)
      return { limit: 'depth', path: pathOf(f), message: `nesting deeper than ${LIMITS.documentDepth} levels` };
    const n = f.node;
    if (f.kind === 'leaf') {
      if (!isObject(n)) return bad(`must be a leaf object, not ${describe(n)}`);
      if (typeof n.text !== 'string') return bad('must have a "text" string');
      if (n.marks !== undefined) {
        if (!Array.isArray(n.marks)) return bad('"marks" must be an array');
        if (n.marks.length > LIMITS.nodes) return bad(`more than ${fmt(LIMITS.nodes)} marks`, 'nodes');
        for (let m = 0; m < n.marks.length; m++) {
          const mark = n.marks[m];
          if (!isObject(mark) || typeof mark.type !== 'string')
            return { limit: 'shape', path: `${pathOf(f)}.marks[${m}]`, message: 'must be a mark object with a "type"' };
        }
      }
      continue;
    }
    if (f.kind === 'fragment') {
      if (!isObject(n)) return bad(`must be a fragment object, not ${describe(n)}`);
      if (!Array.isArray(n.nodes)) return bad('must have a "nodes" array');
      if (!pushAll(f, 'nodes', n.nodes, 'node')) return tooMany;
      continue;
    }
    if (!isObject(n)) return bad(`must be a node object (block, inline or text), not ${describe(n)}`);
    if (n.object === 'text') {
      if (!Array.isArray(n.leaves)) return bad('a text node must have a "leaves" array');
      if (!pushAll(f, 'leaves', n.leaves, 'leaf')) return tooMany;
      continue;
    }
    if (n.object !== 'block' && n.object !== 'inline') return bad('"object" must be "block", "inline" or "text"');
    if (typeof n.type !== 'string' || !n.type) return bad(`a ${n.object} must have a "type"`);
    if (n.data !== undefined && !isObject(n.data)) return bad('"data" must be an object');
    if (n.nodes !== undefined && !Array.isArray(n.nodes)) return bad('"nodes" must be an array');
    if (n.fragments !== undefined && !Array.isArray(n.fragments)) return bad('"fragments" must be an array');
    if ((n.object === 'inline' ? REF_INLINES : REF_BLOCKS).has(n.type)) {
      const ref = isObject(n.data) ? n.data.ref : undefined;
      if (!isObject(ref) || typeof ref.kind !== 'string') return bad(`a ${n.type} must have "data.ref", a content reference`);
    }
    if (Array.isArray(n.fragments) && !pushAll(f, 'fragments', n.fragments, 'fragment')) return tooMany;
    if (Array.isArray(n.nodes) && !pushAll(f, 'nodes', n.nodes, 'node')) return tooMany;
  }
  return null;
}

// ---- Parsed trees ---------------------------------------------------------------------------------

/**
 * Depth and size of a parsed tree (mdast, hast), iteratively, stopping early past the bounds: the
 * recursive converters only ever see trees within them. Returns what was exceeded, or null.
 */
export function checkTree(root: { children?: unknown[] }, maxDepth: number, maxNodes: number): LimitViolation | null {
  const todo: { node: { children?: unknown[] }; depth: number }[] = [{ node: root, depth: 0 }];
  let count = 0;
  while (todo.length) {
    const { node, depth } = todo.pop()!;
    if (++count > maxNodes) return { limit: 'nodes', message: `more than ${fmt(maxNodes)} nodes` };
    if (depth > maxDepth) return { limit: 'depth', message: `nesting deeper than ${maxDepth} levels` };
    const children = node.children;
    if (Array.isArray(children)) for (const child of children) todo.push({ node: child as { children?: unknown[] }, depth: depth + 1 });
  }
  return null;
}
