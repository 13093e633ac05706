// The link index is built ahead by the `links.index` job after content changes, stored in
// PostgreSQL, and a read never waits more than LINK_INDEX_WAIT_MS for it (then 503 + Retry-After).
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { startGitServer, type GitServer } from '../../helpers/git-server.js';
import { waitFor } from '../../helpers/http.js';
import { operationSettled } from '../../helpers/operations.js';
import { GITBOOK_FIXTURES, requireFixtures } from '../../helpers/fixtures.js';
import { editContent } from '../../helpers/content.js';
import { getSpace } from '../../../src/db/repos/spaces.js';
import { listIndexedRoots } from '../../../src/db/repos/links.js';
import { revisionSnapshot } from '../../../src/content/commit.js';
import { buildLinkIndex, extractPageLinks } from '../../../src/content/links.js';
import { loadBodies } from '../../../src/content/snapshot.js';
import { indexSpaceLinks } from '../../../src/services/link-indexing.js';

const FIXTURE = { name: 'getstrm--pace', dir: 'docs' };

async function linksIndexOperations(db: { query: (sql: string, params: unknown[]) => Promise<{ rows: any[] }> }, spaceId: string) {
  const { rows } = await db.query(
    `SELECT id, status, created_at FROM operations WHERE kind = 'links.index' AND target_id = $1 ORDER BY created_at`,
    [spaceId],
  );
  return rows as { id: string; status: string; created_at: Date }[];
}

