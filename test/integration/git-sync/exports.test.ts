// Git Sync, space to repository: a merged change request becomes one commit on the remote, authored
// by the merger with the change request's subject, and never comes back as an import; when both
// sides moved, the repository's side waits in a change request and nothing is forced.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { startGitServer, gitCli, type GitServer } from '../../helpers/git-server.js';
import { operationSettled } from '../../helpers/operations.js';
import { waitFor } from '../../helpers/http.js';
import { assertMatchesSpec } from '../../helpers/spec.js';
import { BASE_FILES, deliver, pageMarkdown, pushDelivery, remoteHead, syncRuns, syncSettled, syncUntil, workingCopy } from './helpers.js';

let g: GitServer;
beforeAll(async () => {
  g = await startGitServer();
});
afterAll(() => g.close());
const { t, org } = useTestApp({
  workers: ['git', 'search'],
  env: { WORKER_CONCURRENCY: '1', GIT_SYNC_POLL_TICK_MS: '200', GIT_SYNC_DEBOUNCE_MS: '100' },
  seedOrg: true,
});

const api = (method: string, p: string, body?: unknown, token = org.adminToken) => t.api(method, p, { token, body });

async function syncedSpace(name: string) {
  const url = await g.createRepo(name, { files: BASE_FILES });
  const spaceId = (await api('POST', `/v1/orgs/${org.orgId}/spaces`, { title: name, empty: true })).body.id as string;
  const put = await api('PUT', `/v1/spaces/${spaceId}/git/sync`, { url, ref: 'main', pollIntervalSeconds: 0 });
  expect(put.status, JSON.stringify(put.body)).toBe(200);
  const head = await remoteHead(g, name);
  await syncUntil(t, org.adminToken, spaceId, (x) => x.lastImportedCommit === head && x.status === 'idle', 'the first import');
  return { url, spaceId, secret: put.body.webhook.secret as string, hook: put.body.webhook.url as string, head };
}

async function pageId(spaceId: string, title: string, crId?: string) {
  const base = crId ? `/v1/spaces/${spaceId}/change-requests/${crId}/content` : `/v1/spaces/${spaceId}/content`;
  const pages = (await api('GET', `${base}/pages`)).body.pages as any[];
  return pages.find((p) => p.title === title).id as string;
}

/** A change request editing one page's markdown, merged by `token`'s user. */
async function mergeEdit(spaceId: string, title: string, markdown: string, subject: string, token = org.adminToken) {
  const cr = (await api('POST', `/v1/spaces/${spaceId}/change-requests`, { subject }, token)).body;
  const page = await pageId(spaceId, title);
  const edit = await api(
    'POST',
    `/v1/spaces/${spaceId}/change-requests/${cr.id}/content?compat=false`,
    { changes: [{ operation: 'update_page', page, document: { markdown } }] },
    token,
  );
  expect(edit.status, JSON.stringify(edit.body)).toBe(200);
  const merged = await api('POST', `/v1/spaces/${spaceId}/change-requests/${cr.id}/merge`, undefined, token);
  expect(merged.status, JSON.stringify(merged.body)).toBe(200);
  return cr;
}

/** `git log` of the remote branch: author name, e-mail and subject, newest first. */
async function remoteLog(name: string) {
  const out = await gitCli(['log', '--format=%H%x09%an%x09%ae%x09%s', 'refs/heads/main'], `${g.root}/${name}.git`);
  return out
    .trim()
    .split('\n')
    .map((l) => {
      const [commit, author, email, subject] = l.split('\t');
      return { commit, author, email, subject };
    });
}

/** Wait until the remote branch's log satisfies `ok`. */
async function waitForRemote(name: string, ok: (log: Awaited<ReturnType<typeof remoteLog>>) => boolean) {
  await waitFor(async () => ok(await remoteLog(name)), { what: `the remote ${name} to change`, timeoutMs: 60_000 });
}

async function remoteFile(name: string, file: string) {
  return gitCli(['show', `refs/heads/main:${file}`], `${g.root}/${name}.git`);
}

