// Git Sync's contract: PUT/GET/DELETE /v1/spaces/{spaceId}/git/sync answer the `git-sync` object
// (credentials never shown, the webhook secret only to space admins), admins only, the server-side
// fetch rules, bad bodies; the routes are described in /openapi.json.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { startGitServer, type GitServer } from '../../helpers/git-server.js';
import { BASE_FILES, syncRuns } from './helpers.js';

let g: GitServer;
beforeAll(async () => {
  g = await startGitServer({ auth: { username: 'bot', password: 's3cret-token' } });
});
afterAll(() => g.close());
// No workers: the runs a PUT starts stay queued (what they do is tested in the other files).
const { t, org } = useTestApp({ seedOrg: true });

const api = (method: string, p: string, body?: unknown, token = org.adminToken) => t.api(method, p, { token, body });
const newSpace = async () => (await api('POST', `/v1/orgs/${org.orgId}/spaces`, { title: 'Synced', empty: true })).body.id as string;

describe('PUT/GET/DELETE /v1/spaces/{spaceId}/git/sync', () => {
  it('answers the git-sync object; credentials sealed and never shown; the secret only to admins', async () => {
    const url = await g.createRepo('contract', { files: BASE_FILES });
    const withCreds = url.replace('http://', 'http://bot:s3cret-token@');
    const s = await newSpace();
    const put = await api('PUT', `/v1/spaces/${s}/git/sync`, { url: withCreds, ref: 'main', projectDirectory: 'docs' });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body).toEqual({
      object: 'git-sync',
      url,
      ref: 'refs/heads/main',
      projectDirectory: 'docs',
      direction: 'bidirectional',
      pollIntervalSeconds: 60,
      status: 'idle',
      lastImportedCommit: null,
      lastExportedCommit: null,
      lastSyncedAt: null,
      lastError: null,
      webhook: {
        url: expect.stringMatching(new RegExp(`^${t.baseUrl}/v1/git-sync/hooks/[\\w-]+$`)),
        secret: expect.stringMatching(/^[0-9a-f]{64}$/),
      },
    });
    expect(JSON.stringify(put.body)).not.toContain('s3cret-token');
    // Stored sealed: neither the row nor the run's payload holds it in clear.
    const { rows } = await t.app.db.query('SELECT * FROM git_syncs WHERE space_id = $1', [s]);
    expect(JSON.stringify(rows)).not.toContain('s3cret-token');
    expect(JSON.stringify(rows)).not.toContain(put.body.webhook.secret);
    const runs = await syncRuns(t, s);
    expect(runs.length).toBe(1); // the PUT started a first run
    const { rows: ops } = await t.app.db.query('SELECT payload FROM operations WHERE id = $1', [runs[0].id]);
    expect(ops[0].payload).toEqual({ syncId: rows[0].id });

    const get = await api('GET', `/v1/spaces/${s}/git/sync`);
    expect(get.status).toBe(200);
    expect(get.body).toEqual(put.body);
    // A reader sees the sync without the secret; only admins may change it.
    const reader = await t.seedUser(org.orgId, 'read');
    const editor = await t.seedUser(org.orgId, 'edit');
    const seen = await api('GET', `/v1/spaces/${s}/git/sync`, undefined, reader.token);
    expect(seen.status).toBe(200);
    expect(seen.body.webhook).toEqual({ url: put.body.webhook.url, secret: null });
    expect((await api('PUT', `/v1/spaces/${s}/git/sync`, { url, ref: 'main' }, editor.token)).status).toBe(403);
    expect((await api('DELETE', `/v1/spaces/${s}/git/sync`, undefined, editor.token)).status).toBe(403);
    const outsider = await t.seedUser(undefined, undefined);
    expect((await api('GET', `/v1/spaces/${s}/git/sync`, undefined, outsider.token)).status).toBe(404);

    // A second PUT with other settings keeps the webhook, and the credentials for the same URL.
    const again = await api('PUT', `/v1/spaces/${s}/git/sync`, {
      url,
      ref: 'refs/heads/main',
      direction: 'import',
      pollIntervalSeconds: 0,
    });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ direction: 'import', pollIntervalSeconds: 0, projectDirectory: null, webhook: put.body.webhook });
    const { rows: after } = await t.app.db.query('SELECT credentials FROM git_syncs WHERE space_id = $1', [s]);
    expect(after[0].credentials).toBeTruthy();
    // While a run is queued, a PUT does not queue another one.
    expect((await syncRuns(t, s)).length).toBe(1);

    // Credentials in `auth` instead of the URL.
    const s2 = await newSpace();
    const viaAuth = await api('PUT', `/v1/spaces/${s2}/git/sync`, {
      url,
      ref: 'main',
      auth: { username: 'bot', password: 's3cret-token' },
    });
    expect(viaAuth.status).toBe(200);
    expect(JSON.stringify(viaAuth.body)).not.toContain('s3cret-token');

    // DELETE: 204, then 404 on GET; 204 again when there is none; the queued run finds no sync.
    expect((await api('DELETE', `/v1/spaces/${s}/git/sync`)).status).toBe(204);
    expect((await api('GET', `/v1/spaces/${s}/git/sync`)).status).toBe(404);
    expect((await api('DELETE', `/v1/spaces/${s}/git/sync`)).status).toBe(204);
    expect((await t.api('POST', put.body.webhook.url.replace(t.baseUrl, ''), { body: { ref: 'refs/heads/main' } })).status).toBe(404);
  });

  it('refuses bad bodies (400) and private addresses unless allowed', async () => {
    const s = await newSpace();
    const bad: unknown[] = [
      {},
      { url: 'not a url', ref: 'main' },
      { url: 'ftp://example.com/repo.git', ref: 'main' },
      { url: 'https://example.com/repo.git', ref: 'refs/tags/v1' },
      { url: 'https://example.com/repo.git', ref: 'bad..ref' },
      { url: 'https://example.com/repo.git', ref: 'main', direction: 'sideways' },
      { url: 'https://example.com/repo.git', ref: 'main', pollIntervalSeconds: 3 },
      { url: 'https://example.com/repo.git', ref: 'main', pollIntervalSeconds: -1 },
      { url: 'https://example.com/repo.git', ref: 'main', projectDirectory: '../outside' },
      { url: 'https://example.com/repo.git', ref: 'main', auth: { username: 'x' } },
      { url: 'https://example.com/repo.git', ref: 'main', extra: true },
    ];
    for (const body of bad) {
      const r = await api('PUT', `/v1/spaces/${s}/git/sync`, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.code).toBe(400);
    }
    expect((await api('GET', `/v1/spaces/${s}/git/sync`)).status).toBe(404);
  });

  it('is listed in /openapi.json', async () => {
    const doc = (await t.api('GET', '/openapi.json')).body;
    expect(Object.keys(doc.paths['/v1/spaces/{spaceId}/git/sync']).sort()).toEqual(['delete', 'get', 'put']);
    expect(doc.paths['/v1/spaces/{spaceId}/git/sync'].put.requestBody).toBeDefined();
    expect(doc.paths['/v1/git-sync/hooks/{hookId}'].post.security).toEqual([]);
  });
});

describe('the server-side fetch rules', () => {
  const { t: strict, org: strictOrg } = useTestApp({ seedOrg: true, env: { ALLOW_PRIVATE_FETCH: 'false' } });
  it('a repository on a loopback or private address is refused', async () => {
    const s = (
      await strict.api('POST', `/v1/orgs/${strictOrg.orgId}/spaces`, { token: strictOrg.adminToken, body: { title: 'x', empty: true } })
    ).body.id;
    for (const url of ['http://127.0.0.1:9/repo.git', 'http://10.0.0.1/repo.git', 'http://[::1]/repo.git']) {
      const r = await strict.api('PUT', `/v1/spaces/${s}/git/sync`, { token: strictOrg.adminToken, body: { url, ref: 'main' } });
      expect(r.status, url).toBe(400);
      expect(r.body.error.message).toContain('body.url');
    }
  });
});
