// Jobs that start at once (registry `startsAtOnce`: workers.ping, search.index): the processor
// begins before its claim is back, with the payload its BullMQ job carries; a run that ends before
// its claim went out is finished by its final write alone, which makes the claim's checks; a run
// that does not hold its operation drops its outcome. Jobs with outside effects still claim first,
// and no payload but those ids ever sits in Redis.
import { describe, expect, it } from 'vitest';
import type { Job } from 'bullmq';
import { useTestApp } from '../../helpers/app.js';
import { claimOperation, finishOperations, getOperation, insertOperation } from '../../../src/db/repos/operations.js';
import { createOperation } from '../../../src/services/operations.js';
import { pingWorkers } from '../../../src/services/workers.js';
import { sealCredentials } from '../../../src/git/credentials.js';
import { Finisher } from '../../../workers/finisher.js';
import { createJobHandler } from '../../../workers/runner.js';
import type { AppContext } from '../../../src/context.js';
import type { JobData } from '../../../src/queue/registry.js';
import { newId } from '../../../src/util/ids.js';

const { t } = useTestApp({ workers: ['openapi'] });

const row = async (id: string) => (await getOperation(t.app.db, id))!;

/** An open operation of `kind` (not enqueued). */
async function queued(kind = 'workers.ping', payload: Record<string, unknown> = {}): Promise<string> {
  const id = newId();
  await insertOperation(t.app.db, { id, organizationId: null, kind, queue: 'maintenance', payload });
  return id;
}

/**
 * The runner over an app whose pool records the names of the statements it sends (the claim is
 * `operation_claim`), with a finisher of its own; `job` is what BullMQ would hand it.
 */
function runner(opts: { claimFails?: boolean } = {}) {
  const sent: string[] = [];
  const query = (q: unknown, ...rest: unknown[]) => {
    const name = typeof q === 'string' ? q.trim().split(/\s+/, 1)[0] : ((q as { name?: string }).name ?? 'unnamed');
    sent.push(name);
    if (opts.claimFails && name === 'operation_claim') return Promise.reject(new Error('connection lost'));
    return (t.app.db.query as any)(q, ...rest);
  };
  // The pool itself for everything else (transactions take a client of their own).
  const db = new Proxy(t.app.db, {
    get: (target, prop) => (prop === 'query' ? query : Reflect.get(target, prop, target)),
  });
  const app = { ...t.app, db } as AppContext;
  const finisher = new Finisher(t.app.db);
  const handler = createJobHandler(app, finisher);
  const run = (name: string, data: JobData) =>
    handler({
      name,
      data,
      queueName: 'maintenance',
      attemptsMade: 0,
      opts: { attempts: 3 },
      updateProgress: async () => {},
    } as unknown as Job<JobData>);
  return { run, sent, settled: () => finisher.drain() };
}

describe('the final write of a run that never claimed its operation', () => {
  it('finishes an open operation no live run holds, counting the attempt, and no other', async () => {
    const since = new Date(Date.now() - 1000);
    const open = await queued();
    const expired = await queued();
    expect((await claimOperation(t.app.db, expired, 'dead run', 1)).state).toBe('claimed');
    await new Promise((r) => setTimeout(r, 5));
    const held = await queued();
    expect((await claimOperation(t.app.db, held, 'live run', 30_000)).state).toBe('claimed');
    const final = await queued();
    await finishOperations(t.app.db, [{ id: final, status: 'failed', error: 'earlier', owner: null }]);

    const done = await finishOperations(
      t.app.db,
      [open, expired, held, final].map((id) => ({
        id,
        status: 'succeeded' as const,
        result: { ok: id },
        owner: 'me',
        unclaimedSince: since,
      })),
    );
    expect([...done].sort()).toEqual([open, expired].sort());
    expect(await row(open)).toMatchObject({ status: 'succeeded', attempts: 1, started_at: since, lease_owner: null, result: { ok: open } });
    // The dead run's attempt and start stay counted.
    const e = await row(expired);
    expect(e).toMatchObject({ status: 'succeeded', attempts: 2, lease_owner: null });
    expect(e.started_at!.getTime()).toBeGreaterThan(since.getTime());
    expect(await row(held)).toMatchObject({ status: 'running', attempts: 1, lease_owner: 'live run', finished_at: null });
    expect(await row(final)).toMatchObject({ status: 'failed', error: 'earlier', attempts: 0 });
  });
});

