// One effect per operation: a job that Redis loses while its operation runs on a live worker is
// not started again, a second run of an operation changes nothing, and a dead worker's job moves
// to another worker within JOB_LOCK_DURATION_MS + JOB_STALLED_INTERVAL_MS.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { useTestApp, type TestApp } from '../../helpers/app.js';
import { startGitServer, gitCli, type GitServer } from '../../helpers/git-server.js';
import { waitFor } from '../../helpers/http.js';
import { spawnTs } from '../../helpers/processes.js';
import { TEST_REDIS_URL } from '../../helpers/env.js';
import { reconcileOnce } from '../../../workers/reconciler.js';
import { withTx } from '../../../src/db/pool.js';
import { createOperation } from '../../../src/services/operations.js';
import { claimOperation } from '../../../src/db/repos/operations.js';
import { newId } from '../../../src/util/ids.js';

/** Holds the remote's fetches (git-upload-pack) until `open()`: an import as slow as the test wants. */
function fetchGate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  const held: string[] = [];
  return {
    held,
    open,
    hold(req: { method: string; path: string }) {
      if (req.method !== 'POST' || !req.path.endsWith('/git-upload-pack')) return undefined;
      held.push(req.path);
      return opened;
    },
  };
}

let gate: ReturnType<typeof fetchGate> | null = null;
let g: GitServer;
beforeAll(async () => {
  g = await startGitServer({ hold: (req) => gate?.hold(req) });
});
afterAll(async () => {
  gate?.open();
  await g.close();
});

async function operation(t: TestApp, id: string) {
  const { rows } = await t.app.db.query(
    'SELECT status, attempts, error, result, lease_owner, lease_expires_at FROM operations WHERE id = $1',
    [id],
  );
  return rows[0];
}

async function revisionsOfCommit(t: TestApp, spaceId: string, commit: string): Promise<string[]> {
  const { rows } = await t.app.db.query(`SELECT id FROM revisions WHERE space_id = $1 AND git->>'oid' = $2`, [spaceId, commit]);
  return rows.map((r) => r.id);
}

/** Delete every key of one queue (its jobs, lists, locks): Redis lost it. */
async function dropQueueKeys(t: TestApp, queue: string) {
  const redis = new Redis(TEST_REDIS_URL);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${t.config.queuePrefix}:${queue}:*`, 'COUNT', 500);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

async function startImport(t: TestApp, token: string, orgId: string, repo: string) {
  const url = await g.createRepo(repo, {
    files: {
      'README.md': `# ${repo}\n\nHello.\n`,
      'guide.md': '# Guide\n\nText.\n',
      'SUMMARY.md': '* [Home](README.md)\n* [Guide](guide.md)\n',
    },
  });
  const commit = (await gitCli(['rev-parse', 'refs/heads/main'], path.join(g.root, `${repo}.git`))).trim();
  const spaceId = (await t.api('POST', `/v1/orgs/${orgId}/spaces`, { token, body: { title: repo, empty: true } })).body.id as string;
  const r = await t.api('POST', `/v1/spaces/${spaceId}/git/import`, { token, body: { url, ref: 'refs/heads/main' } });
  expect(r.status, JSON.stringify(r.body)).toBe(204);
  return { spaceId, commit, opId: r.headers.get('location')!.split('/').pop()! };
}

