// Site-level Git Sync (issue 27, item 4), the parts beyond sections and spaces: docs.yaml's external
// links (at the root and in a section group) applied to the site and seen by its readers, a link
// added through the API written back as one commit, a link removed from the file removed from the
// site; and a site sync with `direction: export` set up on an empty repository, which ends up with
// docs.yaml and each space's folder (read back with git), while `direction: import` fails visibly.
// Pushes go to a real smart-HTTP remote (git http-backend) with the git CLI.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { editContent } from '../../helpers/content.js';
import { gitCli, startGitServer, type GitServer } from '../../helpers/git-server.js';
import { waitFor } from '../../helpers/http.js';
import { parseDocsYaml, writeDocsYaml } from '../../../src/git/format/docs-yaml.js';
import { siteConfigOf } from '../../../src/services/git-sync/site-config.js';
import { deliver, pushDelivery, remoteHead, syncRuns, workingCopy } from './helpers.js';

// In the writer's (GitBook's) shape, so that a write-back changes only what changed.
const DOCS_YAML = `site:
  title: Linked Docs
  structure:
    - type: section
      key: section-docs
      title: Documentation
      path: docs
      default: true
      children:
        - type: space
          key: space-docs
          title: Handbook
          path: handbook
          default: true
          content:
            directory: ./handbook
    - type: external-link
      key: link-status
      title: Status page
      localizedTitle:
        fr: Page d'état
      url: https://status.example.test/
      description: Uptime of every service
      icon: signal
    - type: external-link
      key: link-beta
      title: Beta program
      url: https://beta.example.test/
      condition: visitor.claims.beta === true
    - type: section-group
      key: group-more
      title: More
      children:
        - type: section
          key: section-guides
          title: Guides
          path: guides
          children:
            - type: space
              key: space-guides
              title: Guides
              path: guides
              default: true
              content:
                directory: ./guides
        - type: external-link
          key: link-forum
          title: Forum
          url: https://forum.example.test/?tab=latest
          mood: friendly
        - type: external-link
          key: link-draft
          title: Coming soon
          url: https://soon.example.test/
          draft: true
`;

function files(docsYaml = DOCS_YAML): Record<string, string> {
  const out: Record<string, string> = { 'docs.yaml': docsYaml };
  for (const dir of ['handbook', 'guides']) {
    out[`${dir}/SUMMARY.md`] = `# Table of contents\n\n* [${dir} home](README.md)\n`;
    out[`${dir}/README.md`] = `# ${dir} home\n\nThe ${dir}.\n`;
  }
  return out;
}

let g: GitServer;
beforeAll(async () => {
  g = await startGitServer();
});
afterAll(() => g.close());
const { t, org } = useTestApp({
  workers: ['git', 'search'],
  env: { WORKER_CONCURRENCY: '2', GIT_SYNC_POLL_TICK_MS: '200', GIT_SYNC_DEBOUNCE_MS: '100' },
  seedOrg: true,
});

const api = (method: string, p: string, body?: unknown, token = org.adminToken) => t.api(method, p, { token, body });
const settled = (runs: { status: string }[]) => runs.every((r) => ['succeeded', 'failed', 'skipped'].includes(r.status));
const bare = (name: string) => path.join(g.root, `${name}.git`);

/** The site's external links as stored, in the site's order. */
async function linkRows(siteId: string) {
  const { rows } = await t.app.db.query(
    `SELECT id, git_key, section_group_id, title, localized_title, description, icon, url, draft, condition
       FROM site_external_links WHERE site_id = $1 ORDER BY position, created_at, id`,
    [siteId],
  );
  return rows as any[];
}

const siteVersion = async (siteId: string) =>
  Number((await t.app.db.query('SELECT version FROM sites WHERE id = $1', [siteId])).rows[0].version);

/** The reader's home page of a published site (anonymous: no claims). */
const readerHtml = async (siteId: string) => (await fetch(`${t.baseUrl}/site/${siteId}/`, { headers: { accept: 'text/html' } })).text();

function siteSyncUntil(base: string, ok: (s: any) => boolean, what: string) {
  return waitFor(
    async () => {
      const r = await api('GET', `${base}/git/sync`);
      return r.status === 200 && ok(r.body) ? r.body : null;
    },
    { what, timeoutMs: 90_000 },
  );
}

