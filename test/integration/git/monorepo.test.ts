// Monorepos (issue 27, item 6): spaces synced from different project directories of one repository
// share one cached copy and one fetch per push; an export of one space changes only its own folder
// and builds on whatever the others pushed; every run checks its own credentials with the remote.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { startGitServer, gitCli, type GitServer } from '../../helpers/git-server.js';
import { operationSettled } from '../../helpers/operations.js';
import { withGitCacheLock } from '../../../src/db/repos/git-sync.js';
import { folderChanged } from '../../../src/git/sync.js';

const DIRS = ['products/alpha', 'products/beta', 'guides', 'api', 'sdk'];
const DOCS_YAML = `site:\n  title: Acme\nstructure:\n${DIRS.map((d) => `  - title: ${d}\n    content:\n      directory: ${d}\n`).join('')}`;

/** A small space folder: README, SUMMARY, one page, one image. */
function folder(dir: string): Record<string, string | Buffer> {
  const name = dir.split('/').at(-1)!;
  return {
    [`${dir}/README.md`]: `# ${name} home\n\nThe ${name} docs.\n`,
    [`${dir}/SUMMARY.md`]: `# Table of contents\n\n* [${name} home](README.md)\n* [${name} guide](guide.md)\n`,
    [`${dir}/guide.md`]: `# ${name} guide\n\n![](.gitbook/assets/${name}.png)\n`,
    [`${dir}/.gitbook/assets/${name}.png`]: Buffer.from([0x89, 0x50, 0x4e, 0x47, name.length]),
  };
}

let g: GitServer;

beforeAll(async () => {
  g = await startGitServer();
});
afterAll(() => g?.close());
// Two runs at a time: imports of different spaces of the repository run side by side.
const { t, org } = useTestApp({ workers: ['git'], env: { WORKER_CONCURRENCY: '2', PG_POOL_MAX: '10' }, seedOrg: true });

const api = (method: string, p: string, body?: unknown) => t.api(method, p, { token: org.adminToken, body });

async function start(kind: 'import' | 'export', spaceId: string, body: Record<string, unknown>) {
  const r = await api('POST', `/v1/spaces/${spaceId}/git/${kind}`, body);
  expect(r.status, JSON.stringify(r.body)).toBe(204);
  return r.headers.get('location')!;
}
const settle = (location: string) => operationSettled(t, location, { token: org.adminToken, timeoutMs: 120_000 });
const run = async (kind: 'import' | 'export', spaceId: string, body: Record<string, unknown>) => settle(await start(kind, spaceId, body));

const newSpace = async (title: string) => (await api('POST', `/v1/orgs/${org.orgId}/spaces`, { title, empty: true })).body.id as string;
const walk = (pages: any[]): any[] => pages.flatMap((p) => [p, ...walk(p.pages ?? [])]);
const pagesOf = async (s: string) => walk((await api('GET', `/v1/spaces/${s}/content/pages`)).body.pages);
const revisionOf = async (s: string) => (await api('GET', `/v1/spaces/${s}`)).body.revision as string;

async function editGuide(s: string, text: string) {
  const guide = (await pagesOf(s)).find((p) => p.title.endsWith(' guide'));
  const cr = (await api('POST', `/v1/spaces/${s}/change-requests`, { subject: `Edit ${guide.title}` })).body;
  await api('POST', `/v1/spaces/${s}/change-requests/${cr.id}/content`, {
    changes: [{ operation: 'update_page', page: guide.id, document: { markdown: text } }],
  });
  expect((await api('POST', `/v1/spaces/${s}/change-requests/${cr.id}/merge`)).status).toBe(200);
}

