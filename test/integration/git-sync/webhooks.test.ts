// Git Sync, repository to space: push events from each forge (signed, tampered, unsigned), pushes
// to other branches, pings, unknown hooks, polling without a webhook, bursts of pushes, an
// unchanged head, and a failing remote that recovers by itself.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { startGitServer, type GitServer } from '../../helpers/git-server.js';
import { operationSettled } from '../../helpers/operations.js';
import { waitFor } from '../../helpers/http.js';
import {
  BASE_FILES,
  deliver,
  pageMarkdown,
  pushDelivery,
  remoteHead,
  syncRuns,
  syncSettled,
  syncUntil,
  workingCopy,
  type Forge,
} from './helpers.js';

let g: GitServer;
beforeAll(async () => {
  g = await startGitServer();
});
afterAll(() => g.close());
const { t, org } = useTestApp({
  workers: ['git', 'search'],
  env: { WORKER_CONCURRENCY: '1', GIT_SYNC_POLL_TICK_MS: '200', GIT_SYNC_DEBOUNCE_MS: '1500' },
  seedOrg: true,
});

const api = (method: string, p: string, body?: unknown, token = org.adminToken) => t.api(method, p, { token, body });

/** A new repository and a space synced with it (webhooks only unless told), first import done. */
async function syncedSpace(name: string, o: { pollIntervalSeconds?: number } = {}) {
  const url = await g.createRepo(name, { files: BASE_FILES });
  const spaceId = (await api('POST', `/v1/orgs/${org.orgId}/spaces`, { title: name, empty: true })).body.id as string;
  const put = await api('PUT', `/v1/spaces/${spaceId}/git/sync`, { url, ref: 'main', pollIntervalSeconds: o.pollIntervalSeconds ?? 0 });
  expect(put.status, JSON.stringify(put.body)).toBe(200);
  const head = await remoteHead(g, name);
  const s = await syncUntil(t, org.adminToken, spaceId, (x) => x.lastImportedCommit === head && x.status === 'idle', 'the first import');
  expect(await pageMarkdown(t, org.adminToken, spaceId, 'Home')).toContain('version 1');
  return { url, spaceId, secret: put.body.webhook.secret as string, hook: put.body.webhook.url as string, sync: s };
}

const revisionOf = async (spaceId: string) => (await api('GET', `/v1/spaces/${spaceId}`)).body.revision as string;

