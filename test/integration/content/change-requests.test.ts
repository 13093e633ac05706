import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { assertMatchesSpec } from '../../helpers/spec.js';
import { PNG_2x1 } from '../../helpers/content.js';

const { t, org } = useTestApp({ seedOrg: true });

const api = (method: string, path: string, body?: unknown, token = org.adminToken) => t.api(method, path, { token, body });

async function space(title = 'Docs') {
  const r = await api('POST', `/v1/orgs/${org.orgId}/spaces`, { title, empty: true });
  return r.body.id as string;
}

async function cr(spaceId: string, subject = 'Change') {
  const r = await api('POST', `/v1/spaces/${spaceId}/change-requests`, { subject });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body;
}

/** Apply a batch to a change request; returns the response. */
const batch = (spaceId: string, crId: string, changes: unknown[], query = '') =>
  api('POST', `/v1/spaces/${spaceId}/change-requests/${crId}/content${query}`, { changes });

/** Write main content through a change request merged at once. */
async function onMain(spaceId: string, changes: unknown[]) {
  const c = await cr(spaceId, 'main edit');
  const r = await batch(spaceId, c.id, changes, '?compat=false');
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect((await api('POST', `/v1/spaces/${spaceId}/change-requests/${c.id}/merge`)).status).toBe(200);
  return r.body;
}

const pages = async (spaceId: string, crId?: string) =>
  (await api('GET', crId ? `/v1/spaces/${spaceId}/change-requests/${crId}/content/pages` : `/v1/spaces/${spaceId}/content/pages`)).body
    .pages;
const page = async (spaceId: string, pageId: string, crId?: string) =>
  (
    await api(
      'GET',
      crId ? `/v1/spaces/${spaceId}/change-requests/${crId}/content/page/${pageId}` : `/v1/spaces/${spaceId}/content/page/${pageId}`,
    )
  ).body;

