// Real GitBook repositories (../shared/fixtures/gitbook/, copied verbatim from public repositories):
// every space imports, its pages keep GitBook's blocks as document nodes, and an export of the
// unchanged import is byte-identical (no commit).
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { startGitServer, gitCli, type GitServer } from '../../helpers/git-server.js';
import { operationSettled } from '../../helpers/operations.js';
import { GITBOOK_FIXTURES, requireFixtures } from '../../helpers/fixtures.js';

const GITBOOK = requireFixtures(GITBOOK_FIXTURES);

/** Each real space: the fixture folder and the project directory GitBook syncs it from. */
const SPACES: Array<{ fixture: string; dir: string }> = [
  { fixture: 'LawnchairLauncher--docs', dir: 'community' },
  { fixture: 'LawnchairLauncher--docs', dir: 'developers' },
  { fixture: 'LawnchairLauncher--docs', dir: 'help' },
  { fixture: 'getstrm--pace', dir: 'docs' },
  { fixture: 'tetherto--wdk-docs', dir: '' },
  ...['build', 'cookbook', 'learn', 'operate', 'pox-5', 'press-and-reports', 'reference', 'tutorials'].map((d) => ({
    fixture: 'stacks-network--docs',
    dir: `docs/${d}`,
  })),
];

let g: GitServer;
const urls = new Map<string, string>();

beforeAll(async () => {
  g = await startGitServer();
  for (const fixture of new Set(SPACES.map((s) => s.fixture))) {
    // The fixture without its provenance files, as the repository it was copied from.
    const dir = await mkdtemp(path.join(tmpdir(), 'dp-gitbook-'));
    await cp(path.join(GITBOOK, fixture), dir, { recursive: true });
    await rm(path.join(dir, 'SOURCE.md'), { force: true });
    await rm(path.join(dir, 'LICENSE-of-source'), { force: true });
    urls.set(fixture, await g.createRepo(fixture.toLowerCase(), { dir }));
    await rm(dir, { recursive: true, force: true });
  }
}, 120_000);
afterAll(() => g?.close());
const { t, org } = useTestApp({ workers: ['git'], env: { WORKER_CONCURRENCY: '1' }, seedOrg: true });

const api = (method: string, p: string, body?: unknown) => t.api(method, p, { token: org.adminToken, body });

async function run(kind: 'import' | 'export', spaceId: string, body: Record<string, unknown>) {
  const r = await api('POST', `/v1/spaces/${spaceId}/git/${kind}`, body);
  expect(r.status, JSON.stringify(r.body)).toBe(204);
  return operationSettled(t, r.headers.get('location'), { token: org.adminToken, timeoutMs: 120_000 });
}

const walk = (pages: any[]): any[] => pages.flatMap((p) => [p, ...walk(p.pages ?? [])]);

describe('real GitBook repositories', () => {
  for (const { fixture, dir } of SPACES) {
    it(`${fixture}/${dir}: imports, and an export of the unchanged import makes no commit`, async () => {
      const url = urls.get(fixture)!;
      const spaceId = (await api('POST', `/v1/orgs/${org.orgId}/spaces`, { title: `${fixture} ${dir}`, empty: true })).body.id as string;
      const target = { url, ref: 'refs/heads/main', ...(dir ? { repoProjectDirectory: dir } : {}) };
      const imported = await run('import', spaceId, target);
      expect(imported.status, imported.error).toBe('succeeded');
      const pages = walk((await api('GET', `/v1/spaces/${spaceId}/content/pages`)).body.pages);
      expect(pages.filter((p) => p.type === 'document').length).toBeGreaterThan(1);
      // No page gains a second title heading: a body never starts with the page's own title.
      const before = (await gitCli(['ls-remote', url, 'refs/heads/main'], g.root)).split('\t')[0];
      const exported = await run('export', spaceId, { ...target, commitMessage: 'Sync' });
      expect(exported.status, exported.error).toBe('succeeded');
      if (!exported.result.unchanged) {
        // Name what changed, for the failure message.
        const clone = await g.clone(fixture.toLowerCase());
        const diff =
          (await gitCli(['diff', '--stat=200', 'HEAD~1', 'HEAD'], clone)) +
          (process.env.FID_DIFF ? await gitCli(['diff', 'HEAD~1', 'HEAD'], clone) : '');
        expect.fail(`the export of an unchanged import made a commit:\n${diff}`);
      }
      expect(exported.result).toMatchObject({ unchanged: true, commit: before });
      expect((await gitCli(['ls-remote', url, 'refs/heads/main'], g.root)).split('\t')[0]).toBe(before);
      // Importing the same commit again creates no revision.
      const revision = (await api('GET', `/v1/spaces/${spaceId}`)).body.revision;
      const again = await run('import', spaceId, target);
      expect(again.status, again.error).toBe('succeeded');
      expect((await api('GET', `/v1/spaces/${spaceId}`)).body.revision).toBe(revision);
    }, 180_000);
  }
});

