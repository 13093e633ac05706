// Git import/export requests and the git info of a space (src/services/git.ts) over in-memory
// repos: what is validated, what the operation row records (credentials sealed, never in clear,
// never in the queue), what is enqueued, and what GET git/info shows.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { openCredentials } from '../../../src/git/credentials.js';
import {
  checkProjectDirectory,
  deleteLegacyInstallation,
  getGitInfo,
  startGitOperation,
  type GitRequest,
} from '../../../src/services/git.js';
import { fakeApp, PUBLIC_URL, type FakeApp } from '../../helpers/fakes/app.js';
import { now, tables } from '../../helpers/fakes/store.js';
import { addMember, freshOrg, rejection, seedOrg, seedSpace } from '../../helpers/fakes/seed.js';

vi.mock('../../../src/db/repos/access.js', () => import('../../helpers/fakes/repos/access.js'));
vi.mock('../../../src/db/repos/operations.js', () => import('../../helpers/fakes/repos/operations.js'));
vi.mock('../../../src/db/repos/git-sync.js', () => import('../../helpers/fakes/repos/git-sync.js'));

let app: FakeApp;
let org: string;
let space: ReturnType<typeof seedSpace>;
const editor = { userId: 'u-editor', tokenId: 't' };

beforeEach(() => {
  ({ app, org } = freshOrg(editor, 'edit'));
  space = seedSpace(org, { title: 'Docs' });
});

const request = (over: Partial<GitRequest> = {}): GitRequest => ({
  url: 'https://git.example.test/acme/docs.git',
  ref: 'refs/heads/main',
  ...over,
});
const operations = () => [...tables.operations.values()];

describe('checkProjectDirectory', () => {
  it('normalizes a relative directory and refuses one that leaves the repository', () => {
    expect(checkProjectDirectory(undefined)).toBeUndefined();
    expect(checkProjectDirectory('./docs/')).toBe('docs');
    expect(checkProjectDirectory('docs/v2')).toBe('docs/v2');
    expect(checkProjectDirectory('.')).toBe('');
    for (const bad of ['/etc', 'docs/../..', '..', 'docs\\win', 'a\0b'])
      expect(() => checkProjectDirectory(bad), bad).toThrow(expect.objectContaining({ kind: 'invalid' }));
  });
});

describe('startGitOperation', () => {
  it('records a queued import with the request, enqueues it by operation id and answers its location', async () => {
    const location = await startGitOperation(
      app,
      editor,
      space.id,
      'git.import',
      request({ repoProjectDirectory: './docs/', timestamp: '2025-03-01T10:00:00Z', force: true, standalone: false }),
    );
    const [op] = operations();
    expect(location).toBe(`${PUBLIC_URL}/v1/operations/${op.id}`);
    expect(op).toMatchObject({
      kind: 'git.import',
      queue: 'git',
      status: 'queued',
      organization_id: org,
      target_type: 'space',
      target_id: space.id,
      created_by: editor.userId,
      payload: {
        spaceId: space.id,
        url: 'https://git.example.test/acme/docs.git',
        ref: 'refs/heads/main',
        repoProjectDirectory: 'docs',
        timestamp: '2025-03-01T10:00:00Z',
        force: true,
        standalone: false,
      },
    });
    expect(op.payload).not.toHaveProperty('credentials');
    expect(app.fakeJobs.enqueued).toEqual([{ id: op.id, kind: 'git.import', queue: 'git', data: { operationId: op.id } }]);
  });

  it('takes credentials out of the URL and keeps them only sealed in the operation row, never in the job', async () => {
    await startGitOperation(app, editor, space.id, 'git.import', request({ url: 'https://bot:s3cr%40t@git.example.test/acme/docs.git' }));
    const [op] = operations();
    expect(op.payload.url).toBe('https://git.example.test/acme/docs.git');
    const sealed = op.payload.credentials as string;
    expect(openCredentials(sealed, app.secret)).toEqual({ username: 'bot', password: 's3cr@t' });
    expect(JSON.stringify(op)).not.toMatch(/s3cr/);
    expect(() => openCredentials(sealed, 'another secret')).toThrow();
    expect(JSON.stringify(app.fakeJobs.enqueued)).not.toContain(sealed);
  });

  it('records an export with its commit message (empty when none is given)', async () => {
    await startGitOperation(app, editor, space.id, 'git.export', request({ commitMessage: 'Sync docs' }));
    await startGitOperation(app, editor, space.id, 'git.export', request());
    expect(operations().map((o) => [o.kind, o.payload.commitMessage])).toEqual([
      ['git.export', 'Sync docs'],
      ['git.export', ''],
    ]);
    expect(app.fakeJobs.enqueued.map((j) => j.kind)).toEqual(['git.export', 'git.export']);
  });

  it('refuses a URL it may not fetch and a directory outside the repository, recording and enqueueing nothing', async () => {
    for (const url of ['http://127.0.0.1/repo.git', 'http://localhost:3000/repo.git', 'ftp://git.example.test/repo.git', 'not a url']) {
      expect(await rejection(startGitOperation(app, editor, space.id, 'git.import', request({ url }))), url).toMatchObject({
        kind: 'invalid',
        message: expect.stringContaining('body.url'),
      });
    }
    expect(
      await rejection(startGitOperation(app, editor, space.id, 'git.import', request({ repoProjectDirectory: '../x' }))),
    ).toMatchObject({
      kind: 'invalid',
      message: expect.stringContaining('body.repoProjectDirectory'),
    });
    expect(operations()).toEqual([]);
    expect(app.fakeJobs.enqueued).toEqual([]);
  });

  it('accepts a private address when the operator allows private fetches', async () => {
    const lan = fakeApp({ ALLOW_PRIVATE_FETCH: 'true' });
    await startGitOperation(lan, editor, space.id, 'git.import', request({ url: 'http://10.0.0.5/repo.git' }));
    expect(operations()).toHaveLength(1);
  });

  it('needs edit rights on the space: 403 for a reader, 404 for a space the caller cannot see', async () => {
    const reader = addMember(org, 'u-reader', 'read');
    expect(await rejection(startGitOperation(app, reader, space.id, 'git.import', request()))).toMatchObject({ kind: 'forbidden' });
    const outsider = addMember(seedOrg(), 'u-outsider', 'admin');
    expect(await rejection(startGitOperation(app, outsider, space.id, 'git.import', request()))).toMatchObject({ kind: 'not-found' });
    expect(operations()).toEqual([]);
  });

  it('answers the location even when the queue is unreachable: the queued row stays for the reconciler', async () => {
    app.fakeJobs.failNext();
    const location = await startGitOperation(app, editor, space.id, 'git.import', request());
    const [op] = operations();
    expect(location).toBe(`${PUBLIC_URL}/v1/operations/${op.id}`);
    expect(op.status).toBe('queued');
    expect(app.fakeJobs.enqueued).toEqual([]);
    expect(app.logs).toContainEqual(expect.objectContaining({ msg: 'enqueue failed; the reconciler will retry', operationId: op.id }));
  });
});

