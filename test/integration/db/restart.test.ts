// PostgreSQL stopped and started again under a running git import and a burst of API requests,
// with the API and a worker as real processes: neither dies, requests during the outage answer 503
// with Retry-After and the API's error body, the import ends whole (succeeded, retried) or failed
// with its reason (never a half-written revision), and requests afterwards answer 200.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { createPool, type Db } from '../../../src/db/pool.js';
import { migrate } from '../../../src/db/migrate.js';
import { ensureDatabase } from '../../../src/db/ensure-database.js';
import { createOrganization, createToken, createUser } from '../../../src/services/identity.js';
import { client, freePort, waitFor, type TestResponse } from '../../helpers/http.js';
import { spawnTs } from '../../helpers/processes.js';
import { startGitServer, type GitServer } from '../../helpers/git-server.js';
import { operationSettled } from '../../helpers/operations.js';
import { deleteRedisPrefix } from '../../helpers/app.js';
import { TEST_REDIS_URL } from '../../helpers/env.js';
import { privateClusterUnavailable, startPrivateCluster, type PrivateCluster } from './postgres-cluster.js';

const unavailable = privateClusterUnavailable();
if (unavailable) console.warn(`test/integration/db/restart.test.ts skipped: ${unavailable}`);

const PAGES = 300;

interface Child {
  proc: ChildProcess;
  output: string[];
}

function start(entry: string, env: Record<string, string>): Child {
  const proc = spawnTs(entry, [], env);
  const output: string[] = [];
  proc.stdout!.on('data', (d) => output.push(String(d)));
  proc.stderr!.on('data', (d) => output.push(String(d)));
  return { proc, output };
}

async function stop(c: Child | undefined) {
  if (!c || c.proc.exitCode !== null || c.proc.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    c.proc.once('exit', () => resolve());
    c.proc.kill('SIGTERM');
  });
}

/** Every page of a content tree (pages nest under `pages`). */
function countPages(pages: { pages?: unknown[] }[]): number {
  return pages.reduce((n, p) => n + 1 + countPages((p.pages ?? []) as { pages?: unknown[] }[]), 0);
}

