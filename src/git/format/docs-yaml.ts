// `docs.yaml` (GitBook's name in real repositories; the public description's `GitSyncSiteConfig`
// calls it `gitbook-docs.yaml`): a whole site kept in git. It names the site and maps directories
// of the repository onto the site's navigation:
//
//   site:
//     title: Acme Docs
//     structure:
//       - type: section            # or section-group, space (a site without sections), external-link
//         key: section-guides      # stable identity from one sync to the next (never the title or path)
//         title: Guides
//         localizedTitle: {fr: Guides}
//         path: guides
//         default: true
//         children:
//           - type: space
//             key: space-guides
//             title: English
//             path: en
//             default: true
//             content: {directory: ./guides, language: en}
//           - type: space           # a language variant: a translation of the section's default space
//             key: space-guides-fr
//             title: Français
//             path: fr
//             content: {directory: null, language: fr}
//
// parseDocsYaml reads the text into a typed config, checking the description's rules (unique keys,
// one default per level, sections only under the root or a group, groups nested one level, spaces
// only in sections or at the root of a site without sections, same directory same language) and our
// bounds; an error names the file and the line. Keys the description does not know are kept (in
// `extra`, written back after the known ones) with a warning naming their line. writeDocsYaml writes
// a config back in GitBook's key order and quoting (2-space indent, sequences indented under their
// key, single quotes where a plain scalar would read as something else), so a file in that shape
// reads and writes back byte for byte. Engine only: no database, no services.
import { Document, isMap, isNode, isScalar, isSeq, LineCounter, parseDocument, type Node as YamlNode, type Pair, type YAMLMap } from 'yaml';
import { RepoFormatError } from './errors.js';
import {
  DOCS_YAML_FILES,
  DOCS_YAML_LIMITS,
  type Localized,
  type Extra,
  type DocsYamlSpace,
  type DocsYamlSection,
  type DocsYamlExternalLink,
  type DocsYamlGroup,
  type DocsYamlNode,
  type DocsYamlConfig,
  type ParsedDocsYaml,
} from './docs-yaml-types.js';

export { DOCS_YAML_FILES, DOCS_YAML_LIMITS } from './docs-yaml-types.js';
export type {
  Localized,
  Extra,
  DocsYamlSpace,
  DocsYamlSection,
  DocsYamlExternalLink,
  DocsYamlGroup,
  DocsYamlNode,
  DocsYamlConfig,
  ParsedDocsYaml,
} from './docs-yaml-types.js';
export { writeDocsYaml } from './docs-yaml-write.js';

/** Language codes as the description spells them (`en`, `pt-br`, `zh-tw`). */
const LANGUAGE = /^[a-z]{2,3}(-[a-z]{2,4})?$/;

const KNOWN: Record<DocsYamlNode['type'], string[]> = {
  space: ['type', 'key', 'title', 'localizedTitle', 'path', 'default', 'hidden', 'draft', 'condition', 'content'],
  section: [
    'type',
    'key',
    'title',
    'localizedTitle',
    'path',
    'description',
    'localizedDescription',
    'icon',
    'default',
    'draft',
    'condition',
    'children',
  ],
  'section-group': ['type', 'key', 'title', 'localizedTitle', 'icon', 'draft', 'children'],
  'external-link': ['type', 'key', 'title', 'localizedTitle', 'url', 'description', 'localizedDescription', 'icon', 'draft', 'condition'],
};

class Reader {
  readonly warnings: string[] = [];
  private readonly keys = new Map<string, number>();
  readonly counts = { sections: 0, groups: 0, spaces: 0, links: 0 };

  constructor(
    private readonly file: string,
    private readonly lines: LineCounter,
    private readonly doc: Document.Parsed,
  ) {}

  line(node: YamlNode | Pair | null | undefined): number {
    const range = !node ? undefined : isNode(node) ? node.range : isNode(node.key) ? node.key.range : undefined;
    return range ? this.lines.linePos(range[0]).line : 1;
  }

  fail(node: YamlNode | Pair | null | undefined, message: string): never {
    throw new RepoFormatError(`${this.file}:${this.line(node)}: ${message}`);
  }

  warn(node: YamlNode | Pair | null | undefined, message: string): void {
    if (this.warnings.length < 200) this.warnings.push(`${this.file}:${this.line(node)}: ${message}`);
  }

