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

export interface ImportedPage extends PageMeta {
  /** Path of the page's file relative to the docs root ('guide/install.md', 'guide/README.md'); '' for a group. */
  path: string;
  type: 'document' | 'group';
  title: string;
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
  type: 'document' | 'group';
  title: string;
  slug: string;
  markdown: string;
  /** The path (relative to the docs root) the page was imported from, if any: it is kept. */
  gitPath?: string;
  children: ExportPage[];
}

export interface ExportFile {
  name: string;
  /** The path (relative to the docs root) the file was imported from, if any: it is kept. */
  gitPath?: string;
  content: Buffer;
}
