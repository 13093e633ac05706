// An unchanged import exports as no commit, whatever the repository holds (issue 27, item 5): names
// that differ only in case (git is case-sensitive: `DELETE.png` and `delete.png` are two files) and
// executable files (100755) are written back exactly as they came; an edit changes only its file.
import { chmod, cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { startGitServer, gitCli, type GitServer } from '../../helpers/git-server.js';
import { operationSettled } from '../../helpers/operations.js';
import { GITBOOK_FIXTURES, requireFixtures } from '../../helpers/fixtures.js';

const GITBOOK = requireFixtures(GITBOOK_FIXTURES);

let g: GitServer;

beforeAll(async () => {
  g = await startGitServer();
});
afterAll(() => g?.close());
const { t, org } = useTestApp({ workers: ['git'], env: { WORKER_CONCURRENCY: '1' }, seedOrg: true });

const api = (method: string, p: string, body?: unknown) => t.api(method, p, { token: org.adminToken, body });

async function run(kind: 'import' | 'export', spaceId: string, body: Record<string, unknown>) {
  const r = await api('POST', `/v1/spaces/${spaceId}/git/${kind}`, body);
  expect(r.status, JSON.stringify(r.body)).toBe(204);
  return operationSettled(t, r.headers.get('location'), { token: org.adminToken, timeoutMs: 120_000 });
}

const newSpace = async (title: string) => (await api('POST', `/v1/orgs/${org.orgId}/spaces`, { title, empty: true })).body.id as string;
const walk = (pages: any[]): any[] => pages.flatMap((p) => [p, ...walk(p.pages ?? [])]);
const head = async (url: string) => (await gitCli(['ls-remote', url, 'refs/heads/main'], g.root)).split('\t')[0];
/** `git ls-tree -r` of the branch head: mode, type, id and path of every file. */
const lsTree = async (name: string) => {
  const clone = await g.clone(name);
  return { clone, tree: await gitCli(['ls-tree', '-r', 'HEAD'], clone) };
};

/** Export the unchanged import and expect no commit, naming what changed otherwise. */
async function expectNoCommit(spaceId: string, target: Record<string, unknown>, name: string) {
  const before = await head(target.url as string);
  const exported = await run('export', spaceId, { ...target, commitMessage: 'Sync' });
  expect(exported.status, exported.error).toBe('succeeded');
  if (!exported.result.unchanged) {
    const clone = await g.clone(name);
    expect.fail(`the export of an unchanged import made a commit:\n${await gitCli(['show', '--stat=200', '--summary', 'HEAD'], clone)}`);
  }
  expect(exported.result).toMatchObject({ unchanged: true, commit: before });
  expect(await head(target.url as string)).toBe(before);
}

const png = (n: number) => Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, n, n, n]);

