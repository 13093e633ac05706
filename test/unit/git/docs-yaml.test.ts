import { describe, expect, it } from 'vitest';
import {
  DOCS_YAML_LIMITS,
  findDocsYaml,
  parseDocsYaml,
  resolveDirectory,
  spacesOf,
  writeDocsYaml,
  type DocsYamlConfig,
  type DocsYamlSection,
} from '../../../src/git/format/docs-yaml.js';
import { RepoFormatError } from '../../../src/git/format/errors.js';

// In the shape GitBook writes for a real multi-space site: sections with localized titles and
// descriptions, a section group with a nested (draft) group, language variants without a directory.
const REAL_SHAPED = `$schema: https://api.gitbook.com/openapi.yaml#/components/schemas/GitSyncSiteConfig
site:
  title: Northwind Documentation
  structure:
    - type: section
      key: section-1
      title: Documentation
      localizedTitle:
        en: Documentation
        fr: Documentation
        ja: ドキュメント
      path: documentation
      description: Everything about running Northwind
      localizedDescription:
        fr: Tout sur l'utilisation de Northwind
      icon: book-open
      default: true
      children:
        - type: space
          key: space-1
          title: 🇬🇧 English
          localizedTitle:
            fr: 🇬🇧 Anglais
          path: northwind-docs
          default: true
          content:
            directory: ./handbook
            language: en
        - type: space
          key: space-5
          title: 🇫🇷 Français
          path: fr
          content:
            directory: null
            language: fr
    - type: section
      key: section-3
      title: Developers
      path: developers
      localizedDescription:
        fr: L'API et le SDK
      icon: code
      children:
        - type: space
          key: space-3
          title: Developer Documentation
          path: developer-docs
          default: true
          content:
            directory: ./api
            language: en
    - type: section-group
      key: section-group-1
      title: Resources
      localizedTitle:
        fr: Ressources
      icon: circle-info
      children:
        - type: section
          key: section-2
          title: Changelog
          path: changelog
          description: 'Releases: what changed'
          icon: bars-staggered
          children:
            - type: space
              key: space-2
              title: Public Changelog
              path: public-changelog
              default: true
              hidden: true
              content:
                directory: ./changelog
                language: en
        - type: section-group
          key: section-group-2
          title: Academy
          icon: lightbulb-on
          draft: true
          children: []
`;

const withStructure = (structure: string) => `site:\n  title: T\n  structure:\n${structure}`;

function failure(text: string): string {
  try {
    parseDocsYaml(text);
  } catch (err) {
    expect(err).toBeInstanceOf(RepoFormatError);
    return (err as Error).message;
  }
  throw new Error('expected the file to be refused');
}

