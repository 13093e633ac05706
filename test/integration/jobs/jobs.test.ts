import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import pg from 'pg';
import { startTestApp, useTestApp, type TestApp } from '../../helpers/app.js';
import { waitFor } from '../../helpers/http.js';
import { startSpecServer, fixture } from '../../helpers/spec-server.js';
import { runTs, spawnTs, startRedisServer } from '../../helpers/processes.js';
import { createTestDatabase } from '../../helpers/db.js';
import { reconcileOnce } from '../../../workers/reconciler.js';
import { withTx, createPool } from '../../../src/db/pool.js';
import { createOperation } from '../../../src/services/operations.js';
import { insertSpec } from '../../../src/db/repos/openapi.js';
import { bootstrap } from '../../../src/services/identity.js';
import { migrate } from '../../../src/db/migrate.js';
import { newId } from '../../../src/util/ids.js';

let specs: Awaited<ReturnType<typeof startSpecServer>>;
beforeAll(async () => {
  specs = await startSpecServer();
});
afterAll(() => specs.close());

async function operationStatus(t: TestApp, id: string) {
  const { rows } = await t.app.db.query('SELECT status, attempts, error, result FROM operations WHERE id = $1', [id]);
  return rows[0];
}

describe('reconciler', () => {
  let redis: Awaited<ReturnType<typeof startRedisServer>>;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(() => redis.stop()); // after the app closes (hooks registered later tear down first)
  const { t } = useTestApp(() => ({ env: { REDIS_URL: redis.url, RECONCILE_INTERVAL_MS: '300', RECONCILE_MIN_AGE_MS: '100' } }));

  it('re-enqueues accepted operations after a Redis FLUSHALL, and they complete', async () => {
    const org = await t.seedOrg();
    const created = [];
    for (const slug of ['one', 'two', 'three']) {
      const r = await t.api('POST', `/v1/orgs/${org.orgId}/openapi`, {
        token: org.adminToken,
        body: { slug, source: { text: await fixture('petstore.yaml') } },
      });
      expect(r.status).toBe(201);
      created.push(r.headers.get('location')!.split('/').pop()!);
    }
    const q = t.app.jobs.queue('openapi');
    expect(await q.getJob(created[0])).toBeTruthy();
    const admin = new Redis(redis.url);
    await admin.flushall();
    admin.disconnect();
    expect(await q.getJob(created[0])).toBeFalsy();

    // No worker had run: every operation is still queued in PostgreSQL, the truth.
    for (const id of created) expect((await operationStatus(t, id)).status).toBe('queued');
    t.startWorkers(['openapi']);
    for (const id of created) {
      await waitFor(async () => (await operationStatus(t, id)).status === 'succeeded', { what: `operation ${id}` });
    }
    const specsNow = await t.api('GET', `/v1/orgs/${org.orgId}/openapi`, { token: org.adminToken });
    expect(specsNow.body.items.map((s: any) => s.processingState)).toEqual(['complete', 'complete', 'complete']);
  });

  it('enqueues an operation committed by a process that died before enqueueing', async () => {
    const org = await t.seedOrg();
    // The transaction of a request commits, then the process dies before queue.add().
    const opId = await withTx(t.app.db, async (c) => {
      const specId = newId();
      const op = await createOperation(c, 'openapi.process', {
        organizationId: org.orgId,
        payload: { specId },
        targetType: 'openapi-spec',
        targetId: specId,
      });
      await insertSpec(c, {
        id: specId,
        orgId: org.orgId,
        slug: 'orphan',
        sourceUrl: `${specs.url}/v31.json`,
        sourceText: null,
        operationId: op.id,
      });
      return op.id;
    });
    expect(await t.app.jobs.queue('openapi').getJob(opId)).toBeFalsy();
    await waitFor(async () => (await operationStatus(t, opId)).status === 'succeeded', { what: 'orphan operation' });
    const spec = await t.api('GET', `/v1/orgs/${org.orgId}/openapi/orphan`, { token: org.adminToken });
    expect(spec.body.processingState).toBe('complete');
    // Running it again finds the operation final and does nothing (job ids make re-enqueueing idempotent).
    await t.app.jobs.enqueue({ id: opId, kind: 'openapi.process' });
    // The workers' own reconciler loop may hold the lock at this instant: take a pass of our own.
    const pass = await waitFor(() => reconcileOnce(t.app), { what: 'a reconciler pass' });
    expect(pass).toEqual({ requeued: 0, failed: 0 });
    expect((await operationStatus(t, opId)).attempts).toBe(1);
  });
});

