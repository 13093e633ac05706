import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  generateRepository,
  parseRepository,
  renderPageFile,
  RepoFormatError,
  type ExportFile,
  type ExportPage,
  type ImportedFile,
  type ImportedPage,
} from '../../../src/git/format.js';
import { TEST_FIXTURES } from '../../helpers/fixtures.js';

const FIXTURES = path.join(TEST_FIXTURES, 'git');

/** Every file under `fixture/projectDir`, keyed by path relative to the project directory. */
function loadFixture(fixture: string, projectDir = ''): Map<string, Buffer> {
  const base = path.join(FIXTURES, fixture, projectDir);
  const out = new Map<string, Buffer>();
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else out.set(path.relative(base, full).split(path.sep).join('/'), fs.readFileSync(full));
    }
  };
  walk(base);
  return out;
}

const files = (entries: Record<string, string | Buffer>) =>
  new Map(Object.entries(entries).map(([k, v]) => [k, typeof v === 'string' ? Buffer.from(v) : v]));

/** Titles, types and nesting of a tree, as an outline. */
function outline(pages: Array<{ type: string; title: string; path?: string; children: any[] }>): unknown[] {
  return pages.map((p) => [
    p.type === 'group' ? `## ${p.title}` : `${p.title} <${p.path}>`,
    ...(p.children.length ? [outline(p.children)] : []),
  ]);
}

function find(pages: ImportedPage[], title: string): ImportedPage {
  for (const p of pages) {
    if (p.title === title) return p;
    const found = p.children.length ? findOrNull(p.children, title) : null;
    if (found) return found;
  }
  throw new Error(`no page titled ${title}`);
}
function findOrNull(pages: ImportedPage[], title: string): ImportedPage | null {
  try {
    return find(pages, title);
  } catch {
    return null;
  }
}

/** The export shape of an import, as the sync layer builds it (gitPath = imported path). */
function toExport(pages: ImportedPage[], slugs = new Map<string, number>()): ExportPage[] {
  return pages.map((p, i) => {
    const { path: gitPath, children, ...rest } = p;
    return {
      ...rest,
      id: `${p.title}-${i}`,
      slug: p.title.toLowerCase().replace(/[^a-z0-9]+/g, '-'),
      ...(gitPath ? { gitPath } : {}),
      children: toExport(children, slugs),
    };
  });
}
const filesToExport = (imported: ImportedFile[]): ExportFile[] =>
  imported.map((f) => ({ name: f.name, gitPath: f.path, content: f.content }));

/** The parts of a page tree that must survive a round trip. */
function essence(pages: Array<ImportedPage | ExportPage>): unknown[] {
  return pages.map((p) => ({
    type: p.type,
    title: p.title,
    ...(p.description ? { description: p.description } : {}),
    ...(p.icon ? { icon: p.icon } : {}),
    ...(p.emoji ? { emoji: p.emoji } : {}),
    ...(p.hidden ? { hidden: true } : {}),
    ...(p.layout ? { layout: p.layout } : {}),
    markdown: p.markdown,
    children: essence(p.children),
  }));
}

function expectFormatError(fn: () => unknown, ...parts: Array<string | RegExp>): RepoFormatError {
  let error: unknown;
  try {
    fn();
  } catch (err) {
    error = err;
  }
  expect(error).toBeInstanceOf(RepoFormatError);
  for (const part of parts) expect((error as Error).message).toMatch(part);
  return error as RepoFormatError;
}

const SAFE = /^(?!\/)(?!.*(?:^|\/)\.\.?(?:\/|$))[^\\\0]+$/;

