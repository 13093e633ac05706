// The typed shape of a `docs.yaml` (see docs-yaml.ts, which reads it, and docs-yaml-write.ts, which
// writes it back), and the bounds a file is read within.
export const DOCS_YAML_FILES = ['docs.yaml', 'gitbook-docs.yaml'] as const;

export const DOCS_YAML_LIMITS = Object.freeze({
  /** Longest file, in characters (a real 13-space site is about 5 KB). */
  chars: 1_000_000,
  /**
   * Most sections, section groups, site spaces and external links (the site's own bounds: a site
   * holds at most 50 external links, MAX_LINKS of src/services/sites/external-links.ts).
   */
  sections: 100,
  groups: 50,
  spaces: 500,
  links: 50,
  /**
   * Section groups: the description nests them one level (a group may hold groups that hold none);
   * a site made through the API may nest them 5 deep, so a file written back from one is read, with
   * a warning past the first level, up to this depth.
   */
  groupDepth: 5,
  /** Longest key; most localized entries of one title or description. */
  keyChars: 100,
  localized: 64,
  /** Aliases the YAML may expand (bounds alias bombs). */
  aliases: 100,
});

export type Localized = Record<string, string>;
/** Keys the description does not know, in file order (kept for write-back). */
export type Extra = Record<string, unknown>;

export interface DocsYamlSpace {
  type: 'space';
  key: string;
  title: string;
  localizedTitle?: Localized;
  path: string;
  default?: boolean;
  hidden?: boolean;
  draft?: boolean;
  condition?: string;
  /** `directory`: relative to the site's project directory (`./guides`), `/x` from the repository root; null: not from the repository. */
  content: { directory: string | null; language?: string; extra?: Extra };
  extra?: Extra;
}

export interface DocsYamlSection {
  type: 'section';
  key: string;
  title: string;
  localizedTitle?: Localized;
  path: string;
  description?: string;
  localizedDescription?: Localized;
  icon?: string;
  default?: boolean;
  draft?: boolean;
  condition?: string;
  children: DocsYamlSpace[];
  extra?: Extra;
}

export interface DocsYamlExternalLink {
  type: 'external-link';
  key: string;
  title: string;
  localizedTitle?: Localized;
  url: string;
  description?: string;
  localizedDescription?: Localized;
  icon?: string;
  draft?: boolean;
  condition?: string;
  extra?: Extra;
}

export interface DocsYamlGroup {
  type: 'section-group';
  key: string;
  title: string;
  localizedTitle?: Localized;
  icon?: string;
  draft?: boolean;
  children: (DocsYamlGroup | DocsYamlSection | DocsYamlExternalLink)[];
  extra?: Extra;
}

export type DocsYamlNode = DocsYamlGroup | DocsYamlSection | DocsYamlSpace | DocsYamlExternalLink;

export interface DocsYamlConfig {
  $schema?: string;
  version?: number;
  site: { title: string; structure: DocsYamlNode[]; extra?: Extra };
  extra?: Extra;
}

export interface ParsedDocsYaml {
  config: DocsYamlConfig;
  /** Each naming the file and line: unknown keys kept, defaults chosen for the file. */
  warnings: string[];
}
