import { describe, expect, it } from 'vitest';
import {
  buildLinkIndex,
  createResolver,
  extractPageLinks,
  joinRelative,
  linkStats,
  type ExtractedLink,
} from '../../../src/content/links.js';
import type { Snapshot, TreePage } from '../../../src/content/snapshot.js';
import { extractLinks } from '../../../src/content/markdown.js';
import type { FileNode, PageNode, PageType } from '../../../src/content/types.js';

interface PageSpec {
  id: string;
  slug?: string;
  type?: PageType;
  git?: string;
  markdown?: string;
  children?: PageSpec[];
}

type TestSnapshot = Snapshot & { bodies: Map<string, string> };

/** An in-memory snapshot laid out as loadSnapshot lays one out (groups add no path segment). */
function snapshot(pages: PageSpec[], files: Partial<FileNode>[] = [], spaceId = 'space1'): TestSnapshot {
  const byId = new Map<string, TreePage>();
  const byPath = new Map<string, TreePage>();
  const ordered: TreePage[] = [];
  const bodies = new Map<string, string>();
  const build = (spec: PageSpec, parent: TreePage | null): TreePage => {
    const type = spec.type ?? 'document';
    const slug = spec.slug ?? spec.id;
    const node: PageNode = {
      kind: 'page',
      id: spec.id,
      type,
      title: spec.id,
      slug,
      createdAt: '2024-01-01T00:00:00.000Z',
      updatedAt: '2024-01-01T00:00:00.000Z',
      children: [],
      ...(spec.git ? { git: { oid: 'x', path: spec.git } } : {}),
      ...(spec.markdown !== undefined ? { body: `body-${spec.id}` } : {}),
    };
    if (spec.markdown !== undefined) bodies.set(spec.id, spec.markdown);
    const parentPath = parent ? (parent.node.type === 'group' ? parent.path.split('/').slice(0, -1).join('/') : parent.path) : '';
    const tp: TreePage = {
      node,
      hash: `h-${spec.id}`,
      parentId: parent?.node.id ?? null,
      path: parentPath ? `${parentPath}/${slug}` : slug,
      ancestors: [],
      children: [],
    };
    byId.set(spec.id, tp);
    if (type !== 'group' && !byPath.has(tp.path)) byPath.set(tp.path, tp);
    ordered.push(tp);
    tp.children = (spec.children ?? []).map((c) => build(c, tp));
    return tp;
  };
  const top = pages.map((p) => build(p, null));
  const fileNodes = files.map((f, i) => ({
    kind: 'file' as const,
    id: f.id ?? `file${i}`,
    name: f.name ?? `file${i}.png`,
    contentType: 'image/png',
    size: 1,
    blobKey: 'k',
    sha256: 's',
    createdAt: '2024-01-01T00:00:00.000Z',
    hash: `fh${i}`,
    ...(f.git ? { git: f.git } : {}),
  }));
  return {
    spaceId,
    rootHash: 'root1',
    root: { kind: 'root', pages: [], files: [], reusableContents: [], variables: {} },
    pages: top,
    byId,
    byPath,
    ordered,
    files: fileNodes,
    filesById: new Map(fileNodes.map((f) => [f.id, f])),
    bodies,
  };
}

const PUBLIC = 'https://docs.example.test';

//  intro                  (path: intro)
//  guide                  (path: guide, has children)
//    install              (path: guide/install)
//    setup                (path: guide/setup)
//    advanced             (path: guide/advanced, has children)
//      tuning             (path: guide/advanced/tuning)
//  getting-started        (path: getting-started)
//  grp (group)            (children sit at the root)
//    faq                  (path: faq)
const snap = snapshot(
  [
    { id: 'intro' },
    {
      id: 'guide',
      children: [{ id: 'install' }, { id: 'setup' }, { id: 'advanced', children: [{ id: 'tuning' }] }],
    },
    { id: 'gs', slug: 'getting-started' },
    { id: 'grp', type: 'group', children: [{ id: 'faq' }] },
  ],
  [
    { id: 'shotFile', name: 'shot.png' },
    { id: 'pdfFile', name: 'manual.pdf', git: { oid: 'o', path: 'docs/assets/manual.pdf' } },
  ],
);
const r = createResolver(snap, { publicUrl: PUBLIC });
const from = (id: string) => snap.byId.get(id)!;