describe('parseRepository: a repository in GitBook style', () => {
  const repo = loadFixture('canonical');
  const result = parseRepository(repo);

  it('uses the default configuration without .gitbook.yaml', () => {
    expect(result.config).toEqual({ root: './', readme: 'README.md', summary: 'SUMMARY.md', redirects: {} });
  });

  it('builds the tree from SUMMARY.md: order, nesting, groups, paths', () => {
    expect(outline(result.pages)).toEqual([
      ['Welcome <README.md>'],
      [
        'Getting started <getting-started/README.md>',
        [
          ['Installation <getting-started/installation.md>'],
          [
            'Configuration <getting-started/configuration.md>',
            [['Environment variables <getting-started/configuration/environment-variables.md>']],
          ],
        ],
      ],
      ['FAQ <faq.md>'],
      ['## Guides', [['Writing pages <guides/writing-pages.md>'], ['Images & files <guides/images-and-files.md>']]],
      [
        '## Reference',
        [['API <reference/api/README.md>', [['Authentication <reference/api/authentication.md>']]], ['Changelog <reference/changelog.md>']],
      ],
    ]);
    const group = result.pages[3];
    expect(group).toMatchObject({ type: 'group', path: '', markdown: '' });
  });

  it('reads front matter into page metadata, with layout options as the API has them', () => {
    const welcome = find(result.pages, 'Welcome');
    expect(welcome.description).toBe(
      'Everything you need to install, configure and run Acme, from the very first download to a production deployment behind a load balancer.',
    );
    expect(welcome.icon).toBe('house');
    expect(welcome.layout).toEqual({
      width: 'wide',
      cover: true,
      coverSize: 'hero',
      title: true,
      description: true,
      tableOfContents: true,
      outline: false,
      pagination: true,
    });
    expect(find(result.pages, 'Environment variables').hidden).toBe(true);
    expect(find(result.pages, 'FAQ').emoji).toBe('1f4a1');
    expect(find(result.pages, 'Writing pages').description).toBe('Markdown: the basics, and what GitBook adds to it');
    expect(find(result.pages, 'Authentication').layout).toEqual({ width: 'wide' });
    const plain = find(result.pages, 'Changelog');
    expect(Object.keys(plain).sort()).toEqual(['children', 'markdown', 'path', 'title', 'type']);
  });

  it('stores bodies without front matter and title heading, links exactly as written', () => {
    expect(find(result.pages, 'Welcome').markdown).toBe(
      'Acme keeps your widgets in order.\n\n![Acme logo](.gitbook/assets/logo.png)\n\n* [Install Acme](getting-started/installation.md)\n* [Read the FAQ](faq.md)\n',
    );
    expect(find(result.pages, 'Installation').markdown).toMatch(/^\{% hint style="info" %\}\n/);
    expect(find(result.pages, 'Installation').markdown).toContain('![The installer](../.gitbook/assets/install-screen.png)');
    expect(find(result.pages, 'Configuration').markdown).toMatch(
      /^Acme reads `acme.yaml`.*\[Environment variables\]\(configuration\/environment-variables.md\)\.\n\n## File format\n/,
    );
    expect(find(result.pages, 'Changelog').markdown).toBe('## 1.0.0\n\nFirst release.\n');
  });

  it('lists the files under .gitbook/assets with names and content types', () => {
    expect(result.files.map((f) => [f.path, f.name, f.contentType])).toEqual([
      ['.gitbook/assets/data.json', 'data.json', 'application/json'],
      ['.gitbook/assets/diagram (1).png', 'diagram (1).png', 'image/png'],
      ['.gitbook/assets/diagram.png', 'diagram.png', 'image/png'],
      ['.gitbook/assets/install-screen.png', 'install-screen.png', 'image/png'],
      ['.gitbook/assets/logo.png', 'logo.png', 'image/png'],
      ['.gitbook/assets/report.pdf', 'report.pdf', 'application/pdf'],
    ]);
    expect(result.files[4].content.equals(repo.get('.gitbook/assets/logo.png')!)).toBe(true);
  });

  it('generates the same repository back, byte for byte', () => {
    const generated = generateRepository(toExport(result.pages), filesToExport(result.files), result.config);
    expect([...generated.keys()].sort()).toEqual([...repo.keys()].sort());
    for (const [p, content] of repo) {
      if (p.endsWith('.md')) expect(generated.get(p)!.toString('utf8'), p).toBe(content.toString('utf8'));
      expect(generated.get(p)!.equals(content), p).toBe(true);
    }
  });

  it('renderPageFile gives the text of each page file as stored', () => {
    const exported = toExport(result.pages);
    const walk = (imported: ImportedPage[], pages: ExportPage[]) =>
      imported.forEach((p, i) => {
        if (p.type === 'document') expect(renderPageFile(pages[i])).toBe(repo.get(p.path)!.toString('utf8'));
        else expect(renderPageFile(pages[i])).toBe('');
        walk(p.children, pages[i].children);
      });
    walk(result.pages, exported);
  });
});

describe('parseRepository: page titles and linked files', () => {
  const titleOf = (firstLines: string) => {
    const r = parseRepository(files({ 'README.md': `${firstLines}\n\nBody text.\n` }));
    return [r.pages[0].title, r.pages[0].markdown];
  };

  it('reads a leading level-1 heading as the title, plain or with Markdown in it', () => {
    expect(titleOf('# Getting   started #')).toEqual(['Getting started', 'Body text.\n']);
    expect(titleOf('#\tÜber 日本 🚀 (v2) a@b.com')).toEqual(['Über 日本 🚀 (v2) a@b.com', 'Body text.\n']);
    expect(titleOf('# The **bold** `code` [link](x.md) &amp; C#')).toEqual(['The bold code link & C#', 'Body text.\n']);
    expect(titleOf('Setext title\n===')).toEqual(['Setext title', 'Body text.\n']);
    // An empty heading or none at level 1: the README's default title, the text stays in the body.
    expect(titleOf('#\nnext line')).toEqual(['Introduction', '#\nnext line\n\nBody text.\n']);
    expect(titleOf('## Second level')[0]).toBe('Introduction');
    expect(titleOf('    # code')[0]).toBe('Introduction');
    expect(titleOf('#5 no space')[0]).toBe('Introduction');
  });

  it('keeps the files that page links name, wherever they are, and only those', () => {
    const r = parseRepository(
      files({
        'SUMMARY.md': '* [A](a.md)\n* [B](b.md)\n',
        'a.md': '# A\n\n![chart](images/chart.svg) and [the sheet](<data/sheet 1.csv>)\n\n```\n![not a link](images/unused.png)\n```\n',
        'b.md': '# B\n\nNo files here; [page A](a.md).\n',
        'images/chart.svg': '<svg/>',
        'images/unused.png': Buffer.from([1]),
        'data/sheet 1.csv': 'a,b\n',
        '.gitbook/assets/kept.png': Buffer.from([2]),
      }),
    );
    expect(r.files.map((f) => f.path)).toEqual(['.gitbook/assets/kept.png', 'data/sheet 1.csv', 'images/chart.svg']);
  });
});