describe("docs.yaml's external links", () => {
  let siteId: string;
  let base: string;
  let hook: string;
  let secret: string;
  let work: Awaited<ReturnType<typeof workingCopy>>;
  const spaceIds: string[] = [];

  const allSettled = (what: string) =>
    waitFor(
      async () => {
        for (const id of [siteId, ...spaceIds]) if (!settled(await syncRuns(t, id))) return false;
        return true;
      },
      { what, timeoutMs: 90_000 },
    );
  const push = async (after: string) => {
    const d = await deliver(hook, pushDelivery('github', { ref: 'refs/heads/main', after, secret }));
    expect(d.status, JSON.stringify(d.body)).toBe(202);
  };

  beforeAll(async () => {
    // The fixture is in the writer's shape (else the byte-for-byte checks below would prove nothing).
    expect(writeDocsYaml(parseDocsYaml(DOCS_YAML).config)).toBe(DOCS_YAML);
    const url = await g.createRepo('links', { files: files() });
    work = await workingCopy(g, 'links');
    const site = await api('POST', `/v1/orgs/${org.orgId}/sites`, { title: 'Untitled site', visibility: 'public' });
    expect(site.status).toBe(201);
    siteId = site.body.id;
    base = `/v1/orgs/${org.orgId}/sites/${siteId}`;
    expect((await api('POST', `${base}/publish`)).status).toBeLessThan(300);
    const put = await api('PUT', `${base}/git/sync`, { url, ref: 'main', pollIntervalSeconds: 0 });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    hook = put.body.webhook.url;
    secret = put.body.webhook.secret;
    const head = await remoteHead(g, 'links');
    await siteSyncUntil(base, (s) => s.lastImportedCommit === head && s.status === 'idle', 'the first site sync');
    const siteSpaces = (await api('GET', `${base}/site-spaces?limit=100`)).body.items as any[];
    spaceIds.push(...siteSpaces.map((ss) => ss.space.id));
    expect(spaceIds).toHaveLength(2);
    await allSettled('the first runs');
  }, 120_000);

  it('applies them: root links and a group link, with their fields, shown to readers as the site shows links', async () => {
    const groups = (await api('GET', `${base}/section-groups?limit=100`)).body.items as any[];
    expect(groups.map((x) => x.title)).toEqual(['More']);
    const rows = await linkRows(siteId);
    expect(rows.map((r) => [r.git_key, r.title, r.url, r.section_group_id, r.draft])).toEqual([
      ['link-status', 'Status page', 'https://status.example.test/', null, false],
      ['link-beta', 'Beta program', 'https://beta.example.test/', null, false],
      ['link-forum', 'Forum', 'https://forum.example.test/?tab=latest', groups[0].id, false],
      ['link-draft', 'Coming soon', 'https://soon.example.test/', groups[0].id, true],
    ]);
    expect(rows[0]).toMatchObject({ localized_title: { fr: "Page d'état" }, description: 'Uptime of every service', icon: 'signal' });
    expect(rows[1].condition).toBe('visitor.claims.beta === true');

    const html = await readerHtml(siteId);
    expect(html).toContain('href="https://status.example.test/"');
    expect(html).toContain('Status page');
    expect(html).toContain('href="https://forum.example.test/?tab=latest"');
    // A draft, and a link whose condition does not hold for this reader, are not shown.
    expect(html).not.toContain('soon.example.test');
    expect(html).not.toContain('beta.example.test');
  });

  it('applies the same file again without writing anything', async () => {
    await work.pull();
    const version = await siteVersion(siteId);
    const before = await linkRows(siteId);
    const headBefore = await remoteHead(g, 'links');
    // The file's blob changes (a comment), so the run applies it: the same config.
    const head = await work.commit({ 'docs.yaml': `# The site of Linked Docs\n${DOCS_YAML}` }, 'Comment docs.yaml');
    expect(head).not.toBe(headBefore);
    await push(head);
    const sync = await siteSyncUntil(base, (s) => s.lastImportedCommit === head && s.status === 'idle', 'the same file applied');
    await allSettled('the runs of the push');
    expect(await siteVersion(siteId)).toBe(version);
    expect(await linkRows(siteId)).toEqual(before);
    const run = (await syncRuns(t, siteId)).find((r) => r.result?.head === head && r.result?.action === 'import');
    expect(run?.result).toMatchObject({ action: 'import', changed: false });
    expect(sync.lastExportedCommit).toBeNull();
    expect(await remoteHead(g, 'links')).toBe(head);
  });

  it('writes a link added through the API back as one commit, under its group, keyed', async () => {
    const before = await remoteHead(g, 'links');
    const beforeText = await gitCli(['show', `${before}:docs.yaml`], bare('links'));
    const group = ((await api('GET', `${base}/section-groups?limit=100`)).body.items as any[])[0];
    const added = await api('POST', `${base}/external-links`, {
      title: 'Changelog feed',
      url: 'https://example.test/feed.xml',
      description: 'RSS',
      parent: group.id,
    });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const sync = await siteSyncUntil(base, (s) => !!s.lastExportedCommit && s.status === 'idle', 'docs.yaml written back');
    const head = await remoteHead(g, 'links');
    expect(sync.lastExportedCommit).toBe(head);
    expect((await gitCli(['rev-list', '--count', `${before}..${head}`], bare('links'))).trim()).toBe('1');
    expect((await gitCli(['diff', '--name-only', before, head], bare('links'))).trim()).toBe('docs.yaml');
    const written = await gitCli(['show', `${head}:docs.yaml`], bare('links'));
    // Byte for byte the file that was there (its comment aside: docs.yaml is written, not patched),
    // with the new link at the end of its group.
    const block =
      '        - type: external-link\n' +
      '          key: link-changelog-feed\n' +
      '          title: Changelog feed\n' +
      '          url: https://example.test/feed.xml\n' +
      '          description: RSS\n';
    expect(beforeText.startsWith('# The site of Linked Docs\n')).toBe(true);
    expect(written).toBe(beforeText.replace('# The site of Linked Docs\n', '') + block);
    expect((await linkRows(siteId)).find((r) => r.id === added.body.id)).toMatchObject({
      git_key: 'link-changelog-feed',
      section_group_id: group.id,
    });

    // The push of that commit comes back: nothing is applied, nothing more is written.
    const version = await siteVersion(siteId);
    await push(head);
    await allSettled('the run of the written commit');
    expect(await remoteHead(g, 'links')).toBe(head);
    expect(await siteVersion(siteId)).toBe(version);
    expect((await api('GET', `${base}/git/sync`)).body).toMatchObject({ status: 'idle', lastExportedCommit: head });
  });

  it('removes a link the file no longer lists and changes one whose entry changed, keeping its identity', async () => {
    await work.pull();
    const rowsBefore = await linkRows(siteId);
    const forum = rowsBefore.find((r) => r.git_key === 'link-forum');
    const current = await gitCli(['show', 'HEAD:docs.yaml'], work.dir);
    const next = current
      .replace(/ {4}- type: external-link\n {6}key: link-status\n(?: {6}.*\n)*/, '')
      .replace('          title: Forum\n', '          title: Community forum\n');
    expect(next).not.toContain('link-status');
    const head = await work.commit({ 'docs.yaml': next }, 'Drop the status link, rename the forum');
    await push(head);
    await siteSyncUntil(base, (s) => s.lastImportedCommit === head && s.status === 'idle', 'the new docs.yaml applied');
    await allSettled('the runs of the push');
    const rows = await linkRows(siteId);
    expect(rows.map((r) => r.git_key)).toEqual(['link-beta', 'link-forum', 'link-draft', 'link-changelog-feed']);
    expect(rows.find((r) => r.git_key === 'link-forum')).toMatchObject({ id: forum.id, title: 'Community forum' });
    const html = await readerHtml(siteId);
    expect(html).not.toContain('status.example.test');
    expect(html).toContain('Community forum');
    expect(html).toContain('href="https://example.test/feed.xml"');
    // The file the site gives now is the file pushed, byte for byte (the forum's unknown key kept).
    expect(next).toContain('          mood: friendly\n');
    expect(writeDocsYaml(await siteConfigOf(t.app, siteId))).toBe(next);
    expect(await remoteHead(g, 'links')).toBe(head);
  });
});

