// Final states written in batches (workers/finisher.ts), and the runner freeing a job's slot before
// its success is durable (workers/runner.ts): the operation reads `succeeded` only once it is, and a
// success that cannot be written leaves the operation open and claimable, never half-finished.
import { describe, expect, it } from 'vitest';
import type { Job } from 'bullmq';
import { useTestApp } from '../../helpers/app.js';
import type { Queryable } from '../../../src/db/pool.js';
import { claimOperation, finishOperations, getOperation, insertOperation } from '../../../src/db/repos/operations.js';
import { pingWorkers } from '../../../src/services/workers.js';
import { Finisher } from '../../../workers/finisher.js';
import { createJobHandler } from '../../../workers/runner.js';
import type { JobData } from '../../../src/queue/registry.js';
import { newId } from '../../../src/util/ids.js';

const { t } = useTestApp({ workers: ['openapi'] });

/** A claimed (running, leased) operation row. */
async function running(owner: string): Promise<string> {
  const id = newId();
  await insertOperation(t.app.db, { id, organizationId: null, kind: 'workers.ping', queue: 'openapi', payload: {} });
  expect((await claimOperation(t.app.db, id, owner, 30_000)).state).toBe('claimed');
  return id;
}

/** The pool, counting the statements sent through it. */
function counting(db: Queryable) {
  const c = { statements: 0, db: { query: (...args: unknown[]) => (c.statements++, (db.query as any)(...args)) } as Queryable };
  return c;
}

const row = async (id: string) => {
  const { rows } = await t.app.db.query('SELECT status, result, error, progress, lease_owner, finished_at FROM operations WHERE id = $1', [
    id,
  ]);
  return rows[0];
};

describe('finishOperations', () => {
  it('moves each run that still holds its operation to its final state, in one statement, and no other', async () => {
    const a = await running('run-a');
    const b = await running('run-b');
    const c = await running('run-c');
    const done = await finishOperations(t.app.db, [
      { id: a, status: 'succeeded', result: { n: 1 }, owner: 'run-a' },
      { id: b, status: 'failed', error: 'it broke', owner: 'run-b' },
      { id: c, status: 'succeeded', result: null, owner: 'someone else' },
    ]);
    expect([...done].sort()).toEqual([a, b].sort());
    expect(await row(a)).toMatchObject({ status: 'succeeded', result: { n: 1 }, error: null, progress: 1, lease_owner: null });
    expect(await row(b)).toMatchObject({ status: 'failed', result: null, error: 'it broke', progress: 0, lease_owner: null });
    expect(await row(c)).toMatchObject({ status: 'running', lease_owner: 'run-c', finished_at: null });
    // Already final: a second write changes nothing.
    expect(await finishOperations(t.app.db, [{ id: a, status: 'failed', error: 'late', owner: null }])).toEqual(new Set());
    expect(await row(a)).toMatchObject({ status: 'succeeded', error: null });
  });
});

describe('Finisher', () => {
  it('writes the states handed over while a batch is in flight together, each answered on its own', async () => {
    const ids = await Promise.all(Array.from({ length: 20 }, (_, i) => running(`burst-${i}`)));
    const c = counting(t.app.db);
    const f = new Finisher(c.db);
    const answers = await Promise.all(
      ids.map((id, i) => f.finish({ id, status: 'succeeded', result: { i }, owner: i === 7 ? 'not the holder' : `burst-${i}` })),
    );
    expect(answers).toEqual(ids.map((_, i) => i !== 7));
    // The first went out alone; the other 19 waited for it and went out in one statement.
    expect(c.statements).toBe(2);
    expect(f.pending).toBe(0);
    for (const [i, id] of ids.entries()) {
      expect(await row(id)).toMatchObject(i === 7 ? { status: 'running' } : { status: 'succeeded', result: { i } });
    }
  });

  it('puts a second state for the same operation in a later batch, where it finds the operation final', async () => {
    const id = await running('dup');
    const f = new Finisher(t.app.db);
    const first = f.finish({ id, status: 'succeeded', result: 1, owner: 'dup' });
    const second = f.finish({ id, status: 'succeeded', result: 2, owner: 'dup' });
    const third = f.finish({ id, status: 'failed', error: 'x', owner: null });
    expect(await Promise.all([first, second, third])).toEqual([true, false, false]);
    expect(await row(id)).toMatchObject({ status: 'succeeded', result: 1 });
  });

  it('retries a failed write, then rejects every state of the batch; drain waits for all of it', async () => {
    const id = await running('flaky');
    let failures = 1;
    const flaky = {
      query: (...args: unknown[]) => (failures-- > 0 ? Promise.reject(new Error('connection lost')) : (t.app.db.query as any)(...args)),
    } as Queryable;
    const f = new Finisher(flaky, 256, [5]);
    const ok = f.finish({ id, status: 'succeeded', result: null, owner: 'flaky' });
    await f.drain();
    expect(f.pending).toBe(0);
    expect(await ok).toBe(true);

    const down = { query: () => Promise.reject(new Error('database is down')) } as unknown as Queryable;
    const g = new Finisher(down, 256, [1, 1]);
    const lost = [g.finish({ id: 'x1', status: 'succeeded', owner: null }), g.finish({ id: 'x2', status: 'succeeded', owner: null })];
    await expect(lost[0]).rejects.toThrow('database is down');
    await expect(lost[1]).rejects.toThrow('database is down');
  });
});

describe('the runner', () => {
  it('a burst of jobs ends with every operation succeeded once the pool has settled', async () => {
    const ops = await Promise.all(Array.from({ length: 40 }, () => pingWorkers(t.app, 'openapi')));
    for (;;) {
      const { rows } = await t.app.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM operations WHERE id = ANY($1) AND status IN ('queued', 'running')",
        [ops.map((o) => o.id)],
      );
      if (rows[0].n === 0) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    await t.workers!.settled();
    const { rows } = await t.app.db.query('SELECT status, lease_owner FROM operations WHERE id = ANY($1)', [ops.map((o) => o.id)]);
    expect(rows).toHaveLength(40);
    expect(rows.every((r) => r.status === 'succeeded' && r.lease_owner === null)).toBe(true);
  });

  it('a success that cannot be written completes the job but leaves the operation open, its lease given up', async () => {
    const op = await pingWorkers(t.app, 'maintenance'); // no worker serves it in this test
    await t.app.jobs.queue('maintenance').remove(op.id);
    const down = { query: () => Promise.reject(new Error('database is down')) } as unknown as Queryable;
    const finisher = new Finisher(down, 256, [1]);
    const handler = createJobHandler(t.app, finisher);
    const job = {
      name: 'workers.ping',
      data: { operationId: op.id },
      queueName: 'maintenance',
      attemptsMade: 0,
      opts: { attempts: 3 },
      updateProgress: async () => {},
    } as unknown as Job<JobData>;
    const result = (await handler(job)) as { startedAt: number };
    expect(typeof result.startedAt).toBe('number');
    await finisher.drain();
    // The run ended without a recorded outcome: open, unleased, so the reconciler (its job is
    // completed in Redis) or any delivery runs it again.
    for (let i = 0; i < 100 && (await getOperation(t.app.db, op.id))?.lease_owner; i++) await new Promise((r) => setTimeout(r, 10));
    expect(await getOperation(t.app.db, op.id)).toMatchObject({ status: 'running', lease_owner: null, finished_at: null });
    expect((await claimOperation(t.app.db, op.id, 'next-run', 30_000)).state).toBe('claimed');
  });
});