describe('parseRepository: .gitbook.yaml, docs root and monorepos', () => {
  it('reads root, structure and redirects, and only the files under the root', () => {
    const { config, pages, files: assets } = parseRepository(loadFixture('docs-root'));
    expect(config).toEqual({
      root: './docs/',
      readme: 'intro.md',
      summary: 'toc.md',
      redirects: { 'old/setup': 'guide/setup.md', help: 'support.md' },
    });
    // The readme comes first even though toc.md does not list it; '-' bullets and 4-space nesting are fine.
    expect(outline(pages)).toEqual([
      ['Introduction <intro.md>'],
      ['Setting up <guide/setup.md>', [['Advanced setup <guide/advanced.md>']]],
      ['Support <support.md>'],
    ]);
    expect(find(pages, 'Introduction').markdown).toBe('Welcome to Acme. This page has no heading.\n');
    // The file's heading is the title; a different SUMMARY text is the sidebar title (no second heading on export).
    expect(find(pages, 'Setting up')).toMatchObject({
      linkTitle: 'Setup guide',
      markdown: 'The SUMMARY title wins, so this heading stays in the body.\n',
    });
    expect(find(pages, 'Advanced setup').markdown).toBe('![Chart](../images/chart.svg)\n');
    expect(find(pages, 'Support')).toMatchObject({ description: 'How to get help', markdown: 'Write to support@example.com.\n' });
    // Assets, plus a file outside .gitbook/assets that a page embeds; unreferenced files are not space files.
    expect(assets.map((f) => [f.path, f.contentType])).toEqual([
      ['.gitbook/assets/photo.jpg', 'image/jpeg'],
      ['images/chart.svg', 'image/svg+xml'],
    ]);
  });

  it('writes under the configured root with the configured readme and summary names', () => {
    const { config, pages, files: assets } = parseRepository(loadFixture('docs-root'));
    const out = generateRepository(toExport(pages), filesToExport(assets), config);
    expect([...out.keys()].sort()).toEqual([
      'docs/.gitbook/assets/photo.jpg',
      'docs/guide/advanced.md',
      'docs/guide/setup.md',
      'docs/images/chart.svg',
      'docs/intro.md',
      'docs/support.md',
      'docs/toc.md',
    ]);
    expect(out.get('docs/toc.md')!.toString()).toBe(
      '# Table of contents\n\n* [Introduction](intro.md)\n* [Setting up](guide/setup.md "Setup guide")\n  * [Advanced setup](guide/advanced.md)\n* [Support](support.md)\n',
    );
    expect(out.get('docs/support.md')!.toString()).toBe(
      '---\ndescription: How to get help\n---\n\n# Support\n\nWrite to support@example.com.\n',
    );
    const again = parseRepository(new Map([...out, ['.gitbook.yaml', loadFixture('docs-root').get('.gitbook.yaml')!]]));
    expect(essence(again.pages)).toEqual(essence(pages));
  });

  it('reads a project directory inside a monorepo', () => {
    const { config, pages, files: assets } = parseRepository(loadFixture('monorepo', 'packages/product'));
    expect(config.root).toBe('./docs/');
    expect(outline(pages)).toEqual([['Product <README.md>'], ['Usage <usage.md>']]);
    expect(find(pages, 'Usage').markdown).toBe('![Screenshot](.gitbook/assets/screenshot.png)\n');
    expect(assets.map((f) => f.path)).toEqual(['.gitbook/assets/screenshot.png']);
    const out = generateRepository(toExport(pages), filesToExport(assets), config);
    const project = loadFixture('monorepo', 'packages/product');
    for (const [p, content] of out) expect(content.equals(project.get(p)!), p).toBe(true);
  });

  it('accepts an empty .gitbook.yaml and a normalised root spelling', () => {
    expect(parseRepository(files({ '.gitbook.yaml': '', 'README.md': '# Hi\n' })).config.root).toBe('./');
    const r = parseRepository(files({ '.gitbook.yaml': 'root: docs\n', 'docs/README.md': '# Hi\n' }));
    expect(r.config.root).toBe('./docs/');
    expect(outline(r.pages)).toEqual([['Hi <README.md>']]);
  });
});

