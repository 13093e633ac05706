// Whole sites from docs.yaml (issue 27, item 4): a repository in the shape of a real multi-space
// GitBook site (five spaces in five directories, each with its own .gitbook.yaml and SUMMARY.md,
// section groups, three language variants) applied to a new site, then checked through the API.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { startGitServer, type GitServer } from '../../helpers/git-server.js';
import { operationSettled } from '../../helpers/operations.js';
import {
  parseDocsYaml,
  resolveDirectory,
  writeDocsYaml,
  type DocsYamlConfig,
  type DocsYamlSection,
} from '../../../src/git/format/docs-yaml.js';
import {
  applySiteConfig,
  refreshLanguageVariants,
  siteConfigOf,
  type ApplySiteConfigResult,
} from '../../../src/services/git-sync/site-config.js';

const DOCS_YAML = `$schema: https://api.gitbook.com/openapi.yaml#/components/schemas/GitSyncSiteConfig
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
        zh: 文档
      path: documentation
      description: Everything about running Northwind
      localizedDescription:
        fr: Tout sur Northwind
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
        - type: space
          key: space-6
          title: 🇨🇳 中文
          path: zh
          content:
            directory: null
            language: zh
        - type: space
          key: space-8
          title: 🇯🇵 日本語
          path: ja-northwind-docs
          content:
            directory: null
            language: ja
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
          description: Our latest releases
          icon: bars-staggered
          children:
            - type: space
              key: space-2
              title: Public Changelog
              path: public-changelog
              default: true
              content:
                directory: ./changelog
                language: en
        - type: section
          key: section-5
          title: Policies
          path: policies
          icon: file-contract
          children:
            - type: space
              key: space-7
              title: Site Policy
              path: site-policy
              default: true
              content:
                directory: ./policies
                language: en
        - type: section
          key: section-4
          title: Guides
          path: guides
          icon: book
          children:
            - type: space
              key: space-4
              title: Northwind Guides
              path: northwind-guides
              default: true
              hidden: true
              content:
                directory: ./guides
                language: en
        - type: section-group
          key: section-group-2
          title: Academy
          icon: lightbulb-on
          draft: true
          children: []
`;

const DIRECTORIES = { handbook: 'Handbook', api: 'API', changelog: 'Changelog', policies: 'Policies', guides: 'Guides' };

/** The repository's files: docs.yaml at the top, each space's directory with its own .gitbook.yaml and SUMMARY.md. */
function repositoryFiles(): Record<string, string> {
  const files: Record<string, string> = { 'docs.yaml': DOCS_YAML, 'README.md': '# Northwind\n\nThe docs of Northwind live in folders.\n' };
  for (const [dir, name] of Object.entries(DIRECTORIES)) {
    files[`${dir}/.gitbook.yaml`] = 'root: ./\n\nstructure:\n  readme: README.md\n  summary: SUMMARY.md\n';
    files[`${dir}/SUMMARY.md`] = `# Table of contents\n\n* [${name} home](README.md)\n* [${name} setup](setup.md)\n`;
    files[`${dir}/README.md`] = `# ${name} home\n\nWelcome to the ${name.toLowerCase()} of Northwind.\n`;
    files[`${dir}/setup.md`] = `# ${name} setup\n\nInstall the ${name.toLowerCase()} tools first.\n`;
  }
  return files;
}

let g: GitServer;
beforeAll(async () => {
  g = await startGitServer();
});
afterAll(() => g.close());
const { t, org } = useTestApp({ workers: ['git', 'translation'], env: { WORKER_CONCURRENCY: '1' }, seedOrg: true });

const api = (method: string, p: string, body?: unknown) => t.api(method, p, { token: org.adminToken, body });
const settle = (location: string) => operationSettled(t, location, { token: org.adminToken, timeoutMs: 60_000 });

interface SiteView {
  sections: any[];
  groups: any[];
  siteSpaces: any[];
}