describe('webhooks', () => {
  for (const forge of ['github', 'gitlab', 'gitea', 'forgejo', 'bearer'] as Forge[]) {
    it(`a signed ${forge} push to the synced branch answers 202 and imports the new head`, async () => {
      const { spaceId, secret, hook } = await syncedSpace(`hook-${forge}`);
      const w = await workingCopy(g, `hook-${forge}`);
      const after = await w.commit({ 'README.md': `# Home\n\nPushed from ${forge}.\n` }, `Edit from ${forge}`);
      const r = await deliver(hook, pushDelivery(forge, { ref: 'refs/heads/main', after, secret }));
      expect(r.status, JSON.stringify(r.body)).toBe(202);
      expect(r.body).toMatchObject({ accepted: true });
      const op = await operationSettled(t, r.location, { token: org.adminToken, timeoutMs: 60_000 });
      expect(op.status, op.error).toBe('succeeded');
      const s = await syncSettled(t, org.adminToken, spaceId);
      expect(s).toMatchObject({ status: 'idle', lastImportedCommit: after, lastError: null });
      expect(await pageMarkdown(t, org.adminToken, spaceId, 'Home')).toContain(`Pushed from ${forge}.`);
    });
  }

  it('a tampered body, a wrong secret or no signature answers 401 and runs nothing; another branch 202 and nothing; ping 200; unknown hook 404', async () => {
    const { spaceId, secret, hook } = await syncedSpace('hook-refused');
    const w = await workingCopy(g, 'hook-refused');
    const after = await w.commit({ 'README.md': '# Home\n\nNot announced.\n' }, 'Edit');
    const runsBefore = (await syncRuns(t, spaceId)).length;
    const revision = await revisionOf(spaceId);

    // GitHub: the body changed after signing.
    const signed = pushDelivery('github', { ref: 'refs/heads/main', after, secret });
    const tampered = { ...signed, raw: signed.raw.replace('refs/heads/main', 'refs/heads/mains') };
    expect((await deliver(hook, tampered)).status).toBe(401);
    // Signed with another secret, in every shape.
    for (const forge of ['github', 'gitlab', 'gitea', 'forgejo', 'bearer'] as Forge[]) {
      const r = await deliver(hook, pushDelivery(forge, { ref: 'refs/heads/main', after, secret: 'not-the-secret' }));
      expect(r.status, forge).toBe(401);
      expect(r.body.error.code).toBe(401);
    }
    // No signature at all.
    const bare = pushDelivery('github', { ref: 'refs/heads/main', after, secret });
    delete bare.headers['x-hub-signature-256'];
    expect((await deliver(hook, bare)).status).toBe(401);
    // A signature that is not hex.
    expect((await deliver(hook, { ...signed, headers: { ...signed.headers, 'x-hub-signature-256': 'sha256=zz' } })).status).toBe(401);
    expect((await syncRuns(t, spaceId)).length).toBe(runsBefore);

    // A push to another branch: accepted, nothing runs.
    const other = await deliver(hook, pushDelivery('github', { ref: 'refs/heads/feature', after, secret }));
    expect(other.status).toBe(202);
    expect(other.body).toMatchObject({ accepted: false });
    // Pings.
    expect((await deliver(hook, pushDelivery('github', { ref: 'refs/heads/main', after, secret, event: 'ping' }))).status).toBe(200);
    expect((await deliver(hook, pushDelivery('gitea', { ref: 'refs/heads/main', after, secret, event: 'ping' }))).status).toBe(200);
    expect((await syncRuns(t, spaceId)).length).toBe(runsBefore);
    expect(await revisionOf(spaceId)).toBe(revision);

    // An unknown hook.
    const unknown = hook.replace(/[^/]+$/, 'no-such-hook');
    expect((await deliver(unknown, pushDelivery('github', { ref: 'refs/heads/main', after, secret }))).status).toBe(404);
    // A body over the limit.
    const big = {
      raw: JSON.stringify({ ref: 'refs/heads/main', after, pad: 'x'.repeat(1024 * 1024) }),
      headers: { authorization: `Bearer ${secret}` },
    };
    expect((await deliver(hook, big)).status).toBe(413);
  });

  it('ten pushes in quick succession give at most three imports, the last of the newest head', async () => {
    const { spaceId, secret, hook } = await syncedSpace('hook-burst');
    const w = await workingCopy(g, 'hook-burst');
    const before = (await syncRuns(t, spaceId)).length;
    const heads: string[] = [];
    // Each push's delivery goes out at once, while the next pushes are made: runs start and take
    // heads while the branch still moves.
    const deliveries: ReturnType<typeof deliver>[] = [];
    for (let i = 1; i <= 10; i++) {
      const after = await w.commit({ 'README.md': `# Home\n\nPush ${i}.\n` }, `Push ${i}`);
      heads.push(after);
      deliveries.push(deliver(hook, pushDelivery('github', { ref: 'refs/heads/main', after, secret })));
    }
    for (const r of await Promise.all(deliveries)) expect(r.status).toBe(202);
    const s = await syncUntil(t, org.adminToken, spaceId, (x) => x.lastImportedCommit === heads[9], 'the newest head imported');
    await syncSettled(t, org.adminToken, spaceId);
    const runs = (await syncRuns(t, spaceId)).slice(before);
    const imports = runs.filter((r) => r.result?.action === 'import' && !r.result.unchanged);
    expect(runs.length).toBeLessThanOrEqual(3);
    expect(imports.length).toBeGreaterThanOrEqual(1);
    expect(imports.length).toBeLessThanOrEqual(3);
    expect(imports[imports.length - 1].result.commit).toBe(heads[9]);
    expect(s.status).toBe('idle');
    expect(await pageMarkdown(t, org.adminToken, spaceId, 'Home')).toContain('Push 10.');
  });

  it('a delivery for an unchanged head makes no revision', async () => {
    const { spaceId, secret, hook, sync } = await syncedSpace('hook-unchanged');
    const revision = await revisionOf(spaceId);
    const r = await deliver(hook, pushDelivery('bearer', { ref: 'refs/heads/main', after: sync.lastImportedCommit, secret }));
    expect(r.status).toBe(202);
    const op = await operationSettled(t, r.location, { token: org.adminToken, timeoutMs: 60_000 });
    expect(op.status).toBe('succeeded');
    expect(op.result).toMatchObject({ action: 'none' });
    expect(await revisionOf(spaceId)).toBe(revision);
  });
});