describe('change requests', () => {
  it('creates, gets by id and by number, lists with status and creator filters, patches', async () => {
    const s = await space();
    const a = await cr(s, 'First');
    assertMatchesSpec('POST', '/spaces/{spaceId}/change-requests', 201, a);
    expect(a).toMatchObject({ object: 'change-request', number: 1, status: 'draft', subject: 'First', outdated: false, space: s });
    const spaceNow = (await api('GET', `/v1/spaces/${s}`)).body;
    expect(a.revisionInitial).toBe(spaceNow.revision);
    expect(a.revision).toBe(spaceNow.revision);
    const byNumber = await api('GET', `/v1/spaces/${s}/change-requests/1`);
    expect(byNumber.body.id).toBe(a.id);
    assertMatchesSpec('GET', '/spaces/{spaceId}/change-requests/{changeRequestId}', 200, byNumber.body);
    const other = await t.seedUser(org.orgId, 'edit');
    const b = await cr(s, 'Second');
    const c = (await api('POST', `/v1/spaces/${s}/change-requests`, { subject: 'By editor' }, other.token)).body;
    const patched = await api('PATCH', `/v1/spaces/${s}/change-requests/${b.id}`, { status: 'open', subject: 'Second, open' });
    expect(patched.body).toMatchObject({ status: 'open', subject: 'Second, open' });
    assertMatchesSpec('PATCH', '/spaces/{spaceId}/change-requests/{changeRequestId}', 200, patched.body);
    const open = await api('GET', `/v1/spaces/${s}/change-requests?status=open`);
    expect(open.body.items.map((x: any) => x.id)).toEqual([b.id]);
    assertMatchesSpec('GET', '/spaces/{spaceId}/change-requests', 200, open.body);
    const byCreator = await api('GET', `/v1/spaces/${s}/change-requests?creator=${other.userId}`);
    expect(byCreator.body.items.map((x: any) => x.id)).toEqual([c.id]);
    const all = await api('GET', `/v1/spaces/${s}/change-requests?limit=2`);
    expect(all.body.count).toBe(3);
    const next = await api('GET', `/v1/spaces/${s}/change-requests?limit=2&page=${all.body.next.page}`);
    expect([...all.body.items, ...next.body.items].map((x: any) => x.number)).toEqual([3, 2, 1]);
    const counters = (await api('GET', `/v1/spaces/${s}`)).body;
    expect(counters).toMatchObject({ changeRequests: 3, changeRequestsOpen: 1, changeRequestsDraft: 2 });
    expect((await api('PATCH', `/v1/spaces/${s}/change-requests/${a.id}`, { status: 'merged' })).status).toBe(400);
    const empty = await api('PATCH', `/v1/spaces/${s}/change-requests/${a.id}`, {});
    expect(empty.status).toBe(200);
    expect(empty.body.subject).toBe('First');
    expect((await api('GET', `/v1/spaces/${s}/change-requests/99`)).status).toBe(404);
  });

  it('numbers change requests created concurrently without gap or duplicate', async () => {
    const s = await space();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => api('POST', `/v1/spaces/${s}/change-requests`, { subject: `cr ${i}` })),
    );
    expect(results.every((r) => r.status === 201)).toBe(true);
    const numbers = results.map((r) => r.body.number).sort((x, y) => x - y);
    expect(numbers).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  it('authors content in one revision per batch, with refs between new pages and files', async () => {
    const s = await space();
    const c = await cr(s);
    const r = await batch(
      s,
      c.id,
      [
        { operation: 'insert_page', ref: 'guide', document: { markdown: '# Guide\n\nSee [install](./install.md) and ![logo](./logo).' } },
        {
          operation: 'insert_page',
          ref: 'install',
          title: 'Install',
          document: { markdown: '---\ndescription: How to install\n---\nRun `npm i`.' },
        },
        {
          operation: 'insert_files',
          files: [{ ref: 'logo', name: 'logo.png', contentType: 'image/png', base64: PNG_2x1.toString('base64') }],
        },
      ],
      '?compat=false',
    );
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const [guide, install] = r.body.changes;
    expect(guide).toMatchObject({ object: 'created_page', ref: 'guide' });
    expect(install).toMatchObject({ object: 'created_page', ref: 'install' });
    expect(r.body.insertedFiles).toHaveLength(1);
    const fileId = r.body.insertedFiles[0].id;
    const g = await page(s, guide.page.id, c.id);
    expect(g.title).toBe('Guide');
    expect(g.markdown).toBe(`See [install](/pages/${install.page.id}) and ![logo](/files/${fileId}).`);
    const i = await page(s, install.page.id, c.id);
    expect(i).toMatchObject({ title: 'Install', description: 'How to install', markdown: 'Run `npm i`.' });
    const file = await api('GET', `/v1/spaces/${s}/change-requests/${c.id}/content/files/${fileId}`);
    expect(file.body).toMatchObject({
      name: 'logo.png',
      contentType: 'image/png',
      size: PNG_2x1.length,
      dimensions: { width: 2, height: 1 },
    });
    const bytes = Buffer.from(await (await fetch(file.body.downloadURL)).arrayBuffer());
    expect(bytes.equals(PNG_2x1)).toBe(true);
    // Main content is untouched until merge.
    expect(await pages(s)).toEqual([]);
    const rev = await api('GET', `/v1/spaces/${s}/change-requests/${c.id}/content`);
    expect(rev.body.parents).toEqual([c.revisionInitial]);
    // update_page: move, rename, new body; delete_page.
    const more = await batch(s, c.id, [
      {
        operation: 'update_page',
        page: install.page.id,
        into: guide.page.id,
        title: 'Installation',
        document: { markdown: 'Run `npm ci`.' },
      },
      { operation: 'insert_page', title: 'Scratch', document: { markdown: 'temp' } },
    ]);
    expect(more.status).toBe(200);
    const tree = await pages(s, c.id);
    expect(tree.map((p: any) => [p.title, p.pages.map((x: any) => x.title)])).toEqual([
      ['Guide', ['Installation']],
      ['Scratch', []],
    ]);
    const scratch = tree[1].id;
    expect((await batch(s, c.id, [{ operation: 'delete_page', page: scratch }])).status).toBe(200);
    expect((await pages(s, c.id)).map((p: any) => p.title)).toEqual(['Guide']);
  });

  it('applies nothing when one change of a batch fails', async () => {
    const s = await space();
    const c = await cr(s);
    const before = (await api('GET', `/v1/spaces/${s}/change-requests/${c.id}`)).body.revision;
    const r = await batch(s, c.id, [
      { operation: 'insert_page', title: 'Good page', document: { markdown: 'fine' } },
      { operation: 'update_page', page: 'doesNotExist', title: 'x' },
    ]);
    expect(r.status).toBe(400);
    expect(r.body.error.message).toContain('body.changes[1].page');
    expect((await api('GET', `/v1/spaces/${s}/change-requests/${c.id}`)).body.revision).toBe(before);
    expect(await pages(s, c.id)).toEqual([]);
    const bad = await batch(s, c.id, [{ operation: 'explode_page', page: 'x' }]);
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('body.changes.0');
    const noType = await batch(s, c.id, [{ operation: 'insert_files', files: [{ name: 'a.bin', base64: 'AAAA' }] }]);
    expect(noType.status).toBe(400);
    expect(noType.body.error.message).toContain('contentType');
  });

  it('merges cleanly: different pages and non-overlapping edits of one page', async () => {
    const s = await space();
    const seeded = await onMain(s, [
      { operation: 'insert_page', ref: 'a', title: 'Alpha', document: { markdown: 'line 1\nline 2\nline 3\nline 4\nline 5' } },
      { operation: 'insert_page', ref: 'b', title: 'Beta', document: { markdown: 'beta' } },
    ]);
    const [alpha, beta] = seeded.changes.map((x: any) => x.page.id);
    const c = await cr(s, 'Edit alpha top and beta');
    await batch(s, c.id, [
      { operation: 'update_page', page: alpha, document: { markdown: 'LINE 1 (cr)\nline 2\nline 3\nline 4\nline 5' } },
      { operation: 'update_page', page: beta, title: 'Beta (cr)' },
    ]);
    // Main moves on: another edit to the bottom of Alpha and a new page.
    await onMain(s, [
      { operation: 'update_page', page: alpha, document: { markdown: 'line 1\nline 2\nline 3\nline 4\nLINE 5 (main)' } },
      { operation: 'insert_page', title: 'Gamma', document: { markdown: 'gamma' } },
    ]);
    const outdated = await api('GET', `/v1/spaces/${s}/change-requests/${c.id}`);
    expect(outdated.body.outdated).toBe(true);
    const m = await api('POST', `/v1/spaces/${s}/change-requests/${c.id}/merge`);
    expect(m.status, JSON.stringify(m.body)).toBe(200);
    assertMatchesSpec('POST', '/spaces/{spaceId}/change-requests/{changeRequestId}/merge', 200, m.body);
    expect(m.body.result).toBe('merge');
    const sp = (await api('GET', `/v1/spaces/${s}`)).body;
    expect(sp.revision).toBe(m.body.revision);
    expect((await page(s, alpha)).markdown).toBe('LINE 1 (cr)\nline 2\nline 3\nline 4\nLINE 5 (main)');
    expect((await page(s, beta)).title).toBe('Beta (cr)');
    expect((await pages(s)).map((p: any) => p.title)).toEqual(['Alpha', 'Beta (cr)', 'Gamma']);
    const merged = (await api('GET', `/v1/spaces/${s}/change-requests/${c.id}`)).body;
    expect(merged).toMatchObject({ status: 'merged', revisionMerged: m.body.revision, outdated: false });
    expect(merged.mergedBy.id).toBe(org.adminId);
    const rev = (await api('GET', `/v1/spaces/${s}/content`)).body;
    expect(rev.parents).toHaveLength(2);
    // A merged change request is closed for edits and merges.
    expect((await batch(s, c.id, [{ operation: 'insert_page', title: 'late', document: { markdown: 'x' } }])).status).toBe(409);
    expect((await api('POST', `/v1/spaces/${s}/change-requests/${c.id}/merge`)).status).toBe(409);
  });

  it('refuses a conflicting merge with 409 naming the page, changing nothing', async () => {
    const s = await space();
    const seeded = await onMain(s, [{ operation: 'insert_page', title: 'Shared', document: { markdown: 'one\ntwo\nthree' } }]);
    const shared = seeded.changes[0].page.id;
    const c = await cr(s);
    await batch(s, c.id, [{ operation: 'update_page', page: shared, document: { markdown: 'one\nTWO from cr\nthree' } }]);
    await onMain(s, [{ operation: 'update_page', page: shared, document: { markdown: 'one\nTWO from main\nthree' } }]);
    const before = (await api('GET', `/v1/spaces/${s}`)).body.revision;
    const m = await api('POST', `/v1/spaces/${s}/change-requests/${c.id}/merge`);
    expect(m.status).toBe(409);
    expect(m.body.error.message).toContain('"Shared"');
    expect(m.body.error.message).toContain(shared);
    expect((await api('GET', `/v1/spaces/${s}`)).body.revision).toBe(before);
    expect((await page(s, shared)).markdown).toBe('one\nTWO from main\nthree');
    expect((await api('GET', `/v1/spaces/${s}/change-requests/${c.id}`)).body.status).toBe('draft');
    // A deletion against a modification conflicts too.
    const d = await cr(s);
    await batch(s, d.id, [{ operation: 'delete_page', page: shared }]);
    await onMain(s, [{ operation: 'update_page', page: shared, title: 'Renamed on main' }]);
    expect((await api('POST', `/v1/spaces/${s}/change-requests/${d.id}/merge`)).status).toBe(409);
  });

  it('updates from main: brings main changes in, sets revisionMergedAncestor, clears outdated', async () => {
    const s = await space();
    const seeded = await onMain(s, [{ operation: 'insert_page', title: 'Base', document: { markdown: 'base' } }]);
    const c = await cr(s);
    await batch(s, c.id, [{ operation: 'insert_page', title: 'From CR', document: { markdown: 'cr' } }]);
    await onMain(s, [{ operation: 'update_page', page: seeded.changes[0].page.id, title: 'Base (main)' }]);
    const mainRev = (await api('GET', `/v1/spaces/${s}`)).body.revision;
    expect((await api('GET', `/v1/spaces/${s}/change-requests/${c.id}`)).body.outdated).toBe(true);
    const u = await api('POST', `/v1/spaces/${s}/change-requests/${c.id}/update`);
    expect(u.status).toBe(200);
    assertMatchesSpec('POST', '/spaces/{spaceId}/change-requests/{changeRequestId}/update', 200, u.body);
    expect(u.body.result).toBe('update');
    const after = (await api('GET', `/v1/spaces/${s}/change-requests/${c.id}`)).body;
    expect(after).toMatchObject({ revision: u.body.revision, revisionMergedAncestor: mainRev, outdated: false });
    expect((await pages(s, c.id)).map((p: any) => p.title)).toEqual(['Base (main)', 'From CR']);
    // Merging now is a clean merge of what the CR adds.
    expect((await api('POST', `/v1/spaces/${s}/change-requests/${c.id}/merge`)).status).toBe(200);
    expect((await pages(s)).map((p: any) => p.title)).toEqual(['Base (main)', 'From CR']);
  });

  it('never loses a change when merges race on one space', async () => {
    const s = await space();
    const crs = [];
    for (let i = 0; i < 6; i++) {
      const c = await cr(s, `race ${i}`);
      await batch(s, c.id, [{ operation: 'insert_page', title: `Page ${i}`, document: { markdown: `content ${i}` } }]);
      crs.push(c);
    }
    const results = await Promise.all(crs.map((c) => api('POST', `/v1/spaces/${s}/change-requests/${c.id}/merge`)));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const titles = (await pages(s)).map((p: any) => p.title).sort();
    expect(titles).toEqual(['Page 0', 'Page 1', 'Page 2', 'Page 3', 'Page 4', 'Page 5']);
    const revisions = new Set(results.map((r) => r.body.revision));
    expect(revisions.size).toBe(6);
  });

  it('a locked space refuses merges; readers cannot author; only reviewers merge', async () => {
    const s = await space();
    const c = await cr(s);
    await batch(s, c.id, [{ operation: 'insert_page', title: 'Locked out', document: { markdown: 'x' } }]);
    await api('PATCH', `/v1/spaces/${s}`, { editMode: 'locked' });
    const m = await api('POST', `/v1/spaces/${s}/change-requests/${c.id}/merge`);
    expect(m.status).toBe(409);
    expect(m.body.error.message).toContain('locked');
    expect(await pages(s)).toEqual([]);
    await api('PATCH', `/v1/spaces/${s}`, { editMode: 'live' });
    const reader = await t.seedUser(org.orgId, 'read');
    const editor = await t.seedUser(org.orgId, 'edit');
    expect((await api('POST', `/v1/spaces/${s}/change-requests`, { subject: 'x' }, reader.token)).status).toBe(403);
    expect((await api('GET', `/v1/spaces/${s}/change-requests/${c.id}`, undefined, reader.token)).status).toBe(200);
    expect(
      (
        await batch(s, c.id, [{ operation: 'delete_page', page: 'x' }]).then(() =>
          api(
            'POST',
            `/v1/spaces/${s}/change-requests/${c.id}/content`,
            { changes: [{ operation: 'insert_page', title: 'r', document: { markdown: 'r' } }] },
            reader.token,
          ),
        )
      ).status,
    ).toBe(403);
    expect((await api('POST', `/v1/spaces/${s}/change-requests/${c.id}/merge`, undefined, editor.token)).status).toBe(403);
    expect((await api('POST', `/v1/spaces/${s}/change-requests/${c.id}/merge`)).status).toBe(200);
  });
});

