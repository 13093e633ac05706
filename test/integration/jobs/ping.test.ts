// workers.ping: the job that does nothing, through the real path (durable row, queue, runner), on
// the queue its caller names; and the write-ahead-log rules of the runner's writes.
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { runTs } from '../../helpers/processes.js';
import { createPool } from '../../../src/db/pool.js';
import { pingWorkers, waitForOperation } from '../../../src/services/workers.js';
import {
  claimOperation,
  finishOperation,
  insertOperation,
  markProgress,
  releaseLease,
  renewLease,
} from '../../../src/db/repos/operations.js';
import { newId } from '../../../src/util/ids.js';

const { t } = useTestApp({ workers: ['openapi'] });

describe('workers.ping', () => {
  it('runs on the queue it names, through a durable operation that ends succeeded with the lease cleared', async () => {
    const op = await pingWorkers(t.app, 'openapi');
    expect(op).toMatchObject({ kind: 'workers.ping', queue: 'openapi', status: 'queued', target_type: 'queue', target_id: 'openapi' });
    expect(await t.app.jobs.queue('openapi').getJob(op.id)).toBeTruthy();
    const done = await waitForOperation(t.app, op.id, 20_000);
    expect(done).toMatchObject({ status: 'succeeded', attempts: 1, progress: 1, lease_owner: null, lease_expires_at: null, error: null });
    const result = done!.result as { worker: string; queue: string; startedAt: number };
    expect(result.queue).toBe('openapi');
    expect(result.worker).toMatch(/:\d+$/);
    expect(result.startedAt).toBeGreaterThanOrEqual(op.created_at.getTime());
  });

  it('stays on its default queue (maintenance) when no queue is named', async () => {
    const op = await pingWorkers(t.app);
    expect(op.queue).toBe('maintenance');
    await t.app.jobs.queue('maintenance').remove(op.id);
    await finishOperation(t.app.db, op.id, 'failed', { error: 'test cleanup' });
  });

  it('the CLI pings a pool and says which worker ran it; a pool nobody serves fails within the timeout', async () => {
    const ok = await runTs('src/cli.ts', ['workers', 'ping', '--queue', 'openapi'], { ...t.env });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/^ok: .+ of queue openapi ran it after [\d.]+ ms in the queue\n$/);
    const none = await runTs('src/cli.ts', ['workers', 'ping', '--queue', 'pdf', '--timeout', '1'], { ...t.env });
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/no worker of queue pdf ran operation \w+ within 1 s/);
    const bad = await runTs('src/cli.ts', ['workers', 'ping', '--queue', 'nope'], { ...t.env });
    expect(bad.code).toBe(2);
  });
});

describe("the runner's intermediate writes", () => {
  it('skip the WAL flush wait only for their own statement: the session stays durable', async () => {
    // One connection, so every statement below runs on the session the intermediate writes used.
    const one = createPool(t.env.DATABASE_URL!, 1);
    try {
      const id = newId();
      await insertOperation(one, { id, organizationId: null, kind: 'workers.ping', queue: 'openapi', payload: {} });
      const claimed = await claimOperation(one, id, 'owner-1', 30_000);
      expect(claimed.state).toBe('claimed');
      expect((await one.query('SHOW synchronous_commit')).rows[0].synchronous_commit).toBe('on');
      expect(await renewLease(one, id, 'owner-1', 30_000)).toBe(true);
      await markProgress(one, id, 0.5, 'owner-1');
      await releaseLease(one, id, 'owner-1');
      expect((await one.query('SHOW synchronous_commit')).rows[0].synchronous_commit).toBe('on');
      // The same row, claimed again after the release, then finished (a durable commit).
      expect((await claimOperation(one, id, 'owner-2', 30_000)).state).toBe('claimed');
      expect(await finishOperation(one, id, 'succeeded', { result: null }, 'owner-2')).toBe(true);
      const { rows } = await one.query('SELECT status, progress, attempts, lease_owner FROM operations WHERE id = $1', [id]);
      expect(rows[0]).toEqual({ status: 'succeeded', progress: 1, attempts: 2, lease_owner: null });
      expect((await one.query('SHOW synchronous_commit')).rows[0].synchronous_commit).toBe('on');
    } finally {
      await one.end();
    }
  });
});