  map(node: unknown, where: string): YAMLMap {
    if (!isMap(node)) this.fail(node as YamlNode, `${where} must be a mapping`);
    return node as YAMLMap;
  }

  /** The pairs of a mapping by key (keys are strings here; duplicates were refused by the parser). */
  pairs(m: YAMLMap, where: string): Map<string, Pair> {
    const out = new Map<string, Pair>();
    for (const pair of m.items) {
      const k = isScalar(pair.key) ? pair.key.value : undefined;
      if (typeof k !== 'string') this.fail(pair, `${where}: keys must be strings`);
      out.set(k as string, pair);
    }
    return out;
  }

  string(pair: Pair | undefined, where: string, o: { required?: boolean; min?: number; max?: number } = {}): string | undefined {
    const v = pair?.value;
    if (!pair || v === null || v === undefined || (isScalar(v) && v.value === null)) {
      if (o.required) this.fail(pair ?? null, `${where} is required`);
      return undefined;
    }
    if (!isScalar(v) || typeof v.value !== 'string') this.fail(pair, `${where} must be a string`);
    const s = (v as { value: string }).value;
    // PostgreSQL text holds no NUL character (a double-quoted "\0" would write one).
    if (s.includes('\0')) this.fail(pair, `${where} must not contain NUL characters`);
    if (o.min !== undefined && s.length < o.min) this.fail(pair, `${where} must have at least ${o.min} character${o.min > 1 ? 's' : ''}`);
    if (o.max !== undefined && s.length > o.max) this.fail(pair, `${where} must have at most ${o.max} characters`);
    return s;
  }

  bool(pair: Pair | undefined, where: string): boolean | undefined {
    if (!pair) return undefined;
    const v = pair.value;
    if (!isScalar(v) || typeof v.value !== 'boolean') this.fail(pair, `${where} must be true or false`);
    return (v as { value: boolean }).value;
  }

  localized(pair: Pair | undefined, where: string, max: number): Localized | undefined {
    if (!pair) return undefined;
    const m = this.map(pair.value, where);
    if (m.items.length > DOCS_YAML_LIMITS.localized) this.fail(pair, `${where} has more than ${DOCS_YAML_LIMITS.localized} languages`);
    const out: Localized = {};
    for (const [lang, p] of this.pairs(m, where)) {
      if (!LANGUAGE.test(lang)) this.fail(p, `${where}: "${lang}" is not a language code (such as en, fr, pt-br)`);
      out[lang] = this.string(p, `${where}.${lang}`, { required: true, max })!;
    }
    return out;
  }

  extra(pairs: Map<string, Pair>, known: string[], where: string): Extra | undefined {
    let out: Extra | undefined;
    for (const [k, pair] of pairs) {
      if (known.includes(k)) continue;
      this.warn(pair, `${where}: unknown key "${k}" is kept as written but not used`);
      const v = pair.value;
      (out ??= {})[k] = isNode(v) ? v.toJS(this.doc, { maxAliasCount: DOCS_YAML_LIMITS.aliases }) : (v ?? null);
    }
    return out;
  }

  claimKey(pair: Pair | undefined, where: string): string {
    const key = this.string(pair, `${where}.key`, { required: true, min: 1, max: DOCS_YAML_LIMITS.keyChars })!;
    const seen = this.keys.get(key);
    if (seen !== undefined)
      this.fail(pair, `${where}.key: "${key}" is also the key of the entry at line ${seen}; every key is unique in the file`);
    this.keys.set(key, this.line(pair));
    return key;
  }

  count(kind: keyof Reader['counts'], node: YamlNode) {
    this.counts[kind]++;
    const limit = DOCS_YAML_LIMITS[kind];
    if (this.counts[kind] > limit)
      this.fail(node, `a site has at most ${limit} ${kind === 'groups' ? 'section groups' : kind === 'links' ? 'external links' : kind}`);
  }
}

function nodeType(r: Reader, m: YAMLMap, pairs: Map<string, Pair>, where: string): DocsYamlNode['type'] {
  const t = r.string(pairs.get('type'), `${where}.type`, { required: true });
  if (t === 'space' || t === 'section' || t === 'section-group' || t === 'external-link') return t;
  return r.fail(pairs.get('type') ?? m, `${where}.type: "${t}" is not one of section-group, section, space, external-link`);
}