describe('export writes back what it imported, byte for byte, name for name, mode for mode', () => {
  it('case-clashing names, executable pages and SUMMARY.md: no commit; an edit touches only its page and keeps its mode', async () => {
    // Built with the git CLI: names that differ only in case, referenced from pages, executable files.
    const work = await mkdtemp(path.join(tmpdir(), 'dp-exact-'));
    const files: Record<string, string | Buffer> = {
      'README.md': '# Home\n\nWelcome.\n',
      'SUMMARY.md':
        '# Table of contents\n\n* [Home](README.md)\n* [Methods](methods.md)\n* [Setup](setup.md)\n* [SETUP notes](SETUP.md)\n* [Run](run.md)\n* [Alias](alias.md)\n',
      'methods.md':
        '# Methods\n\n![](.gitbook/assets/DELETE.png)\n\n![](.gitbook/assets/delete.png)\n\n![](.gitbook/assets/PATCH.png)\n\n![](.gitbook/assets/patch.png)\n\n![](<.gitbook/assets/delete (1).png>)\n',
      'setup.md': '# Setup\n\nLower case.\n',
      'SETUP.md': '# SETUP notes\n\nUpper case.\n',
      'run.md': '# Run\n\nAn executable page.\n',
      '.gitbook/assets/DELETE.png': png(1),
      '.gitbook/assets/delete.png': png(2),
      '.gitbook/assets/delete (1).png': png(3),
      '.gitbook/assets/PATCH.png': png(4),
      '.gitbook/assets/patch.png': png(5),
      '.gitbook/assets/tool.sh': '#!/bin/sh\necho tool\n',
    };
    for (const [p, content] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(work, p)), { recursive: true });
      await writeFile(path.join(work, p), content);
    }
    for (const p of ['run.md', 'SUMMARY.md', '.gitbook/assets/tool.sh']) await chmod(path.join(work, p), 0o755);
    // A page file that is a symlink (120000): read as a missing page, never rewritten.
    await symlink('README.md', path.join(work, 'alias.md'));
    const url = await g.createRepo('exact', { dir: work });
    await rm(work, { recursive: true, force: true });
    const original = (await lsTree('exact')).tree;
    expect(original).toMatch(/^100755 blob [0-9a-f]{40}\trun\.md$/m);
    expect(original).toMatch(/^100644 blob [0-9a-f]{40}\t\.gitbook\/assets\/DELETE\.png$/m);
    expect(original).toMatch(/^120000 blob [0-9a-f]{40}\talias\.md$/m);

    const s = await newSpace('Exact');
    const target = { url, ref: 'refs/heads/main' };
    const imported = await run('import', s, target);
    expect(imported.status, imported.error).toBe('succeeded');
    const spaceFiles = ((await api('GET', `/v1/spaces/${s}/content/files?limit=100`)).body.items as any[]).map((f) => f.name).sort();
    expect(spaceFiles).toEqual(['DELETE.png', 'PATCH.png', 'delete (1).png', 'delete.png', 'patch.png', 'tool.sh']);
    const pages = walk((await api('GET', `/v1/spaces/${s}/content/pages`)).body.pages);
    expect(pages.map((p) => p.git?.path)).toEqual(['README.md', 'methods.md', 'setup.md', 'SETUP.md', 'run.md', 'alias.md']);

    // Unchanged: no commit, the branch as it was.
    await expectNoCommit(s, target, 'exact');
    expect((await gitCli(['log', '--format=%s'], (await lsTree('exact')).clone)).trim().split('\n')).toEqual(['Initial docs']);

    // Edit the executable page through the API: the commit touches that file only, its mode kept.
    const runPage = pages.find((p) => p.title === 'Run');
    const cr = (await api('POST', `/v1/spaces/${s}/change-requests`, { subject: 'Edit run' })).body;
    await api('POST', `/v1/spaces/${s}/change-requests/${cr.id}/content`, {
      changes: [{ operation: 'update_page', page: runPage.id, document: { markdown: 'Edited on the platform.\n' } }],
    });
    expect((await api('POST', `/v1/spaces/${s}/change-requests/${cr.id}/merge`)).status).toBe(200);
    const edited = await run('export', s, { ...target, commitMessage: 'Edit run' });
    expect(edited.status, edited.error).toBe('succeeded');
    expect(edited.result.unchanged).toBe(false);
    const { clone, tree } = await lsTree('exact');
    expect((await gitCli(['log', '--format=%s'], clone)).trim().split('\n')).toEqual(['Edit run', 'Initial docs']);
    const stat = await gitCli(['show', '--stat=200', '--summary', '--format=', 'HEAD'], clone);
    expect(stat).toMatch(/^ run\.md \| \d+ [+-]+$/m);
    expect(stat).toMatch(/1 file changed/);
    expect(stat).not.toMatch(/mode change/);
    expect(await readFile(path.join(clone, 'run.md'), 'utf8')).toBe('# Run\n\nEdited on the platform.\n');
    // Everything else, modes and case-clashing names included, is the original tree line for line.
    const without = (text: string) =>
      text
        .split('\n')
        .filter((l) => !l.endsWith('\trun.md'))
        .join('\n');
    expect(without(tree)).toBe(without(original));
    expect(tree).toMatch(/^100755 blob [0-9a-f]{40}\trun\.md$/m);

    // A file created on the platform with a name clashing in case gets a name of its own.
    const cr2 = (await api('POST', `/v1/spaces/${s}/change-requests`, { subject: 'Add file' })).body;
    await api('POST', `/v1/spaces/${s}/change-requests/${cr2.id}/content`, {
      changes: [
        {
          operation: 'insert_files',
          files: [{ ref: 'd', name: 'Delete.png', contentType: 'image/png', base64: png(9).toString('base64') }],
        },
      ],
    });
    expect((await api('POST', `/v1/spaces/${s}/change-requests/${cr2.id}/merge`)).status).toBe(200);
    const added = await run('export', s, { ...target, commitMessage: 'Add file' });
    expect(added.status, added.error).toBe('succeeded');
    const after = await lsTree('exact');
    expect((await gitCli(['show', '--name-status', '--format=', 'HEAD'], after.clone)).trim()).toBe('A\t.gitbook/assets/Delete (2).png');
  }, 180_000);

  // Real GitBook trees with executable files and case-clashing asset names added.
  for (const { fixture, dir, clash } of [
    { fixture: 'getstrm--pace', dir: 'docs', clash: ['image.png', 'IMAGE.png'] },
    { fixture: 'tetherto--wdk-docs', dir: '', clash: ['openclaw-wallet-output.png', 'OpenClaw-Wallet-Output.png'] },
  ]) {
    it(`${fixture}${dir ? `/${dir}` : ''} with executable pages and ${clash[1]} beside ${clash[0]}: no commit; an edit of one changes that file alone`, async () => {
      const work = await mkdtemp(path.join(tmpdir(), 'dp-exact-fixture-'));
      await cp(path.join(GITBOOK, fixture), work, { recursive: true });
      await rm(path.join(work, 'SOURCE.md'), { force: true });
      await rm(path.join(work, 'LICENSE-of-source'), { force: true });
      const docs = path.join(work, dir);
      const assets = path.join(docs, '.gitbook', 'assets');
      await writeFile(path.join(assets, clash[1]), Buffer.concat([await readFile(path.join(assets, clash[0])), Buffer.from('other')]));
      await writeFile(path.join(assets, `${clash[0].replace(/\.png$/, '')} (1).png`.toUpperCase()), png(7));
      const summary = await readFile(path.join(docs, 'SUMMARY.md'), 'utf8');
      const linked = [...summary.matchAll(/\]\(([^)\s]+\.md)\)/g)].map((m) => decodeURI(m[1])).slice(1, 4);
      expect(linked.length).toBe(3);
      for (const p of ['SUMMARY.md', 'README.md', ...linked]) await chmod(path.join(docs, p), 0o755);
      const name = `exact-${fixture}`.toLowerCase();
      const url = await g.createRepo(name, { dir: work });
      await rm(work, { recursive: true, force: true });
      const original = (await lsTree(name)).tree;
      const prefix = dir ? `${dir}/` : '';
      for (const p of ['SUMMARY.md', ...linked]) expect(original).toContain(`\t${prefix}${p}\n`);
      expect(original.split('\n').filter((l) => l.startsWith('100755 ')).length).toBeGreaterThanOrEqual(4);

      const s = await newSpace(fixture);
      const target = { url, ref: 'refs/heads/main', ...(dir ? { repoProjectDirectory: dir } : {}) };
      const imported = await run('import', s, target);
      expect(imported.status, imported.error).toBe('succeeded');
      const names = ((await api('GET', `/v1/spaces/${s}/content/files?limit=1000`)).body.items as any[]).map((f) => f.name);
      expect(names).toEqual(expect.arrayContaining(clash));
      await expectNoCommit(s, target, name);
      expect((await lsTree(name)).tree).toBe(original);

      // An edit of one executable page: the commit changes that file alone, which stays 100755.
      const edited = `${prefix}${linked[0]}`;
      const page = walk((await api('GET', `/v1/spaces/${s}/content/pages`)).body.pages).find((p) => p.git?.path === edited);
      expect(page, edited).toBeDefined();
      const cr = (await api('POST', `/v1/spaces/${s}/change-requests`, { subject: 'Edit' })).body;
      await api('POST', `/v1/spaces/${s}/change-requests/${cr.id}/content`, {
        changes: [{ operation: 'update_page', page: page.id, document: { markdown: 'Edited on the platform.\n' } }],
      });
      expect((await api('POST', `/v1/spaces/${s}/change-requests/${cr.id}/merge`)).status).toBe(200);
      const exported = await run('export', s, { ...target, commitMessage: 'Edit' });
      expect(exported.status, exported.error).toBe('succeeded');
      const after = await lsTree(name);
      expect((await gitCli(['show', '--name-only', '--summary', '--format=', 'HEAD'], after.clone)).trim()).toBe(edited);
      const others = (text: string) =>
        text
          .split('\n')
          .filter((l) => !l.endsWith(`\t${edited}`))
          .join('\n');
      expect(others(after.tree)).toBe(others(original));
      expect(after.tree).toMatch(new RegExp(`^100755 blob [0-9a-f]{40}\t${edited.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
    }, 180_000);
  }
});