describe('link resolution', () => {
  it('absolute URLs are ok, or in-app under PUBLIC_URL', () => {
    expect(r.resolve('https://example.com/x', from('intro'))).toEqual({ kind: 'url', url: 'https://example.com/x', inApp: false });
    expect(r.resolve('mailto:team@example.com', from('intro'))).toEqual({ kind: 'url', url: 'mailto:team@example.com', inApp: false });
    expect(r.resolve('//cdn.example.com/a.js', from('intro'))).toMatchObject({ kind: 'url', inApp: false });
    expect(r.resolve(`${PUBLIC}/app/o/org1`, from('intro'))).toEqual({ kind: 'url', url: `${PUBLIC}/app/o/org1`, inApp: true });
    expect(r.resolve('https://docs.example.test.evil.com/', from('intro'))).toMatchObject({ inApp: false });
    // The app URL of a page of this space names that page (a backlink), still a URL target.
    expect(r.resolve(`${PUBLIC}/app/s/space1/page/setup`, from('intro'))).toEqual({
      kind: 'url',
      url: `${PUBLIC}/app/s/space1/page/setup`,
      inApp: true,
      page: 'setup',
    });
    expect(r.resolve(`${PUBLIC}/app/s/otherSpace/page/setup`, from('intro'))).not.toHaveProperty('page');
  });

  it('honours a PUBLIC_URL with a path prefix', () => {
    const prefixed = createResolver(snap, { publicUrl: 'https://host.test/docs' });
    expect(prefixed.resolve('https://host.test/docs/app/x', from('intro'))).toMatchObject({ inApp: true });
    expect(prefixed.resolve('https://host.test/docs', from('intro'))).toMatchObject({ inApp: true });
    expect(prefixed.resolve('https://host.test/docsother', from('intro'))).toMatchObject({ inApp: false });
    expect(prefixed.resolve('https://host.test/', from('intro'))).toMatchObject({ inApp: false });
  });

  it('ignores same-page anchors and empty destinations', () => {
    expect(r.resolve('#install', from('intro'))).toBeNull();
    expect(r.resolve('', from('intro'))).toBeNull();
    expect(r.resolve('?tab=2', from('intro'))).toBeNull();
  });

  it('resolves stable page and file references, keeping anchors', () => {
    expect(r.resolve('/pages/setup', from('intro'))).toEqual({ kind: 'page', page: 'setup' });
    expect(r.resolve('pages/setup#step-2', from('intro'))).toEqual({ kind: 'page', page: 'setup', anchor: 'step-2' });
    expect(r.resolve('/files/shotFile', from('tuning'))).toEqual({ kind: 'file', file: 'shotFile' });
    expect(r.resolve('/pages/gone', from('intro'))).toEqual({ kind: 'broken', url: '/pages/gone' });
    expect(r.resolve('/files/gone', from('intro'))).toEqual({ kind: 'broken', url: '/files/gone' });
  });

  it('resolves relative paths from a leaf page against its parent folder', () => {
    const install = from('install');
    expect(r.resolve('setup.md', install)).toEqual({ kind: 'page', page: 'setup' });
    expect(r.resolve('./setup.md#run', install)).toEqual({ kind: 'page', page: 'setup', anchor: 'run' });
    expect(r.resolve('setup', install)).toEqual({ kind: 'page', page: 'setup' });
    expect(r.resolve('README.md', install)).toEqual({ kind: 'page', page: 'guide' });
    expect(r.resolve('./', install)).toEqual({ kind: 'page', page: 'guide' });
    expect(r.resolve('advanced/README.md', install)).toEqual({ kind: 'page', page: 'advanced' });
    expect(r.resolve('advanced/tuning.md', install)).toEqual({ kind: 'page', page: 'tuning' });
    expect(r.resolve('../intro.md', install)).toEqual({ kind: 'page', page: 'intro' });
    expect(r.resolve('../faq.md', install)).toEqual({ kind: 'page', page: 'faq' }); // a group adds no segment
    expect(r.resolve('/guide/setup', install)).toEqual({ kind: 'page', page: 'setup' });
    expect(r.resolve('/guide/setup.md?x=1', install)).toEqual({ kind: 'page', page: 'setup' });
    // The root README (or `/`) is the first page.
    expect(r.resolve('../README.md', install)).toEqual({ kind: 'page', page: 'intro' });
    expect(r.resolve('/', install)).toEqual({ kind: 'page', page: 'intro' });
    expect(r.resolve('missing.md', install)).toEqual({ kind: 'broken', url: 'missing.md' });
    expect(r.resolve('../../../intro.md', install)).toEqual({ kind: 'broken', url: '../../../intro.md' });
  });

  it('resolves relative paths from a page with children against its own folder', () => {
    expect(r.resolve('install.md', from('guide'))).toEqual({ kind: 'page', page: 'install' });
    expect(r.resolve('advanced/tuning.md', from('guide'))).toEqual({ kind: 'page', page: 'tuning' });
    expect(r.resolve('tuning.md', from('advanced'))).toEqual({ kind: 'page', page: 'tuning' });
    expect(r.resolve('../setup.md', from('advanced'))).toEqual({ kind: 'page', page: 'setup' });
    expect(r.resolve('../setup.md', from('tuning'))).toEqual({ kind: 'page', page: 'setup' });
    expect(r.resolve('../../intro.md', from('tuning'))).toEqual({ kind: 'page', page: 'intro' });
  });

  it('decodes percent-escapes and falls back to slugified segments', () => {
    expect(r.resolve('Getting%20Started.md', from('intro'))).toEqual({ kind: 'page', page: 'gs' });
    expect(r.resolve('Getting Started.md', from('intro'))).toEqual({ kind: 'page', page: 'gs' });
    expect(r.resolve('guide/Install.md', from('intro'))).toEqual({ kind: 'page', page: 'install' });
  });

  it('resolves assets and file paths to files', () => {
    expect(r.resolve('.gitbook/assets/shot.png', from('intro'))).toEqual({ kind: 'file', file: 'shotFile' });
    expect(r.resolve('../../.gitbook/assets/shot.png', from('tuning'))).toEqual({ kind: 'file', file: 'shotFile' });
    expect(r.resolve('.gitbook/assets/shot%20copy.png', from('intro'))).toEqual({ kind: 'broken', url: '.gitbook/assets/shot%20copy.png' });
    expect(r.resolve('img/shot.png', from('intro'))).toEqual({ kind: 'file', file: 'shotFile' }); // by name
    expect(r.resolve('manual.pdf', from('install'))).toEqual({ kind: 'file', file: 'pdfFile' });
    expect(r.resolve('nothing.png', from('install'))).toEqual({ kind: 'broken', url: 'nothing.png' });
  });

  it('resolves against git paths for pages synced from a repository', () => {
    const s = snapshot(
      [
        { id: 'home', git: 'README.md' },
        {
          id: 'api',
          slug: 'api-reference',
          git: 'reference/README.md',
          children: [{ id: 'auth', slug: 'authentication', git: 'reference/auth.md' }],
        },
      ],
      [{ id: 'logo', name: 'logo.svg', git: { oid: 'o', path: 'reference/img/logo.svg' } }],
    );
    const g = createResolver(s, { publicUrl: PUBLIC });
    const auth = s.byId.get('auth')!;
    // The file names differ from the slugs: only the git layout finds them.
    expect(g.resolve('README.md', auth)).toEqual({ kind: 'page', page: 'api' });
    expect(g.resolve('../README.md', auth)).toEqual({ kind: 'page', page: 'home' });
    expect(g.resolve('../', auth)).toEqual({ kind: 'page', page: 'home' });
    expect(g.resolve('auth.md#tokens', s.byId.get('api')!)).toEqual({ kind: 'page', page: 'auth', anchor: 'tokens' });
    expect(g.resolve('reference/auth.md', s.byId.get('home')!)).toEqual({ kind: 'page', page: 'auth' });
    expect(g.resolve('img/logo.svg', auth)).toEqual({ kind: 'file', file: 'logo' });
    // Slug paths still work.
    expect(g.resolve('/api-reference/authentication', s.byId.get('home')!)).toEqual({ kind: 'page', page: 'auth' });
  });

  it('resolves root-absolute links against the docs root of a repository whose docs live in a folder', () => {
    // .gitbook.yaml root: docs/ (git paths are relative to the repository).
    const s = snapshot(
      [
        { id: 'home', git: 'docs/README.md' },
        // Slugs unlike the file names: only the git layout finds these pages.
        {
          id: 'guide',
          slug: 'handbook',
          git: 'docs/guide/README.md',
          children: [{ id: 'setup', slug: 'installing', git: 'docs/guide/setup.md' }],
        },
        { id: 'faq', slug: 'questions', git: 'docs/faq.md' },
      ],
      [
        { id: 'other', name: 'shot.png', git: { oid: 'o', path: 'docs/guide/images/shot.png' } },
        { id: 'shot', name: 'shot.png', git: { oid: 'o', path: 'docs/images/shot.png' } },
      ],
    );
    const g = createResolver(s, { publicUrl: PUBLIC });
    const setup = s.byId.get('setup')!;
    expect(g.resolve('/faq.md', setup)).toEqual({ kind: 'page', page: 'faq' });
    expect(g.resolve('/guide/setup.md#step-2', s.byId.get('faq')!)).toEqual({ kind: 'page', page: 'setup', anchor: 'step-2' });
    expect(g.resolve('/guide/', setup)).toEqual({ kind: 'page', page: 'guide' });
    expect(g.resolve('/images/shot.png', setup)).toEqual({ kind: 'file', file: 'shot' });
    expect(g.resolve('/missing.md', setup)).toEqual({ kind: 'broken', url: '/missing.md' });
  });

  it('joins relative paths', () => {
    expect(joinRelative('a/b', '../c')).toBe('a/c');
    expect(joinRelative('a/b', '/c/./d/')).toBe('c/d');
    expect(joinRelative('', '..')).toBeNull();
  });
});