async function siteView(siteId: string): Promise<SiteView> {
  const base = `/v1/orgs/${org.orgId}/sites/${siteId}`;
  const [sections, groups, siteSpaces] = await Promise.all(
    ['sections', 'section-groups', 'site-spaces'].map(async (what) => {
      const r = await api('GET', `${base}/${what}?limit=100`);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body.items as any[];
    }),
  );
  return { sections, groups, siteSpaces };
}

describe('a site from docs.yaml', () => {
  let url: string;
  let siteId: string;
  let config: DocsYamlConfig;
  let first: ApplySiteConfigResult;
  const created: Record<string, string> = {};

  beforeAll(async () => {
    url = await g.createRepo('northwind', { files: repositoryFiles() });
    const site = await api('POST', `/v1/orgs/${org.orgId}/sites`, { title: 'Untitled site' });
    expect(site.status).toBe(201);
    siteId = site.body.id;
    // docs.yaml as the repository holds it.
    const work = await g.clone('northwind');
    const parsed = parseDocsYaml(await readFile(path.join(work, 'docs.yaml'), 'utf8'));
    expect(parsed.warnings).toEqual([]);
    config = parsed.config;
    first = await applySiteConfig(t.app, {
      siteId,
      config,
      createdBy: org.adminId,
      spaceForDirectory: async (directory, entry) => {
        const r = await api('POST', `/v1/orgs/${org.orgId}/spaces`, { title: entry.title.slice(0, 50), empty: true });
        expect(r.status).toBe(201);
        created[directory] = r.body.id;
        return r.body.id as string;
      },
    });
    // Each space imported from its own directory through the one-shot git import.
    for (const s of first.spaces) {
      const r = await api('POST', `/v1/spaces/${s.spaceId}/git/import`, {
        url,
        ref: 'refs/heads/main',
        repoProjectDirectory: resolveDirectory('', s.directory),
      });
      expect(r.status, JSON.stringify(r.body)).toBe(204);
      const op = await settle(r.headers.get('location')!);
      expect(op.status, op.error).toBe('succeeded');
    }
  }, 180_000);

  it('gets one space per directory, each imported from its directory', async () => {
    expect(first.changed).toBe(true);
    expect(first.warnings).toEqual([]);
    expect(first.spaces.map((s) => [s.key, s.directory])).toEqual([
      ['space-1', './handbook'],
      ['space-3', './api'],
      ['space-2', './changelog'],
      ['space-7', './policies'],
      ['space-4', './guides'],
    ]);
    expect(new Set(first.spaces.map((s) => s.spaceId)).size).toBe(5);
    for (const s of first.spaces) {
      const name = DIRECTORIES[s.directory.slice(2) as keyof typeof DIRECTORIES];
      const pages = (await api('GET', `/v1/spaces/${s.spaceId}/content/pages`)).body.pages;
      expect(pages.map((p: any) => p.title)).toEqual([`${name} home`, `${name} setup`]);
    }
  });

  it('has the sections, groups, titles, descriptions, icons and defaults of the file', async () => {
    const v = await siteView(siteId);
    const site = await api('GET', `/v1/orgs/${org.orgId}/sites/${siteId}`);
    expect(site.body.title).toBe('Northwind Documentation');
    expect(v.sections.map((s) => [s.title, s.path, s.default, s.icon ?? null])).toEqual([
      ['Documentation', 'documentation', true, 'book-open'],
      ['Developers', 'developers', false, 'code'],
      ['Changelog', 'changelog', false, 'bars-staggered'],
      ['Policies', 'policies', false, 'file-contract'],
      ['Guides', 'guides', false, 'book'],
    ]);
    const docs = v.sections[0];
    expect(docs.description).toBe('Everything about running Northwind');
    expect(docs.localizedTitle).toEqual({ en: 'Documentation', fr: 'Documentation', ja: 'ドキュメント', zh: '文档' });
    expect(docs.localizedDescription).toEqual({ fr: 'Tout sur Northwind' });
    expect(v.sections[1].localizedDescription).toEqual({ fr: "L'API et le SDK" });

    expect(v.groups.map((gr) => [gr.title, gr.icon, gr.sectionGroup ?? null])).toEqual([
      ['Resources', 'circle-info', null],
      ['Academy', 'lightbulb-on', v.groups[0].id],
    ]);
    expect(v.groups[0].localizedTitle).toEqual({ fr: 'Ressources' });
    expect(v.groups[0].sections.map((s: any) => s.title)).toEqual(['Changelog', 'Policies', 'Guides']);
    for (const s of v.sections.slice(2)) expect(s.sectionGroup).toBe(v.groups[0].id);

    const guides = v.siteSpaces.find((ss) => ss.path === 'northwind-guides');
    expect(guides).toMatchObject({ title: 'Northwind Guides', hidden: true, default: true, section: v.sections[4].id });
    expect(guides.space.id).toBe(created['./guides']);
    const english = v.siteSpaces.find((ss) => ss.path === 'northwind-docs');
    expect(english).toMatchObject({ title: '🇬🇧 English', default: true, localizedTitle: { fr: '🇬🇧 Anglais' } });
  });

  it('makes the three language variants translations of the default space, kept by the translation feature', async () => {
    const v = await siteView(siteId);
    const docs = v.sections[0];
    expect(docs.siteSpaces.map((ss: any) => [ss.title, ss.path, ss.default])).toEqual([
      ['🇬🇧 English', 'northwind-docs', true],
      ['🇫🇷 Français', 'fr', false],
      ['🇨🇳 中文', 'zh', false],
      ['🇯🇵 日本語', 'ja-northwind-docs', false],
    ]);
    const handbook = created['./handbook'];
    const list = (await api('GET', `/v1/orgs/${org.orgId}/translations`)).body.items as any[];
    expect(list.map((x) => x.language).sort()).toEqual(['fr', 'ja', 'zh']);
    for (const variant of first.variants) {
      expect(variant).toMatchObject({ sourceSpaceId: handbook, created: true });
      const translation = list.find((x) => x.id === variant.translationId);
      expect(translation.language).toBe(variant.language);
      const ss = docs.siteSpaces.find((x: any) => x.id === variant.siteSpaceId);
      expect(ss.space.id).toBe(variant.spaceId);
      expect(ss.space.language).toBe(variant.language);
    }
    // Once the handbook was imported, runs of the translations fill each variant with its
    // (pseudo-)translated pages.
    const runs = await refreshLanguageVariants(t.app, first.variants, org.adminId);
    expect(runs).toHaveLength(3);
    for (const id of runs) expect((await settle(`/v1/operations/${id}`)).status).toBe('succeeded');
    for (const variant of first.variants) {
      const titles = (await api('GET', `/v1/spaces/${variant.spaceId}/content/pages`)).body.pages.map((p: any) => p.title);
      expect(titles).toHaveLength(2);
      expect(titles[0]).not.toBe('Handbook home');
      expect(titles[0]).toMatch(/⟦/);
    }
  }, 120_000);

  it('writes the same docs.yaml back when nothing changed, and applying it again changes nothing', async () => {
    expect(writeDocsYaml(await siteConfigOf(t.app, siteId))).toBe(DOCS_YAML);
    const before = await siteView(siteId);
    const version = (await api('GET', `/v1/orgs/${org.orgId}/sites/${siteId}`)).body;
    const again = await applySiteConfig(t.app, {
      siteId,
      config,
      spaceForDirectory: () => Promise.reject(new Error('every key already has its space')),
    });
    expect(again.changed).toBe(false);
    expect(again.spaces.map((s) => s.spaceId)).toEqual(first.spaces.map((s) => s.spaceId));
    expect(again.variants.map((s) => s.spaceId)).toEqual(first.variants.map((s) => s.spaceId));
    expect(await siteView(siteId)).toEqual(before);
    expect((await api('GET', `/v1/orgs/${org.orgId}/sites/${siteId}`)).body).toEqual(version);
  });

  it('removes what leaves the file from the site, keeping its space', async () => {
    const next = structuredClone(config);
    const resources = next.site.structure[2] as any;
    resources.children = resources.children.filter((c: any) => c.key !== 'section-5');
    const documentation = next.site.structure[0] as DocsYamlSection;
    documentation.children = documentation.children.filter((c) => c.key !== 'space-8');
    (next.site.structure[1] as DocsYamlSection).title = 'Developer hub';
    const r = await applySiteConfig(t.app, { siteId, config: next, spaceForDirectory: () => Promise.reject(new Error('none new')) });
    expect(r.changed).toBe(true);
    const v = await siteView(siteId);
    expect(v.sections.map((s) => s.title)).toEqual(['Documentation', 'Developer hub', 'Changelog', 'Guides']);
    expect(v.sections[0].siteSpaces.map((ss: any) => ss.path)).toEqual(['northwind-docs', 'fr', 'zh']);
    expect(v.siteSpaces.some((ss) => ss.space.id === created['./policies'])).toBe(false);
    // The spaces stay.
    expect((await api('GET', `/v1/spaces/${created['./policies']}`)).status).toBe(200);
    const ja = first.variants.find((x) => x.language === 'ja')!;
    expect((await api('GET', `/v1/spaces/${ja.spaceId}`)).status).toBe(200);
    // Back as it was: the same spaces come back, nothing new is made.
    // The caller gives the space already synced from a directory (as a site sync finds it).
    const back = await applySiteConfig(t.app, { siteId, config, spaceForDirectory: async (dir) => created[dir] });
    expect(back.spaces.find((s) => s.key === 'space-7')!.spaceId).toBe(created['./policies']);
    expect(back.variants.find((s) => s.key === 'space-8')!.spaceId).toBe(ja.spaceId);
    expect(writeDocsYaml(await siteConfigOf(t.app, siteId))).toBe(DOCS_YAML);
  });

  it('gives back a docs.yaml holding a change made through the API', async () => {
    const v = await siteView(siteId);
    const developers = v.sections.find((s) => s.path === 'developers');
    const patch = await api('PATCH', `/v1/orgs/${org.orgId}/sites/${siteId}/sections/${developers.id}`, {
      title: 'Developer portal',
      path: 'dev',
    });
    expect(patch.status, JSON.stringify(patch.body)).toBe(200);
    // A site space added through the API: a space of the organization with no directory yet.
    const extra = await api('POST', `/v1/orgs/${org.orgId}/spaces`, { title: 'SDK', empty: true });
    const added = await api('POST', `/v1/orgs/${org.orgId}/sites/${siteId}/site-spaces`, {
      spaceId: extra.body.id,
      sectionId: developers.id,
      title: 'SDK reference',
    });
    expect(added.status, JSON.stringify(added.body)).toBe(201);

    const text = writeDocsYaml(await siteConfigOf(t.app, siteId));
    const back = parseDocsYaml(text).config;
    const dev = back.site.structure[1] as DocsYamlSection;
    expect(dev).toMatchObject({ key: 'section-3', title: 'Developer portal', path: 'dev' });
    expect(dev.children.map((c) => [c.key, c.title, c.content.directory])).toEqual([
      ['space-3', 'Developer Documentation', './api'],
      ['space-dev-sdk-reference', 'SDK reference', './sdk-reference'],
    ]);
    expect(text).toContain('      title: Developer portal\n      path: dev\n');
    // Applied, the written file keeps the site as it is (the added site space takes its new key).
    const r = await applySiteConfig(t.app, { siteId, config: back, spaceForDirectory: () => Promise.reject(new Error('none new')) });
    expect(r.spaces.find((s) => s.key === 'space-dev-sdk-reference')!.spaceId).toBe(extra.body.id);
    expect(writeDocsYaml(await siteConfigOf(t.app, siteId))).toBe(text);
  });

  it("keeps a space when its directory moves, and shows the translation into a variant's new language", async () => {
    const current = await siteConfigOf(t.app, siteId);
    const next = structuredClone(current);
    const documentation = next.site.structure[0] as DocsYamlSection;
    const developers = next.site.structure[1] as DocsYamlSection;
    developers.children[0].content.directory = './api-v2';
    const zh = documentation.children.find((c) => c.key === 'space-6')!;
    zh.content.language = 'de';
    const r = await applySiteConfig(t.app, {
      siteId,
      config: next,
      createdBy: org.adminId,
      spaceForDirectory: () => Promise.reject(new Error('none new')),
    });
    expect(r.spaces.find((s) => s.key === 'space-3')).toMatchObject({ directory: './api-v2', spaceId: created['./api'] });
    const de = r.variants.find((v) => v.key === 'space-6')!;
    const before = first.variants.find((v) => v.key === 'space-6')!;
    expect(de).toMatchObject({ language: 'de', created: true, sourceSpaceId: created['./handbook'] });
    expect(de.spaceId).not.toBe(before.spaceId);
    const v = await siteView(siteId);
    const ss = v.sections[0].siteSpaces.find((x: any) => x.id === before.siteSpaceId);
    expect(ss.space.id).toBe(de.spaceId);
    expect(ss.space.language).toBe('de');
    // The Chinese translation and its space stay.
    expect((await api('GET', `/v1/spaces/${before.spaceId}`)).status).toBe(200);
    expect((await api('GET', `/v1/orgs/${org.orgId}/translations/${before.translationId}`)).status).toBe(200);
  });

  it('refuses a site of another organization and a space of another organization', async () => {
    const other = await t.seedOrg('Other');
    const foreign = await t.api('POST', `/v1/orgs/${other.orgId}/spaces`, {
      token: other.adminToken,
      body: { title: 'Foreign', empty: true },
    });
    const site = await api('POST', `/v1/orgs/${org.orgId}/sites`, { title: 'Second' });
    const one: DocsYamlConfig = parseDocsYaml(
      'site:\n  title: One\n  structure:\n    - type: space\n      key: s\n      title: S\n      path: s\n      content:\n        directory: ./s\n',
    ).config;
    await expect(
      applySiteConfig(t.app, { siteId: site.body.id, config: one, spaceForDirectory: async () => foreign.body.id }),
    ).rejects.toThrow(/not a space of the site's organization/);
    await expect(applySiteConfig(t.app, { siteId: 'nope', config: one, spaceForDirectory: async () => foreign.body.id })).rejects.toThrow(
      /not found/,
    );
  });
});

describe('changes between syncs', () => {
  const newSpace = async (title: string) => (await api('POST', `/v1/orgs/${org.orgId}/spaces`, { title, empty: true })).body.id as string;

  it('applies a site without sections: its spaces at the root, the marked default', async () => {
    const a = await newSpace('A');
    const b = await newSpace('B');
    const site = (await api('POST', `/v1/orgs/${org.orgId}/sites`, { title: 'Flat' })).body.id;
    const config = parseDocsYaml(`site:
  title: Flat docs
  structure:
    - type: space
      key: space-guides
      title: Guides
      path: guides
      content:
        directory: ./guides
    - type: space
      key: space-api
      title: API reference
      path: api
      default: true
      content:
        directory: ./api
`).config;
    const spaces: Record<string, string> = { './guides': a, './api': b };
    await applySiteConfig(t.app, { siteId: site, config, spaceForDirectory: async (d) => spaces[d] });
    const v = await siteView(site);
    expect(v.sections).toEqual([]);
    expect(v.siteSpaces.map((ss) => [ss.title, ss.path, ss.default, ss.space.id, ss.section ?? null])).toEqual([
      ['Guides', 'guides', false, a, null],
      ['API reference', 'api', true, b, null],
    ]);
    expect(writeDocsYaml(await siteConfigOf(t.app, site))).toBe(writeDocsYaml(config));
  });

  it('moves sections between levels, swaps paths and defaults, and keeps what the site does not model', async () => {
    const ids = { x: await newSpace('X'), w: await newSpace('W'), z: await newSpace('Z') };
    const site = (await api('POST', `/v1/orgs/${org.orgId}/sites`, { title: 'Moves' })).body.id;
    const text = (one: string, two: string, groupAround: boolean) => {
      const s1 = `type: section
  key: s1
  title: One
  path: ${one}
  default: true
  children:
    - type: space
      key: x
      title: X
      path: x
      default: true
      content:
        directory: ./x
    - type: space
      key: w
      title: W
      path: w
      content:
        directory: ./w`;
      const s2 = `type: section
  key: s2
  title: Two
  path: ${two}
  children:
    - type: space
      key: z
      title: Z
      path: z
      default: true
      content:
        directory: ./z
  mood: calm`;
      const indent = (s: string, n: number) => s.replace(/^/gm, ' '.repeat(n));
      const link = '- type: external-link\n  key: status\n  title: Status\n  url: https://status.example.com';
      return groupAround
        ? `site:\n  title: Moves\n  structure:\n${indent(`- ${s1}`, 4)}\n${indent(`- type: section-group\n  key: g\n  title: More\n  children:\n${indent(`- ${s2}`, 4)}\n${indent(link, 4)}`, 4)}\n`
        : `site:\n  title: Moves\n  structure:\n${indent(`- ${s1}`, 4)}\n${indent(`- ${s2}`, 4)}\n${indent(link, 4)}\n`;
    };
    const spaceFor = async (d: string) => ids[d.slice(2) as keyof typeof ids];
    const first = parseDocsYaml(text('one', 'two', false));
    expect(first.warnings).toHaveLength(1);
    expect(first.warnings[0]).toMatch(/^docs\.yaml:\d+: site\.structure\[1\]: unknown key "mood" is kept as written but not used$/);
    await applySiteConfig(t.app, { siteId: site, config: first.config, spaceForDirectory: spaceFor });
    const before = await siteView(site);
    expect(writeDocsYaml(await siteConfigOf(t.app, site))).toBe(text('one', 'two', false));

    // Paths swapped, section Two moved into a new group, W made the default of One.
    const next = parseDocsYaml(text('two', 'one', true)).config;
    const one = next.site.structure[0] as DocsYamlSection;
    delete one.children[0].default;
    one.children[1].default = true;
    const r = await applySiteConfig(t.app, { siteId: site, config: next, spaceForDirectory: spaceFor });
    expect(r.changed).toBe(true);
    const v = await siteView(site);
    expect(v.sections.map((s) => [s.id, s.path, s.sectionGroup ?? null])).toEqual([
      [before.sections[0].id, 'two', null],
      [before.sections[1].id, 'one', v.groups[0].id],
    ]);
    expect(v.groups.map((gr) => gr.title)).toEqual(['More']);
    expect(v.sections[0].siteSpaces.map((ss: any) => [ss.path, ss.default])).toEqual([
      ['x', false],
      ['w', true],
    ]);
    // The external link and the unknown key stay in the file written back, where they were.
    const written = writeDocsYaml(await siteConfigOf(t.app, site));
    expect(parseDocsYaml(written).config).toEqual(next);
  });

  it('adopts a site built through the API on its first sync, keeping its sections and site spaces', async () => {
    const a = await newSpace('Alpha');
    const b = await newSpace('Beta');
    const site = (await api('POST', `/v1/orgs/${org.orgId}/sites`, { title: 'Built', spaces: [a] })).body.id;
    const section = await api('POST', `/v1/orgs/${org.orgId}/sites/${site}/sections`, { spaceId: b, title: 'Beta docs' });
    expect(section.status, JSON.stringify(section.body)).toBe(201);
    const before = await siteView(site);
    const config = await siteConfigOf(t.app, site);
    expect(config.site.structure.map((n) => [n.type, n.key])).toEqual([
      ['section', `section-${before.sections[0].path}`],
      ['section', 'section-beta-docs'],
    ]);
    const r = await applySiteConfig(t.app, {
      siteId: site,
      config,
      spaceForDirectory: () => Promise.reject(new Error('every entry has its space')),
    });
    expect(r.changed).toBe(false);
    expect(await siteView(site)).toEqual(before);
  });
});