function readSpace(r: Reader, m: YAMLMap, pairs: Map<string, Pair>, where: string): DocsYamlSpace {
  r.count('spaces', m);
  const key = r.claimKey(pairs.get('key'), where);
  const contentPair = pairs.get('content');
  if (!contentPair) r.fail(m, `${where}.content is required (content.directory: a directory, or null)`);
  const content = r.map(contentPair.value, `${where}.content`);
  const cp = r.pairs(content, `${where}.content`);
  const dirPair = cp.get('directory');
  if (!dirPair) r.fail(contentPair, `${where}.content.directory is required (a directory, or null)`);
  const directory = r.string(dirPair, `${where}.content.directory`, { max: 1000 }) ?? null;
  if (directory !== null) {
    if (!directory.trim()) r.fail(dirPair, `${where}.content.directory must not be empty (null: not from the repository)`);
    if (directory.split('/').includes('..')) r.fail(dirPair, `${where}.content.directory: ".." segments are not allowed`);
    if (directory.includes('\\') || directory.includes('\0')) r.fail(dirPair, `${where}.content.directory: not a valid directory`);
  }
  const language = r.string(cp.get('language'), `${where}.content.language`);
  if (language !== undefined && !LANGUAGE.test(language))
    r.fail(cp.get('language'), `${where}.content.language: "${language}" is not a language code (such as en, fr, pt-br)`);
  const contentExtra = r.extra(cp, ['directory', 'language'], `${where}.content`);
  const space: DocsYamlSpace = {
    type: 'space',
    key,
    title: r.string(pairs.get('title'), `${where}.title`, { required: true, min: 1, max: 128 })!,
    localizedTitle: r.localized(pairs.get('localizedTitle'), `${where}.localizedTitle`, 128),
    path: r.string(pairs.get('path'), `${where}.path`, { required: true, min: 1, max: 100 })!,
    default: r.bool(pairs.get('default'), `${where}.default`),
    hidden: r.bool(pairs.get('hidden'), `${where}.hidden`),
    draft: r.bool(pairs.get('draft'), `${where}.draft`),
    condition: r.string(pairs.get('condition'), `${where}.condition`, { max: 1024 }),
    content: { directory, ...(language !== undefined ? { language } : {}), ...(contentExtra ? { extra: contentExtra } : {}) },
    extra: r.extra(pairs, KNOWN.space, where),
  };
  checkPathSegment(r, pairs.get('path')!, space.path, where);
  return prune(space);
}

