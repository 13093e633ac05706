// The public shapes of the repository format layer (see ../format.ts).

export interface GitBookConfig {
  /** Docs folder relative to the project directory, in the canonical form './' or './docs/'. */
  root: string;
  /** Path of the first page's file, relative to the docs root. */
  readme: string;
  /** Path of the table of contents, relative to the docs root. */
  summary: string;
  /** Old path → new file path, as written in `.gitbook.yaml` (both validated). */
  redirects: Record<string, string>;
}

export interface PageMeta {
  description?: string;
  icon?: string;
  emoji?: string;
  hidden?: boolean;
  layout?: Record<string, unknown>;
}

/** A page kind of the description: link pages point elsewhere, computed pages are OpenAPI references. */
export type FormatPageType = 'document' | 'group' | 'link' | 'computed';

/** Source of a computed page (GitBook's OpenAPI reference block in SUMMARY.md). */
export interface ComputedSource {
  type: string;
  props?: Record<string, unknown>;
  dependencies?: Record<string, unknown>;
}

export interface ImportedPage extends PageMeta {
  /**
   * Path of the page's file relative to the docs root ('guide/install.md', 'guide/README.md'); ''
   * for a group, a link or computed page, and a page without a file (an unlinked SUMMARY parent).
   */
  path: string;
  type: FormatPageType;
  title: string;
  /** Sidebar title: the quoted SUMMARY link title, or the SUMMARY text when it differs from the file's heading. */
  linkTitle?: string;
  /** Link pages: where they point. */
  href?: string;
  /** Computed pages: their source. */
  computed?: ComputedSource;
  /** The SUMMARY links a file that does not exist: the page is empty and has no file yet. */
  missing?: boolean;
  /** Front matter keys the format does not map to page fields (kept for the next export). */
  extraFrontMatter?: Record<string, unknown>;
  /** The front matter keys in the file's order (with extraFrontMatter: an export writes them in that order). */
  frontMatterOrder?: string[];
  /**
   * GitBook's `cover:` front matter: the repository file (docs-root path) or the URL of the page's
   * cover image. The key itself stays in extraFrontMatter, written back as it was.
   */
  cover?: { path: string } | { url: string };
  /** Body as stored: front matter and the title heading removed, links left exactly as written. */
  markdown: string;
  children: ImportedPage[];
}

export interface ImportedFile {
  /** Path relative to the docs root, e.g. '.gitbook/assets/logo.png'. */
  path: string;
  name: string;
  contentType: string;
  content: Buffer;
}

export interface ExportPage extends PageMeta {
  id: string;
  type: FormatPageType;
  title: string;
  linkTitle?: string;
  href?: string;
  computed?: ComputedSource;
  /** Front matter keys to write beside the page's metadata (unknown keys of the file it came from). */
  extraFrontMatter?: Record<string, unknown>;
  /** Order of the front matter keys in the file it came from. */
  frontMatterOrder?: string[];
  slug: string;
  markdown: string;
  /** The path (relative to the docs root) the page was imported from, if any: it is kept. */
  gitPath?: string;
  children: ExportPage[];
}

export interface ExportFile<C = Buffer> {
  name: string;
  /** The path (relative to the docs root) the file was imported from, if any: it is kept. */
  gitPath?: string;
  /** The bytes, or what the caller reads them from later (an export need not hold every file at once). */
  content: C;
}

/** A docs repository read (parseRepository): its configuration, page tree, files and warnings. */
export interface ParsedRepository {
  config: GitBookConfig;
  pages: ImportedPage[];
  files: ImportedFile[];
  warnings: string[];
}