describe('export', () => {
  it('a merged change request becomes one commit by the merger with its subject, which never comes back as an import', async () => {
    const { spaceId, hook, secret, head } = await syncedSpace('export-merge');
    const merger = await t.seedUser(org.orgId, 'admin', 'Mona Merger');
    await mergeEdit(spaceId, 'Guide', '# Guide\n\nEdited on the platform.\n', 'Explain the guide better', merger.token);
    const s = await syncUntil(t, org.adminToken, spaceId, (x) => !!x.lastExportedCommit && x.status === 'idle', 'the export');
    const log = await remoteLog('export-merge');
    expect(log[0]).toMatchObject({
      commit: s.lastExportedCommit,
      author: 'Mona Merger',
      email: merger.email,
      subject: 'Explain the guide better',
    });
    expect(log[1].commit).toBe(head); // one commit on top of the imported head
    expect(await remoteFile('export-merge', 'guide.md')).toContain('Edited on the platform.');
    // Untouched files keep their bytes.
    expect(await remoteFile('export-merge', 'README.md')).toBe(BASE_FILES['README.md']);

    // The forge announces the export's own push: the run does nothing.
    const revision = (await api('GET', `/v1/spaces/${spaceId}`)).body.revision;
    const r = await deliver(hook, pushDelivery('github', { ref: 'refs/heads/main', after: s.lastExportedCommit, secret }));
    expect(r.status).toBe(202);
    const op = await operationSettled(t, r.location, { token: org.adminToken, timeoutMs: 60_000 });
    expect(op.result).toMatchObject({ action: 'none' });
    expect((await api('GET', `/v1/spaces/${spaceId}`)).body.revision).toBe(revision);
    const checked = await syncSettled(t, org.adminToken, spaceId);
    expect(checked.lastImportedCommit).toBe(head);
    // A run that found both sides equal still says when they were last seen in sync.
    expect(Date.parse(checked.lastSyncedAt)).toBeGreaterThan(Date.parse(s.lastSyncedAt));
    expect((await remoteLog('export-merge')).length).toBe(log.length);
    // getSpaceGitInfo reports the sync's last run that did something: the export, not the empty run after it.
    const info = await api('GET', `/v1/spaces/${spaceId}/git/info`);
    expect(info.status).toBe(200);
    assertMatchesSpec('GET', '/spaces/{spaceId}/git/info', 200, info.body);
    expect(info.body.operation).toMatchObject({ state: 'success', direction: 'export' });
  });
});

describe('an export that died after its push', () => {
  it('the next run recognises its commit on the remote and pushes nothing again', async () => {
    const { spaceId, hook, secret, head } = await syncedSpace('export-died');
    const { rows: before } = await t.app.db.query('SELECT synced_commit, synced_revision_id FROM git_syncs WHERE space_id = $1', [spaceId]);
    await mergeEdit(spaceId, 'Guide', '# Guide\n\nPushed, then the worker died.\n', 'Before the crash');
    const s = await syncUntil(t, org.adminToken, spaceId, (x) => !!x.lastExportedCommit && x.status === 'idle', 'the export');
    const log = await remoteLog('export-died');
    // As if the worker died right after the push: nothing of it recorded.
    await t.app.db.query(
      `UPDATE git_syncs SET status = 'exporting', synced_commit = $2, synced_revision_id = $3, last_exported_commit = NULL WHERE space_id = $1`,
      [spaceId, before[0].synced_commit, before[0].synced_revision_id],
    );
    await t.app.db.query('UPDATE git_sync_state SET last_commit = $2 WHERE space_id = $1', [spaceId, head]);
    const r = await deliver(hook, pushDelivery('github', { ref: 'refs/heads/main', after: s.lastExportedCommit, secret }));
    const op = await operationSettled(t, r.location, { token: org.adminToken, timeoutMs: 60_000 });
    expect(op.status, op.error).toBe('succeeded');
    expect(op.result).toMatchObject({ action: 'export' });
    expect(await remoteLog('export-died')).toEqual(log);
    const after = await syncSettled(t, org.adminToken, spaceId);
    expect(after).toMatchObject({ status: 'idle', lastError: null, lastExportedCommit: s.lastExportedCommit });
    expect((await api('GET', `/v1/spaces/${spaceId}/change-requests?status=open`)).body.items).toEqual([]);
  });
});

describe('export of several merges', () => {
  it('each merge since the last sync is a commit of its own, oldest first', async () => {
    const { spaceId, head } = await syncedSpace('export-two');
    await mergeEdit(spaceId, 'Guide', '# Guide\n\nFirst platform edit.\n', 'First change');
    await mergeEdit(spaceId, 'Home', '# Home\n\nSecond platform edit.\n', 'Second change');
    const revision = (await api('GET', `/v1/spaces/${spaceId}`)).body.revision;
    await waitForRemote('export-two', (log) => log[0]?.subject === 'Second change');
    const log = await remoteLog('export-two');
    const i = log.findIndex((c) => c.commit === head);
    expect(log.slice(0, i).map((c) => c.subject)).toEqual(['Second change', 'First change']);
    expect(await remoteFile('export-two', 'guide.md')).toContain('First platform edit.');
    expect(await remoteFile('export-two', 'README.md')).toContain('Second platform edit.');
    const s = await syncSettled(t, org.adminToken, spaceId);
    expect(s).toMatchObject({ status: 'idle', lastExportedCommit: log[0].commit });
    expect((await api('GET', `/v1/spaces/${spaceId}`)).body.revision).toBe(revision);
  });
});

