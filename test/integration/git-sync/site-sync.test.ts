// Site-level Git Sync (issue 27, item 4): PUT /v1/orgs/{org}/sites/{site}/git/sync on a repository
// in the shape of a real multi-space GitBook site (docs.yaml, five spaces in five directories each
// with its own .gitbook.yaml, section groups, three language variants), pushed to with the git CLI
// and announced by signed webhooks; a change made through the API written back as one commit.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { gitCli, startGitServer, type GitServer } from '../../helpers/git-server.js';
import { waitFor } from '../../helpers/http.js';
import { deliver, pageMarkdown, pushDelivery, remoteHead, syncRuns, workingCopy, type Forge } from './helpers.js';

const DOCS_YAML = `site:
  title: Northwind Documentation
  structure:
    - type: section
      key: section-1
      title: Documentation
      path: documentation
      default: true
      children:
        - type: space
          key: space-1
          title: English
          path: northwind-docs
          default: true
          content:
            directory: ./handbook
            language: en
        - type: space
          key: space-5
          title: Français
          path: fr
          content:
            directory: null
            language: fr
        - type: space
          key: space-6
          title: 中文
          path: zh
          content:
            directory: null
            language: zh
        - type: space
          key: space-8
          title: 日本語
          path: ja
          content:
            directory: null
            language: ja
    - type: section
      key: section-3
      title: Developers
      path: developers
      children:
        - type: space
          key: space-3
          title: Developer Documentation
          path: developer-docs
          default: true
          content:
            directory: ./api
            language: en
    - type: section-group
      key: section-group-1
      title: Resources
      children:
        - type: section
          key: section-2
          title: Changelog
          path: changelog
          children:
            - type: space
              key: space-2
              title: Public Changelog
              path: public-changelog
              default: true
              content:
                directory: ./changelog
                language: en
        - type: section
          key: section-5
          title: Policies
          path: policies
          children:
            - type: space
              key: space-7
              title: Site Policy
              path: site-policy
              default: true
              content:
                directory: ./policies
                language: en
        - type: section
          key: section-4
          title: Guides
          path: guides
          children:
            - type: space
              key: space-4
              title: Northwind Guides
              path: northwind-guides
              default: true
              content:
                directory: ./guides
                language: en
`;

const DIRECTORIES = { handbook: 'Handbook', api: 'API', changelog: 'Changelog', policies: 'Policies', guides: 'Guides' };

function repositoryFiles(): Record<string, string> {
  const files: Record<string, string> = { 'docs.yaml': DOCS_YAML, 'README.md': '# Northwind\n\nThe docs live in folders.\n' };
  for (const [dir, name] of Object.entries(DIRECTORIES)) {
    files[`${dir}/.gitbook.yaml`] = 'root: ./\n\nstructure:\n  readme: README.md\n  summary: SUMMARY.md\n';
    files[`${dir}/SUMMARY.md`] = `# Table of contents\n\n* [${name} home](README.md)\n* [${name} setup](setup.md)\n`;
    files[`${dir}/README.md`] = `# ${name} home\n\nWelcome to the ${name.toLowerCase()} of Northwind.\n`;
    files[`${dir}/setup.md`] = `# ${name} setup\n\nInstall the ${name.toLowerCase()} tools first.\n`;
  }
  return files;
}

let g: GitServer;
beforeAll(async () => {
  g = await startGitServer();
});
afterAll(() => g.close());
const { t, org } = useTestApp({
  workers: ['git', 'translation', 'search'],
  env: { WORKER_CONCURRENCY: '2', GIT_SYNC_POLL_TICK_MS: '200', GIT_SYNC_DEBOUNCE_MS: '100' },
  seedOrg: true,
});

const api = (method: string, p: string, body?: unknown, token = org.adminToken) => t.api(method, p, { token, body });
const settled = (runs: { status: string }[]) => runs.every((r) => ['succeeded', 'failed', 'skipped'].includes(r.status));

async function siteView(siteId: string) {
  const base = `/v1/orgs/${org.orgId}/sites/${siteId}`;
  const [sections, groups, siteSpaces] = await Promise.all(
    ['sections', 'section-groups', 'site-spaces'].map(async (what) => {
      const r = await api('GET', `${base}/${what}?limit=100`);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body.items as any[];
    }),
  );
  return { sections, groups, siteSpaces };
}

