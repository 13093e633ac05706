// Whole sites from docs.yaml: which rows of the site each entry of a config is (site-structure.ts).
import * as structure from '../../db/repos/site-structure.js';
import { spacesOf, type DocsYamlConfig, type DocsYamlNode } from '../../git/format/docs-yaml.js';
import type { SiteTree } from '../sites/structure.js';

/** Rows matched to the file's entries (by key, else adopted), and what is new. */
export class Matcher {
  readonly groupOf = new Map<string, structure.GroupRow>();
  readonly sectionOf = new Map<string, structure.SectionRow>();
  readonly siteSpaceOf = new Map<string, structure.SiteSpaceRow>();
  private readonly used = new Set<string>();

  constructor(
    private readonly tree: SiteTree,
    private readonly allSiteSpaces: structure.SiteSpaceRow[],
  ) {}

  private take<T extends { id: string; git_key?: string | null }>(rows: T[], key: string, adopt: (r: T) => boolean): T | undefined {
    const row =
      rows.find((r) => r.git_key === key && !this.used.has(r.id)) ?? rows.find((r) => !r.git_key && !this.used.has(r.id) && adopt(r));
    if (row) this.used.add(row.id);
    return row;
  }

  match(config: DocsYamlConfig, spaceOf: Map<string, string>) {
    const walk = (nodes: DocsYamlNode[]) => {
      for (const n of nodes) {
        if (n.type === 'section-group') {
          const g = this.take(this.tree.groups, n.key, (r) => r.title === n.title);
          if (g) this.groupOf.set(n.key, g);
          walk(n.children);
        } else if (n.type === 'section') {
          const s = this.take(this.tree.sections, n.key, (r) => r.path === n.path);
          if (s) this.sectionOf.set(n.key, s);
        }
      }
    };
    walk(config.site.structure);
    for (const { space, section } of spacesOf(config.site.structure)) {
      const container = section ? (this.sectionOf.get(section.key)?.id ?? null) : null;
      const wanted = spaceOf.get(space.key);
      const row = this.take(
        this.allSiteSpaces,
        space.key,
        (r) => r.space_id === wanted && r.section_id === container && (section === null || container !== null),
      );
      if (row) this.siteSpaceOf.set(space.key, row);
    }
  }

  isUsed(id: string) {
    return this.used.has(id);
  }
}