describe('parseRepository without SUMMARY.md: the folder layout', () => {
  const { pages, files: assets } = parseRepository(loadFixture('folders'));

  it('puts the readme first, then files and folders by name (numbers as numbers)', () => {
    expect(outline(pages)).toEqual([
      ['Home <README.md>'],
      ['Quickstart <01-quickstart.md>'],
      ['Concepts <2-concepts.md>'],
      ['Troubleshooting <10-troubleshooting.md>'],
      ['## Api reference', [['Endpoints <api-reference/endpoints.md>']]],
      [
        'Guides <guides/README.md>',
        [['Advanced <guides/advanced/README.md>', [['Tuning <guides/advanced/tuning.md>']]], ['Deploy <guides/deploy.md>']],
      ],
    ]);
  });

  it('takes titles from the first heading (removed from the body) or the file name', () => {
    expect(find(pages, 'Home').markdown).toBe('Welcome.\n');
    expect(find(pages, 'Quickstart').markdown).toBe('No heading here: the title comes from the file name.\n');
    expect(find(pages, 'Concepts')).toMatchObject({ description: 'The ideas behind Acme', markdown: 'Text.\n' });
    expect(find(pages, 'Advanced')).toMatchObject({
      type: 'document',
      markdown: '',
      children: [expect.objectContaining({ title: 'Tuning' })],
    });
    expect(assets.map((f) => f.path)).toEqual(['.gitbook/assets/arch.png']);
  });

  it('exports to a SUMMARY.md that keeps the same tree', () => {
    const out = generateRepository(toExport(pages), filesToExport(assets));
    expect(out.get('SUMMARY.md')!.toString()).toBe(
      [
        '# Table of contents',
        '',
        '* [Home](README.md)',
        '* [Quickstart](01-quickstart.md)',
        '* [Concepts](2-concepts.md)',
        '* [Troubleshooting](10-troubleshooting.md)',
        '',
        '## Api reference',
        '',
        '* [Endpoints](api-reference/endpoints.md)',
        '',
        '---',
        '',
        '* [Guides](guides/README.md)',
        '  * [Advanced](guides/advanced/README.md)',
        '    * [Tuning](guides/advanced/tuning.md)',
        '  * [Deploy](guides/deploy.md)',
        '',
      ].join('\n'),
    );
    expect(out.get('guides/advanced/README.md')!.toString()).toBe('# Advanced\n');
    const again = parseRepository(out);
    expect(outline(again.pages)).toEqual(outline(pages));
    expect(essence(again.pages)).toEqual(essence(pages));
  });
});