describe('a run of a job that starts at once', () => {
  it('that ends before its claim went out sends no claim: one final write, durable once the finisher settles', async () => {
    const id = await queued();
    const r = runner();
    const result = (await r.run('workers.ping', { operationId: id, payload: {} })) as { startedAt: number };
    expect(typeof result.startedAt).toBe('number');
    await r.settled();
    expect(r.sent).not.toContain('operation_claim');
    expect(await row(id)).toMatchObject({ status: 'succeeded', attempts: 1, progress: 1, lease_owner: null, error: null });
    expect((await row(id)).started_at).not.toBeNull();
  });

  it('drops its outcome when another live run holds the operation, which stays that run’s', async () => {
    const id = await queued();
    expect((await claimOperation(t.app.db, id, 'the other run', 30_000)).state).toBe('claimed');
    const r = runner();
    await r.run('workers.ping', { operationId: id, payload: {} });
    await r.settled();
    expect(await row(id)).toMatchObject({ status: 'running', lease_owner: 'the other run', result: null, finished_at: null });
  });

  it('whose processor takes longer claims meanwhile, and ends succeeded with its lease cleared', async () => {
    const o = await t.seedOrg('At once');
    const space = await t.api('POST', `/v1/orgs/${o.orgId}/spaces`, { token: o.adminToken, body: { title: 'Indexed', empty: true } });
    const op = await createOperation(t.app.db, 'search.index', {
      organizationId: o.orgId,
      payload: { spaceId: space.body.id },
      targetType: 'space',
      targetId: space.body.id,
    });
    const r = runner();
    expect(await r.run('search.index', { operationId: op.id, payload: op.payload })).toEqual({ spaceId: space.body.id });
    await r.settled();
    expect(r.sent).toContain('operation_claim');
    expect(await row(op.id)).toMatchObject({ status: 'succeeded', attempts: 1, lease_owner: null, lease_expires_at: null });
  });

  it('whose claim fails while it works completes its job and leaves the operation open for the reconciler', async () => {
    const o = await t.seedOrg('Claim fails');
    const space = await t.api('POST', `/v1/orgs/${o.orgId}/spaces`, { token: o.adminToken, body: { title: 'Indexed', empty: true } });
    const op = await createOperation(t.app.db, 'search.index', { organizationId: o.orgId, payload: { spaceId: space.body.id } });
    const r = runner({ claimFails: true });
    // The processor ran to its end; nothing was recorded (no unhandled rejection either).
    expect(await r.run('search.index', { operationId: op.id, payload: op.payload })).toEqual({ spaceId: space.body.id });
    await r.settled();
    expect(r.sent).toContain('operation_claim');
    expect(await row(op.id)).toMatchObject({ status: 'queued', attempts: 0, lease_owner: null, finished_at: null });
  });

  it('that fails claims first, then records the failure as a run holding the operation would', async () => {
    const id = await queued('search.index', { spaceId: 'no-such-space' });
    const r = runner();
    expect(await r.run('search.index', { operationId: id, payload: { spaceId: 'no-such-space' } })).toEqual({
      skipped: 'The space was deleted',
    });
    expect(r.sent).toContain('operation_claim');
    expect(await row(id)).toMatchObject({ status: 'skipped', error: 'The space was deleted', attempts: 1, lease_owner: null });

    // Not held by this run: the failure is dropped, the operation stays the other run's.
    const held = await queued('search.index', { spaceId: 'no-such-space' });
    expect((await claimOperation(t.app.db, held, 'the other run', 30_000)).state).toBe('claimed');
    expect(await r.run('search.index', { operationId: held, payload: { spaceId: 'no-such-space' } })).toEqual({ notHeld: 'leased' });
    expect(await row(held)).toMatchObject({ status: 'running', lease_owner: 'the other run', error: null });
  });

  it('without a payload in its job (enqueued by an older version) claims first, as every other job does', async () => {
    const id = await queued();
    const r = runner();
    await r.run('workers.ping', { operationId: id });
    await r.settled();
    expect(r.sent[0]).toBe('operation_claim');
    expect(await row(id)).toMatchObject({ status: 'succeeded', attempts: 1, lease_owner: null });
  });
});

describe('what the BullMQ job carries', () => {
  it('a copy of the payload for a job that starts at once only: a git job carries its operation id alone', async () => {
    const ping = await pingWorkers(t.app, 'search'); // no worker serves it in this test
    const pingJob = await t.app.jobs.queue('search').getJob(ping.id);
    expect(pingJob!.data).toEqual({ operationId: ping.id, payload: {} });

    const credentials = sealCredentials({ username: 'bot', password: 'hunter2-secret' }, t.app.secret);
    const git = await createOperation(t.app.db, 'git.import', {
      organizationId: null,
      payload: { spaceId: 'some-space', url: 'https://git.example.com/repo.git', ref: 'main', credentials },
    });
    await t.app.jobs.enqueue(git);
    const gitJob = await t.app.jobs.queue('git').getJob(git.id);
    expect(gitJob!.data).toEqual({ operationId: git.id });
    expect(JSON.stringify(gitJob!.data)).not.toContain(credentials);

    for (const [q, id] of [
      ['search', ping.id],
      ['git', git.id],
    ] as const) {
      await t.app.jobs.queue(q).remove(id);
      await finishOperations(t.app.db, [{ id, status: 'failed', error: 'test cleanup', owner: null }]);
    }
  });
});