describe('five spaces of one repository', () => {
  it('share one fetch per push; an export changes only its own folder and builds on the others', async () => {
    const url = await g.createRepo('mono', {
      files: {
        'docs.yaml': DOCS_YAML,
        'README.md': '# Acme monorepo\n',
        'package.json': '{"name":"acme"}\n',
        ...Object.assign({}, ...DIRS.map(folder)),
      },
    });
    const uploadPacks = () => g.requests.filter((r) => r.method === 'POST' && r.path === '/mono.git/git-upload-pack').length;
    const advertisements = () => g.requests.filter((r) => r.method === 'GET' && r.path === '/mono.git/info/refs').length;

    // Five imports after one push, started together: one upload-pack request for the five.
    const spaces = await Promise.all(DIRS.map((d) => newSpace(d)));
    const targets = DIRS.map((d) => ({ url, ref: 'refs/heads/main', repoProjectDirectory: d }));
    const locations = await Promise.all(spaces.map((s, i) => start('import', s, targets[i]!)));
    for (const op of await Promise.all(locations.map(settle))) expect(op.status, op.error).toBe('succeeded');
    expect(uploadPacks()).toBe(1);
    // Each run still asked the remote which commit the branch is.
    expect(advertisements()).toBeGreaterThanOrEqual(5);
    for (const [i, s] of spaces.entries()) {
      const name = DIRS[i]!.split('/').at(-1)!;
      const pages = await pagesOf(s);
      expect(pages.map((p) => [p.title, p.git?.path])).toEqual([
        [`${name} home`, `${DIRS[i]}/README.md`],
        [`${name} guide`, `${DIRS[i]}/guide.md`],
      ]);
      const files = (await api('GET', `/v1/spaces/${s}/content/files`)).body.items;
      expect(files.map((f: any) => f.name)).toEqual([`${name}.png`]);
    }
    const first = (await gitCli(['ls-remote', url, 'refs/heads/main'], g.root)).split('\t')[0];

    // alpha exports an edit: the commit changes products/alpha/guide.md only.
    const [alpha, beta, ...others] = spaces;
    await editGuide(alpha!, 'Alpha, edited on the platform.\n');
    const a = await run('export', alpha!, { ...targets[0], commitMessage: 'Edit alpha' });
    expect(a.status, a.error).toBe('succeeded');
    let clone = await g.clone('mono');
    expect((await gitCli(['show', '--name-only', '--format=%P', 'HEAD'], clone)).trim().split('\n')).toEqual([
      first,
      '',
      'products/alpha/guide.md',
    ]);

    // beta synced with the first commit; the branch moved on only in alpha's folder, so beta's
    // export builds on the new head and changes beta's folder alone, alpha's edit kept.
    await editGuide(beta!, 'Beta, edited on the platform.\n');
    const b = await run('export', beta!, { ...targets[1], commitMessage: 'Edit beta' });
    expect(b.status, b.error).toBe('succeeded');
    clone = await g.clone('mono');
    expect((await gitCli(['log', '--format=%s'], clone)).trim().split('\n')).toEqual(['Edit beta', 'Edit alpha', 'Initial docs']);
    expect((await gitCli(['show', '--name-only', '--format=%P', 'HEAD'], clone)).trim().split('\n')).toEqual([
      a.result.commit,
      '',
      'products/beta/guide.md',
    ]);
    expect((await gitCli(['show', 'HEAD:products/alpha/guide.md'], clone)).trim()).toBe('# alpha guide\n\nAlpha, edited on the platform.');
    // Nothing else differs from the first commit: docs.yaml, the root files and the other folders.
    expect((await gitCli(['diff', '--name-only', first, 'HEAD'], clone)).trim().split('\n')).toEqual([
      'products/alpha/guide.md',
      'products/beta/guide.md',
    ]);

    // Whether the branch moved for a space (what Git Sync asks before calling a change a conflict).
    for (const [i, moved] of [
      [0, true],
      [1, true],
      [2, false],
    ] as const)
      expect(await folderChanged(t.app, { spaceId: spaces[i]!, ...targets[i]! }, first!, b.result.commit), DIRS[i]).toBe(moved);

    // The other three import the new head: nothing changed in their folders, so no revision, and
    // the cache already holds the commits it exported: no upload-pack request at all.
    const revisions = await Promise.all(others.map(revisionOf));
    const before = uploadPacks();
    for (const [i, s] of others.entries()) {
      const op = await run('import', s, targets[i + 2]!);
      expect(op.status, op.error).toBe('succeeded');
      expect(op.result).toMatchObject({ unchanged: true, commit: b.result.commit });
    }
    expect(await Promise.all(others.map(revisionOf))).toEqual(revisions);
    expect(uploadPacks()).toBe(before);

    // A push to sdk's folder: the next imports fetch once, and only sdk gets a new revision.
    const work = await g.clone('mono');
    await gitCli(['rm', '-q', 'sdk/guide.md'], work);
    await gitCli(['commit', '-q', '-am', 'Drop the sdk guide'], work);
    await gitCli(['push', '-q', 'origin', 'HEAD:refs/heads/main'], work);
    const sdkIndex = DIRS.indexOf('sdk');
    const guidesIndex = DIRS.indexOf('guides');
    const sdk = await run('import', spaces[sdkIndex]!, targets[sdkIndex]!);
    const guides = await run('import', spaces[guidesIndex]!, targets[guidesIndex]!);
    expect(sdk.status, sdk.error).toBe('succeeded');
    expect(guides.status, guides.error).toBe('succeeded');
    expect(uploadPacks()).toBe(before + 1);
    expect(sdk.result.unchanged).toBeUndefined();
    expect(guides.result.unchanged).toBe(true);
    expect((await pagesOf(spaces[sdkIndex]!)).map((p) => p.title)).toEqual(['sdk home', 'sdk guide']); // still in SUMMARY: missing file
  }, 240_000);
});