describe('parseDocsYaml', () => {
  it('reads a real-shaped multi-space site: sections, groups, localized titles, variants', () => {
    const { config, warnings } = parseDocsYaml(REAL_SHAPED);
    expect(warnings).toEqual([]);
    expect(config.site.title).toBe('Northwind Documentation');
    expect(config.site.structure.map((n) => [n.type, n.key])).toEqual([
      ['section', 'section-1'],
      ['section', 'section-3'],
      ['section-group', 'section-group-1'],
    ]);
    const first = config.site.structure[0] as DocsYamlSection;
    expect(first).toMatchObject({
      title: 'Documentation',
      path: 'documentation',
      description: 'Everything about running Northwind',
      icon: 'book-open',
      default: true,
      localizedTitle: { en: 'Documentation', fr: 'Documentation', ja: 'ドキュメント' },
      localizedDescription: { fr: "Tout sur l'utilisation de Northwind" },
    });
    expect(first.children[1]).toEqual({
      type: 'space',
      key: 'space-5',
      title: '🇫🇷 Français',
      path: 'fr',
      content: { directory: null, language: 'fr' },
    });
    const spaces = spacesOf(config.site.structure);
    expect(spaces.map((s) => [s.space.key, s.section?.key, s.space.content.directory])).toEqual([
      ['space-1', 'section-1', './handbook'],
      ['space-5', 'section-1', null],
      ['space-3', 'section-3', './api'],
      ['space-2', 'section-2', './changelog'],
    ]);
    expect(spaces[3].space.hidden).toBe(true);
  });

  it('writes a real-shaped file back byte for byte when nothing changed', () => {
    const { config } = parseDocsYaml(REAL_SHAPED);
    expect(writeDocsYaml(config)).toBe(REAL_SHAPED);
    // And a written change reads back as the changed config.
    (config.site.structure[1] as DocsYamlSection).title = 'yes';
    const text = writeDocsYaml(config);
    expect(text).toContain("title: 'yes'");
    expect(parseDocsYaml(text).config).toEqual(config);
  });

  it('reads gitbook-docs.yaml the same way and names that file in errors', () => {
    expect(parseDocsYaml(REAL_SHAPED, 'gitbook-docs.yaml').config.site.title).toBe('Northwind Documentation');
    expect(() => parseDocsYaml('site: [', 'gitbook-docs.yaml')).toThrow(/^gitbook-docs\.yaml:1: invalid YAML/);
  });

  it('keeps unknown keys for write-back, with a warning naming their line', () => {
    const text = withStructure(`    - type: space
      key: s
      title: Guide
      path: guide
      default: true
      color: blue
      content:
        directory: ./guide
        mode: strict
`);
    const { config, warnings } = parseDocsYaml(text);
    expect(warnings).toEqual([
      'docs.yaml:9: site.structure[0]: unknown key "color" is kept as written but not used',
      'docs.yaml:12: site.structure[0].content: unknown key "mode" is kept as written but not used',
    ]);
    expect(config.site.structure[0]).toMatchObject({ extra: { color: 'blue' }, content: { extra: { mode: 'strict' } } });
    expect(writeDocsYaml(config)).toContain('      color: blue\n');
    expect(parseDocsYaml(writeDocsYaml(config)).config).toEqual(config);
  });

  it('refuses bad YAML and wrong types, naming the line', () => {
    expect(failure('site:\n  title: T\n  structure: [\n')).toMatch(/^docs\.yaml:\d+: invalid YAML/);
    expect(failure('site:\n  title: T\n  title: U\n  structure: []\n')).toMatch(/^docs\.yaml:3: invalid YAML: .*unique/i);
    expect(
      failure(withStructure('    - type: space\n      key: s\n      title: 12\n      path: p\n      content:\n        directory: ./p\n')),
    ).toBe('docs.yaml:6: site.structure[0].title must be a string');
    expect(
      failure(
        withStructure(
          '    - type: space\n      key: s\n      title: S\n      path: p\n      default: yes\n      content:\n        directory: ./p\n',
        ),
      ),
    ).toBe('docs.yaml:8: site.structure[0].default must be true or false');
    expect(failure(withStructure('    - type: page\n      key: s\n'))).toMatch(
      /^docs\.yaml:4: site\.structure\[0\]\.type: "page" is not one of/,
    );
    expect(failure('site:\n  title: T\n')).toMatch(/site\.structure is required/);
    expect(failure('- a\n- b\n')).toBe('docs.yaml:1: the file must be a mapping');
    expect(failure(withStructure('    - type: space\n      key: s\n      title: S\n      path: p\n'))).toMatch(
      /^docs\.yaml:4: .*content is required/,
    );
  });

  it('checks the description rules: unique keys, defaults, nesting, directories', () => {
    const space = (key: string, dir = `./${key}`, extra = '') =>
      `        - type: space\n          key: ${key}\n          title: ${key}\n          path: ${key}\n${extra}          content:\n            directory: ${dir}\n`;
    const section = (key: string, spaces: string, extra = '') =>
      `    - type: section\n      key: ${key}\n      title: Section ${key}\n      path: ${key}\n${extra}      children:\n${spaces}`;
    expect(failure(withStructure(section('a', space('x')) + section('b', space('x'))))).toMatch(
      /site\.structure\[1\]\.children\[0\]\.key: "x" is also the key of the entry at line \d+/,
    );
    expect(
      failure(withStructure(section('a', space('x'), '      default: true\n') + section('b', space('y'), '      default: true\n'))),
    ).toMatch(/sections "a" and "b" are both default: true/);
    expect(failure(withStructure(section('a', space('x') + space('y').replace('path: y', 'path: x'))))).toMatch(
      /spaces 1 and 2 share the path "x"/,
    );
    expect(
      failure(
        withStructure(
          section('a', space('x')) +
            '    - type: space\n      key: r\n      title: R\n      path: r\n      content:\n        directory: ./r\n',
        ),
      ),
    ).toMatch(/a site with sections lists no space at its top level/);
    expect(failure(withStructure(section('a', space('x', './../secrets'))))).toMatch(/"\.\." segments are not allowed/);
    expect(
      failure(
        withStructure(
          section('a', space('x', './same', '          default: true\n')) +
            section(
              'b',
              space('y', './same', '          default: true\n').replace(
                'directory: ./same\n',
                'directory: ./same\n            language: fr\n',
              ),
            ),
        ),
      ),
    ).toMatch(/read the directory "\.\/same" in two languages/);
    const nested = (depth: number, top = depth): string => {
      const pad = (n: number) => ' '.repeat(n + (top - depth) * 4);
      return depth === 0
        ? ''
        : `${pad(4)}- type: section-group\n${pad(6)}key: g${depth}\n${pad(6)}title: G\n${pad(6)}children:\n${nested(depth - 1, top)}`;
    };
    // The description nests groups one level; deeper (as the API allows, 5) is read with a warning, past 5 refused.
    const deep = parseDocsYaml(withStructure(section('a', space('x')) + nested(3)));
    expect(deep.warnings).toContain(
      'docs.yaml:23: site.structure[1].children[0].children[0]: GitBook nests section groups one level; this file nests them deeper',
    );
    expect(failure(withStructure(section('a', space('x')) + nested(6)))).toMatch(/section groups nest at most 5 deep/);
    // No default marked: the first is, with a warning.
    const { warnings } = parseDocsYaml(withStructure(section('a', space('x')) + section('b', space('y'))));
    expect(warnings.some((w) => w.includes('no section is marked default: true'))).toBe(true);
  });

  it('bounds the file size, the entries and aliases', () => {
    expect(failure('#'.repeat(DOCS_YAML_LIMITS.chars + 1))).toMatch(/larger than/);
    const many = Array.from(
      { length: DOCS_YAML_LIMITS.sections + 1 },
      (_, i) =>
        `    - type: section\n      key: s${i}\n      title: S${i}\n      path: s${i}\n      children:\n        - type: space\n          key: x${i}\n          title: X\n          path: x\n          content:\n            directory: ./x${i}\n`,
    ).join('');
    expect(failure(withStructure(many))).toMatch(/a site has at most 100 sections/);
    const bomb = `a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nsite:\n  title: T\n  structure: []\n`;
    expect(failure(bomb)).toMatch(/alias/i);
  });

  it('reads external links at the root and in groups, as the site holds them, and writes them back byte for byte', () => {
    const text = `site:
  title: Links
  structure:
    - type: section
      key: section-docs
      title: Docs
      path: docs
      default: true
      children:
        - type: space
          key: space-docs
          title: Docs
          path: docs
          default: true
          content:
            directory: ./docs
    - type: external-link
      key: link-status
      title: Status
      localizedTitle:
        fr: État
      url: https://status.example.com/
      description: 'Uptime: live'
      icon: signal
      condition: visitor.claims.staff == true
    - type: section-group
      key: group-more
      title: More
      children:
        - type: external-link
          key: link-forum
          title: Forum
          url: https://forum.example.com/?tab=latest
          draft: false
          rank: 3
`;
    const { config, warnings } = parseDocsYaml(text);
    expect(warnings).toEqual([expect.stringMatching(/^docs\.yaml:35: site\.structure\[2\]\.children\[0\]: unknown key "rank"/)]);
    expect(config.site.structure[1]).toEqual({
      type: 'external-link',
      key: 'link-status',
      title: 'Status',
      localizedTitle: { fr: 'État' },
      url: 'https://status.example.com/',
      description: 'Uptime: live',
      icon: 'signal',
      condition: 'visitor.claims.staff == true',
    });
    expect(writeDocsYaml(config)).toBe(text);
  });

  it('refuses external links the site could not hold: short titles, bad URLs, NUL characters, more than 50', () => {
    const docs =
      '    - type: section\n      key: docs\n      title: Docs\n      path: docs\n      children:\n' +
      '        - type: space\n          key: space-docs\n          title: Docs\n          path: docs\n          content:\n            directory: ./docs\n';
    const link = (fields: string) => `    - type: external-link\n      key: l\n${fields}`;
    expect(failure(withStructure(docs + link('      title: S\n      url: https://x.example/\n')))).toMatch(
      /^docs\.yaml:\d+: site\.structure\[1\]\.title must have at least 2 characters$/,
    );
    expect(failure(withStructure(docs + link('      title: Status\n      url: ftp://x.example/\n')))).toMatch(
      /url must be an absolute http\(s\) URL/,
    );
    expect(failure(withStructure(docs + link('      title: Status\n      url: http://[x/\n')))).toMatch(
      /url must be an absolute http\(s\) URL/,
    );
    expect(failure(withStructure(docs + link('      title: "St\\0atus"\n      url: https://x.example/\n')))).toMatch(
      /title must not contain NUL characters/,
    );
    const many = Array.from(
      { length: DOCS_YAML_LIMITS.links + 1 },
      (_, i) => `    - type: external-link\n      key: l${i}\n      title: Link ${i}\n      url: https://x.example/${i}\n`,
    ).join('');
    expect(DOCS_YAML_LIMITS.links).toBe(50);
    expect(failure(withStructure(docs + many))).toMatch(/a site has at most 50 external links/);
  });

  it('finds docs.yaml, else gitbook-docs.yaml, at the top of the project directory', () => {
    expect(findDocsYaml(['docs.yaml', 'gitbook-docs.yaml', 'a/README.md'], '')).toBe('docs.yaml');
    expect(findDocsYaml(['gitbook-docs.yaml'], null)).toBe('gitbook-docs.yaml');
    expect(findDocsYaml(['docs.yaml', 'site/gitbook-docs.yaml'], './site/')).toBe('site/gitbook-docs.yaml');
    expect(findDocsYaml(['site/a/docs.yaml'], 'site')).toBeNull();
  });

  it('resolves directories from the project directory, a leading slash from the repository root', () => {
    expect(resolveDirectory('docs', './guides')).toBe('docs/guides');
    expect(resolveDirectory('docs/', 'guides/')).toBe('docs/guides');
    expect(resolveDirectory('docs', '/guides')).toBe('guides');
    expect(resolveDirectory(null, './')).toBe('');
    expect(resolveDirectory('', './a/b')).toBe('a/b');
  });

  it('writes a config built in code in the same shape', () => {
    const config: DocsYamlConfig = {
      site: {
        title: 'Built',
        structure: [
          {
            type: 'space',
            key: 'k',
            title: 'Only',
            path: 'only',
            default: true,
            content: { directory: './only', language: 'en' },
          },
        ],
      },
    };
    expect(writeDocsYaml(config)).toBe(
      'site:\n  title: Built\n  structure:\n    - type: space\n      key: k\n      title: Only\n      path: only\n      default: true\n      content:\n        directory: ./only\n        language: en\n',
    );
  });
});