describe('link extraction', () => {
  it('finds every kind of link extractLinks finds (the parse is skipped only for text that cannot link)', () => {
    for (const md of [
      '[inline](a.md)',
      '[shortcut]\n\n[shortcut]: b.md',
      '[full][ref]\n\n[ref]: c.md',
      '<https://auto.example>',
      'visit www.example.com today',
      'bare https://bare.example/x',
      'mail me@example.com',
      '![img](pic.png)',
      '| a | [cell](t.md) |\n|---|---|',
    ]) {
      expect(
        extractPageLinks(md).map((l) => l.url),
        md,
      ).toEqual(extractLinks(md).map((l) => l.url));
      expect(extractPageLinks(md).length, md).toBeGreaterThan(0);
    }
    expect(extractPageLinks('# Plain\n\nNo links [here] or (there).\n\n```\ncode\n```')).toEqual([]);
  });

  it('lists links and images, and {% file %} blocks as links', () => {
    const md = [
      'See [setup](setup.md) and ![shot](.gitbook/assets/shot.png).',
      '',
      '{% file src=".gitbook/assets/manual.pdf" %}',
      'The manual',
      '{% endfile %}',
      '',
      '{% file src="/files/abc" %}',
      '',
      '```',
      '{% file src="in-code.pdf" %}',
      '```',
    ].join('\n');
    expect(extractPageLinks(md)).toEqual([
      { url: 'setup.md', relation: 'link' },
      { url: '.gitbook/assets/shot.png', relation: 'image' },
      { url: '.gitbook/assets/manual.pdf', relation: 'link' },
      { url: '/files/abc', relation: 'link' },
    ]);
  });
});