describe('after a git import of a real GitBook space', () => {
  let g: GitServer;
  let url = '';
  beforeAll(async () => {
    g = await startGitServer();
    const dir = await mkdtemp(path.join(tmpdir(), 'dp-links-'));
    await cp(path.join(requireFixtures(GITBOOK_FIXTURES), FIXTURE.name), dir, { recursive: true });
    await rm(path.join(dir, 'SOURCE.md'), { force: true });
    await rm(path.join(dir, 'LICENSE-of-source'), { force: true });
    url = await g.createRepo('links-fixture', { dir });
    await rm(dir, { recursive: true, force: true });
  }, 120_000);
  afterAll(() => g?.close());

  const { t, org } = useTestApp({ workers: ['git', 'search'], seedOrg: true });

  it('the links.index job stores the index of the imported revision without any read, and reads answer from it as a fresh parse would', async () => {
    const created = await t.api('POST', `/v1/orgs/${org.orgId}/spaces`, { token: org.adminToken, body: { title: 'Pace', empty: true } });
    const spaceId = created.body.id as string;
    const r = await t.api('POST', `/v1/spaces/${spaceId}/git/import`, {
      token: org.adminToken,
      body: { url, ref: 'refs/heads/main', repoProjectDirectory: FIXTURE.dir },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(204);
    const imported = await operationSettled(t, r.headers.get('location'), { token: org.adminToken, timeoutMs: 120_000 });
    expect(imported.status, imported.error).toBe('succeeded');

    // The state, before any link read: a links.index operation for the space created after the
    // import (the search.index job schedules it once the search index followed the import), and once
    // it is done, the current revision's root marked indexed with every body's links stored.
    const afterImport = (o: { created_at: Date }) => o.created_at.getTime() > new Date(imported.createdAt).getTime();
    let ops: { id: string; status: string; created_at: Date }[] = [];
    for (let waited = 0; !ops.length && waited < 120_000; waited += 100) {
      await new Promise((r) => setTimeout(r, 100));
      ops = (await linksIndexOperations(t.app.db, spaceId)).filter(afterImport);
    }
    expect(ops.length).toBeGreaterThan(0);
    const last = await operationSettled(t, ops[ops.length - 1].id, { token: org.adminToken, timeoutMs: 120_000 });
    expect(last.status, last.error).toBe('succeeded');
    const space = (await getSpace(t.app.db, spaceId))!;
    const { revision, snapshot } = await revisionSnapshot(t.app.db, spaceId, space.revision_id);
    const roots = await listIndexedRoots(t.app.db, spaceId);
    expect(roots.map((x) => x.root_hash)).toContain(revision.root_hash);
    const bodies = new Set(snapshot.ordered.map((p) => p.node.body).filter(Boolean));
    expect(roots.find((x) => x.root_hash === revision.root_hash)!.bodies).toBe(bodies.size);
    const { rows } = await t.app.db.query<{ n: string }>('SELECT count(*) AS n FROM link_extracts WHERE space_id = $1', [spaceId]);
    expect(Number(rows[0].n)).toBeGreaterThanOrEqual(bodies.size);

    const items: any[] = [];
    let stats: any;
    let page: string | undefined;
    for (let i = 0; i < 100; i++) {
      const res = await t.api('GET', `/v1/spaces/${spaceId}/links?limit=100${page ? `&page=${page}` : ''}`, { token: org.adminToken });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      items.push(...res.body.items);
      stats = res.body.stats;
      if (!res.body.next) break;
      page = res.body.next.page;
    }
    // What the API answered (from the stored links) is what resolving a fresh parse of every body gives
    // (parsed here after the reads: on this thread, it blocks the API server of this process).
    const markdown = await loadBodies(
      t.app.db,
      spaceId,
      snapshot.ordered.map((p) => p.node),
    );
    const fresh = buildLinkIndex(snapshot, (p) => extractPageLinks(markdown.get(p.node.id) ?? ''), { publicUrl: t.app.config.publicUrl });
    expect(fresh.groups.length).toBeGreaterThan(50); // a real space: many links
    expect(stats.total).toBe(fresh.groups.length);
    expect(stats.broken.total).toBe(fresh.groups.filter((x) => x.status === 'broken').length);
    const describe = (i: any) =>
      `${i.status} ${i.relation} ${i.targetReference.kind === 'url' ? i.targetReference.url : (i.targetReference.page?.id ?? i.targetReference.file?.id)} <- ${i.locationReferences.map((l: any) => l.page.id).join(',')}`;
    const expected = fresh.groups.map(
      (x) =>
        `${x.status} ${x.relation} ${x.target.kind === 'page' ? x.target.page : x.target.kind === 'file' ? x.target.file : x.target.url} <- ${x.sources.join(',')}`,
    );
    expect(items.map(describe).sort()).toEqual(expected.sort());
  }, 240_000);
});

describe('a read whose index is not built yet', () => {
  // No workers: the links.index job scheduled by the edit stays queued. A bound of 0: never wait.
  const { t, org } = useTestApp({ env: { LINK_INDEX_WAIT_MS: '0' }, seedOrg: true });

  it('answers 503 with Retry-After and an error body at once, then the list once the job has run', async () => {
    const created = await t.api('POST', `/v1/orgs/${org.orgId}/spaces`, { token: org.adminToken, body: { title: 'Docs', empty: true } });
    const spaceId = created.body.id as string;
    await editContent(t, spaceId, (d) => {
      d.insertPage(null, { id: 'intro', title: 'Intro', markdown: 'See [the guide](guide.md) and [old notes](nowhere.md).' });
      d.insertPage(null, { id: 'guide', title: 'Guide', markdown: 'Back to [intro](intro.md).' });
    });
    const ops = await linksIndexOperations(t.app.db, spaceId);
    expect(ops.map((o) => o.status)).toContain('queued');

    // An unknown page is a 404 at once: it does not wait for, nor depend on, the index.
    const unknown = await t.api('GET', `/v1/spaces/${spaceId}/content/page/nope/backlinks`, { token: org.adminToken });
    expect(unknown.status).toBe(404);
    const before = await t.api('GET', `/v1/spaces/${spaceId}/links?status=broken`, { token: org.adminToken });
    expect(before.status).toBe(503);
    expect(before.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    expect(before.body).toEqual({ error: { code: 503, message: expect.stringContaining('is being built') } });
    const backlinks = await t.api('GET', `/v1/spaces/${spaceId}/content/page/guide/backlinks`, { token: org.adminToken });
    expect([200, 503]).toContain(backlinks.status); // the first read's build may have finished meanwhile

    // The job's work (run here as its processor would): the revision is indexed, and reads answer
    // from what it stored. A read that finds no index in memory loads the stored one in the
    // background and, with no wait allowed, answers 503 meanwhile (as when the read above gave up
    // on a parse a busy machine timed out): the client retries as Retry-After says.
    await indexSpaceLinks(t.app, spaceId);
    const after = await waitFor(
      async () => {
        const r = await t.api('GET', `/v1/spaces/${spaceId}/links?status=broken`, { token: org.adminToken });
        if (r.status === 503) return null;
        return r;
      },
      { what: 'the list to answer from the stored index' },
    );
    expect(after.status, JSON.stringify(after.body)).toBe(200);
    expect(after.body.items.map((i: any) => i.targetReference.url)).toEqual(['nowhere.md']);
    expect(after.body.stats).toEqual({ total: 3, broken: { total: 1, changeRequest: 0 } });
    const back = await t.api('GET', `/v1/spaces/${spaceId}/content/page/guide/backlinks`, { token: org.adminToken });
    expect(back.status).toBe(200);
    expect(back.body.items.map((i: any) => i.page.id)).toEqual(['intro']);
  });
  it("a change request's edit schedules the link index of its own revision, and its link reads then answer at once", async () => {
    const created = await t.api('POST', `/v1/orgs/${org.orgId}/spaces`, { token: org.adminToken, body: { title: 'Docs', empty: true } });
    const spaceId = created.body.id as string;
    await editContent(t, spaceId, (d) => {
      d.insertPage(null, { id: 'intro', title: 'Intro', markdown: 'Hello.' });
    });
    await indexSpaceLinks(t.app, spaceId);
    const cr = await t.api('POST', `/v1/spaces/${spaceId}/change-requests`, { token: org.adminToken, body: { subject: 'Links' } });
    expect(cr.status).toBe(201);
    const crId = cr.body.id as string;
    const edit = await t.api('POST', `/v1/spaces/${spaceId}/change-requests/${crId}/content?compat=false`, {
      token: org.adminToken,
      body: {
        changes: [{ operation: 'insert_page', title: 'Guide', document: { markdown: 'See [intro](intro.md) and [gone](gone.md).' } }],
      },
    });
    expect(edit.status, JSON.stringify(edit.body)).toBe(200);
    const pageId = edit.body.changes[0].page.id as string;

    // The edit queued one links.index operation for the change request (no worker runs here).
    const { rows } = await t.app.db.query(
      `SELECT status, target_type, payload FROM operations WHERE kind = 'links.index' AND target_id = $1`,
      [crId],
    );
    expect(rows).toEqual([{ status: 'queued', target_type: 'change-request', payload: { spaceId, changeRequestId: crId } }]);
    const before = await t.api('GET', `/v1/spaces/${spaceId}/change-requests/${crId}/content/page/${pageId}/links`, {
      token: org.adminToken,
    });
    expect([200, 503]).toContain(before.status); // the read builds what is missing in the background; never waits here

    // The job's work (run here as its processor would): the change request's revision is indexed.
    const out = await indexSpaceLinks(t.app, spaceId, crId);
    const crRow = await t.api('GET', `/v1/spaces/${spaceId}/change-requests/${crId}`, { token: org.adminToken });
    expect(out.revisionId).toBe(crRow.body.revision);
    const { revision } = await revisionSnapshot(t.app.db, spaceId, out.revisionId);
    expect((await listIndexedRoots(t.app.db, spaceId)).map((x) => x.root_hash)).toContain(revision.root_hash);
    // With a bound of 0 a read answers from memory only, and loads a stored index in the background:
    // a client following Retry-After gets the list (loaded from the stored links, nothing parsed).
    let links = await t.api('GET', `/v1/spaces/${spaceId}/change-requests/${crId}/content/page/${pageId}/links`, { token: org.adminToken });
    for (let i = 0; links.status === 503 && i < 100; i++) {
      await new Promise((r) => setTimeout(r, 100));
      links = await t.api('GET', `/v1/spaces/${spaceId}/change-requests/${crId}/content/page/${pageId}/links`, { token: org.adminToken });
    }
    expect(links.status, JSON.stringify(links.body)).toBe(200);
    expect(
      links.body.items
        .map((i: any) => `${i.status} ${i.targetReference.kind === 'url' ? i.targetReference.url : i.targetReference.page.id}`)
        .sort(),
    ).toEqual(['broken gone.md', 'ok intro']);
  });
});
