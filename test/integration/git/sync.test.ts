import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { startTestApp, useTestApp, type TestApp } from '../../helpers/app.js';
import { startGitServer, gitCli, type GitServer } from '../../helpers/git-server.js';
import { operationSettled } from '../../helpers/operations.js';
import { assertMatchesSpec } from '../../helpers/spec.js';
import { TEST_REDIS_URL } from '../../helpers/env.js';
import { TEST_FIXTURES } from '../../helpers/fixtures.js';
import { freshness } from '../../../src/db/repos/search.js';

const FIXTURES = path.join(TEST_FIXTURES, 'git');

let g: GitServer;

beforeAll(async () => {
  g = await startGitServer();
});
afterAll(() => g.close());
const { t, org } = useTestApp({ workers: ['git'], env: { WORKER_CONCURRENCY: '1' }, seedOrg: true });

const api = (method: string, p: string, body?: unknown, app: TestApp = t, token = org.adminToken) => app.api(method, p, { token, body });

async function newSpace(app: TestApp = t, token = org.adminToken, orgId = org.orgId) {
  return (await app.api('POST', `/v1/orgs/${orgId}/spaces`, { token, body: { title: 'Synced', empty: true } })).body.id as string;
}

/** Start a git operation and wait until its operation is final. */
async function run(kind: 'import' | 'export', spaceId: string, body: Record<string, unknown>, app: TestApp = t, token = org.adminToken) {
  const r = await app.api('POST', `/v1/spaces/${spaceId}/git/${kind}`, { token, body });
  expect(r.status, JSON.stringify(r.body)).toBe(204);
  return settle(r.headers.get('location')!, app, token);
}

const settle = (location: string, app: TestApp = t, token = org.adminToken) =>
  operationSettled(app, location, { token, timeoutMs: 60_000 });

const tree = async (spaceId: string, app: TestApp = t) =>
  (await api('GET', `/v1/spaces/${spaceId}/content/pages`, undefined, app)).body.pages;
const outline = (pages: any[]): unknown[] => pages.map((p) => [p.type, p.title, ...(p.pages?.length ? [outline(p.pages)] : [])]);
const pageByTitle = (pages: any[], title: string): any => {
  for (const p of pages) {
    if (p.title === title) return p;
    const found = pageByTitle(p.pages ?? [], title);
    if (found) return found;
  }
};
const revisionOf = async (spaceId: string) => (await api('GET', `/v1/spaces/${spaceId}`)).body.revision;

