// Git Sync survives its worker: a worker killed in the middle of a sync run (fetching the pushed
// head) loses nothing; the run moves to another worker, which imports the head once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { startGitServer, type GitServer } from '../../helpers/git-server.js';
import { waitFor } from '../../helpers/http.js';
import { spawnTs } from '../../helpers/processes.js';
import { BASE_FILES, deliver, pageMarkdown, pushDelivery, remoteHead, syncRuns, syncUntil, workingCopy } from './helpers.js';

/** Holds the remote's fetches (git-upload-pack) until `open()`: a run as slow as the test wants. */
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

const { t, org } = useTestApp({
  env: { JOB_LOCK_DURATION_MS: '1000', JOB_STALLED_INTERVAL_MS: '2000', RECONCILE_MIN_AGE_MS: '600000', GIT_SYNC_POLL_TICK_MS: '200' },
  seedOrg: true,
});
afterAll(() => gate?.open()); // before the app closes

describe('a worker killed in the middle of a sync run', () => {
  it('the run resumes on another worker and imports the pushed head once', async () => {
    const worker = t.startWorkers(['git', 'search']);
    const url = await g.createRepo('restart', { files: BASE_FILES });
    const spaceId = (
      await t.api('POST', `/v1/orgs/${org.orgId}/spaces`, { token: org.adminToken, body: { title: 'Restart', empty: true } })
    ).body.id as string;
    const put = await t.api('PUT', `/v1/spaces/${spaceId}/git/sync`, {
      token: org.adminToken,
      body: { url, ref: 'main', pollIntervalSeconds: 0 },
    });
    expect(put.status).toBe(200);
    const first = await remoteHead(g, 'restart');
    await syncUntil(t, org.adminToken, spaceId, (x) => x.lastImportedCommit === first, 'the first import');
    await worker.close();

    // A push, delivered while only a child worker runs: it holds the run in the fetch.
    const child = spawnTs('workers/main.ts', [], { ...t.env, WORKER_QUEUES: 'git', AUTO_MIGRATE: 'false' });
    let exited = false;
    child.on('exit', () => (exited = true));
    try {
      gate = fetchGate();
      const w = await workingCopy(g, 'restart');
      const after = await w.commit({ 'README.md': '# Home\n\nAfter the restart.\n' }, 'Edit');
      const r = await deliver(
        put.body.webhook.url,
        pushDelivery('github', { ref: 'refs/heads/main', after, secret: put.body.webhook.secret }),
      );
      expect(r.status).toBe(202);
      const opId = r.body.operation as string;
      await waitFor(async () => gate!.held.length >= 1 && (await syncRuns(t, spaceId)).find((x) => x.id === opId)?.status === 'running', {
        what: 'the child worker to be fetching',
        timeoutMs: 60_000,
      });
      const during = await t.api('GET', `/v1/spaces/${spaceId}/git/sync`, { token: org.adminToken });
      expect(during.body.status).toBe('importing');

      // The worker dies without a word; a live one takes over, the remote answers again.
      child.kill('SIGKILL');
      await waitFor(async () => exited, { what: 'the child to exit' });
      t.startWorkers(['git', 'search']);
      gate.open();
      const s = await syncUntil(
        t,
        org.adminToken,
        spaceId,
        (x) => x.lastImportedCommit === after && x.status === 'idle',
        'the resumed import',
      );
      expect(s.lastError).toBeNull();
      const run = (await syncRuns(t, spaceId)).find((x) => x.id === opId)!;
      expect(run.status).toBe('succeeded');
      expect(run.attempts).toBeGreaterThanOrEqual(2);
      // Applied once: one revision of that commit.
      const { rows } = await t.app.db.query(`SELECT id FROM revisions WHERE space_id = $1 AND git->>'oid' = $2`, [spaceId, after]);
      expect(rows.length).toBe(1);
      expect(await pageMarkdown(t, org.adminToken, spaceId, 'Home')).toContain('After the restart.');
    } finally {
      if (!exited) child.kill('SIGKILL');
    }
  });
});
