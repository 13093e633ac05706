// What applying a docs.yaml to a site gives back (site-config.ts), shared by the files that apply it.
import type { DocsYamlConfig, DocsYamlSpace } from '../../git/format/docs-yaml.js';

/** The space showing one `content.directory` of the file. */
export interface AppliedSiteSpace {
  key: string;
  /** As written in the file (resolve it with resolveDirectory and the sync's project directory). */
  directory: string;
  language?: string;
  spaceId: string;
  siteSpaceId: string;
}

/** A language variant: the translation of its section's default space. */
export interface AppliedVariant {
  key: string;
  language: string;
  sourceSpaceId: string;
  translationId: string | null;
  spaceId: string;
  siteSpaceId: string;
  /** The translation was made by this call (its first run was queued). */
  created: boolean;
}

export interface ApplySiteConfigResult {
  /** Whether the site's structure or title changed. */
  changed: boolean;
  spaces: AppliedSiteSpace[];
  variants: AppliedVariant[];
  /** Entries left out, each naming its key. */
  warnings: string[];
}

export interface ApplySiteConfigInput {
  siteId: string;
  config: DocsYamlConfig;
  /**
   * The space (id) of the site's organization to show `directory` (as written in the file) for an
   * entry whose key the site does not have yet: one already synced from that directory, or a new
   * one. Called once per directory.
   */
  spaceForDirectory: (directory: string, entry: DocsYamlSpace) => Promise<string>;
  /** Who new translations and their runs are recorded as made by (the sync's owner); null: nobody. */
  createdBy?: string | null;
}
