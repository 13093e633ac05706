// The limits of user content and what a broken one reports (see src/content/limits.ts).

export const LIMITS = Object.freeze({
  /** Longest Markdown body of a page, in characters (UTF-16 code units). */
  pageChars: 1_000_000,
  /** Longest Markdown body of a comment or reply. */
  commentChars: 100_000,
  /** Deepest nesting of quotes, list items and hints, and of links (`[`) inside a paragraph. */
  depth: 32,
  /** Most nodes of one body: blocks, list items, table cells, emphasis and link markers, document nodes and leaves. */
  nodes: 100_000,
  /** Most emphasis (`*`, `_`, `~` runs) and link (`[`, `]`) markers in one paragraph. */
  inlineMarkers: 5_000,
  /**
   * Most parsing work, as estimated by the scan: the parser's cost grows with the square of how
   * often nested lists and quotes end, of lazy continuation lines, and of markers per paragraph,
   * each times the length before it. One unit is about 0.1 µs of a busy 2-core machine: the limit
   * is about 2 s, three times what the costliest real page we measured needed (a 360 KB list of
   * licences); ordinary pages need a few percent of it.
   */
  parseWork: 20_000_000,
  /**
   * Deepest nesting of the nodes of a JSON document. A Markdown level may take two (a list and its
   * item) plus a paragraph, a link and a text under the deepest one: no document the server makes
   * from accepted Markdown is refused back for its nesting.
   */
  documentDepth: 72,
});

export type LimitName = 'size' | 'depth' | 'nodes' | 'inline' | 'work' | 'shape';

export interface LimitViolation {
  limit: LimitName;
  /** Human-readable, names the limit: "nesting deeper than 32 levels (line 3)". */
  message: string;
  /** For JSON documents: where, relative to the document (`nodes[2].nodes[0]`); '' for the whole. */
  path?: string;
}

export const fmt = (n: number) => n.toLocaleString('en-US');