describe('a site sync on a repository without docs.yaml', () => {
  async function siteWithSpaces(title: string) {
    const spaces: string[] = [];
    for (const [name, body] of [
      ['Handbook', 'Read me first.'],
      ['API reference', 'Every endpoint.'],
    ]) {
      const s = await api('POST', `/v1/orgs/${org.orgId}/spaces`, { title: name });
      expect(s.status).toBe(201);
      await editContent(t, s.body.id, (d) => {
        for (const id of d.childIds(null)) d.deletePage(id);
        d.insertPage(null, { title: `${name} home`, markdown: body });
      });
      spaces.push(s.body.id);
    }
    const site = await api('POST', `/v1/orgs/${org.orgId}/sites`, { title });
    expect(site.status).toBe(201);
    const base = `/v1/orgs/${org.orgId}/sites/${site.body.id}`;
    const a = await api('POST', `${base}/sections`, { spaceId: spaces[0], title: 'Handbook' });
    const b = await api('POST', `${base}/sections`, { spaceId: spaces[1], title: 'API' });
    expect([a.status, b.status]).toEqual([201, 201]);
    const link = await api('POST', `${base}/external-links`, { title: 'Status page', url: 'https://status.example.test/' });
    expect(link.status).toBe(201);
    return { siteId: site.body.id as string, base, spaces };
  }

  it('export into an empty repository: docs.yaml first, then each space in its folder', async () => {
    const url = await g.createRepo('empty-export'); // no commit, no branch
    const { siteId, base, spaces } = await siteWithSpaces('Exported Docs');
    const put = await api('PUT', `${base}/git/sync`, { url, ref: 'main', direction: 'export', pollIntervalSeconds: 0 });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    await siteSyncUntil(base, (s) => !!s.lastExportedCommit && s.status === 'idle', 'the first export of the site');
    // Each space is exported by a space sync of its own (one-way too), into the folder docs.yaml names.
    const syncs = await waitFor(
      async () => {
        const out = [];
        for (const id of spaces) {
          const r = await api('GET', `/v1/spaces/${id}/git/sync`);
          if (r.status !== 200 || !r.body.lastExportedCommit || r.body.status !== 'idle') return null;
          out.push(r.body);
        }
        return out;
      },
      { what: 'the spaces exported', timeoutMs: 90_000 },
    );
    for (const s of syncs) expect(s).toMatchObject({ direction: 'export', pollIntervalSeconds: 0, url });
    await waitFor(
      async () => settled([...(await syncRuns(t, siteId)), ...(await syncRuns(t, spaces[0])), ...(await syncRuns(t, spaces[1]))]),
      {
        what: 'every run settled',
        timeoutMs: 90_000,
      },
    );

    const tree = (await gitCli(['ls-tree', '-r', '--name-only', 'refs/heads/main'], bare('empty-export'))).trim().split('\n');
    const text = await gitCli(['show', 'refs/heads/main:docs.yaml'], bare('empty-export'));
    const { config } = parseDocsYaml(text);
    expect(config.site.title).toBe('Exported Docs');
    const sections = config.site.structure.filter((n) => n.type === 'section') as any[];
    expect(sections.map((s) => s.title)).toEqual(['Handbook', 'API']);
    expect(config.site.structure.find((n) => n.type === 'external-link')).toMatchObject({
      title: 'Status page',
      url: 'https://status.example.test/',
    });
    const dirs = sections.map((s) => s.children[0].content.directory.replace(/^\.\//, ''));
    expect(syncs.map((s) => s.projectDirectory)).toEqual(dirs);
    expect(tree).toContain('docs.yaml');
    for (const [i, dir] of dirs.entries()) {
      expect(tree).toContain(`${dir}/SUMMARY.md`);
      const readme = tree.find((p) => p.startsWith(`${dir}/`) && p.endsWith('.md') && !p.endsWith('SUMMARY.md'))!;
      const body = await gitCli(['show', `refs/heads/main:${readme}`], bare('empty-export'));
      expect(body).toContain(['Read me first.', 'Every endpoint.'][i]);
    }
    // Nothing outside docs.yaml and the two folders.
    expect(tree.filter((p) => p !== 'docs.yaml' && !dirs.some((d) => p.startsWith(`${d}/`)))).toEqual([]);
  }, 150_000);

  it('import from an empty repository, or a branch without docs.yaml: status error, lastError naming docs.yaml', async () => {
    const empty = await g.createRepo('empty-import');
    const readmeOnly = await g.createRepo('readme-only', { files: { 'README.md': '# Not a site\n' } });
    for (const url of [empty, readmeOnly]) {
      const { base } = await siteWithSpaces(`Imported from ${url.split('/').pop()}`);
      const put = await api('PUT', `${base}/git/sync`, { url, ref: 'main', direction: 'import', pollIntervalSeconds: 0 });
      expect(put.status, JSON.stringify(put.body)).toBe(200);
      const sync = await siteSyncUntil(base, (s) => s.status === 'error', 'the import refused');
      expect(sync.lastError).toMatch(/^No docs\.yaml \(or gitbook-docs\.yaml\)/);
      expect(sync.lastImportedCommit).toBeNull();
      expect(sync.lastExportedCommit).toBeNull();
    }
    // Nothing was written to either repository.
    expect((await gitCli(['for-each-ref'], bare('empty-import'))).trim()).toBe('');
    expect((await gitCli(['rev-list', '--count', 'refs/heads/main'], bare('readme-only'))).trim()).toBe('1');
  }, 120_000);
});
