// What the Git Sync tests share: a working copy to push from with the git CLI, webhook deliveries
// in each forge's shape, and reads of a sync and its runs.
import { createHmac } from 'node:crypto';
import { writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'vitest';
import type { TestApp } from '../../helpers/app.js';
import { gitCli, type GitServer } from '../../helpers/git-server.js';
import { waitFor } from '../../helpers/http.js';

export const BASE_FILES = {
  'README.md': '# Home\n\nWelcome, version 1.\n',
  'guide.md': '# Guide\n\nHow to, version 1.\n',
  'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Guide](guide.md)\n',
};

/** A working copy of a remote repository: write files, commit, push with the git CLI. */
export async function workingCopy(g: GitServer, name: string) {
  const dir = await g.clone(name);
  return {
    dir,
    async commit(files: Record<string, string>, message: string, push = true): Promise<string> {
      for (const [p, content] of Object.entries(files)) {
        await mkdir(path.dirname(path.join(dir, p)), { recursive: true });
        await writeFile(path.join(dir, p), content);
      }
      await gitCli(['add', '-A'], dir);
      await gitCli(['commit', '-q', '-m', message], dir);
      if (push) await gitCli(['push', '-q', 'origin', 'HEAD:refs/heads/main'], dir);
      return (await gitCli(['rev-parse', 'HEAD'], dir)).trim();
    },
    async pull(): Promise<void> {
      await gitCli(['pull', '-q', '--ff-only', 'origin', 'main'], dir);
    },
  };
}

/** The commit a branch of a bare repository on the test remote points at. */
export async function remoteHead(g: GitServer, name: string, branch = 'main'): Promise<string> {
  return (await gitCli(['rev-parse', `refs/heads/${branch}`], path.join(g.root, `${name}.git`))).trim();
}

export type Forge = 'github' | 'gitlab' | 'gitea' | 'forgejo' | 'bearer';

/** A push event as each forge sends it (real field names), signed with `secret` unless told otherwise. */
export function pushDelivery(forge: Forge, o: { ref: string; after: string; before?: string; secret: string; event?: string }) {
  const before = o.before ?? '0'.repeat(40);
  const repository = { full_name: 'acme/docs', clone_url: 'https://git.example.com/acme/docs.git' };
  let body: Record<string, unknown>;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const hmac = (raw: string) => createHmac('sha256', o.secret).update(raw).digest('hex');
  switch (forge) {
    case 'github':
      body = { ref: o.ref, before, after: o.after, repository, head_commit: { id: o.after, message: 'Update' }, commits: [] };
      break;
    case 'gitlab':
      body = {
        object_kind: 'push',
        event_name: 'push',
        ref: o.ref,
        before,
        after: o.after,
        checkout_sha: o.after,
        project: repository,
        commits: [],
      };
      break;
    case 'gitea':
    case 'forgejo':
      body = { ref: o.ref, before, after: o.after, compare_url: '', repository, commits: [], head_commit: { id: o.after } };
      break;
    case 'bearer':
      body = { ref: o.ref, after: o.after };
  }
  const raw = JSON.stringify(body);
  switch (forge) {
    case 'github':
      headers['x-github-event'] = o.event ?? 'push';
      headers['x-github-delivery'] = '72d3162e-cc78-11e3-81ab-4c9367dc0958';
      headers['x-hub-signature-256'] = `sha256=${hmac(raw)}`;
      break;
    case 'gitlab':
      headers['x-gitlab-event'] = o.event ?? 'Push Hook';
      headers['x-gitlab-token'] = o.secret;
      break;
    case 'gitea':
      headers['x-gitea-event'] = o.event ?? 'push';
      headers['x-gitea-delivery'] = 'f6266f16-1bf3-46a5-9ea4-602e06ead473';
      headers['x-gitea-signature'] = hmac(raw);
      break;
    case 'forgejo':
      headers['x-forgejo-event'] = o.event ?? 'push';
      headers['x-forgejo-signature'] = hmac(raw);
      break;
    case 'bearer':
      headers.authorization = `Bearer ${o.secret}`;
  }
  return { raw, headers };
}

/** POST a delivery to a webhook URL as a forge would (no API token). */
export async function deliver(url: string, d: { raw: string; headers: Record<string, string> }) {
  const r = await fetch(url, { method: 'POST', headers: d.headers, body: d.raw });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : undefined, location: r.headers.get('location') };
}

/** The Git Sync runs of a space, oldest first (operation rows: status and result). */
export async function syncRuns(t: TestApp, spaceId: string) {
  const { rows } = await t.app.db.query(
    `SELECT id, status, result, error, attempts FROM operations WHERE kind = 'git.sync' AND target_id = $1 ORDER BY created_at`,
    [spaceId],
  );
  return rows as { id: string; status: string; result: any; error: string | null; attempts: number }[];
}

/** Wait until no run of the space is queued or running, then return the sync object. */
export async function syncSettled(t: TestApp, token: string, spaceId: string, what = 'the sync runs to settle') {
  await waitFor(async () => (await syncRuns(t, spaceId)).every((r) => ['succeeded', 'failed', 'skipped'].includes(r.status)), {
    what,
    timeoutMs: 60_000,
  });
  const r = await t.api('GET', `/v1/spaces/${spaceId}/git/sync`, { token });
  expect(r.status).toBe(200);
  return r.body;
}

/** Wait until the sync object satisfies `ok`; returns it. */
export async function syncUntil(t: TestApp, token: string, spaceId: string, ok: (s: any) => boolean, what: string) {
  return waitFor(
    async () => {
      const r = await t.api('GET', `/v1/spaces/${spaceId}/git/sync`, { token });
      return r.status === 200 && ok(r.body) ? r.body : null;
    },
    { what, timeoutMs: 60_000 },
  );
}

/** The markdown of the page titled `title` of the space's main content (or a change request's). */
export async function pageMarkdown(t: TestApp, token: string, spaceId: string, title: string, crId?: string): Promise<string | undefined> {
  const base = crId ? `/v1/spaces/${spaceId}/change-requests/${crId}/content` : `/v1/spaces/${spaceId}/content`;
  const pages = (await t.api('GET', `${base}/pages`, { token })).body.pages as any[];
  const find = (list: any[]): any => list.find((p) => p.title === title) ?? list.map((p) => find(p.pages ?? [])).find(Boolean);
  const page = find(pages);
  if (!page) return undefined;
  return (await t.api('GET', `${base}/page/${page.id}`, { token })).body.markdown;
}
