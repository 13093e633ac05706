// Git Sync benchmark (issue 27): how long a team waits for a sync, each figure beside `git push`
// of the same change to the same smart-HTTP remote in the same run:
//   push -> readable (webhook)  a commit pushed with the git CLI, then the forge's signed push event
//                               (GitHub shape) -> git.sync run -> import -> the page's new text read
//                               through the API; timed from the start of `git push`
//   push -> readable (polling)  the same without a webhook: a space polled every 5 s (the shortest
//                               interval), the poll timer at its default; bounded by the interval
//   merge -> commit on remote   a change request merged through the API -> export after the
//                               debounce (GIT_SYNC_DEBOUNCE_MS) -> the branch head moved on the remote
// The repository is a generated 100-page docs tree (BENCH_GITSYNC_PAGES).
import { createHmac } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startWorkers } from '../workers/start.js';
import { startGitServer, gitCli } from '../test/helpers/git-server.js';
import { apiCall, Cleanup, envInt, log, median, pollUntil, seedOrg, startApi, type BenchEnv, type Row } from './lib.js';

const PAGES = envInt('BENCH_GITSYNC_PAGES', 100);
const ROUNDS = envInt('BENCH_GITSYNC_ROUNDS', 5);

const seconds = (started: number) => (performance.now() - started) / 1000;