describe('generateRepository', () => {
  const page = (title: string, extra: Partial<ExportPage> = {}): ExportPage => ({
    id: `id-${title}`,
    type: 'document',
    title,
    slug: title
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, ''),
    markdown: `Body of ${title}.\n`,
    children: [],
    ...extra,
  });

  it('names new files: README.md first, <slug>.md, <slug>/README.md with children, group folders', () => {
    const out = generateRepository(
      [
        page('Introduction'),
        page('Guide', { children: [page('Install'), page('Deep', { children: [page('Deeper')] })] }),
        {
          ...page('Reference'),
          type: 'group',
          slug: 'reference',
          markdown: '',
          children: [page('API'), page('CLI', { children: [page('Flags')] })],
        },
      ],
      [],
    );
    expect([...out.keys()]).toEqual([
      'SUMMARY.md',
      'README.md',
      'guide/README.md',
      'guide/install.md',
      'guide/deep/README.md',
      'guide/deep/deeper.md',
      'reference/api.md',
      'reference/cli/README.md',
      'reference/cli/flags.md',
    ]);
    expect(out.get('SUMMARY.md')!.toString()).toBe(
      [
        '# Table of contents',
        '',
        '* [Introduction](README.md)',
        '* [Guide](guide/README.md)',
        '  * [Install](guide/install.md)',
        '  * [Deep](guide/deep/README.md)',
        '    * [Deeper](guide/deep/deeper.md)',
        '',
        '## Reference',
        '',
        '* [API](reference/api.md)',
        '* [CLI](reference/cli/README.md)',
        '  * [Flags](reference/cli/flags.md)',
        '',
      ].join('\n'),
    );
    expect(out.get('guide/install.md')!.toString()).toBe('# Install\n\nBody of Install.\n');
  });

  it('keeps gitPath exactly (case-sensitively, as git does), places children beside it and gives new names no case clash', () => {
    const out = generateRepository(
      [
        page('Home', { gitPath: 'start.md' }),
        page('Moved', { gitPath: 'old/place.md', children: [page('Child')] }),
        page('Setup'),
        page('setup'),
        page('Readme twin', { slug: 'README' }),
        page('Dup A', { gitPath: 'dup.md' }),
        page('Dup B', { gitPath: 'DUP.md' }),
      ],
      [
        { name: 'logo.png', content: Buffer.from('a') },
        { name: 'logo.png', content: Buffer.from('b') },
        { name: 'Logo.png', content: Buffer.from('c') },
        { name: 'kept.png', gitPath: 'images/kept.png', content: Buffer.from('d') },
        { name: 'archive', content: Buffer.from('e') },
        { name: 'DELETE.png', gitPath: '.gitbook/assets/DELETE.png', content: Buffer.from('f') },
        { name: 'delete.png', gitPath: '.gitbook/assets/delete.png', content: Buffer.from('g') },
        { name: 'Delete.png', content: Buffer.from('h') },
      ],
    );
    expect([...out.keys()]).toEqual([
      'SUMMARY.md',
      'start.md',
      'old/place.md',
      'old/place/child.md',
      'setup.md',
      'setup-2.md',
      'README.md',
      'dup.md',
      'DUP.md',
      '.gitbook/assets/logo.png',
      '.gitbook/assets/logo (1).png',
      '.gitbook/assets/Logo (2).png',
      'images/kept.png',
      '.gitbook/assets/archive',
      '.gitbook/assets/DELETE.png',
      '.gitbook/assets/delete.png',
      '.gitbook/assets/Delete (1).png',
    ]);
    expect(out.get('.gitbook/assets/logo (1).png')!.toString()).toBe('b');
    expect(out.get('.gitbook/assets/DELETE.png')!.toString()).toBe('f');
    expect(out.get('.gitbook/assets/delete.png')!.toString()).toBe('g');
  });

  it('never makes a file and a folder of the same name', () => {
    const out = generateRepository(
      [page('Home'), page('Guide', { children: [page('Step')] }), { ...page('Ref'), type: 'group', slug: 'ref', children: [page('Item')] }],
      [
        { name: 'guide', gitPath: 'guide', content: Buffer.from('a file named like a folder') },
        { name: 'ref', gitPath: 'ref', content: Buffer.from('another') },
        { name: 'x.png', gitPath: '.gitbook', content: Buffer.from('would block the assets folder') },
      ],
    );
    expect([...out.keys()]).toEqual([
      'SUMMARY.md',
      'README.md',
      'guide-2/README.md',
      'guide-2/step.md',
      'item.md',
      'guide',
      'ref',
      '.gitbook/assets/x.png',
    ]);
  });

  it('never writes outside the docs root, whatever the stored gitPath, slug or file name', () => {
    const out = generateRepository(
      [
        page('Evil', { gitPath: '../../etc/passwd.md' }),
        page('Abs', { gitPath: '/etc/abs.md' }),
        page('Back', { gitPath: 'a\\b.md' }),
        page('Slug', { slug: '../../x' }),
        page('Dots', { slug: '..' }),
        page('Not md', { gitPath: 'script.sh' }),
      ],
      [
        { name: '../../escape.png', content: Buffer.from('x') },
        { name: '..', content: Buffer.from('y') },
        { name: 'f.png', gitPath: '../outside.png', content: Buffer.from('z') },
      ],
      { root: './docs/', readme: 'README.md', summary: 'SUMMARY.md', redirects: {} },
    );
    for (const key of out.keys()) {
      expect(key, key).toMatch(SAFE);
      expect(key.startsWith('docs/'), key).toBe(true);
    }
    expect([...out.keys()]).toEqual([
      'docs/SUMMARY.md',
      'docs/README.md',
      'docs/abs.md',
      'docs/back.md',
      'docs/slug.md',
      'docs/dots.md',
      'docs/not-md.md',
      'docs/.gitbook/assets/..-..-escape.png',
      'docs/.gitbook/assets/file',
      'docs/.gitbook/assets/f.png',
    ]);
  });

  it('writes front matter only with metadata, keys in a stable order', () => {
    expect(renderPageFile(page('Plain'))).toBe('# Plain\n\nBody of Plain.\n');
    expect(renderPageFile(page('Empty', { markdown: '' }))).toBe('# Empty\n');
    expect(renderPageFile(page('Blank meta', { description: '', hidden: false, layout: {} }))).toBe(
      '# Blank meta\n\nBody of Blank meta.\n',
    );
    const text = renderPageFile(
      page('Meta', {
        layout: { pagination: false, coverSize: 'full', title: true, width: 'wide', cover: true, outline: true },
        hidden: true,
        emoji: '1f680',
        icon: 'rocket',
        description: 'Launch: day one',
      }),
    );
    expect(text).toBe(
      [
        '---',
        "description: 'Launch: day one'",
        'icon: rocket',
        'emoji: 1f680',
        'hidden: true',
        'layout:',
        '  width: wide',
        '  cover:',
        '    visible: true',
        '    size: full',
        '  title:',
        '    visible: true',
        '  outline:',
        '    visible: true',
        '  pagination:',
        '    visible: false',
        '---',
        '',
        '# Meta',
        '',
        'Body of Meta.',
        '',
      ].join('\n'),
    );
  });

  it('does not write .gitbook.yaml and rejects a config whose root escapes', () => {
    const out = generateRepository([page('A')], [], {
      root: './docs/',
      readme: 'README.md',
      summary: 'SUMMARY.md',
      redirects: { a: 'b.md' },
    });
    expect(out.has('.gitbook.yaml')).toBe(false);
    expectFormatError(
      () => generateRepository([page('A')], [], { root: '../up/', readme: 'README.md', summary: 'SUMMARY.md', redirects: {} }),
      "'../up/'",
      /escapes/,
    );
  });
});