describe('import', () => {
  it('imports nested pages, groups, front matter and images from a repository with a non-default root', async () => {
    const url = await g.createRepo('docs-root', { dir: path.join(FIXTURES, 'docs-root') });
    const s = await newSpace();
    const op = await run('import', s, { url, ref: 'refs/heads/main', repoTreeURL: 'https://git.example.com/acme/docs-root/tree/main' });
    expect(op.status, op.error).toBe('succeeded');
    const config = await readFile(path.join(FIXTURES, 'docs-root', '.gitbook.yaml'), 'utf8');
    expect(config).toMatch(/root:\s*\.?\/?docs/);
    const pages = await tree(s);
    expect(pages.length).toBeGreaterThan(1);
    // Every page carries its file path under docs/ (the configured root).
    const walk = (list: any[]): any[] => list.flatMap((p) => [p, ...walk(p.pages ?? [])]);
    const documents = walk(pages).filter((p) => p.type === 'document');
    expect(documents.length).toBeGreaterThan(2);
    for (const p of documents) expect(p.git.path).toMatch(/^docs\//);
    // Files: the assets stored and served.
    const files = (await api('GET', `/v1/spaces/${s}/content/files`)).body.items;
    const photo = files.find((f: any) => f.name === 'photo.jpg');
    expect(photo).toBeDefined();
    const original = await readFile(path.join(FIXTURES, 'docs-root', 'docs', '.gitbook', 'assets', 'photo.jpg'));
    expect(Buffer.from(await (await fetch(photo.downloadURL)).arrayBuffer()).equals(original)).toBe(true);
    // Git info reflects the repository, without credentials.
    const info = await api('GET', `/v1/spaces/${s}/git/info`);
    expect(info.status).toBe(200);
    assertMatchesSpec('GET', '/spaces/{spaceId}/git/info', 200, info.body);
    expect(info.body).toMatchObject({
      repoName: 'docs-root',
      url: 'https://git.example.com/acme/docs-root/tree/main',
      operation: { state: 'success', direction: 'import' },
    });
    const space = (await api('GET', `/v1/spaces/${s}`)).body;
    expect(space.gitSync.url).toBe('https://git.example.com/acme/docs-root/tree/main');
    const content = (await api('GET', `/v1/spaces/${s}/content`)).body;
    expect(content.git).toMatchObject({ oid: expect.stringMatching(/^[0-9a-f]{40}$/), ref: 'refs/heads/main' });
  });

  it('imports the canonical layout: groups, nesting, front matter, README first', async () => {
    const url = await g.createRepo('canonical', { dir: path.join(FIXTURES, 'canonical') });
    const s = await newSpace();
    expect((await run('import', s, { url, ref: 'refs/heads/main' })).status).toBe('succeeded');
    const pages = await tree(s);
    expect(outline(pages)).toEqual([
      ['document', 'Welcome'],
      [
        'document',
        'Getting started',
        [
          ['document', 'Installation'],
          ['document', 'Configuration', [['document', 'Environment variables']]],
        ],
      ],
      ['document', 'FAQ'],
      [
        'group',
        'Guides',
        [
          ['document', 'Writing pages'],
          ['document', 'Images & files'],
        ],
      ],
      [
        'group',
        'Reference',
        [
          ['document', 'API', [['document', 'Authentication']]],
          ['document', 'Changelog'],
        ],
      ],
    ]);
    const install = pageByTitle(pages, 'Installation');
    const page = (await api('GET', `/v1/spaces/${s}/content/page/${install.id}`)).body;
    const file = await readFile(path.join(FIXTURES, 'canonical', 'getting-started', 'installation.md'), 'utf8');
    const description = /description:\s*(.+)/.exec(file)?.[1];
    if (description) expect(page.description).toBe(description.replace(/^>-\s*/, '').trim());
    expect(page.markdown.length).toBeGreaterThan(0);
    expect(page.markdown).not.toMatch(/^---/);
  });

  it('imports from a monorepo sub-directory', async () => {
    const url = await g.createRepo('monorepo', { dir: path.join(FIXTURES, 'monorepo') });
    const s = await newSpace();
    const op = await run('import', s, { url, ref: 'refs/heads/main', repoProjectDirectory: 'packages/product' });
    expect(op.status, op.error).toBe('succeeded');
    const pages = await tree(s);
    const summary = await readFile(path.join(FIXTURES, 'monorepo', 'packages', 'product', 'docs', 'SUMMARY.md'), 'utf8');
    const titles = [...summary.matchAll(/\[([^\]]+)\]\(/g)].map((m) => m[1]);
    expect(pages.map((p: any) => p.title)).toEqual(titles);
    for (const p of pages) expect(p.git.path.startsWith('packages/product/docs/')).toBe(true);
    const files = (await api('GET', `/v1/spaces/${s}/content/files`)).body.items;
    expect(files.map((f: any) => f.name)).toEqual(['screenshot.png']);
    // Nothing from the rest of the monorepo.
    expect(JSON.stringify(pages)).not.toContain('packages/web');
  });

  it('a standalone import creates a revision without changing the space content', async () => {
    const url = await g.createRepo('standalone', { files: { 'README.md': '# Standalone\n\nHello.\n' } });
    const s = await newSpace();
    const before = await revisionOf(s);
    const op = await run('import', s, { url, ref: 'refs/heads/main', standalone: true });
    expect(op.status).toBe('succeeded');
    expect(op.result.standalone).toBe(true);
    expect(await revisionOf(s)).toBe(before);
    const { rows } = await t.app.db.query('SELECT id FROM revisions WHERE space_id = $1 AND id = $2', [s, op.result.revision]);
    expect(rows).toHaveLength(1);
  });
});

it('the import is done once its revision commits; the search index follows in a search.index operation', async () => {
  const url = await g.createRepo('searchable', {
    files: {
      'README.md': '# Welcome\n\nStart here.\n',
      'SUMMARY.md': '* [Welcome](README.md)\n* [Quokka](quokka.md)\n',
      'quokka.md': '# Quokka\n\nThe zorbulent quokka.\n',
    },
  });
  const s = await newSpace();
  const op = await run('import', s, { url, ref: 'refs/heads/main' });
  expect(op.status, op.error).toBe('succeeded');
  const revision = await revisionOf(s);
  // This app runs no `search` worker: the index has not followed yet, its operation waits.
  const pending = await t.app.db.query(`SELECT id, status FROM operations WHERE kind = 'search.index' AND target_id = $1`, [s]);
  expect(pending.rows).toEqual([{ id: expect.any(String), status: 'queued' }]);
  const indexed = async () => (await freshness(t.app.db, [s]))[0].indexed_revision;
  expect(await indexed()).not.toBe(revision);
  const workers = t.startWorkers(['search']);
  try {
    const done = await settle(`${t.baseUrl}/v1/operations/${pending.rows[0].id}`);
    expect(done.status, done.error).toBe('succeeded');
    expect(await indexed()).toBe(revision);
  } finally {
    await workers.close();
  }
  const found = await api('GET', `/v1/spaces/${s}/search?query=zorbulent`);
  expect(found.status).toBe(200);
  expect(found.body.items.map((p: any) => p.title)).toEqual(['Quokka']);
});

describe('export and round trips', () => {
  it('import then export of an unchanged space produces no diff', async () => {
    const url = await g.createRepo('roundtrip', { dir: path.join(FIXTURES, 'canonical') });
    const s = await newSpace();
    await run('import', s, { url, ref: 'refs/heads/main' });
    const before = (await gitCli(['ls-remote', url, 'refs/heads/main'], g.root)).split('\t')[0];
    const op = await run('export', s, { url, ref: 'refs/heads/main', commitMessage: 'Sync from docs' });
    expect(op.status, op.error).toBe('succeeded');
    expect(op.result).toMatchObject({ unchanged: true, commit: before });
    const after = (await gitCli(['ls-remote', url, 'refs/heads/main'], g.root)).split('\t')[0];
    expect(after).toBe(before);
  });

  it('exports an edit to a repository with history: one commit, only the edited file changes', async () => {
    const url = await g.createRepo('history', { dir: path.join(FIXTURES, 'canonical') });
    const s = await newSpace();
    await run('import', s, { url, ref: 'refs/heads/main' });
    const faq = pageByTitle(await tree(s), 'FAQ');
    const cr = (await api('POST', `/v1/spaces/${s}/change-requests`, { subject: 'Edit FAQ' })).body;
    await api('POST', `/v1/spaces/${s}/change-requests/${cr.id}/content`, {
      changes: [{ operation: 'update_page', page: faq.id, document: { markdown: 'Edited in the docs platform.\n' } }],
    });
    expect((await api('POST', `/v1/spaces/${s}/change-requests/${cr.id}/merge`)).status).toBe(200);
    const remote = path.join(g.root, 'history.git');
    const objects = async () => {
      const counts = Object.fromEntries(
        [...(await gitCli(['count-objects', '-v'], remote)).matchAll(/^([a-z-]+): (\d+)$/gm)].map((m) => [m[1], Number(m[2])]),
      );
      return counts.count + counts['in-pack'];
    };
    const before = await objects();
    const op = await run('export', s, { url, ref: 'refs/heads/main', commitMessage: 'Update FAQ' });
    expect(op.status, op.error).toBe('succeeded');
    // Only what the remote lacked was sent: the commit, the trees on the page's path, the page.
    const added = (await objects()) - before;
    expect(added).toBeGreaterThanOrEqual(3);
    expect(added).toBeLessThanOrEqual(2 + faq.git.path.split('/').length);
    await gitCli(['fsck', '--strict'], remote);
    const clone = await g.clone('history');
    expect((await gitCli(['log', '--format=%s'], clone)).trim().split('\n')).toEqual(['Update FAQ', 'Initial docs']);
    expect((await gitCli(['diff', '--name-only', 'HEAD~1', 'HEAD'], clone)).trim()).toBe(faq.git.path);
    expect(await readFile(path.join(clone, faq.git.path), 'utf8')).toContain('Edited in the docs platform.');
  });

  it('exports to an empty repository, and importing it back gives the same pages, order and files', async () => {
    const source = await newSpace();
    await api('POST', `/v1/spaces/${source}/content/template`, { id: 'product-docs' });
    // A file, referenced from a page.
    const cr = (await api('POST', `/v1/spaces/${source}/change-requests`, { subject: 'Add image' })).body;
    const png = await readFile(path.join(FIXTURES, 'folders', '.gitbook', 'assets', 'arch.png'));
    await api('POST', `/v1/spaces/${source}/change-requests/${cr.id}/content`, {
      changes: [
        { operation: 'insert_files', files: [{ ref: 'arch', name: 'arch.png', contentType: 'image/png', base64: png.toString('base64') }] },
        { operation: 'insert_page', title: 'Architecture', document: { markdown: 'See the diagram.\n\n![Architecture](./arch)\n' } },
      ],
    });
    await api('POST', `/v1/spaces/${source}/change-requests/${cr.id}/merge`);
    const url = await g.createRepo('empty');
    const op = await run('export', source, { url, ref: 'refs/heads/main', commitMessage: 'First export' });
    expect(op.status, op.error).toBe('succeeded');
    const clone = await g.clone('empty');
    expect(await readFile(path.join(clone, 'SUMMARY.md'), 'utf8')).toContain('* [Architecture]');
    expect(await readFile(path.join(clone, 'README.md'), 'utf8')).toBeTruthy();
    const copy = await newSpace();
    expect((await run('import', copy, { url, ref: 'refs/heads/main' })).status).toBe('succeeded');
    const a = await tree(source);
    const b = await tree(copy);
    expect(outline(b)).toEqual(outline(a));
    const filesA = (await api('GET', `/v1/spaces/${source}/content/files`)).body.items;
    const filesB = (await api('GET', `/v1/spaces/${copy}/content/files`)).body.items;
    expect(filesB.map((f: any) => [f.name, f.size])).toEqual(filesA.map((f: any) => [f.name, f.size]));
    const quick = (await api('GET', `/v1/spaces/${copy}/content/page/${pageByTitle(b, 'Quickstart').id}`)).body;
    const quickA = (await api('GET', `/v1/spaces/${source}/content/page/${pageByTitle(a, 'Quickstart').id}`)).body;
    expect(quick.markdown.trim()).toBe(quickA.markdown.trim());
  });

  it('refuses a non-fast-forward export unless forced', async () => {
    const url = await g.createRepo('diverged', { dir: path.join(FIXTURES, 'canonical') });
    const s = await newSpace();
    await run('import', s, { url, ref: 'refs/heads/main' });
    // Someone pushes to the branch behind the space's back.
    const clone = await g.clone('diverged');
    await writeFile(path.join(clone, 'NOTES.txt'), 'a commit made elsewhere\n');
    await gitCli(['add', '-A'], clone);
    await gitCli(['commit', '-q', '-m', 'Elsewhere'], clone);
    await gitCli(['push', '-q', 'origin', 'HEAD:refs/heads/main'], clone);
    const elsewhere = (await gitCli(['rev-parse', 'HEAD'], clone)).trim();
    const faq = pageByTitle(await tree(s), 'FAQ');
    const cr = (await api('POST', `/v1/spaces/${s}/change-requests`, { subject: 'x' })).body;
    await api('POST', `/v1/spaces/${s}/change-requests/${cr.id}/content`, {
      changes: [{ operation: 'update_page', page: faq.id, title: 'Frequently asked' }],
    });
    await api('POST', `/v1/spaces/${s}/change-requests/${cr.id}/merge`);
    const refused = await run('export', s, { url, ref: 'refs/heads/main', commitMessage: 'Rename FAQ' });
    expect(refused.status).toBe('failed');
    expect(refused.error).toMatch(/non-fast-forward/);
    expect((await gitCli(['ls-remote', url, 'refs/heads/main'], g.root)).split('\t')[0]).toBe(elsewhere);
    const forced = await run('export', s, { url, ref: 'refs/heads/main', commitMessage: 'Rename FAQ', force: true });
    expect(forced.status, forced.error).toBe('succeeded');
    const head = (await gitCli(['ls-remote', url, 'refs/heads/main'], g.root)).split('\t')[0];
    expect(head).toBe(forced.result.commit);
    const fresh = await g.clone('diverged');
    expect((await gitCli(['log', '--format=%s', '-2'], fresh)).trim().split('\n')).toEqual(['Rename FAQ', 'Elsewhere']);
    expect(await readFile(path.join(fresh, 'NOTES.txt'), 'utf8')).toContain('elsewhere');
    expect(await readFile(path.join(fresh, 'SUMMARY.md'), 'utf8')).toContain('[Frequently asked]');
  });
});

describe('ordering by timestamp', () => {
  it('skips an operation older than the last applied one and records why', async () => {
    const url = await g.createRepo('ordered', { files: { 'README.md': '# Version one\n\nOld.\n' }, branch: 'v1' });
    await g.createRepo('ordered-v2', { files: { 'README.md': '# Version two\n\nNew.\n' }, branch: 'v2' });
    const url2 = `${g.url}/ordered-v2.git`;
    const app = await startTestApp({ env: { WORKER_CONCURRENCY: '1' } });
    try {
      const o = await app.seedOrg();
      const s = await newSpace(app, o.adminToken, o.orgId);
      // Newer first, older second: both accepted at once (204), neither run yet.
      const newer = await app.api('POST', `/v1/spaces/${s}/git/import`, {
        token: o.adminToken,
        body: { url: url2, ref: 'refs/heads/v2', timestamp: '2026-01-02T00:00:00Z' },
      });
      const older = await app.api('POST', `/v1/spaces/${s}/git/import`, {
        token: o.adminToken,
        body: { url, ref: 'refs/heads/v1', timestamp: '2026-01-01T00:00:00Z' },
      });
      expect([newer.status, older.status]).toEqual([204, 204]);
      app.startWorkers(['git']);
      const a = await settle(newer.headers.get('location')!, app, o.adminToken);
      const b = await settle(older.headers.get('location')!, app, o.adminToken);
      expect(a.status).toBe('succeeded');
      expect(b.status).toBe('skipped');
      expect(b.error).toMatch(/Older .* than the last applied git operation/);
      const pages = (await app.api('GET', `/v1/spaces/${s}/content/pages`, { token: o.adminToken })).body.pages;
      expect(pages.map((p: any) => p.title)).toEqual(['Version two']);
      // `force` applies an older import anyway.
      const forced = await app.api('POST', `/v1/spaces/${s}/git/import`, {
        token: o.adminToken,
        body: { url, ref: 'refs/heads/v1', timestamp: '2026-01-01T00:00:00Z', force: true },
      });
      expect((await settle(forced.headers.get('location')!, app, o.adminToken)).status).toBe('succeeded');
      expect((await app.api('GET', `/v1/spaces/${s}/content/pages`, { token: o.adminToken })).body.pages.map((p: any) => p.title)).toEqual([
        'Version one',
      ]);
      // An operation without a timestamp, or a newer one, still runs.
      const later = await app.api('POST', `/v1/spaces/${s}/git/import`, {
        token: o.adminToken,
        body: { url, ref: 'refs/heads/v1', timestamp: '2026-01-03T00:00:00Z' },
      });
      expect((await settle(later.headers.get('location')!, app, o.adminToken)).status).toBe('succeeded');
    } finally {
      await app.close();
    }
  });
});

describe('credentials', () => {
  it('uses basic-auth credentials from the URL and never shows them', async () => {
    const secret = { username: 'deploy-bot', password: 'S3cr3t-Passw0rd-xyz' };
    const locked = await startGitServer({ auth: secret });
    const app = await startTestApp({ workers: ['git'], captureLogs: true });
    try {
      const o = await app.seedOrg();
      await locked.createRepo('private', { dir: path.join(FIXTURES, 'canonical') });
      const plain = `${locked.url}/private.git`;
      const withCreds = plain.replace('http://', `http://${secret.username}:${secret.password}@`);
      const s = await newSpace(app, o.adminToken, o.orgId);
      // Without credentials the remote refuses.
      const denied = await run('import', s, { url: plain, ref: 'refs/heads/main' }, app, o.adminToken);
      expect(denied.status).toBe('failed');
      expect(denied.error).toMatch(/Authentication .* failed/);
      const wrong = await run(
        'import',
        s,
        { url: plain.replace('http://', 'http://deploy-bot:wrong@'), ref: 'refs/heads/main' },
        app,
        o.adminToken,
      );
      expect(wrong.status).toBe('failed');
      expect(wrong.error).toMatch(/Authentication .* failed/);
      // With them it works, for import and export.
      const ok = await run('import', s, { url: withCreds, ref: 'refs/heads/main' }, app, o.adminToken);
      expect(ok.status, ok.error).toBe('succeeded');
      const exp = await run('export', s, { url: withCreds, ref: 'refs/heads/main', commitMessage: 'noop' }, app, o.adminToken);
      expect(exp.status, exp.error).toBe('succeeded');
      expect(locked.requests.some((r) => r.authorization?.startsWith('Basic '))).toBe(true);

      const leaks = (text: string) =>
        text.includes(secret.password) || text.includes(Buffer.from(`${secret.username}:${secret.password}`).toString('base64'));
      // Not in any log line (debug level), response, stored row or Redis job.
      expect(app.logs.length).toBeGreaterThan(10);
      expect(app.logs.filter(leaks)).toEqual([]);
      const info = await app.api('GET', `/v1/spaces/${s}/git/info`, { token: o.adminToken });
      expect(leaks(info.text)).toBe(false);
      expect(info.body.url).toBe(plain);
      expect(leaks((await app.api('GET', `/v1/spaces/${s}`, { token: o.adminToken })).text)).toBe(false);
      for (const op of [denied, wrong, ok, exp]) expect(leaks(JSON.stringify(op))).toBe(false);
      const { rows } = await app.app.db.query(`SELECT payload::text AS p, coalesce(error, '') AS e FROM operations`);
      for (const r of rows) expect(leaks(r.p) || leaks(r.e)).toBe(false);
      const { rows: state } = await app.app.db.query('SELECT row_to_json(g)::text AS j FROM git_sync_state g');
      for (const r of state) expect(leaks(r.j)).toBe(false);
      const redis = new Redis(TEST_REDIS_URL);
      try {
        const keys = await redis.keys(`${app.config.queuePrefix}:git:*`);
        expect(keys.length).toBeGreaterThan(0);
        for (const k of keys) {
          const type = await redis.type(k);
          const dump = type === 'hash' ? JSON.stringify(await redis.hgetall(k)) : type === 'string' ? await redis.get(k) : '';
          expect(leaks(dump ?? '')).toBe(false);
        }
      } finally {
        redis.disconnect();
      }
    } finally {
      await app.close();
      await locked.close();
    }
  });
});

describe('failures leave the space unchanged', () => {
  it('a SUMMARY.md with a missing file or an escaping link imports the rest, with warnings naming the lines', async () => {
    const url = await g.createRepo('summary-warnings', {
      files: {
        'README.md': '# Hi\n',
        'a.md': '# A\n',
        'SUMMARY.md': '# Table of contents\n\n* [Hi](README.md)\n* [Missing](missing.md)\n* [Passwd](../../etc/passwd.md)\n* [A](a.md)\n',
      },
    });
    const s = await newSpace();
    const op = await run('import', s, { url, ref: 'refs/heads/main' });
    expect(op.status, op.error).toBe('succeeded');
    expect(op.result.warnings).toEqual([
      expect.stringMatching(/^SUMMARY.md line 4: 'missing.md' links to a file that does not exist/),
      expect.stringMatching(/^SUMMARY.md line 5: .*escapes the project directory; the entry is ignored/),
    ]);
    expect(outline(await tree(s))).toEqual([
      ['document', 'Hi'],
      ['document', 'Missing'],
      ['document', 'A'],
    ]);
    // An export of the unchanged import writes no file for the missing entry: no commit.
    const before = (await gitCli(['ls-remote', url, 'refs/heads/main'], g.root)).split('\t')[0];
    const exp = await run('export', s, { url, ref: 'refs/heads/main', commitMessage: 'Sync' });
    expect(exp.result).toMatchObject({ unchanged: true, commit: before });
  });

  it('unreachable remote, missing ref, file over the size limit, escaping paths', async () => {
    const app = await startTestApp({ workers: ['git'], env: { GIT_MAX_FILE_BYTES: '40000', GIT_TIMEOUT_MS: '5000' } });
    try {
      const o = await app.seedOrg();
      const s = await newSpace(app, o.adminToken, o.orgId);
      const before = (await app.api('GET', `/v1/spaces/${s}`, { token: o.adminToken })).body.revision;
      const expectFailed = async (body: Record<string, unknown>, reason: RegExp) => {
        const op = await run('import', s, body, app, o.adminToken);
        expect(op.status).toBe('failed');
        expect(op.error).toMatch(reason);
        expect((await app.api('GET', `/v1/spaces/${s}`, { token: o.adminToken })).body.revision).toBe(before);
      };
      await expectFailed({ url: 'http://127.0.0.1:1/nothing.git', ref: 'refs/heads/main' }, /Could not reach/);
      const good = await g.createRepo('failures-good', { files: { 'README.md': '# Hi\n' } });
      await expectFailed({ url: good, ref: 'refs/heads/does-not-exist' }, /no branch "does-not-exist"/);
      await expectFailed({ url: `${g.url}/no-such-repo.git`, ref: 'refs/heads/main' }, /not found|answered HTTP|Could not/);
      const big = await g.createRepo('big', {
        files: { 'README.md': '# Big\n\n![x](.gitbook/assets/big.bin)\n', '.gitbook/assets/big.bin': Buffer.alloc(60_000, 7) },
      });
      await expectFailed({ url: big, ref: 'refs/heads/main' }, /over the limit of 40000 bytes/);
      // Refused at once (400): a project directory escaping the repository, a bad ref.
      const r1 = await app.api('POST', `/v1/spaces/${s}/git/import`, {
        token: o.adminToken,
        body: { url: good, ref: 'refs/heads/main', repoProjectDirectory: '../outside' },
      });
      expect(r1.status).toBe(400);
      expect(r1.body.error.message).toContain('repoProjectDirectory');
      const r2 = await app.api('POST', `/v1/spaces/${s}/git/import`, { token: o.adminToken, body: { url: good, ref: 'main' } });
      expect(r2.status).toBe(400);
      expect(r2.body.error.message).toContain('body.ref');
      const r3 = await app.api('POST', `/v1/spaces/${s}/git/export`, { token: o.adminToken, body: { url: good, ref: 'refs/heads/main' } });
      expect(r3.status).toBe(400);
      expect(r3.body.error.message).toContain('commitMessage');
    } finally {
      await app.close();
    }
  });

  it('refuses private and loopback remotes unless configuration allows them', async () => {
    const strict = await startTestApp({ workers: ['git'], env: { ALLOW_PRIVATE_FETCH: 'false' } });
    try {
      const o = await strict.seedOrg();
      const s = await newSpace(strict, o.adminToken, o.orgId);
      const url = await g.createRepo('ssrf', { files: { 'README.md': '# Hi\n' } });
      const hits = g.requests.length;
      // A literal loopback address: refused at once.
      const r = await strict.api('POST', `/v1/spaces/${s}/git/import`, { token: o.adminToken, body: { url, ref: 'refs/heads/main' } });
      expect(r.status).toBe(400);
      expect(r.body.error.message).toMatch(/body\.url: .*private and loopback/);
      // A name resolving to loopback: accepted, then refused by the git client at connect time.
      const byName = url.replace('127.0.0.1', (await import('node:os')).hostname());
      const op = await run('import', s, { url: byName, ref: 'refs/heads/main' }, strict, o.adminToken);
      expect(op.status).toBe('failed');
      expect(op.error).toMatch(/private address/);
      expect(g.requests.length).toBe(hits);
    } finally {
      await strict.close();
    }
  });

  it('needs edit to sync, read to see git info; deleting the installation is for admins and idempotent', async () => {
    const s = await newSpace();
    const reader = await t.seedUser(org.orgId, 'read');
    expect(
      (await t.api('POST', `/v1/spaces/${s}/git/import`, { token: reader.token, body: { url: `${g.url}/x.git`, ref: 'refs/heads/main' } }))
        .status,
    ).toBe(403);
    expect((await t.api('GET', `/v1/spaces/${s}/git/info`, { token: org.adminToken })).status).toBe(404);
    const url = await g.createRepo('legacy', { files: { 'README.md': '# Legacy\n' } });
    await run('import', s, { url, ref: 'refs/heads/main' });
    expect((await t.api('GET', `/v1/spaces/${s}/git/info`, { token: reader.token })).status).toBe(200);
    expect((await t.api('DELETE', `/v1/spaces/${s}/git/legacy-installation`, { token: reader.token })).status).toBe(403);
    expect((await t.api('DELETE', `/v1/spaces/${s}/git/legacy-installation`, { token: org.adminToken })).status).toBe(204);
    expect((await t.api('GET', `/v1/spaces/${s}/git/info`, { token: org.adminToken })).status).toBe(404);
    expect((await t.api('GET', `/v1/spaces/${s}`, { token: org.adminToken })).body.gitSync).toBeUndefined();
    expect((await t.api('DELETE', `/v1/spaces/${s}/git/legacy-installation`, { token: org.adminToken })).status).toBe(204);
  });
});

describe('review fixes', () => {
  it('a standalone import does not move the commit exports build on', async () => {
    const url = await g.createRepo('standalone-then-export', { dir: path.join(FIXTURES, 'canonical') });
    const s = await newSpace();
    await run('import', s, { url, ref: 'refs/heads/main' });
    const synced = (await t.app.db.query('SELECT last_commit FROM git_sync_state WHERE space_id = $1', [s])).rows[0].last_commit;
    // Someone pushes; a standalone import of the new head must not count as the space's content.
    const clone = await g.clone('standalone-then-export');
    await writeFile(path.join(clone, 'FAQ-extra.md'), '# Extra\n');
    await gitCli(['add', '-A'], clone);
    await gitCli(['commit', '-q', '-m', 'Elsewhere'], clone);
    await gitCli(['push', '-q', 'origin', 'HEAD:refs/heads/main'], clone);
    expect((await run('import', s, { url, ref: 'refs/heads/main', standalone: true })).status).toBe('succeeded');
    expect((await t.app.db.query('SELECT last_commit FROM git_sync_state WHERE space_id = $1', [s])).rows[0].last_commit).toBe(synced);
    const faq = pageByTitle(await tree(s), 'FAQ');
    const cr = (await api('POST', `/v1/spaces/${s}/change-requests`, { subject: 'x' })).body;
    await api('POST', `/v1/spaces/${s}/change-requests/${cr.id}/content`, {
      changes: [{ operation: 'update_page', page: faq.id, title: 'FAQ 2' }],
    });
    await api('POST', `/v1/spaces/${s}/change-requests/${cr.id}/merge`);
    const exp = await run('export', s, { url, ref: 'refs/heads/main', commitMessage: 'x' });
    expect(exp.status).toBe('failed');
    expect(exp.error).toMatch(/non-fast-forward/);
  });

  it('exports despite a large file elsewhere in the repository; credentials in side URLs are refused', async () => {
    const app = await startTestApp({ workers: ['git'], env: { GIT_MAX_FILE_BYTES: '40000' } });
    try {
      const o = await app.seedOrg();
      const url = await g.createRepo('big-elsewhere', {
        files: {
          'README.md': '# Hi\n\nHello.\n',
          'SUMMARY.md': '# Table of contents\n\n* [Hi](README.md)\n',
          'assets-raw/video.bin': Buffer.alloc(60_000, 1),
        },
      });
      const s = await newSpace(app, o.adminToken, o.orgId);
      // The unlisted binary is neither a page nor an asset: not read, not a reason to fail.
      const imp = await run('import', s, { url, ref: 'refs/heads/main' }, app, o.adminToken);
      expect(imp.status, imp.error).toBe('succeeded');
      const faq = pageByTitle((await app.api('GET', `/v1/spaces/${s}/content/pages`, { token: o.adminToken })).body.pages, 'Hi');
      const cr = (await app.api('POST', `/v1/spaces/${s}/change-requests`, { token: o.adminToken, body: { subject: 'x' } })).body;
      await app.api('POST', `/v1/spaces/${s}/change-requests/${cr.id}/content`, {
        token: o.adminToken,
        body: { changes: [{ operation: 'update_page', page: faq.id, document: { markdown: 'Changed.\n' } }] },
      });
      await app.api('POST', `/v1/spaces/${s}/change-requests/${cr.id}/merge`, { token: o.adminToken });
      const exp = await run('export', s, { url, ref: 'refs/heads/main', commitMessage: 'Change' }, app, o.adminToken);
      expect(exp.status, exp.error).toBe('succeeded');
      expect(exp.result.unchanged).toBe(false);
      const clone = await g.clone('big-elsewhere');
      expect((await readFile(path.join(clone, 'assets-raw', 'video.bin'))).length).toBe(60_000);
      expect(await readFile(path.join(clone, 'README.md'), 'utf8')).toContain('Changed.');
      const bad = await app.api('POST', `/v1/spaces/${s}/git/import`, {
        token: o.adminToken,
        body: { url, ref: 'refs/heads/main', repoTreeURL: 'https://user:pw@git.example.com/x' },
      });
      expect(bad.status).toBe(400);
      expect(bad.body.error.message).toContain('body.repoTreeURL');
    } finally {
      await app.close();
    }
  });
});