describe('link index', () => {
  const s = snapshot(
    [
      {
        id: 'a',
        markdown: '[B](b.md) [B again](/pages/b) [B anchored](b.md#x) [self](a.md) [ext](https://x.test) ![img](.gitbook/assets/pic.png)',
      },
      { id: 'b', markdown: '[A](a.md) [gone](gone.md) [app](https://docs.example.test/app/s/space1/page/a)' },
      { id: 'c', markdown: '[B](b.md) [gone](gone.md) [pic](/files/pic) [ext](https://x.test)' },
      { id: 'd' },
    ],
    [{ id: 'pic', name: 'pic.png' }],
  );
  const linksOf = (p: TreePage): ExtractedLink[] => extractPageLinks(s.bodies.get(p.node.id) ?? '');
  const index = buildLinkIndex(s, linksOf, { publicUrl: PUBLIC });

  it('groups identical targets and lists each linking page once, in tree order', () => {
    const byKey = Object.fromEntries(index.groups.map((g) => [g.key, { status: g.status, sources: g.sources }]));
    expect(byKey).toEqual({
      'link\npage:b': { status: 'ok', sources: ['a', 'c'] },
      'link\npage:b#x': { status: 'ok', sources: ['a'] },
      'link\npage:a': { status: 'ok', sources: ['a', 'b'] },
      'link\nurl:https://x.test': { status: 'ok', sources: ['a', 'c'] },
      'image\nfile:pic': { status: 'ok', sources: ['a'] },
      'link\nbroken:gone.md': { status: 'broken', sources: ['b', 'c'] },
      'link\nurl:https://docs.example.test/app/s/space1/page/a': { status: 'in-app', sources: ['b'] },
      'link\nfile:pic': { status: 'ok', sources: ['c'] },
    });
    expect(linkStats(index.groups)).toEqual({ total: 8, broken: { total: 1, changeRequest: 0 } });
    expect(
      index
        .pageGroups('c')
        .map((g) => g.key)
        .sort(),
    ).toEqual(['link\nbroken:gone.md', 'link\nfile:pic', 'link\npage:b', 'link\nurl:https://x.test']);
    expect(index.pageGroups('d')).toEqual([]);
  });

  it('indexes backlinks of pages (not from themselves, in-app URLs included) and of files', () => {
    expect(index.pageBacklinks.get('b')).toEqual(['a', 'c']);
    expect(index.pageBacklinks.get('a')).toEqual(['b']); // `b` links twice (path and app URL): once
    expect(index.pageBacklinks.get('c')).toBeUndefined();
    expect(index.fileBacklinks.get('pic')).toEqual(['a', 'c']);
  });

  it('counts broken links introduced since a baseline', () => {
    const before = buildLinkIndex(
      snapshot([
        { id: 'b', markdown: '[gone](gone.md)' },
        { id: 'c', markdown: '' },
        { id: 'x', markdown: '[new](new.md)' },
      ]),
      (p) => extractPageLinks(p.node.id === 'b' ? '[gone](gone.md)' : p.node.id === 'x' ? '[new](new.md)' : ''),
      { publicUrl: PUBLIC },
    );
    // `gone.md` was already broken from `b`, but `c` now links to it too: one introduced.
    expect(linkStats(index.groups, before.groups)).toEqual({ total: 8, broken: { total: 1, changeRequest: 1 } });
    const same = buildLinkIndex(s, linksOf, { publicUrl: PUBLIC });
    expect(linkStats(index.groups, same.groups).broken.changeRequest).toBe(0);
  });
});