function checkPathSegment(r: Reader, pair: Pair, path: string, where: string) {
  if (!/^[^\s/?#%\\]+$/.test(path)) r.fail(pair, `${where}.path: "${path}" must be one URL segment (no slash, space, "?", "#" or "%")`);
}

function readChildren(r: Reader, m: YAMLMap, pairs: Map<string, Pair>, where: string): { items: YAMLMap[]; pair?: Pair } {
  const pair = pairs.get('children');
  if (!pair || (isScalar(pair.value) && pair.value.value === null)) return { items: [] };
  if (!isSeq(pair.value)) r.fail(pair, `${where}.children must be a list`);
  return { items: pair.value.items.map((x, i) => r.map(x, `${where}.children[${i}]`)), pair };
}

function chooseDefault(r: Reader, items: { default?: boolean }[], nodes: YAMLMap[], where: string, what: string) {
  const marked = items.map((x, i) => (x.default ? i : -1)).filter((i) => i >= 0);
  if (marked.length > 1) r.fail(nodes[marked[1]], `${where}: more than one ${what} is marked default: true`);
  if (marked.length === 0 && items.length) r.warn(nodes[0], `${where}: no ${what} is marked default: true; the first one is the default`);
}

function readSection(r: Reader, m: YAMLMap, pairs: Map<string, Pair>, where: string): DocsYamlSection {
  r.count('sections', m);
  const key = r.claimKey(pairs.get('key'), where);
  const { items } = readChildren(r, m, pairs, where);
  const children = items.map((child, i) => {
    const w = `${where}.children[${i}]`;
    const cp = r.pairs(child, w);
    const t = nodeType(r, child, cp, w);
    if (t !== 'space') r.fail(child, `${w}: a section holds only spaces (found ${t}); nest sections under a section-group instead`);
    return readSpace(r, child, cp, w);
  });
  chooseDefault(r, children, items, where, 'space of this section');
  checkSpacePaths(r, children, items, where);
  const section: DocsYamlSection = {
    type: 'section',
    key,
    title: r.string(pairs.get('title'), `${where}.title`, { required: true, min: 2, max: 128 })!,
    localizedTitle: r.localized(pairs.get('localizedTitle'), `${where}.localizedTitle`, 128),
    path: r.string(pairs.get('path'), `${where}.path`, { required: true, min: 1, max: 100 })!,
    description: r.string(pairs.get('description'), `${where}.description`, { max: 256 }),
    localizedDescription: r.localized(pairs.get('localizedDescription'), `${where}.localizedDescription`, 256),
    icon: r.string(pairs.get('icon'), `${where}.icon`, { max: 50 }),
    default: r.bool(pairs.get('default'), `${where}.default`),
    draft: r.bool(pairs.get('draft'), `${where}.draft`),
    condition: r.string(pairs.get('condition'), `${where}.condition`, { max: 1024 }),
    children,
    extra: r.extra(pairs, KNOWN.section, where),
  };
  checkPathSegment(r, pairs.get('path')!, section.path, where);
  return prune(section);
}

/** Readers address a space by its path within its section (or the root). */
function checkSpacePaths(r: Reader, spaces: DocsYamlSpace[], nodes: YAMLMap[], where: string) {
  const paths = new Map<string, number>();
  spaces.forEach((s, i) => {
    const j = paths.get(s.path);
    if (j !== undefined) r.fail(nodes[i], `${where}: spaces ${j + 1} and ${i + 1} share the path "${s.path}"`);
    paths.set(s.path, i);
  });
}

function readLink(r: Reader, m: YAMLMap, pairs: Map<string, Pair>, where: string): DocsYamlExternalLink {
  r.count('links', m);
  const key = r.claimKey(pairs.get('key'), where);
  const url = r.string(pairs.get('url'), `${where}.url`, { required: true, max: 2048 })!;
  if (!/^https?:\/\/[^\s\x00-\x1f\x7f]+$/i.test(url) || !URL.canParse(url))
    r.fail(pairs.get('url'), `${where}.url must be an absolute http(s) URL`);
  return prune({
    type: 'external-link',
    key,
    // The description's SiteExternalLinkTitle: 2 to 128 characters, as the site's links take them.
    title: r.string(pairs.get('title'), `${where}.title`, { required: true, min: 2, max: 128 })!,
    localizedTitle: r.localized(pairs.get('localizedTitle'), `${where}.localizedTitle`, 128),
    url,
    description: r.string(pairs.get('description'), `${where}.description`, { max: 256 }),
    localizedDescription: r.localized(pairs.get('localizedDescription'), `${where}.localizedDescription`, 256),
    icon: r.string(pairs.get('icon'), `${where}.icon`, { max: 50 }),
    draft: r.bool(pairs.get('draft'), `${where}.draft`),
    condition: r.string(pairs.get('condition'), `${where}.condition`, { max: 1024 }),
    extra: r.extra(pairs, KNOWN['external-link'], where),
  } satisfies DocsYamlExternalLink);
}

function readGroup(r: Reader, m: YAMLMap, pairs: Map<string, Pair>, where: string, depth: number): DocsYamlGroup {
  r.count('groups', m);
  if (depth > DOCS_YAML_LIMITS.groupDepth) r.fail(m, `${where}: section groups nest at most ${DOCS_YAML_LIMITS.groupDepth} deep`);
  if (depth === 3) r.warn(m, `${where}: GitBook nests section groups one level; this file nests them deeper`);
  const key = r.claimKey(pairs.get('key'), where);
  const { items } = readChildren(r, m, pairs, where);
  const children = items.map((child, i) => {
    const w = `${where}.children[${i}]`;
    const cp = r.pairs(child, w);
    const t = nodeType(r, child, cp, w);
    if (t === 'space') r.fail(child, `${w}: a section group holds sections, section groups and external links, not spaces`);
    if (t === 'section') return readSection(r, child, cp, w);
    if (t === 'external-link') return readLink(r, child, cp, w);
    return readGroup(r, child, cp, w, depth + 1);
  });
  return prune({
    type: 'section-group',
    key,
    title: r.string(pairs.get('title'), `${where}.title`, { required: true, min: 1, max: 100 })!,
    localizedTitle: r.localized(pairs.get('localizedTitle'), `${where}.localizedTitle`, 128),
    icon: r.string(pairs.get('icon'), `${where}.icon`, { max: 50 }),
    draft: r.bool(pairs.get('draft'), `${where}.draft`),
    children,
    extra: r.extra(pairs, KNOWN['section-group'], where),
  } satisfies DocsYamlGroup);
}

/** Drop the fields left undefined (a config compares and writes back as given). */
function prune<T extends object>(o: T): T {
  for (const k of Object.keys(o) as (keyof T)[]) if (o[k] === undefined) delete o[k];
  return o;
}

/** Every section of a structure, in reading order (depth first through groups). */
export function sectionsOf(structure: DocsYamlNode[]): DocsYamlSection[] {
  return structure.flatMap((n) =>
    n.type === 'section' ? [n] : n.type === 'section-group' ? sectionsOf(n.children) : ([] as DocsYamlSection[]),
  );
}

/** Every space of a structure with the section holding it (null: the root of a site without sections). */
export function spacesOf(structure: DocsYamlNode[]): { space: DocsYamlSpace; section: DocsYamlSection | null }[] {
  const root = structure.filter((n): n is DocsYamlSpace => n.type === 'space').map((space) => ({ space, section: null }));
  return [...root, ...sectionsOf(structure).flatMap((section) => section.children.map((space) => ({ space, section })))];
}

/**
 * Reads docs.yaml (or gitbook-docs.yaml: `file` names it in messages). Throws RepoFormatError naming
 * the file and line for bad YAML, wrong types, broken rules or a bound passed.
 */
export function parseDocsYaml(text: string, file = 'docs.yaml'): ParsedDocsYaml {
  if (text.length > DOCS_YAML_LIMITS.chars)
    throw new RepoFormatError(`${file}: the file is larger than ${DOCS_YAML_LIMITS.chars.toLocaleString('en-US')} characters`);
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false, strict: true, logLevel: 'error' });
  const r: Reader = new Reader(file, lines, doc);
  if (doc.errors.length) {
    const e = doc.errors[0];
    const line = e.linePos?.[0].line ?? lines.linePos(e.pos[0]).line;
    throw new RepoFormatError(`${file}:${line}: invalid YAML: ${e.message.split('\n')[0]}`);
  }
  // Aliases would only be expanded for unknown keys, but an alias bomb is refused here whatever it hides in.
  try {
    doc.toJS({ maxAliasCount: DOCS_YAML_LIMITS.aliases });
  } catch (err) {
    throw new RepoFormatError(`${file}: ${(err as Error).message}`);
  }
  const top = r.map(doc.contents, 'the file');
  const tp = r.pairs(top, 'the file');
  const sitePair = tp.get('site');
  if (!sitePair) r.fail(top, 'site is required (site.title and site.structure)');
  const site = r.map(sitePair.value, 'site');
  const sp = r.pairs(site, 'site');
  const title = r.string(sp.get('title'), 'site.title', { required: true, min: 1, max: 128 })!;
  const structurePair = sp.get('structure');
  if (!structurePair) r.fail(site, 'site.structure is required (a list of sections, section groups or spaces)');
  if (!isSeq(structurePair.value)) r.fail(structurePair, 'site.structure must be a list');
  const items = structurePair.value.items.map((x, i) => r.map(x, `site.structure[${i}]`));
  const structure: DocsYamlNode[] = items.map((m, i) => {
    const where = `site.structure[${i}]`;
    const pairs = r.pairs(m, where);
    const t = nodeType(r, m, pairs, where);
    if (t === 'space') return readSpace(r, m, pairs, where);
    if (t === 'section') return readSection(r, m, pairs, where);
    if (t === 'external-link') return readLink(r, m, pairs, where);
    return readGroup(r, m, pairs, where, 1);
  });

  // Site-level rules of the description.
  const rootSpaces = structure.map((n, i) => ({ n, i })).filter((x) => x.n.type === 'space');
  const sections = sectionsOf(structure);
  if (sections.length && rootSpaces.length)
    r.fail(
      items[rootSpaces[0].i],
      'site.structure: a site with sections lists no space at its top level (every space belongs in a section)',
    );
  if (!sections.length && structure.some((n) => n.type !== 'space'))
    r.fail(structurePair, 'site.structure: section groups and external links need at least one section');
  if (sections.length) {
    const marked = sections.filter((s) => s.default);
    if (marked.length > 1)
      r.fail(structurePair, `site.structure: sections "${marked[0].key}" and "${marked[1].key}" are both default: true`);
    if (!marked.length) r.warn(structurePair, 'site.structure: no section is marked default: true; the first one is the default');
  } else {
    chooseDefault(
      r,
      rootSpaces.map((x) => x.n as DocsYamlSpace),
      rootSpaces.map((x) => items[x.i]),
      'site.structure',
      'space',
    );
    checkSpacePaths(
      r,
      rootSpaces.map((x) => x.n as DocsYamlSpace),
      rootSpaces.map((x) => items[x.i]),
      'site.structure',
    );
  }
  if (sections.length) {
    const paths = new Map<string, string>();
    for (const s of sections) {
      const other = paths.get(s.path);
      if (other) r.fail(structurePair, `site.structure: sections "${other}" and "${s.key}" share the path "${s.path}"`);
      paths.set(s.path, s.key);
    }
  }
  // One directory is read once: it cannot give two languages.
  const languages = new Map<string, { language: string | undefined; key: string }>();
  for (const { space } of spacesOf(structure)) {
    const dir = space.content.directory;
    if (dir === null) continue;
    const seen = languages.get(normalizeDirectory(dir));
    if (seen && seen.language !== space.content.language)
      r.fail(
        structurePair,
        `site.structure: spaces "${seen.key}" and "${space.key}" read the directory "${dir}" in two languages (${seen.language ?? 'none'}, ${space.content.language ?? 'none'})`,
      );
    languages.set(normalizeDirectory(dir), { language: space.content.language, key: space.key });
  }

  const schemaValue = r.string(tp.get('$schema'), '$schema', { max: 2048 });
  const versionPair = tp.get('version');
  let version: number | undefined;
  if (versionPair) {
    const v = versionPair.value;
    if (!isScalar(v) || v.value !== 1) r.fail(versionPair, 'version must be 1 (absent means 1)');
    version = 1;
  }
  const config: DocsYamlConfig = prune({
    $schema: schemaValue,
    version,
    site: prune({ title, structure, extra: r.extra(sp, ['title', 'structure'], 'site') }),
    extra: r.extra(tp, ['$schema', 'version', 'site'], 'the file'),
  });
  const lineOf = (w: string) => Number(/^[^:]*:(\d+):/.exec(w)?.[1] ?? 0);
  return {
    config,
    warnings: r.warnings
      .map((w, i) => ({ w, i }))
      .sort((a, b) => lineOf(a.w) - lineOf(b.w) || a.i - b.i)
      .map((x) => x.w),
  };
}