describe('polling', () => {
  it('a sync polled every 5 s picks up a push without any webhook', async () => {
    const { spaceId } = await syncedSpace('polled', { pollIntervalSeconds: 5 });
    const w = await workingCopy(g, 'polled');
    const after = await w.commit({ 'guide.md': '# Guide\n\nPolled in.\n' }, 'Edit the guide');
    await syncUntil(t, org.adminToken, spaceId, (x) => x.lastImportedCommit === after, 'the poll to import the push');
    expect(await pageMarkdown(t, org.adminToken, spaceId, 'Guide')).toContain('Polled in.');
  });

  it('the ticks of the poll timer do not pile up: finished ones older than an hour are forgotten', async () => {
    const old = `sched-old-tick-${Date.now()}`;
    await t.app.db.query(
      `INSERT INTO operations (id, kind, queue, organization_id, payload, status, target_type, target_id, finished_at)
       VALUES ($1, 'git.sync.poll', 'git', NULL, '{}', 'succeeded', 'schedule', 'git.sync.poll', clock_timestamp() - interval '2 hours')`,
      [old],
    );
    await waitFor(async () => (await t.app.db.query('SELECT 1 FROM operations WHERE id = $1', [old])).rowCount === 0, {
      what: 'the old tick to be pruned',
      timeoutMs: 30_000,
    });
    const { rows } = await t.app.db.query(
      `SELECT count(*)::int AS n FROM operations WHERE kind = 'git.sync.poll' AND status = 'succeeded'`,
    );
    expect(rows[0].n).toBeGreaterThan(0); // the recent ones stay readable
  });

  it('a failing remote shows status error with the reason, then recovers by itself', async () => {
    const spaceId = (await api('POST', `/v1/orgs/${org.orgId}/spaces`, { title: 'Failing', empty: true })).body.id as string;
    const url = `${g.url}/not-yet.git`;
    const put = await api('PUT', `/v1/spaces/${spaceId}/git/sync`, { url, ref: 'refs/heads/main', pollIntervalSeconds: 5 });
    expect(put.status).toBe(200);
    const failed = await syncUntil(t, org.adminToken, spaceId, (x) => x.status === 'error', 'the sync to fail');
    expect(failed.lastError).toMatch(/not found|answered HTTP/i);
    const [run] = await syncRuns(t, spaceId);
    expect(run.status).toBe('failed');
    // The repository appears: the back-off's next try imports it.
    await g.createRepo('not-yet', { files: BASE_FILES });
    const head = await remoteHead(g, 'not-yet');
    const ok = await syncUntil(t, org.adminToken, spaceId, (x) => x.status === 'idle' && x.lastImportedCommit === head, 'the recovery');
    expect(ok.lastError).toBeNull();
    expect(await pageMarkdown(t, org.adminToken, spaceId, 'Guide')).toContain('version 1');
  });
});