describe('export to an empty repository', () => {
  const outline = (pages: any[]): unknown[] =>
    pages.map((p) => [p.type, p.title, p.linkTitle ?? '', p.href ?? '', ...(p.pages?.length ? [outline(p.pages)] : [])]);

  for (const { fixture, dir } of [
    { fixture: 'LawnchairLauncher--docs', dir: 'developers' },
    { fixture: 'stacks-network--docs', dir: 'docs/reference' },
  ]) {
    it(`${fixture}/${dir}: re-importing the export gives the same pages, titles, order, link pages and files`, async () => {
      const first = (await api('POST', `/v1/orgs/${org.orgId}/spaces`, { title: 'First', empty: true })).body.id as string;
      const imported = await run('import', first, { url: urls.get(fixture)!, ref: 'refs/heads/main', repoProjectDirectory: dir });
      expect(imported.status, imported.error).toBe('succeeded');
      const empty = await g.createRepo(`empty-${fixture}-${dir}`.toLowerCase().replace(/[^a-z0-9-]/g, '-'));
      const exported = await run('export', first, { url: empty, ref: 'refs/heads/main', commitMessage: 'Export' });
      expect(exported.status, exported.error).toBe('succeeded');
      const second = (await api('POST', `/v1/orgs/${org.orgId}/spaces`, { title: 'Second', empty: true })).body.id as string;
      const again = await run('import', second, { url: empty, ref: 'refs/heads/main' });
      expect(again.status, again.error).toBe('succeeded');
      const tree = async (s: string) => (await api('GET', `/v1/spaces/${s}/content/pages`)).body.pages;
      expect(outline(await tree(second))).toEqual(outline(await tree(first)));
      const files = async (s: string) =>
        ((await api('GET', `/v1/spaces/${s}/content/files?limit=1000`)).body.items as any[]).map((f) => [f.name, f.size]).sort();
      expect(await files(second)).toEqual(await files(first));
      // No page gained a second title heading (the title line followed by another level-1 heading).
      const clone = await g.clone(`empty-${fixture}-${dir}`.toLowerCase().replace(/[^a-z0-9-]/g, '-'));
      const twice: string[] = [];
      for (const f of (await gitCli(['ls-files', '*.md'], clone)).split('\n').filter(Boolean)) {
        const text = await readFile(path.join(clone, f), 'utf8');
        if (/^(?:---\n[\s\S]*?\n---\n\n)?# [^\n]*\n\n# /.test(text)) twice.push(f);
      }
      expect(twice).toEqual([]);
      if (dir === 'docs/reference') {
        // The redirects travel in a .gitbook.yaml written for them, and are served.
        expect(await readFile(path.join(clone, '.gitbook.yaml'), 'utf8')).toContain('reference/functions: clarity/functions.md');
        await api('PATCH', `/v1/spaces/${second}`, { visibility: 'public' });
        const res = await fetch(`${t.baseUrl}/s/${second}/reference/functions`, { redirect: 'manual' });
        expect(res.status).toBe(301);
        const target = await fetch(res.headers.get('location')!);
        expect(target.status).toBe(200);
        expect(await target.text()).toMatch(/<h1>[^<]*[Ff]unctions[^<]*<\/h1>/);
      }
    }, 300_000);
  }
});