describe('a worker stopped mid-job', () => {
  const { t } = useTestApp({ env: { JOB_LOCK_DURATION_MS: '2000', JOB_STALLED_INTERVAL_MS: '1000', RECONCILE_MIN_AGE_MS: '600000' } });

  it('leaves its operation to another worker, which completes it', async () => {
    const child = spawnTs('workers/main.ts', [], { ...t.env, WORKER_QUEUES: 'openapi', FETCH_TIMEOUT_MS: '60000', AUTO_MIGRATE: 'false' });
    let exited = false;
    child.on('exit', () => (exited = true));
    try {
      const org = await t.seedOrg();
      const r = await t.api('POST', `/v1/orgs/${org.orgId}/openapi`, {
        token: org.adminToken,
        body: { slug: 'crashy', source: { url: `${specs.url}/flaky/petstore.yaml` } },
      });
      const opId = r.headers.get('location')!.split('/').pop()!;
      // The child worker took the job and hangs on the fetch (the flaky server never answers it).
      await waitFor(async () => specs.hits.get('/flaky/petstore.yaml') === 1 && (await operationStatus(t, opId)).status === 'running', {
        what: 'child worker to start the job',
      });
      child.kill('SIGKILL');
      await waitFor(async () => exited, { what: 'child exit' });

      t.startWorkers(['openapi']);
      const op = await waitFor(
        async () => {
          const o = await operationStatus(t, opId);
          return o.status === 'succeeded' ? o : null;
        },
        { what: 'operation to complete on the second worker' },
      );
      expect(op.attempts).toBe(2);
      expect(specs.hits.get('/flaky/petstore.yaml')).toBe(2);
      const spec = await t.api('GET', `/v1/orgs/${org.orgId}/openapi/crashy`, { token: org.adminToken });
      expect(spec.body).toMatchObject({ processingState: 'complete', lastVersion: op.result.version });
    } finally {
      if (!exited) child.kill('SIGKILL');
    }
  });

  it('a job failing with an unexpected error is retried with backoff, then fails visibly', async () => {
    const org = await t.seedOrg();
    const r = await t.api('POST', `/v1/orgs/${org.orgId}/openapi`, {
      token: org.adminToken,
      body: { slug: 'broken-storage', source: { text: await fixture('petstore.yaml') } },
    });
    const opId = r.headers.get('location')!.split('/').pop()!;
    // Break storage for this run only: every put throws.
    const original = t.app.blobs.put.bind(t.app.blobs);
    t.app.blobs.put = async () => {
      throw new Error('disk full');
    };
    try {
      const op = await waitFor(
        async () => {
          const o = await operationStatus(t, opId);
          return o.status === 'failed' ? o : null;
        },
        { what: 'failure after retries' },
      );
      expect(op.attempts).toBe(t.config.workers.attempts);
      expect(op.error).toBe('disk full');
      const spec = (await t.api('GET', `/v1/orgs/${org.orgId}/openapi/broken-storage`, { token: org.adminToken })).body;
      expect(spec.lastVersion).toBeUndefined();
    } finally {
      t.app.blobs.put = original;
    }
  });
});

describe('start-up', () => {
  it('two processes migrating one database at once apply each migration exactly once', async () => {
    const db = await createTestDatabase();
    try {
      const env = { DATABASE_URL: db.url, LOG_LEVEL: 'silent' };
      const [a, b, c] = await Promise.all([
        runTs('src/cli.ts', ['migrate'], env),
        runTs('src/cli.ts', ['migrate'], env),
        runTs('src/cli.ts', ['migrate'], env),
      ]);
      expect([a.code, b.code, c.code], a.stderr + b.stderr + c.stderr).toEqual([0, 0, 0]);
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      const { rows } = await client.query('SELECT version, count(*) AS n FROM schema_migrations GROUP BY version ORDER BY version');
      await client.end();
      expect(rows.length).toBeGreaterThan(0);
      for (const r of rows) expect(Number(r.n)).toBe(1);
    } finally {
      await db.drop();
    }
  });

  it('bootstraps an organization, admin and token once, even when processes start together', async () => {
    const db = await createTestDatabase();
    const p1 = createPool(db.url, 2);
    const p2 = createPool(db.url, 2);
    try {
      await migrate(p1);
      const [x, y] = await Promise.all([bootstrap(p1), bootstrap(p2)]);
      const made = [x, y].filter(Boolean);
      expect(made).toHaveLength(1);
      expect(made[0]!.token).toMatch(/^dp_/);
      expect(await bootstrap(p1)).toBeNull();
      const { rows } = await p1.query(
        'SELECT (SELECT count(*) FROM users) AS u, (SELECT count(*) FROM organizations) AS o, (SELECT count(*) FROM members WHERE role = $1) AS a',
        ['admin'],
      );
      expect(rows[0]).toEqual({ u: 1, o: 1, a: 1 });
    } finally {
      await p1.end();
      await p2.end();
      await db.drop();
    }
  });

  it('the CLI creates an organization, a user, a membership and a token that works', async () => {
    const t = await startTestApp();
    try {
      const env = { ...t.env };
      const user = await runTs('src/cli.ts', ['user', 'create', '--email', 'writer@example.com', '--name', 'Wendy Writer'], env);
      expect(user.code, user.stderr).toBe(0);
      const org = await runTs('src/cli.ts', ['org', 'create', '--title', 'CLI Org', '--admin', 'writer@example.com'], env);
      expect(org.code, org.stderr).toBe(0);
      const orgId = org.stdout.trim();
      const token = await runTs('src/cli.ts', ['token', 'create', '--email', 'writer@example.com'], env);
      expect(token.stdout.trim()).toMatch(/^dp_/);
      const r = await t.api('GET', `/v1/orgs/${orgId}`, { token: token.stdout.trim() });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ title: 'CLI Org', permissions: { admin: true } });
      const bad = await runTs('src/cli.ts', ['member', 'add', '--org', orgId, '--email', 'writer@example.com', '--role', 'owner'], env);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('Unknown role');
    } finally {
      await t.close();
    }
  });
});