describe('credentials are per space, the cache shared', () => {
  it('a space with wrong or no credentials cannot import a commit the cache holds from another space', async () => {
    const secret = { username: 'bot', password: 'Pa55-monorepo' };
    const locked = await startGitServer({ auth: secret });
    try {
      await locked.createRepo('private', { files: Object.assign({}, ...DIRS.slice(0, 2).map(folder)) });
      const plain = `${locked.url}/private.git`;
      const good = await newSpace('With credentials');
      const ok = await run('import', good, {
        url: plain.replace('http://', `http://${secret.username}:${secret.password}@`),
        ref: 'refs/heads/main',
        repoProjectDirectory: DIRS[0],
      });
      expect(ok.status, ok.error).toBe('succeeded');
      const fetched = locked.requests.filter((r) => r.method === 'POST').length;

      // Same repository (and cache), another folder: the commit is cached, yet the remote is asked.
      const intruder = await newSpace('Without');
      for (const url of [plain, plain.replace('http://', 'http://bot:wrong@')]) {
        const before = locked.requests.length;
        const denied = await run('import', intruder, { url, ref: 'refs/heads/main', repoProjectDirectory: DIRS[1] });
        expect(denied.status).toBe('failed');
        expect(denied.error).toMatch(/Authentication .* failed/);
        expect(locked.requests.slice(before).some((r) => r.path === '/private.git/info/refs')).toBe(true);
      }
      expect(await pagesOf(intruder)).toEqual([]);
      // The same with an export: refused before anything is read or pushed.
      const exp = await run('export', intruder, { url: plain, ref: 'refs/heads/main', repoProjectDirectory: DIRS[1], commitMessage: 'x' });
      expect(exp.status).toBe('failed');
      expect(exp.error).toMatch(/Authentication .* failed/);
      expect(locked.requests.filter((r) => r.method === 'POST').length).toBe(fetched);
    } finally {
      await locked.close();
    }
  }, 120_000);
});

describe('the cache lock', () => {
  it('runs on one cache from two database sessions (two worker processes) one after the other', async () => {
    // A second pool stands for another worker process: its sessions are not this pool's.
    const other = new pg.Pool({ connectionString: t.env.DATABASE_URL, max: 2 });
    try {
      const events: string[] = [];
      let release!: () => void;
      const held = new Promise<void>((ok) => (release = ok));
      let entered!: () => void;
      const inFirst = new Promise<void>((ok) => (entered = ok));
      const first = withGitCacheLock(t.app.db, 'monorepo-test', async () => {
        events.push('first in');
        entered();
        await held;
        events.push('first out');
      });
      await inFirst;
      const second = withGitCacheLock(other, 'monorepo-test', async () => {
        events.push('second in');
      });
      // Wait until the second session is blocked on the advisory lock, then let the first go.
      for (;;) {
        const { rows } = await t.app.db.query(
          `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
        );
        if (rows[0].n > 0) break;
        await new Promise((ok) => setTimeout(ok, 20));
      }
      expect(events).toEqual(['first in']);
      release();
      await Promise.all([first, second]);
      expect(events).toEqual(['first in', 'first out', 'second in']);
      // A different cache is not held back by a held one.
      let release2!: () => void;
      const held2 = new Promise<void>((ok) => (release2 = ok));
      const a = withGitCacheLock(t.app.db, 'cache-a', () => held2);
      await withGitCacheLock(other, 'cache-b', async () => events.push('b while a'));
      release2();
      await a;
      expect(events.at(-1)).toBe('b while a');
    } finally {
      await other.end();
    }
  });
});