describe('a monorepo', () => {
  it("a push to one space's folder is no conflict for another space edited meanwhile: it exports on top of the push", async () => {
    const files: Record<string, string> = {};
    for (const dir of ['packages/a', 'packages/b']) for (const [f, c] of Object.entries(BASE_FILES)) files[`${dir}/${f}`] = c;
    const url = await g.createRepo('mono', { files });
    const put = async (dir: string) => {
      const id = (await api('POST', `/v1/orgs/${org.orgId}/spaces`, { title: dir, empty: true })).body.id as string;
      const r = await api('PUT', `/v1/spaces/${id}/git/sync`, { url, ref: 'main', projectDirectory: dir, pollIntervalSeconds: 0 });
      expect(r.status).toBe(200);
      return { id, hook: r.body.webhook.url as string, secret: r.body.webhook.secret as string };
    };
    const a = await put('packages/a');
    const b = await put('packages/b');
    const first = await remoteHead(g, 'mono');
    for (const x of [a, b])
      await syncUntil(t, org.adminToken, x.id, (s) => s.lastImportedCommit === first && s.status === 'idle', 'the imports');

    const w = await workingCopy(g, 'mono');
    const pushed = await w.commit({ 'packages/b/guide.md': '# Guide\n\nPushed to b.\n' }, 'Edit b');
    await mergeEdit(a.id, 'Guide', '# Guide\n\nEdited in a.\n', 'Edit a on the platform');
    for (const x of [a, b]) {
      const r = await deliver(x.hook, pushDelivery('github', { ref: 'refs/heads/main', after: pushed, secret: x.secret }));
      expect(r.status).toBe(202);
    }
    const sa = await syncUntil(t, org.adminToken, a.id, (s) => !!s.lastExportedCommit && s.status === 'idle', 'the export of a');
    await syncUntil(t, org.adminToken, b.id, (s) => s.status === 'idle' && s.lastImportedCommit !== first, 'the import into b');
    expect(sa.lastError).toBeNull();
    const log = await remoteLog('mono');
    const i = log.findIndex((c) => c.commit === sa.lastExportedCommit);
    expect(log[i].subject).toBe('Edit a on the platform');
    expect(log[i + 1].commit).toBe(pushed); // on top of the push, which it keeps
    expect(await remoteFile('mono', 'packages/b/guide.md')).toContain('Pushed to b.');
    expect(await remoteFile('mono', 'packages/a/guide.md')).toContain('Edited in a.');
    expect(await pageMarkdown(t, org.adminToken, b.id, 'Guide')).toContain('Pushed to b.');
    expect((await api('GET', `/v1/spaces/${a.id}/change-requests?status=open`)).body.items).toEqual([]);
  });
});

describe('one-way syncs', () => {
  it('direction import never exports the space; a run finds nothing to do', async () => {
    const { spaceId, head, hook, secret } = await syncedSpace('import-only');
    expect(
      (
        await api('PUT', `/v1/spaces/${spaceId}/git/sync`, {
          url: `${g.url}/import-only.git`,
          ref: 'main',
          direction: 'import',
          pollIntervalSeconds: 0,
        })
      ).status,
    ).toBe(200);
    await mergeEdit(spaceId, 'Guide', '# Guide\n\nOnly here.\n', 'Local only');
    const r = await deliver(hook, pushDelivery('bearer', { ref: 'refs/heads/main', after: head, secret }));
    expect(r.status).toBe(202);
    const op = await operationSettled(t, r.location, { token: org.adminToken, timeoutMs: 60_000 });
    expect(op.result).toMatchObject({ action: 'none' });
    expect(await remoteHead(g, 'import-only')).toBe(head);
    expect((await syncSettled(t, org.adminToken, spaceId)).lastExportedCommit).toBeNull();
  });
});

