// Limits of the structure files an import reads (SUMMARY.md, .gitbook.yaml): their own, sized for
// real repositories, not the limits of a page body (src/content/limits.ts). A structure file is
// read in time linear in its size; past a limit an entry is skipped with a warning naming the file
// and the line, and only a file past its size limit stops the import.

export const STRUCTURE_LIMITS = Object.freeze({
  /** Longest SUMMARY.md, in characters: about 150,000 entries of 100 characters. */
  summaryChars: 16_000_000,
  /** Most entries (list items) of a SUMMARY.md; later ones are ignored with a warning. */
  summaryEntries: 200_000,
  /** Deepest nesting of SUMMARY.md entries; a part nested deeper is ignored with a warning. */
  summaryDepth: 32,
  /**
   * SUMMARY.md is read in parts of about this many characters (whole top-level entries): a part in
   * the common shape is read line by line, any other by the Markdown parser, whose cost grows with
   * the square of a part's nested entries; small parts keep it linear in the file.
   */
  summaryPartChars: 8 * 1024,
  /**
   * The most parsing work (as src/content/limits/markdown-scan.ts counts it, about 0.1 µs a unit)
   * the parts of one SUMMARY.md that need the parser may take together: this many units per
   * character of the file (a nested list of links in 8 KB parts takes about 8), and at least
   * summaryParseWorkMin. Parts past it are ignored with a warning.
   */
  summaryParseWorkPerChar: 20,
  summaryParseWorkMin: 40_000_000,
  /** Longest .gitbook.yaml, in characters. */
  configChars: 4_000_000,
  /** Most redirects of a .gitbook.yaml; later ones are ignored with a warning. */
  redirects: 100_000,
});