/** `./guides/` and `guides` name one directory: relative, no leading `./` or trailing slash (`/x` keeps its slash). */
export function normalizeDirectory(dir: string): string {
  const rooted = dir.startsWith('/');
  const parts = dir.split('/').filter((p) => p && p !== '.');
  return (rooted ? '/' : '') + parts.join('/');
}

/**
 * Where a space's directory is in the repository: relative to the site's project directory, or,
 * with a leading slash, to the repository root. '' is the repository root. `..` never gets here.
 */
export function resolveDirectory(projectDirectory: string | null | undefined, directory: string): string {
  const norm = normalizeDirectory(directory);
  if (norm.startsWith('/')) return norm.slice(1);
  const base = normalizeDirectory(projectDirectory ?? '').replace(/^\//, '');
  return [base, norm].filter(Boolean).join('/');
}

/**
 * The site file of a project directory among a commit's paths: `docs.yaml` (what real repositories
 * hold), else `gitbook-docs.yaml` (the description's name); null when it has neither.
 */
export function findDocsYaml(paths: Iterable<string>, projectDirectory: string | null | undefined): string | null {
  const base = normalizeDirectory(projectDirectory ?? '').replace(/^\//, '');
  const all = new Set(paths);
  for (const name of DOCS_YAML_FILES) {
    const p = base ? `${base}/${name}` : name;
    if (all.has(p)) return p;
  }
  return null;
}