describe('a whole site synced from docs.yaml', () => {
  let siteId: string;
  let base: string;
  let hook: string;
  let secret: string;
  let work: Awaited<ReturnType<typeof workingCopy>>;
  const spaceOf: Record<string, string> = {};

  /** The site sync, once `ok` holds for it. */
  const siteSyncUntil = (ok: (s: any) => boolean, what: string) =>
    waitFor(
      async () => {
        const r = await api('GET', `${base}/git/sync`);
        return r.status === 200 && ok(r.body) ? r.body : null;
      },
      { what, timeoutMs: 90_000 },
    );
  /** Every run of the site and of its spaces finished. */
  const allSettled = (what: string) =>
    waitFor(
      async () => {
        for (const id of [siteId, ...Object.values(spaceOf)]) if (!settled(await syncRuns(t, id))) return false;
        return true;
      },
      { what, timeoutMs: 90_000 },
    );
  const push = async (after: string, forge: Forge = 'github') => {
    const d = await deliver(hook, pushDelivery(forge, { ref: 'refs/heads/main', after, secret }));
    expect(d.status, JSON.stringify(d.body)).toBe(202);
    expect(d.body.accepted).toBe(true);
  };

  beforeAll(async () => {
    const url = await g.createRepo('northwind', { files: repositoryFiles() });
    work = await workingCopy(g, 'northwind');
    const site = await api('POST', `/v1/orgs/${org.orgId}/sites`, { title: 'Untitled site' });
    expect(site.status).toBe(201);
    siteId = site.body.id;
    base = `/v1/orgs/${org.orgId}/sites/${siteId}`;
    const put = await api('PUT', `${base}/git/sync`, { url, ref: 'main', pollIntervalSeconds: 0 });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body).toMatchObject({ object: 'git-sync', url, ref: 'refs/heads/main', direction: 'bidirectional' });
    hook = put.body.webhook.url;
    secret = put.body.webhook.secret;
    expect(secret).toBeTruthy();
    const head = await remoteHead(g, 'northwind');
    await siteSyncUntil((s) => s.lastImportedCommit === head && s.status === 'idle', 'the first site sync');
  }, 120_000);

  it('gets its sections, groups, site spaces and variants, each space imported from its directory', async () => {
    const v = await siteView(siteId);
    expect((await api('GET', base)).body.title).toBe('Northwind Documentation');
    expect(v.sections.map((s) => [s.title, s.path, s.default])).toEqual([
      ['Documentation', 'documentation', true],
      ['Developers', 'developers', false],
      ['Changelog', 'changelog', false],
      ['Policies', 'policies', false],
      ['Guides', 'guides', false],
    ]);
    expect(v.groups.map((x) => x.title)).toEqual(['Resources']);
    expect(v.groups[0].sections.map((s: any) => s.title)).toEqual(['Changelog', 'Policies', 'Guides']);
    const byPath = (p: string) => v.siteSpaces.find((ss) => ss.path === p);
    for (const [dir, p] of [
      ['handbook', 'northwind-docs'],
      ['api', 'developer-docs'],
      ['changelog', 'public-changelog'],
      ['policies', 'site-policy'],
      ['guides', 'northwind-guides'],
    ])
      spaceOf[dir] = byPath(p).space.id;
    expect(new Set(Object.values(spaceOf)).size).toBe(5);
    // Each space is synced from its own directory by a space sync of its own, and imported.
    for (const [dir, name] of Object.entries(DIRECTORIES)) {
      const sync = await api('GET', `/v1/spaces/${spaceOf[dir]}/git/sync`);
      expect(sync.status).toBe(200);
      expect(sync.body).toMatchObject({ projectDirectory: dir, pollIntervalSeconds: 0, direction: 'bidirectional' });
      const titles = await waitFor(
        async () => {
          const pages = (await api('GET', `/v1/spaces/${spaceOf[dir]}/content/pages`)).body.pages as any[];
          return pages.length === 2 ? pages.map((p) => p.title) : null;
        },
        { what: `the import of ${dir}`, timeoutMs: 90_000 },
      );
      expect(titles).toEqual([`${name} home`, `${name} setup`]);
    }
    // The three variants: translations of the handbook, filled once it was imported.
    const docs = v.sections[0];
    expect(docs.siteSpaces.map((ss: any) => [ss.path, ss.space.language])).toEqual([
      ['northwind-docs', 'en'],
      ['fr', 'fr'],
      ['zh', 'zh'],
      ['ja', 'ja'],
    ]);
    for (const ss of docs.siteSpaces.slice(1)) {
      await waitFor(
        async () => {
          const pages = (await api('GET', `/v1/spaces/${ss.space.id}/content/pages`)).body.pages as any[];
          return pages.length === 2 && pages.every((p) => /⟦/.test(p.title));
        },
        { what: `the ${ss.path} variant translated`, timeoutMs: 90_000 },
      );
    }
    await allSettled('the first runs');
  }, 180_000);

  it('follows a push changing a page and docs.yaml (a section renamed, one removed), keeping the removed space', async () => {
    await work.pull();
    const text = DOCS_YAML.replace('      title: Developers\n', '      title: Developer hub\n').replace(
      / {8}- type: section\n {10}key: section-5\n[\s\S]*?directory: \.\/policies\n {16}language: en\n/,
      '',
    );
    expect(text).not.toContain('section-5');
    const head = await work.commit(
      { 'docs.yaml': text, 'handbook/setup.md': '# Handbook setup\n\nInstall the handbook tools, version 2.\n' },
      'Rename Developers, drop Policies',
    );
    await push(head);
    await siteSyncUntil((s) => s.lastImportedCommit === head && s.status === 'idle', 'the site sync of the push');
    await waitFor(async () => /version 2/.test((await pageMarkdown(t, org.adminToken, spaceOf.handbook, 'Handbook setup')) ?? ''), {
      what: 'the handbook imported again',
      timeoutMs: 90_000,
    });
    const v = await siteView(siteId);
    expect(v.sections.map((s) => s.title)).toEqual(['Documentation', 'Developer hub', 'Changelog', 'Guides']);
    expect(v.siteSpaces.some((ss) => ss.space.id === spaceOf.policies)).toBe(false);
    expect((await api('GET', `/v1/spaces/${spaceOf.policies}`)).status).toBe(200);
    await allSettled('the runs of the push');
    // The imports moved the site's version, not its structure: nothing was written back.
    expect(await remoteHead(g, 'northwind')).toBe(head);
    expect((await syncRuns(t, siteId)).filter((r) => r.result?.action === 'export')).toEqual([]);
  }, 120_000);

  it('writes docs.yaml back as one commit when a section is renamed through the API, with no import loop', async () => {
    const before = await remoteHead(g, 'northwind');
    const v = await siteView(siteId);
    const changelog = v.sections.find((s) => s.path === 'changelog');
    const patch = await api('PATCH', `${base}/sections/${changelog.id}`, { title: 'Release notes' });
    expect(patch.status, JSON.stringify(patch.body)).toBe(200);
    const sync = await siteSyncUntil((s) => !!s.lastExportedCommit && s.status === 'idle', 'docs.yaml written back');
    const head = await remoteHead(g, 'northwind');
    expect(sync.lastExportedCommit).toBe(head);
    const bare = path.join(g.root, 'northwind.git');
    expect((await gitCli(['rev-list', '--count', `${before}..${head}`], bare)).trim()).toBe('1');
    expect((await gitCli(['diff', '--name-only', before, head], bare)).trim()).toBe('docs.yaml');
    const written = await gitCli(['show', `${head}:docs.yaml`], bare);
    expect(written).toContain('title: Release notes\n');
    expect(written).toContain('title: Developer hub\n');
    expect(written).not.toContain('section-5');
    // The push of that commit comes back as a delivery: nothing is imported, nothing more written.
    await push(head);
    await allSettled('the run of the written commit');
    const after = (await api('GET', `${base}/git/sync`)).body;
    expect(after).toMatchObject({ status: 'idle', lastExportedCommit: head });
    expect(after.lastImportedCommit).not.toBe(head);
    expect(await remoteHead(g, 'northwind')).toBe(head);
    expect((await siteView(siteId)).sections.map((s) => s.title)).toEqual(['Documentation', 'Developer hub', 'Release notes', 'Guides']);
    // The space syncs did not see their folders move: no new revision of the handbook.
    const handbookRuns = await syncRuns(t, spaceOf.handbook);
    expect(handbookRuns.filter((r) => r.result?.action === 'import' && !r.result?.unchanged)).toHaveLength(2);
  }, 120_000);

  it('refuses a bad docs.yaml: status error naming the line, the site unchanged', async () => {
    await work.pull();
    const before = await siteView(siteId);
    const current = await gitCli(['show', 'HEAD:docs.yaml'], work.dir);
    const lines = current.split('\n');
    const at = lines.findIndex((l) => l.includes('key: section-3'));
    lines[at] = lines[at].replace('key: section-3', 'key: [section-3');
    const head = await work.commit({ 'docs.yaml': lines.join('\n') }, 'Break docs.yaml');
    await push(head, 'gitlab');
    const sync = await siteSyncUntil((s) => s.status === 'error', 'the bad docs.yaml refused');
    expect(sync.lastError).toMatch(/^docs\.yaml:\d+: /);
    const line = Number(/^docs\.yaml:(\d+)/.exec(sync.lastError)![1]);
    expect(Math.abs(line - (at + 1))).toBeLessThanOrEqual(1);
    await allSettled('the failed run');
    expect(await siteView(siteId)).toEqual(before);
  }, 120_000);

  it('recovers with a good docs.yaml; a directory that moves takes its space with it', async () => {
    await work.pull();
    const good = await gitCli(['show', 'HEAD~1:docs.yaml'], work.dir);
    expect(good).toContain('directory: ./guides\n');
    const head = await work.commit(
      {
        'docs.yaml': good.replace('directory: ./guides\n', 'directory: ./guides-v2\n'),
        'guides-v2/.gitbook.yaml': 'root: ./\n\nstructure:\n  readme: README.md\n  summary: SUMMARY.md\n',
        'guides-v2/SUMMARY.md': '# Table of contents\n\n* [Guides v2 home](README.md)\n',
        'guides-v2/README.md': '# Guides v2 home\n\nThe second edition.\n',
      },
      'Guides move to guides-v2',
    );
    await push(head, 'gitea');
    const sync = await siteSyncUntil((s) => s.lastImportedCommit === head && s.status === 'idle', 'the good docs.yaml');
    expect(sync.lastError).toBeNull();
    const guides = await api('GET', `/v1/spaces/${spaceOf.guides}/git/sync`);
    expect(guides.body.projectDirectory).toBe('guides-v2');
    await waitFor(
      async () => {
        const pages = (await api('GET', `/v1/spaces/${spaceOf.guides}/content/pages`)).body.pages as any[];
        return pages.length === 1 && pages[0].title === 'Guides v2 home';
      },
      { what: 'the guides space imported from guides-v2', timeoutMs: 90_000 },
    );
    const v = await siteView(siteId);
    expect(v.siteSpaces.find((ss) => ss.path === 'northwind-guides').space.id).toBe(spaceOf.guides);
    await allSettled('the runs of the recovery');
  }, 120_000);

  it('lets only site admins set up or stop the sync; others read it without the secret', async () => {
    const editor = await t.seedUser(org.orgId, 'edit');
    const url = (await api('GET', `${base}/git/sync`)).body.url;
    expect((await api('PUT', `${base}/git/sync`, { url, ref: 'main' }, editor.token)).status).toBe(403);
    expect((await api('DELETE', `${base}/git/sync`, undefined, editor.token)).status).toBe(403);
    const read = await api('GET', `${base}/git/sync`, undefined, editor.token);
    expect(read.status).toBe(200);
    expect(read.body.webhook.secret).toBeNull();
  });

  it('is listed in /openapi.json beside the space-level calls', async () => {
    const doc = (await t.api('GET', '/openapi.json')).body;
    const paths = doc.paths['/v1/orgs/{organizationId}/sites/{siteId}/git/sync'];
    expect(Object.keys(paths).sort()).toEqual(['delete', 'get', 'put']);
    expect(paths.put.requestBody).toBeDefined();
  });

  it('stops on DELETE: 204, no more runs, the spaces and the site stay', async () => {
    const del = await api('DELETE', `${base}/git/sync`);
    expect(del.status).toBe(204);
    // Counted once the sync is gone: a poll tick just before the DELETE may still have asked for a run.
    const runsBefore = (await syncRuns(t, siteId)).length;
    expect((await api('GET', `${base}/git/sync`)).status).toBe(404);
    // The space syncs it made stop with it; the spaces stay.
    for (const id of Object.values(spaceOf)) {
      expect((await api('GET', `/v1/spaces/${id}/git/sync`)).status).toBe(404);
      expect((await api('GET', `/v1/spaces/${id}`)).status).toBe(200);
    }
    const d = await deliver(hook, pushDelivery('github', { ref: 'refs/heads/main', after: await remoteHead(g, 'northwind'), secret }));
    expect(d.status).toBe(404);
    expect((await syncRuns(t, siteId)).length).toBe(runsBefore);
    expect((await siteView(siteId)).sections.length).toBe(4);
    expect((await api('DELETE', `${base}/git/sync`)).status).toBe(204);
  });
});