describe.skipIf(unavailable)('PostgreSQL restarted under load', () => {
  let cluster: PrivateCluster;
  let db: Db;
  let git: GitServer;
  let api: Child;
  let worker: Child;
  let dir: string;
  let prefix: string;
  let call: ReturnType<typeof client>;
  let token: string;
  let orgId: string;
  /** The first fetch of the repository waits here until the database is down. */
  let letFetchGo!: () => void;
  let fetchHeld!: Promise<void>;

  beforeAll(async () => {
    cluster = await startPrivateCluster();
    const url = cluster.url('dp_restart');
    await ensureDatabase(url);
    db = createPool(url, 2);
    await migrate(db);
    const admin = await createUser(db, { email: 'ada@example.com', displayName: 'Ada' });
    orgId = (await createOrganization(db, { title: 'Restarts', adminUserId: admin.id })).id;
    token = await createToken(db, admin.id);

    let held = false;
    let signalHeld!: () => void;
    fetchHeld = new Promise((r) => (signalHeld = r));
    const gate = new Promise<void>((r) => (letFetchGo = r));
    git = await startGitServer({
      hold: (req) => {
        if (held || req.method !== 'POST' || !req.path.endsWith('/git-upload-pack')) return undefined;
        held = true;
        signalHeld();
        return gate;
      },
    });

    dir = await mkdtemp(path.join(tmpdir(), 'dp-restart-'));
    prefix = `dpt_${randomBytes(5).toString('hex')}`;
    const port = await freePort();
    const env = {
      DATABASE_URL: url,
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_PREFIX: prefix,
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      LOCAL_STORAGE_DIR: path.join(dir, 'blobs'),
      GIT_CACHE_DIR: path.join(dir, 'git'),
      LOG_LEVEL: 'warn',
      LOG_FORMAT: 'json',
      ALLOW_PRIVATE_FETCH: 'true',
      BOOTSTRAP: 'false',
      AUTO_MIGRATE: 'false',
      RATE_LIMIT_PER_MINUTE: '0',
      PG_POOL_MAX: '5',
      SHUTDOWN_TIMEOUT_MS: '3000',
      WORKER_QUEUES: 'git',
      WORKER_CONCURRENCY: '1',
      // Room for retries across the outage; a run whose lease could not be given back while the
      // database was down is taken over once the lease lapses.
      JOB_ATTEMPTS: '10',
      JOB_BACKOFF_MS: '300',
      JOB_LOCK_DURATION_MS: '3000',
    };
    api = start('src/api.ts', env);
    worker = start('workers/main.ts', env);
    call = client(`http://127.0.0.1:${port}`);
    await waitFor(async () => (await call('GET', '/healthz')).status === 200, { timeoutMs: 60_000, what: 'the API to listen' });
  }, 120_000);

  afterAll(async () => {
    letFetchGo?.();
    await Promise.all([stop(api), stop(worker)]);
    await db?.end().catch(() => {});
    await git?.close();
    await cluster?.destroy();
    if (prefix) await deleteRedisPrefix(TEST_REDIS_URL, prefix);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const read = (p: string) => call('GET', p, { token });

  it('costs failed requests (503, Retry-After) and a retried import, never a dead process or a half-written revision', async () => {
    const files: Record<string, string> = { 'README.md': '# Home\n\nWelcome.\n' };
    const summary = ['# Table of contents', '', '* [Home](README.md)'];
    for (let i = 0; i < PAGES - 1; i++) {
      files[`page-${i}.md`] = `# Page ${i}\n\n${`Words of page ${i} about restarts. `.repeat(60)}\n`;
      summary.push(`* [Page ${i}](page-${i}.md)`);
    }
    files['SUMMARY.md'] = `${summary.join('\n')}\n`;
    const remote = await git.createRepo('big', { files });

    const space = await call('POST', `/v1/orgs/${orgId}/spaces`, { token, body: { title: 'Imported', empty: true } });
    expect(space.status).toBe(201);
    const spaceId = space.body.id as string;
    const started = await call('POST', `/v1/spaces/${spaceId}/git/import`, { token, body: { url: remote, ref: 'refs/heads/main' } });
    expect(started.status).toBe(204);
    const operation = started.headers.get('location');

    // The worker is inside the import (the operation claimed, the space's git lock held on a
    // checked-out connection) and waits for the remote: now the database goes away.
    await fetchHeld;
    expect((await read(`/v1/orgs/${orgId}`)).status).toBe(200);
    await cluster.stop();

    const reads = (): Promise<TestResponse>[] => [
      read(`/v1/orgs/${orgId}`),
      read(`/v1/spaces/${spaceId}`),
      read(`/v1/orgs/${orgId}/spaces`),
      read(`/v1/spaces/${spaceId}/content/pages`),
    ];
    const writes = (): Promise<TestResponse>[] => [
      call('POST', `/v1/orgs/${orgId}/spaces`, { token, body: { title: 'During the outage' } }),
      call('PATCH', `/v1/spaces/${spaceId}`, { token, body: { title: 'Renamed during the outage' } }),
    ];
    const during = await Promise.all([...reads(), ...writes(), ...reads(), ...writes(), ...reads(), ...writes()]);
    for (const r of during) {
      expect(r.status, r.text).toBe(503);
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(r.body).toEqual({ error: { code: 503, message: expect.stringMatching(/retry/) } });
    }

    // The import goes on against the missing database: its attempt fails, and is retried.
    letFetchGo();
    await new Promise((r) => setTimeout(r, 1000));
    await cluster.start();

    await waitFor(async () => (await read(`/v1/orgs/${orgId}`)).status === 200, { timeoutMs: 30_000, what: 'the API to answer again' });
    const after = await Promise.all([...reads(), ...reads()]);
    for (const r of after) expect(r.status, r.text).toBe(200);
    // Both processes lived through the outage (a connection PostgreSQL closed under a checked-out
    // client, such as the import's lock connection, used to end the process).
    expect(api.proc.exitCode, api.output.join('')).toBeNull();
    expect(worker.proc.exitCode, worker.output.join('')).toBeNull();

    const op = await operationSettled({ api: (m, p) => call(m, p, { token }) }, operation, { timeoutMs: 90_000 });
    const pages = await read(`/v1/spaces/${spaceId}/content/pages`);
    expect(pages.status).toBe(200);
    console.info(`import across the restart: ${op.status} after ${op.attempts ?? '?'} attempts${op.error ? ` (${op.error})` : ''}`);
    if (op.status === 'succeeded') {
      expect(countPages(pages.body.pages)).toBe(PAGES);
    } else {
      expect(op.status).toBe('failed');
      expect(op.error).toMatch(/\w/);
      expect(countPages(pages.body.pages)).toBe(0);
    }
    // The renames of the outage were refused as a whole: the title is the one the space had.
    expect((await read(`/v1/spaces/${spaceId}`)).body.title).toBe('Imported');

    // They still live, and neither printed an unhandled error.
    expect(api.proc.exitCode, api.output.join('')).toBeNull();
    expect(worker.proc.exitCode, worker.output.join('')).toBeNull();
    expect(api.output.join('') + worker.output.join('')).not.toMatch(/Unhandled|uncaught/i);
  }, 180_000);
});