describe('conflicts', () => {
  it('a first sync never overwrites a space with content of its own: the repository waits in a change request', async () => {
    const url = await g.createRepo('first-own', { files: BASE_FILES });
    const head = await remoteHead(g, 'first-own');
    const spaceId = (await api('POST', `/v1/orgs/${org.orgId}/spaces`, { title: 'Own', empty: true })).body.id as string;
    const cr0 = (await api('POST', `/v1/spaces/${spaceId}/change-requests`, { subject: 'Own page' })).body;
    const ins = await api('POST', `/v1/spaces/${spaceId}/change-requests/${cr0.id}/content?compat=false`, {
      changes: [{ operation: 'insert_page', title: 'Mine', document: { markdown: 'Written here first.' } }],
    });
    expect(ins.status, JSON.stringify(ins.body)).toBe(200);
    expect((await api('POST', `/v1/spaces/${spaceId}/change-requests/${cr0.id}/merge`)).status).toBe(200);

    const put = await api('PUT', `/v1/spaces/${spaceId}/git/sync`, { url, ref: 'main', pollIntervalSeconds: 0 });
    expect(put.status).toBe(200);
    const c = await syncUntil(t, org.adminToken, spaceId, (x) => x.status === 'conflict', 'the first sync to hold back');
    expect(c.lastError).toContain(head.slice(0, 7));
    expect(await pageMarkdown(t, org.adminToken, spaceId, 'Mine')).toContain('Written here first.');
    expect(await pageMarkdown(t, org.adminToken, spaceId, 'Home')).toBeUndefined();
    expect(await remoteHead(g, 'first-own')).toBe(head);
    const crs = (await api('GET', `/v1/spaces/${spaceId}/change-requests?status=open`)).body.items as any[];
    const cr = crs.find((x) => x.subject.includes(head.slice(0, 7)));
    expect(cr).toBeDefined();
    expect(await pageMarkdown(t, org.adminToken, spaceId, 'Home', cr.id)).toContain('version 1');
    // Merging it takes the repository's content; the sync is idle, the remote as it was.
    expect((await api('POST', `/v1/spaces/${spaceId}/change-requests/${cr.id}/merge`)).status).toBe(200);
    const s = await syncUntil(t, org.adminToken, spaceId, (x) => x.status === 'idle', 'the sync after the merge');
    expect(s.lastError).toBeNull();
    expect(await pageMarkdown(t, org.adminToken, spaceId, 'Home')).toContain('version 1');
    expect(await remoteHead(g, 'first-own')).toBe(head); // nothing to commit: the space is the repository now
  });

  it('both sides moved: a change request with the repository side, nothing forced; merging it exports both and returns to idle', async () => {
    const { spaceId, head } = await syncedSpace('conflict');
    const mainBefore = await pageMarkdown(t, org.adminToken, spaceId, 'Home');
    // The repository moves (no webhook), then the space does: the export run finds both moved.
    const w = await workingCopy(g, 'conflict');
    const pushed = await w.commit({ 'README.md': '# Home\n\nChanged in the repository.\n' }, 'Repository edit');
    await mergeEdit(spaceId, 'Guide', '# Guide\n\nChanged on the platform.\n', 'Platform edit');

    const c = await syncUntil(t, org.adminToken, spaceId, (x) => x.status === 'conflict', 'the conflict');
    expect(c.lastError).toContain(pushed.slice(0, 7));
    expect(c.lastError).toContain(head.slice(0, 7));
    // Nothing pushed, main untouched by the repository's side.
    expect(await remoteHead(g, 'conflict')).toBe(pushed);
    expect(await pageMarkdown(t, org.adminToken, spaceId, 'Home')).toBe(mainBefore);
    expect(await pageMarkdown(t, org.adminToken, spaceId, 'Guide')).toContain('Changed on the platform.');
    // The repository's side in an open change request naming the branch and the short commit.
    const crs = (await api('GET', `/v1/spaces/${spaceId}/change-requests?status=open`)).body.items as any[];
    const cr = crs.find((x) => x.subject.includes(pushed.slice(0, 7)));
    expect(cr, JSON.stringify(crs)).toBeDefined();
    expect(cr.subject).toContain('main');
    expect(await pageMarkdown(t, org.adminToken, spaceId, 'Home', cr.id)).toContain('Changed in the repository.');

    // Merging it exports the combined state on top of the repository's head and ends the conflict.
    const merged = await api('POST', `/v1/spaces/${spaceId}/change-requests/${cr.id}/merge`);
    expect(merged.status, JSON.stringify(merged.body)).toBe(200);
    const s = await syncUntil(t, org.adminToken, spaceId, (x) => x.status === 'idle' && !!x.lastExportedCommit, 'the resolution export');
    expect(s.lastError).toBeNull();
    const log = await remoteLog('conflict');
    expect(log[0].commit).toBe(s.lastExportedCommit);
    expect(log[0].subject).toBe(cr.subject);
    expect(log[1].commit).toBe(pushed); // a fast-forward on the repository's head
    expect(await remoteFile('conflict', 'README.md')).toContain('Changed in the repository.');
    expect(await remoteFile('conflict', 'guide.md')).toContain('Changed on the platform.');
    expect(await pageMarkdown(t, org.adminToken, spaceId, 'Home')).toContain('Changed in the repository.');
    const runs = await syncRuns(t, spaceId);
    expect(runs.filter((r) => r.result?.action === 'conflict').length).toBe(1);
  });
});