export async function benchGitSync(env: BenchEnv, cleanup: Cleanup): Promise<Row[]> {
  const apiBase = await startApi(env, cleanup);
  // The git queue runs sync runs and the poll timer; search follows imports.
  const pool = startWorkers(env.app, ['git', 'search']);
  cleanup.add('close the git and search workers', () => pool.close(5_000));
  await env.app.markdown.start();
  const remote = await startGitServer();
  cleanup.add('stop the git remote', () => remote.close());
  const work = await mkdtemp(path.join(tmpdir(), 'bench-gitsync-'));
  cleanup.add(`remove ${work}`, () => rm(work, { recursive: true, force: true }));
  const { orgId, adminToken } = await seedOrg(env.app, 'Bench git sync org');
  const api = async (method: string, p: string, body?: unknown) => (await apiCall(apiBase, adminToken, method, p, body)).json;

  const files: Record<string, string> = { 'README.md': '# Home\n\nWelcome.\n' };
  const summary = ['# Table of contents', '', '* [Home](README.md)'];
  for (let i = 1; i <= PAGES; i++) {
    files[`page-${i}.md`] = `# Page ${i}\n\nText of page ${i}, revision 0.\n`;
    summary.push(`* [Page ${i}](page-${i}.md)`);
  }
  files['SUMMARY.md'] = `${summary.join('\n')}\n`;
  const url = await remote.createRepo('bench-sync', { files });
  const copy = await remote.clone('bench-sync');
  await remote.createRepo('bench-push-base', { files });
  const baselineCopy = await remote.clone('bench-push-base');

  /** Commit a new text of page 1 in a working copy; the push is timed by the caller. */
  const commit = async (dir: string, tag: string) => {
    await writeFile(path.join(dir, 'page-1.md'), `# Page 1\n\nText of page 1, ${tag}.\n`);
    await gitCli(['commit', '-q', '-am', tag], dir);
    return (await gitCli(['rev-parse', 'HEAD'], dir)).trim();
  };
  const push = (dir: string) => gitCli(['push', '-q', 'origin', 'HEAD:refs/heads/main'], dir);
  const timedPush = async (dir: string, tag: string) => {
    await commit(dir, tag);
    const started = performance.now();
    await push(dir);
    return seconds(started);
  };

  const newSyncedSpace = async (title: string, pollIntervalSeconds: number) => {
    const space = await api('POST', `/v1/orgs/${orgId}/spaces`, { title, empty: true });
    const sync = await api('PUT', `/v1/spaces/${space.id}/git/sync`, { url, ref: 'main', pollIntervalSeconds });
    await pollUntil(
      async () => ((await api('GET', `/v1/spaces/${space.id}/git/sync`)).lastImportedCommit ? true : undefined),
      50,
      120_000,
      'the first import of the synced space',
    );
    const content = await api('GET', `/v1/spaces/${space.id}/content`);
    const page = (content.pages as any[]).find((p) => p.path === 'page-1' || p.slug === 'page-1');
    if (!page) throw new Error('page-1 not found after the first import');
    return { spaceId: space.id as string, pageId: page.id as string, webhook: sync.webhook as { url: string; secret: string } };
  };
  const readable = (spaceId: string, pageId: string, tag: string) =>
    pollUntil(
      async () => {
        const page = await api('GET', `/v1/spaces/${spaceId}/content/page/${pageId}?format=markdown`);
        return String(page.markdown ?? '').includes(tag) ? true : undefined;
      },
      10,
      120_000,
      `"${tag}" readable in the space`,
    );

  log(`git sync: a ${PAGES}-page repository, one space synced by webhook, one by polling ...`);
  const hooked = await newSyncedSpace('Bench sync (webhook)', 0);
  const polled = await newSyncedSpace('Bench sync (polling)', 5);
  const hookUrl = `${apiBase}${new URL(hooked.webhook.url).pathname}`;

  const times = { pushBase: [] as number[], webhook: [] as number[], polling: [] as number[], merge: [] as number[] };
  for (let round = 1; round <= ROUNDS; round++) {
    log(`round ${round}/${ROUNDS}: git push, push -> readable by webhook and by polling, merge -> commit ...`);
    times.pushBase.push(await timedPush(baselineCopy, `base ${round}`));

    // Webhook: the push, then the forge's delivery, as GitHub sends it after a push.
    const tag = `webhook ${round}`;
    const after = await commit(copy, tag);
    let started = performance.now();
    await push(copy);
    const raw = JSON.stringify({ ref: 'refs/heads/main', before: '0'.repeat(40), after, head_commit: { id: after }, commits: [] });
    const signature = `sha256=${createHmac('sha256', hooked.webhook.secret).update(raw).digest('hex')}`;
    const res = await fetch(hookUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-github-event': 'push', 'x-hub-signature-256': signature },
      body: raw,
    });
    if (res.status !== 202) throw new Error(`webhook answered ${res.status}: ${await res.text()}`);
    await readable(hooked.spaceId, hooked.pageId, tag);
    times.webhook.push(seconds(started));
    // The polled space sees the same push by itself.
    await readable(polled.spaceId, polled.pageId, tag);
    times.polling.push(seconds(started));

    // Merge -> commit: a change request edits a page and is merged; the export follows the debounce.
    const before = (await gitCli(['rev-parse', 'refs/heads/main'], path.join(remote.root, 'bench-sync.git'))).trim();
    const cr = await api('POST', `/v1/spaces/${hooked.spaceId}/change-requests`, { subject: `Bench merge ${round}` });
    await api('POST', `/v1/spaces/${hooked.spaceId}/change-requests/${cr.id}/content?compat=false`, {
      changes: [{ operation: 'update_page', page: hooked.pageId, document: { markdown: `# Page 1\n\nMerged ${round}.\n` } }],
    });
    started = performance.now();
    await api('POST', `/v1/spaces/${hooked.spaceId}/change-requests/${cr.id}/merge`);
    await pollUntil(
      async () => {
        const head = (await gitCli(['rev-parse', 'refs/heads/main'], path.join(remote.root, 'bench-sync.git'))).trim();
        return head !== before ? true : undefined;
      },
      20,
      120_000,
      'the merge exported to the remote',
    );
    times.merge.push(seconds(started));
    // Both working copies follow the remote before the next round (the polled space imports the export too).
    await gitCli(['pull', '-q', '--rebase', 'origin', 'main'], copy);
    await readable(polled.spaceId, polled.pageId, `Merged ${round}`);
  }
  const debounce = env.app.config.gitSync.debounceMs;
  return [
    {
      benchmark: `Git Sync push -> readable by webhook, ${PAGES}-page repository`,
      metric: 'seconds from the start of git push until the new text reads through the API (baseline: git push alone)',
      ours: median(times.webhook),
      baseline: median(times.pushBase),
      digits: 2,
      higherIsBetter: false,
    },
    {
      benchmark: `Git Sync push -> readable by polling (every 5 s), ${PAGES}-page repository`,
      metric: 'seconds from the start of git push until the new text reads through the API (baseline: git push alone)',
      ours: median(times.polling),
      baseline: median(times.pushBase),
      digits: 2,
      higherIsBetter: false,
    },
    {
      benchmark: `Git Sync merge -> commit on the remote (debounce ${debounce} ms), ${PAGES}-page repository`,
      metric: 'seconds from the merge request until the branch head moved (baseline: git push of a one-page commit)',
      ours: median(times.merge),
      baseline: median(times.pushBase),
      digits: 2,
      higherIsBetter: false,
    },
  ];
}
