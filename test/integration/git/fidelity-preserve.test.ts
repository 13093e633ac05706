// An export touches only what git sync manages: symlinks, submodules, files outside the docs root,
// files the format does not read, unknown front matter keys and unreferenced assets survive.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { startGitServer, gitCli, type GitServer } from '../../helpers/git-server.js';
import { operationSettled } from '../../helpers/operations.js';

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
  return operationSettled(t, r.headers.get('location'), { token: org.adminToken, timeoutMs: 60_000 });
}

describe('export keeps what it does not manage', () => {
  it('symlinks, submodules, files outside the docs root, unknown front matter and unreferenced assets survive an edit', async () => {
    const url = await g.createRepo('preserve', {
      files: {
        '.gitbook.yaml': 'root: ./docs/\n',
        'package.json': '{"name":"product"}\n',
        'docs/README.md': '---\ncoverY: 0\ndescription: Home\n---\n\n# Home\n\nWelcome.\n',
        'docs/SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Guide](guide.md)\n',
        'docs/guide.md': '---\ncoverY: 42\nlayout:\n  width: wide\n---\n\n# Guide\n\nOld text.\n',
        'docs/.gitbook/assets/unused.png': Buffer.from([1, 2, 3]),
        'docs/notes.txt': 'not managed\n',
      },
    });
    // A symlink and a submodule (gitlink), added with plain git.
    const work = await g.clone('preserve');
    await gitCli(['update-index', '--add', '--cacheinfo', '160000,1111111111111111111111111111111111111111,vendor/lib'], work);
    await gitCli(['config', 'core.symlinks', 'true'], work);
    const { symlink } = await import('node:fs/promises');
    await symlink('README.md', path.join(work, 'docs', 'index.md'));
    await gitCli(['add', 'docs/index.md'], work);
    await gitCli(['commit', '-q', '-m', 'symlink and submodule'], work);
    await gitCli(['push', '-q', 'origin', 'HEAD:refs/heads/main'], work);

    const s = (await api('POST', `/v1/orgs/${org.orgId}/spaces`, { title: 'Preserve', empty: true })).body.id as string;
    const imported = await run('import', s, { url, ref: 'refs/heads/main' });
    expect(imported.status, imported.error).toBe('succeeded');
    // Unchanged: no commit.
    const unchanged = await run('export', s, { url, ref: 'refs/heads/main', commitMessage: 'noop' });
    expect(unchanged.result.unchanged).toBe(true);

    // Edit the guide, then export: only its file changes, and its coverY stays.
    const pages = (await api('GET', `/v1/spaces/${s}/content/pages`)).body.pages;
    const guide = pages.find((p: any) => p.title === 'Guide');
    const cr = (await api('POST', `/v1/spaces/${s}/change-requests`, { subject: 'Edit guide' })).body;
    await api('POST', `/v1/spaces/${s}/change-requests/${cr.id}/content`, {
      changes: [{ operation: 'update_page', page: guide.id, document: { markdown: 'New text.\n' } }],
    });
    expect((await api('POST', `/v1/spaces/${s}/change-requests/${cr.id}/merge`)).status).toBe(200);
    const exported = await run('export', s, { url, ref: 'refs/heads/main', commitMessage: 'Edit guide' });
    expect(exported.status, exported.error).toBe('succeeded');
    expect(exported.result.unchanged).toBe(false);

    const clone = await g.clone('preserve');
    expect((await gitCli(['diff', '--name-only', 'HEAD~1', 'HEAD'], clone)).trim()).toBe('docs/guide.md');
    const tree = await gitCli(['ls-tree', '-r', 'HEAD'], clone);
    expect(tree).toMatch(/^160000 commit 1111111111111111111111111111111111111111\tvendor\/lib$/m);
    expect(tree).toMatch(/^120000 blob [0-9a-f]{40}\tdocs\/index.md$/m);
    for (const f of ['package.json', 'docs/notes.txt', 'docs/.gitbook/assets/unused.png', '.gitbook.yaml'])
      expect(tree).toContain(`\t${f}\n`);
    const guideText = await readFile(path.join(clone, 'docs/guide.md'), 'utf8');
    expect(guideText).toBe('---\ncoverY: 42\nlayout:\n  width: wide\n---\n\n# Guide\n\nNew text.\n');
  }, 120_000);
});