describe('getGitInfo', () => {
  const synced = () =>
    tables.gitSync.set(space.id, {
      space_id: space.id,
      url: 'https://gitlab.example.test/acme/docs.git',
      ref: 'refs/heads/main',
      last_commit: 'abc',
      last_timestamp: null,
      provider: null,
      tree_url: null,
      updated_at: new Date('2025-02-01T00:00:00Z'),
    });

  it('is a 404 until the space has synced, and open to readers of the space', async () => {
    const reader = addMember(org, 'u-reader', 'read');
    expect(await rejection(getGitInfo(app, reader, space.id))).toMatchObject({ kind: 'not-found' });
    synced();
    expect(await getGitInfo(app, reader, space.id)).toEqual({
      repoName: 'acme/docs',
      installationId: `space-${space.id}`,
      installationProvider: 'gitlab',
      installationStatus: 'active',
      integration: 'gitlab',
      url: 'https://gitlab.example.test/acme/docs.git',
      updatedAt: '2025-02-01T00:00:00.000Z',
    });
  });

  it("shows the latest git operation's state and direction", async () => {
    synced();
    await startGitOperation(app, editor, space.id, 'git.import', request());
    expect((await getGitInfo(app, editor, space.id)).operation).toMatchObject({ state: 'running', direction: 'import' });

    await startGitOperation(app, editor, space.id, 'git.export', request());
    const latest = operations().at(-1)!;
    Object.assign(latest, { status: 'failed', error: 'push rejected', started_at: now(), finished_at: now() });
    expect((await getGitInfo(app, editor, space.id)).operation).toEqual({
      state: 'failure',
      direction: 'export',
      startedAt: latest.started_at!.toISOString(),
      endedAt: latest.finished_at!.toISOString(),
      error: 'push rejected',
    });
    Object.assign(latest, { status: 'skipped', error: null });
    expect((await getGitInfo(app, editor, space.id)).operation).toMatchObject({ state: 'success' });
  });
});

describe('deleteLegacyInstallation', () => {
  it("forgets the space's git sync (state and summary) for admins, quietly when there is none", async () => {
    tables.gitSync.set(space.id, {
      space_id: space.id,
      url: 'https://git.example.test/acme/docs.git',
      ref: 'refs/heads/main',
      last_commit: null,
      last_timestamp: null,
      provider: null,
      tree_url: null,
      updated_at: now(),
    });
    tables.spaces.get(space.id)!.git_sync = { repoName: 'acme/docs' };
    expect(await rejection(deleteLegacyInstallation(app, editor, space.id))).toMatchObject({ kind: 'forbidden' });
    expect(tables.gitSync.has(space.id)).toBe(true);

    const admin = addMember(org, 'u-admin', 'admin');
    await deleteLegacyInstallation(app, admin, space.id);
    expect(tables.gitSync.has(space.id)).toBe(false);
    expect(tables.spaces.get(space.id)!.git_sync).toBeNull();
    await deleteLegacyInstallation(app, admin, space.id);
  });
});