describe('change request content links', () => {
  it('lists page links and file backlinks of the change request content; broken ones count for the change request', async () => {
    const s = await space();
    const seeded = await onMain(s, [{ operation: 'insert_page', title: 'Target', document: { markdown: 'target' } }]);
    const target = seeded.changes[0].page.id;
    const c = await cr(s);
    const r = await batch(
      s,
      c.id,
      [
        {
          operation: 'insert_files',
          files: [{ ref: 'img', name: 'pic.png', contentType: 'image/png', base64: PNG_2x1.toString('base64') }],
        },
        {
          operation: 'insert_page',
          title: 'Linker',
          document: { markdown: `[ok](/pages/${target}) [gone](/pages/nowhere) ![pic](./img)` },
        },
      ],
      '?compat=false',
    );
    const linker = r.body.changes[0].page.id;
    const fileId = r.body.insertedFiles[0].id;
    const links = await api('GET', `/v1/spaces/${s}/change-requests/${c.id}/content/page/${linker}/links`);
    expect(links.status).toBe(200);
    expect(links.body.items.map((x: any) => x.status).sort()).toEqual(['broken', 'ok', 'ok']);
    expect(links.body.stats.broken).toEqual({ total: 1, changeRequest: 1 });
    const back = await api('GET', `/v1/spaces/${s}/change-requests/${c.id}/content/files/${fileId}/backlinks`);
    expect(back.status).toBe(200);
    expect(back.body.items.map((x: any) => x.page?.id ?? x.page)).toEqual([linker]);
    // Main content does not have the page yet.
    expect((await api('GET', `/v1/spaces/${s}/content/page/${linker}/links`)).status).toBe(404);
  });
});