describe('round trip: tree → generateRepository → parseRepository', () => {
  const p = (title: string, slug: string, extra: Partial<ExportPage> = {}): ExportPage => ({
    id: slug,
    type: 'document',
    title,
    slug,
    markdown: '',
    children: [],
    ...extra,
  });
  const tree: ExportPage[] = [
    p('Welcome', 'welcome', {
      description:
        'A long description that certainly goes past the eighty columns of a YAML line, so it is folded on export and read back whole.',
      icon: 'house',
      layout: {
        width: 'wide',
        cover: false,
        coverSize: 'hero',
        title: true,
        description: false,
        tableOfContents: true,
        outline: true,
        pagination: false,
        metadata: true,
      },
      markdown: 'Hello **world**.\n\n![Logo](.gitbook/assets/logo.png)\n',
    }),
    p('C# & *stars* [brackets] #1', 'csharp', {
      markdown: '# C# & *stars* [brackets] #1\n\nThe body starts with a heading equal to the title, which must survive.\n',
      children: [
        p('Über größe', 'uber-grosse', { emoji: '1f600', markdown: '```js\n# not a heading\nconsole.log(1)\n```\n' }),
        p('Hidden child', 'hidden-child', {
          hidden: true,
          description: 'Line one\nline two',
          markdown: '{% hint style="warning" %}\nCareful.\n{% endhint %}\n',
          children: [p('Grandchild', 'grandchild', { markdown: '    indented code first\n' })],
        }),
      ],
    }),
    {
      ...p('Group one', 'group-one'),
      type: 'group',
      children: [p('In group', 'in-group', { markdown: 'x\n' }), p('Setup', 'setup'), p('Setup', 'setup')],
    },
    { ...p('Empty group', 'empty-group'), type: 'group', children: [] },
    p('After groups', 'after-groups', { markdown: 'Top-level again.\n', description: "it's: true" }),
    {
      ...p('Group two', 'group-two'),
      type: 'group',
      children: [p('yes', 'yes', { description: 'yes' }), p('安装指南', '安装指南', { markdown: '中文\n' })],
    },
  ];
  const assets: ExportFile[] = [
    { name: 'logo.png', content: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]) },
    { name: 'logo.png', content: Buffer.from([3, 4]) },
    { name: 'notes (draft).txt', content: Buffer.from('notes') },
  ];

  it('gives the same titles, order, nesting, groups, metadata and bodies', () => {
    const out = generateRepository(tree, assets);
    const parsed = parseRepository(out);
    expect(essence(parsed.pages)).toEqual(essence(tree));
    expect(parsed.files.map((f) => [f.name, f.contentType, f.content.toString('hex')])).toEqual([
      ['logo (1).png', 'image/png', '0304'],
      ['logo.png', 'image/png', '89504e47000102'],
      ['notes (draft).txt', 'text/plain', Buffer.from('notes').toString('hex')],
    ]);
  });

  it('is stable: exporting the import again changes no byte', () => {
    const out = generateRepository(tree, assets);
    const parsed = parseRepository(out);
    const again = generateRepository(toExport(parsed.pages), filesToExport(parsed.files));
    expect([...again.keys()].sort()).toEqual([...out.keys()].sort());
    for (const [k, v] of out) expect(again.get(k)!.equals(v), k).toBe(true);
  });

  it('writes a nested group as a page (groups exist only at the top)', () => {
    const nested: ExportPage[] = [
      p('Top', 'top', { children: [{ ...p('Inner group', 'inner'), type: 'group', children: [p('Leaf', 'leaf')] }] }),
    ];
    const parsed = parseRepository(generateRepository(nested, []));
    expect(outline(parsed.pages)).toEqual([['Top <README.md>', [['Inner group <inner/README.md>', [['Leaf <inner/leaf.md>']]]]]]);
  });
});

