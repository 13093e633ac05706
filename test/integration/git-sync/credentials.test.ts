// Git Sync with a private repository: the credentials given once reach the remote on every run
// (import and export) and are never shown, logged or stored in clear; wrong ones are an `error`.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { startGitServer, gitCli, type GitServer } from '../../helpers/git-server.js';
import { BASE_FILES, deliver, pageMarkdown, pushDelivery, remoteHead, syncUntil } from './helpers.js';

const secret = { username: 'deploy-bot', password: 'glpat-Very5ecretToken' };
let g: GitServer;
beforeAll(async () => {
  g = await startGitServer({ auth: secret });
});
afterAll(() => g.close());
const { t, org } = useTestApp({
  workers: ['git', 'search'],
  captureLogs: true,
  env: { WORKER_CONCURRENCY: '1', GIT_SYNC_POLL_TICK_MS: '200', GIT_SYNC_DEBOUNCE_MS: '100' },
  seedOrg: true,
});

const leaks = (text: string) =>
  text.includes(secret.password) || text.includes(Buffer.from(`${secret.username}:${secret.password}`).toString('base64'));

describe('a private repository', () => {
  it('imports and exports with the sealed credentials, which never show', async () => {
    const url = await g.createRepo('private', { files: BASE_FILES });
    // The test's own clone needs them too.
    const authed = url.replace('http://', `http://${secret.username}:${secret.password}@`);
    const spaceId = (
      await t.api('POST', `/v1/orgs/${org.orgId}/spaces`, { token: org.adminToken, body: { title: 'Private', empty: true } })
    ).body.id as string;
    const put = await t.api('PUT', `/v1/spaces/${spaceId}/git/sync`, {
      token: org.adminToken,
      body: { url, ref: 'main', auth: secret, pollIntervalSeconds: 0 },
    });
    expect(put.status).toBe(200);
    const head = await remoteHead(g, 'private');
    await syncUntil(t, org.adminToken, spaceId, (x) => x.lastImportedCommit === head, 'the first import');

    // A push (made with the credentials) arrives through the webhook and is imported.
    const dir = await mkdtemp(path.join(tmpdir(), 'dp-private-'));
    await gitCli(['clone', '-q', authed, dir], dir);
    await writeFile(path.join(dir, 'README.md'), '# Home\n\nPrivate change.\n');
    await gitCli(['commit', '-q', '-am', 'Private change'], dir);
    await gitCli(['push', '-q', 'origin', 'HEAD:refs/heads/main'], dir);
    const after = (await gitCli(['rev-parse', 'HEAD'], dir)).trim();
    const r = await deliver(
      put.body.webhook.url,
      pushDelivery('gitlab', { ref: 'refs/heads/main', after, secret: put.body.webhook.secret }),
    );
    expect(r.status).toBe(202);
    await syncUntil(t, org.adminToken, spaceId, (x) => x.lastImportedCommit === after && x.status === 'idle', 'the pushed head');
    expect(await pageMarkdown(t, org.adminToken, spaceId, 'Home')).toContain('Private change.');

    // A merge on the platform is pushed with them.
    const api = (method: string, p: string, body?: unknown) => t.api(method, p, { token: org.adminToken, body });
    const cr = (await api('POST', `/v1/spaces/${spaceId}/change-requests`, { subject: 'Platform change' })).body;
    const guide = ((await api('GET', `/v1/spaces/${spaceId}/content/pages`)).body.pages as any[]).find((x) => x.title === 'Guide');
    const edit = await api('POST', `/v1/spaces/${spaceId}/change-requests/${cr.id}/content?compat=false`, {
      changes: [{ operation: 'update_page', page: guide.id, document: { markdown: '# Guide\n\nFrom the platform.\n' } }],
    });
    expect(edit.status).toBe(200);
    expect((await api('POST', `/v1/spaces/${spaceId}/change-requests/${cr.id}/merge`)).status).toBe(200);
    const exported = await syncUntil(t, org.adminToken, spaceId, (x) => !!x.lastExportedCommit && x.status === 'idle', 'the export');
    expect(await remoteHead(g, 'private')).toBe(exported.lastExportedCommit);

    // Wrong credentials: the next run fails with the reason.
    const wrong = await t.api('PUT', `/v1/spaces/${spaceId}/git/sync`, {
      token: org.adminToken,
      body: { url, ref: 'main', auth: { username: secret.username, password: 'wrong' }, pollIntervalSeconds: 0 },
    });
    expect(wrong.status).toBe(200);
    const failed = await syncUntil(t, org.adminToken, spaceId, (x) => x.status === 'error', 'the refused run');
    expect(failed.lastError).toMatch(/Authentication/);

    // Never shown, logged or stored in clear.
    expect(t.logs.length).toBeGreaterThan(10);
    expect(t.logs.filter(leaks)).toEqual([]);
    expect(leaks(JSON.stringify(put.body))).toBe(false);
    expect(leaks((await t.api('GET', `/v1/spaces/${spaceId}/git/sync`, { token: org.adminToken })).text)).toBe(false);
    const { rows } = await t.app.db.query(
      `SELECT payload::text AS p, coalesce(error, '') AS e, coalesce(result::text, '') AS r FROM operations`,
    );
    for (const row of rows) expect(leaks(row.p) || leaks(row.e) || leaks(row.r)).toBe(false);
    const { rows: syncs } = await t.app.db.query('SELECT row_to_json(g)::text AS j FROM git_syncs g');
    for (const row of syncs) expect(leaks(row.j)).toBe(false);
  });
});