describe('an operation running on a live worker', () => {
  const { t, org } = useTestApp({
    workers: ['git'],
    // The reconciler looks at every open operation at once, often: only the lease holds it back.
    env: { RECONCILE_INTERVAL_MS: '200', RECONCILE_MIN_AGE_MS: '0', JOB_LOCK_DURATION_MS: '3000', WORKER_CONCURRENCY: '2' },
    seedOrg: true,
  });
  afterAll(() => gate?.open()); // before the app closes: a failed test may leave an import waiting on the remote

  it('a git import whose Redis job is deleted mid-run is not started again and makes exactly one revision', async () => {
    gate = fetchGate();
    const { spaceId, commit, opId } = await startImport(t, org.adminToken, org.orgId, 'lost-job');
    // The worker is inside the import, waiting on the remote.
    await waitFor(async () => gate!.held.length === 1 && (await operation(t, opId)).status === 'running', {
      what: 'the import to be fetching',
    });
    const queue = t.app.jobs.queue('git');
    await dropQueueKeys(t, 'git');
    expect(await queue.getJob(opId)).toBeFalsy();

    // A reconciler pass of our own (the workers' loop may hold the lock at this instant): the
    // operation is running under a fresh lease, so it is left alone.
    const pass = await waitFor(() => reconcileOnce(t.app), { what: 'a reconciler pass' });
    expect(pass).toEqual({ requeued: 0, failed: 0 });
    expect(await queue.getJob(opId)).toBeFalsy();

    // The job delivered a second time anyway (what the reconciler used to do): the delivery finds
    // the operation held by the live run and waits in the delayed set, without running it.
    await t.app.jobs.enqueue({ id: opId, kind: 'git.import' });
    await waitFor(async () => (await queue.getJob(opId))?.isDelayed(), { what: 'the second delivery to wait' });
    expect((await operation(t, opId)).attempts).toBe(1);
    expect(gate.held).toHaveLength(1); // no second fetch

    gate.open();
    const done = await waitFor(
      async () => {
        const o = await operation(t, opId);
        return o.status === 'succeeded' ? o : null;
      },
      { what: 'the import to succeed' },
    );
    expect(done.attempts).toBe(1);
    expect(done.lease_owner).toBeNull();
    // The waiting delivery looks again when the lease would have expired, finds the operation done.
    const second = await waitFor(
      // The state first, the job after: a job read before it completed keeps no return value.
      async () => ((await queue.getJobState(opId)) === 'completed' ? queue.getJob(opId) : null),
      { what: 'the second delivery to complete', timeoutMs: 30_000 },
    );
    expect(second!.returnvalue).toEqual({ alreadyFinished: true });

    const revisions = await revisionsOfCommit(t, spaceId, commit);
    expect(revisions).toEqual([done.result.revision]);
    expect((await t.api('GET', `/v1/spaces/${spaceId}`, { token: org.adminToken })).body.revision).toBe(done.result.revision);
    expect((await operation(t, opId)).attempts).toBe(1);
  });

  it('a second run of an import whose success was never recorded changes nothing', async () => {
    gate = null;
    const { spaceId, commit, opId } = await startImport(t, org.adminToken, org.orgId, 'lost-success');
    const first = await waitFor(
      async () => {
        const o = await operation(t, opId);
        return o.status === 'succeeded' ? o : null;
      },
      { what: 'the import to succeed' },
    );
    const before = (await t.api('GET', `/v1/spaces/${spaceId}/content/pages`, { token: org.adminToken })).body;

    // The worker committed the revision, then died before writing success: the row still says running.
    await t.app.db.query(`UPDATE operations SET status = 'running', result = NULL, finished_at = NULL WHERE id = $1`, [opId]);
    // The reconciler sees its BullMQ job completed under an open operation and runs it again.
    const again = await waitFor(
      async () => {
        const o = await operation(t, opId);
        return o.status === 'succeeded' ? o : null;
      },
      { what: 'the re-run to finish' },
    );
    expect(again.attempts).toBe(2);
    expect(again.result).toEqual(first.result);
    expect(await revisionsOfCommit(t, spaceId, commit)).toEqual([first.result.revision]);
    expect((await t.api('GET', `/v1/spaces/${spaceId}/content/pages`, { token: org.adminToken })).body).toEqual(before);
  });

  it('the reconciler re-enqueues a running operation missing from Redis only once its lease is stale', async () => {
    // An operation of a queue no worker here consumes, leased by a run elsewhere, its job lost.
    // Created and claimed in one transaction: no reconciler pass can see it unleased in between.
    const { opId, claim } = await withTx(t.app.db, async (c) => {
      const id = (await createOperation(c, 'openapi.process', { organizationId: org.orgId, payload: { specId: newId() } })).id;
      return { opId: id, claim: await claimOperation(c, id, 'another-worker:1', 60_000) };
    });
    expect(claim.state).toBe('claimed');
    const queue = t.app.jobs.queue('openapi');

    const pass = await waitFor(() => reconcileOnce(t.app), { what: 'a reconciler pass' });
    expect(pass).toEqual({ requeued: 0, failed: 0 });
    expect(await queue.getJob(opId)).toBeFalsy();
    expect((await operation(t, opId)).status).toBe('running');

    // That run died: its lease ran out. The next pass (ours or the workers') enqueues the operation.
    await t.app.db.query(`UPDATE operations SET lease_expires_at = clock_timestamp() - interval '1 second' WHERE id = $1`, [opId]);
    await waitFor(async () => (await reconcileOnce(t.app), await queue.getJob(opId)), { what: 'the operation to be enqueued again' });
    expect(await (await queue.getJob(opId))!.getState()).toBe('waiting');
    await t.app.db.query(`UPDATE operations SET status = 'failed' WHERE id = $1`, [opId]);
    await queue.remove(opId);
  });
});

describe('a worker killed mid-job', () => {
  const LOCK_MS = 1000;
  const STALLED_MS = 4000;
  const { t } = useTestApp({
    env: { JOB_LOCK_DURATION_MS: String(LOCK_MS), JOB_STALLED_INTERVAL_MS: String(STALLED_MS), RECONCILE_MIN_AGE_MS: '600000' },
  });
  afterAll(() => gate?.open()); // before the app closes

  it('its job moves to another worker within JOB_LOCK_DURATION_MS + JOB_STALLED_INTERVAL_MS, and the import still makes one revision', async () => {
    gate = fetchGate();
    const child = spawnTs('workers/main.ts', [], { ...t.env, WORKER_QUEUES: 'git', AUTO_MIGRATE: 'false' });
    let exited = false;
    child.on('exit', () => (exited = true));
    try {
      const org = await t.seedOrg();
      const { spaceId, commit, opId } = await startImport(t, org.adminToken, org.orgId, 'killed-worker');
      await waitFor(async () => gate!.held.length === 1 && (await operation(t, opId)).status === 'running', {
        what: 'the child worker to be fetching',
        timeoutMs: 60_000,
      });
      // A live worker beside it, then the one running the import dies without a word.
      t.startWorkers(['git']);
      child.kill('SIGKILL');
      await waitFor(async () => exited, { what: 'child exit' });
      const killedAt = Date.now();

      await waitFor(async () => (await operation(t, opId)).attempts === 2, { what: 'the takeover', intervalMs: 20, timeoutMs: 60_000 });
      const takeoverMs = Date.now() - killedAt;
      // The bound README states, plus room for a loaded machine (the old worst case was lock + 3 intervals).
      expect(takeoverMs).toBeLessThan(LOCK_MS + STALLED_MS + 2000);

      gate.open();
      const done = await waitFor(
        async () => {
          const o = await operation(t, opId);
          return o.status === 'succeeded' ? o : null;
        },
        { what: 'the import to succeed on the other worker' },
      );
      expect(done.attempts).toBe(2);
      expect(await revisionsOfCommit(t, spaceId, commit)).toEqual([done.result.revision]);
    } finally {
      if (!exited) child.kill('SIGKILL');
    }
  });
});