describe('RepoFormatError', () => {
  const summaryRepo = (summary: string, extra: Record<string, string> = {}) =>
    files({
      'SUMMARY.md': summary,
      'README.md': '# Home\n',
      'a.md': '# A\n',
      'b.md': '# B\n',
      'guide/c.md': '# C\n',
      'image.png': 'png',
      ...extra,
    });

  it('rejects a root that escapes the project directory or is not a plain relative path', () => {
    for (const root of ['../outside', './docs/../../up', '/etc', 'C:/docs', 'docs\\\\win']) {
      expectFormatError(
        () => parseRepository(files({ '.gitbook.yaml': `root: "${root}"\n`, 'README.md': '# x\n' })),
        '.gitbook.yaml root',
        root.replace(/\\\\/g, '\\'),
      );
    }
    expectFormatError(() => parseRepository(files({ '.gitbook.yaml': 'root: "do\\0cs"\n', 'README.md': '# x\n' })), /NUL/);
  });

  it('rejects a malformed .gitbook.yaml', () => {
    expectFormatError(() => parseRepository(files({ '.gitbook.yaml': 'root: [unclosed\n' })), '.gitbook.yaml', /invalid YAML/);
    expectFormatError(() => parseRepository(files({ '.gitbook.yaml': '- a list\n' })), /mapping/);
    expectFormatError(() => parseRepository(files({ '.gitbook.yaml': 'root: 42\n' })), /root must be a string/);
    expectFormatError(
      () => parseRepository(files({ '.gitbook.yaml': 'structure:\n  summary: toc.txt\n' })),
      /structure.summary/,
      /not a markdown file/,
    );
    expectFormatError(() => parseRepository(files({ '.gitbook.yaml': 'redirects: [a, b]\n' })), /redirects must be a mapping/);
    expectFormatError(() => parseRepository(files({ '.gitbook.yaml': 'root: ./docs/\n', 'README.md': '# x\n' })), /'docs' holds no files/);
  });

  it('skips, with a warning naming the entry, redirects that escape, are absolute or have no target; the others are kept', () => {
    const yaml = (entries: string) => files({ '.gitbook.yaml': `redirects:\n  keep: a.md\n${entries}`, 'a.md': '# A\n' });
    const cases: Array<[string, ...Array<string | RegExp>]> = [
      ['  old: ../../etc/passwd\n', "'../../etc/passwd'", /escapes/],
      ['  /abs/old: new.md\n', "'/abs/old'", /absolute/],
      ['  old: "a\\\\b.md"\n', /backslash/],
      ['  old: 3\n', /target of 'old' must be a path/],
      // A real repository GitBook publishes has this one.
      ['  installation/updating/from-0-x-x-to-0-40-0:\n', /target of 'installation\/updating\/from-0-x-x-to-0-40-0' must be a path/],
    ];
    for (const [entry, ...parts] of cases) {
      const r = parseRepository(yaml(entry));
      expect(r.config.redirects, entry).toEqual({ keep: 'a.md' });
      expect(r.warnings, entry).toHaveLength(1);
      expect(r.warnings[0], entry).toMatch(/^\.gitbook\.yaml redirects[: ].*; the redirect is ignored$/);
      for (const p of parts)
        expect(r.warnings[0], entry).toEqual(typeof p === 'string' ? expect.stringContaining(p) : expect.stringMatching(p));
    }
  });

  /** The import goes on; one warning names the line and says what happened. */
  const expectWarning = (r: { warnings: string[] }, ...parts: Array<string | RegExp>) => {
    const hit = r.warnings.find((w) => parts.every((p) => (typeof p === 'string' ? w.includes(p) : p.test(w))));
    expect(hit, `no warning matching ${parts.join(' ')} in ${JSON.stringify(r.warnings)}`).toBeDefined();
  };

  it('ignores, with a warning, SUMMARY links that escape the docs root or are not relative paths', () => {
    let r = parseRepository(summaryRepo('* [A](a.md)\n* [Evil](../../etc/passwd.md)\n'));
    expectWarning(r, 'SUMMARY.md line 2', "'../../etc/passwd.md'", /escapes/);
    expect(outline(r.pages)).toEqual([['Home <README.md>'], ['A <a.md>']]);
    r = parseRepository(summaryRepo('* [Back](guide\\\\c.md)\n'));
    expectWarning(r, 'SUMMARY.md line 1', /backslash/);
    r = parseRepository(summaryRepo('* [Nul](a%00.md)\n'));
    expectWarning(r, 'SUMMARY.md line 1', /NUL/);
    // A root-absolute link is relative to the docs root, as GitBook reads it.
    r = parseRepository(summaryRepo('* [Abs](/guide/c.md)\n'));
    expect(outline(r.pages)).toEqual([['Home <README.md>'], ['C <guide/c.md>']]);
    // With a docs root, a link may not climb out of it either.
    r = parseRepository(files({ '.gitbook.yaml': 'root: docs\n', 'docs/SUMMARY.md': '* [Out](../README.md)\n', 'README.md': '# x\n' }));
    expectWarning(r, 'docs/SUMMARY.md line 1', /escapes/);
    expect(r.pages).toEqual([]);
  });

  it('imports what it can of a malformed SUMMARY.md, with a warning naming each line', () => {
    let r = parseRepository(summaryRepo('# Table of contents\n\n* [A](a.md)\n\nSome stray text.\n'));
    expectWarning(r, 'SUMMARY.md line 5', /text outside a list/);
    expect(outline(r.pages)).toEqual([['Home <README.md>'], ['A <a.md>']]);
    // An unlinked entry is a page without a file; its children stay under it.
    r = parseRepository(summaryRepo('* [A](a.md)\n* Just words\n  * [B](b.md)\n'));
    expect(r.warnings).toEqual([]);
    expect(r.pages.map((p) => [p.type, p.title, p.path])).toEqual([
      ['document', 'Home', 'README.md'],
      ['document', 'A', 'a.md'],
      ['document', 'Just words', ''],
    ]);
    expect(outline(r.pages[2].children)).toEqual([['B <b.md>']]);
    // Text around the link is not part of the entry.
    expect(outline(parseRepository(summaryRepo('* [A](a.md) and more\n')).pages)).toEqual([['Home <README.md>'], ['A <a.md>']]);
    r = parseRepository(summaryRepo('* [Pic](image.png)\n'));
    expectWarning(r, 'SUMMARY.md line 1', /'image.png' is not a markdown file/);
    expect(r.pages[1]).toMatchObject({ type: 'link', title: 'Pic', href: 'image.png' });
    // An external link is a link page.
    r = parseRepository(summaryRepo('* [Site](https://example.com/a.md)\n'));
    expect(r.warnings).toEqual([]);
    expect(r.pages[1]).toMatchObject({ type: 'link', title: 'Site', href: 'https://example.com/a.md', path: '' });
    r = parseRepository(summaryRepo('* [A](a.md)\n* [Part](b.md#part)\n'));
    expectWarning(r, 'SUMMARY.md line 2', /anchor/);
    r = parseRepository(summaryRepo('* [A](a.md)\n  * [Again](a.md)\n'));
    expectWarning(r, 'SUMMARY.md line 2', /already linked on line 1/);
    expect(r.pages[1].children[0]).toMatchObject({ type: 'link', title: 'Again', href: 'a.md' });
    r = parseRepository(summaryRepo('* [A](a.md)\n\n##\n'));
    expectWarning(r, 'SUMMARY.md line 3', /group heading without a title/);
  });

  it('imports what it can of nesting that cannot be parsed', () => {
    // Too deep an indentation makes the line part of the parent's text instead of a child item.
    let r = parseRepository(summaryRepo('* [A](a.md)\n      * [B](b.md)\n'));
    expectWarning(r, 'SUMMARY.md line 2', /indentation/);
    // A list indented by four spaces at the top is a code block.
    r = parseRepository(summaryRepo('# Table of contents\n\n    * [A](a.md)\n'));
    expectWarning(r, 'SUMMARY.md line 3', /code block/);
    // Content other than a nested list inside an item.
    r = parseRepository(summaryRepo('* [A](a.md)\n\n  Some paragraph.\n'));
    expectWarning(r, 'SUMMARY.md line 3', /inside a list item/);
    expect(outline(r.pages)).toEqual([['Home <README.md>'], ['A <a.md>']]);
  });

  it('imports a SUMMARY link to a missing file as an empty page, with a warning', () => {
    let r = parseRepository(summaryRepo('* [A](a.md)\n* [Gone](guide/missing.md)\n  * [B](b.md)\n'));
    expectWarning(r, 'SUMMARY.md line 2', "'guide/missing.md'", /does not exist/);
    expect(r.pages[2]).toMatchObject({ type: 'document', title: 'Gone', path: 'guide/missing.md', markdown: '', missing: true });
    expect(outline(r.pages[2].children)).toEqual([['B <b.md>']]);
    r = parseRepository(summaryRepo('* [Case](Guide/C.md)\n'));
    expectWarning(r, /does not exist/, /did you mean 'guide\/c.md'/);
  });

  it('imports a page whose front matter cannot be read as written, with a warning naming the file (with or without SUMMARY.md)', () => {
    const cases: Array<[string, RegExp]> = [
      ['---\ndescription: [unclosed\n---\n\n# Hi\n', /invalid front matter/],
      ['---\nhidden: sometimes\n---\n\n# Hi\n', /'hidden' must be true or false/],
      ['---\nlayout: wide\n---\n\n# Hi\n', /'layout' must be a mapping/],
    ];
    for (const [text, why] of cases) {
      for (const repo of [files({ 'README.md': text }), files({ 'README.md': text, 'SUMMARY.md': '* [Home](README.md)\n' })]) {
        const r = parseRepository(repo);
        expect(r.pages[0]).toMatchObject({ path: 'README.md', markdown: text });
        expect(r.warnings).toEqual([expect.stringMatching(/^README\.md: /)]);
        expect(r.warnings[0]).toMatch(why);
        expect(r.warnings[0]).toMatch(/the file is imported without its front matter$/);
      }
    }
  });

  it('accepts valid input around the error cases (the tests above can fail)', () => {
    const r = parseRepository(
      summaryRepo('# Table of contents\n\n<!-- a comment -->\n\n* [A](a.md)\n  * [C](guide/c.md)\n* [B](<./b.md>)\n'),
    );
    expect(outline(r.pages)).toEqual([['Home <README.md>'], ['A <a.md>', [['C <guide/c.md>']]], ['B <b.md>']]);
    expect(parseRepository(files({ '.gitbook.yaml': 'root: ./docs/../docs/\n', 'docs/README.md': '# x\n' })).config.root).toBe('./docs/');
    // A folder link means its README.md; percent-encoded and angle-bracketed destinations are read.
    const folders = parseRepository(
      files({
        'SUMMARY.md': '* [G](guide)\n* [H](guide/sub/)\n* [I](my%20page.md)\n',
        'guide/README.md': '# G\n',
        'guide/sub/README.md': '# H\n',
        'my page.md': '# I\n',
      }),
    );
    expect(outline(folders.pages)).toEqual([['G <guide/README.md>'], ['H <guide/sub/README.md>'], ['I <my page.md>']]);
  });

  it("reads the SUMMARY.md of GitBook's documentation example (loose lists, 4-space nesting, # Summary)", () => {
    const summary = [
      '# Summary',
      '',
      '## Use headings to create page groups like this one',
      '',
      "* [First page's title](page1/README.md)",
      '    * [Some child page](page1/page1-1.md)',
      '    * [Some other child page](part1/page1-2.md)',
      '',
      "* [Second page's title](page2/README.md)",
      '    * [Some child page](page2/page2-1.md)',
      '',
      '## A second-page group',
      '',
      '* [Yet another page](another-page.md)',
      '',
    ].join('\n');
    const pages = ['page1/README.md', 'page1/page1-1.md', 'part1/page1-2.md', 'page2/README.md', 'page2/page2-1.md', 'another-page.md'];
    const r = parseRepository(files({ 'SUMMARY.md': summary, ...Object.fromEntries(pages.map((p) => [p, `Body of ${p}\n`])) }));
    expect(outline(r.pages)).toEqual([
      [
        '## Use headings to create page groups like this one',
        [
          ["First page's title <page1/README.md>", [['Some child page <page1/page1-1.md>'], ['Some other child page <part1/page1-2.md>']]],
          ["Second page's title <page2/README.md>", [['Some child page <page2/page2-1.md>']]],
        ],
      ],
      ['## A second-page group', [['Yet another page <another-page.md>']]],
    ]);
  });

  it('round-trips file names that need escaping in links', () => {
    const repo = files({ 'README.md': '# Home\n', 'c#.md': '# C sharp\n', '100%.md': '# Percent\n', 'my page (1).md': '# Spaced\n' });
    const first = parseRepository(repo);
    const out = generateRepository(toExport(first.pages), []);
    expect(out.get('SUMMARY.md')!.toString()).toBe(
      '# Table of contents\n\n* [Home](README.md)\n* [Percent](100%.md)\n* [C sharp](c%23.md)\n* [Spaced](<my page (1).md>)\n',
    );
    expect(outline(parseRepository(out).pages)).toEqual(outline(first.pages));
  });
});
