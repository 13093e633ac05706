import { chmod, cp, mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitBookAPI } from '@gitbook/api';
import { useTestApp } from '../../helpers/app.js';
import { startGitServer, type GitServer } from '../../helpers/git-server.js';
import { operationSettled } from '../../helpers/operations.js';
import { GITBOOK_FIXTURES, requireFixtures } from '../../helpers/fixtures.js';
import { addFile, editContent, PNG_2x1 } from '../../helpers/content.js';
import { assertMatchesSchema, assertMatchesSpec } from '../../helpers/spec.js';

// History (issue 28, item 2) of a real GitBook space: imported from the fixture, then edited ten
// times; every revision stays readable through the official client, and the semantic changes of
// each revision and of a change request say what changed.
const FIXTURE = { name: 'getstrm--pace', dir: 'docs' };
/**
 * The description's page_edited `attributes` is a oneOf of three schemas that none excludes the
 * others' properties, so any attributes object matches several: each is checked against the schema
 * of its page's type, the rest of the answer against the operation's.
 */
function assertChanges(method: string, path: string, body: any) {
  const byType: Record<string, string> = {
    document: 'RevisionPageDocumentChangeAttributes',
    group: 'RevisionPageGroupChangeAttributes',
    link: 'RevisionPageLinkChangeAttributes',
  };
  for (const ch of body.changes) if (ch.type === 'page_edited') assertMatchesSchema(byType[ch.page.type], ch.attributes);
  const rest = body.changes.filter((ch: any) => ch.type !== 'page_edited');
  assertMatchesSpec(method, path, 200, { ...body, changes: rest });
}

const NOTE = '---\ntitle: Shared note\n---\n\nThis note is shared between pages.\n';

describe('history of an imported GitBook space', () => {
  let g: GitServer;
  let url = '';
  beforeAll(async () => {
    g = await startGitServer();
    const dir = await mkdtemp(path.join(tmpdir(), 'dp-history-'));
    await cp(path.join(requireFixtures(GITBOOK_FIXTURES), FIXTURE.name), dir, { recursive: true });
    await chmod(dir, 0o755);
    await rm(path.join(dir, 'SOURCE.md'), { force: true });
    await rm(path.join(dir, 'LICENSE-of-source'), { force: true });
    // Reusable content as GitBook writes it to a repository, included by the first page.
    const docs = path.join(dir, FIXTURE.dir);
    await chmod(docs, 0o755);
    await chmod(path.join(docs, '.gitbook'), 0o755);
    await mkdir(path.join(docs, '.gitbook', 'includes'), { recursive: true });
    await writeFile(path.join(docs, '.gitbook', 'includes', 'shared-note.md'), NOTE);
    const readme = path.join(docs, 'README.md');
    const text = await readFile(readme, 'utf8');
    await chmod(readme, 0o644);
    await writeFile(readme, `${text.trimEnd()}\n\n{% include ".gitbook/includes/shared-note.md" %}\n`);
    url = await g.createRepo('history-fixture', { dir });
    await rm(dir, { recursive: true, force: true });
  }, 120_000);
  afterAll(() => g?.close());

  const { t, org } = useTestApp({ workers: ['git'], seedOrg: true });

  it('ten revisions later, every old revision reads as it was, and semantic changes list what each one changed', async () => {
    const api: any = new GitBookAPI({ endpoint: t.baseUrl, authToken: org.adminToken });
    const spaceId = (await api.orgs.createSpace(org.orgId, { title: 'Pace', empty: true })).data.id as string;
    const r = await t.api('POST', `/v1/spaces/${spaceId}/git/import`, {
      token: org.adminToken,
      body: { url, ref: 'refs/heads/main', repoProjectDirectory: FIXTURE.dir },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(204);
    const imported = await operationSettled(t, r.headers.get('location'), { token: org.adminToken, timeoutMs: 120_000 });
    expect(imported.status, imported.error).toBe('succeeded');

    const r0 = (await api.spaces.getSpaceById(spaceId)).data.revision as string;
    const rev0 = await api.spaces.getRevisionById(spaceId, r0);
    // Tree pages carry `documentId`, not their bodies, which 0.202.0's RevisionPageDocument (a
    // Document: markdown or document) does not allow: the revision is checked without them.
    assertMatchesSpec('GET', '/spaces/{spaceId}/revisions/{revisionId}', 200, { ...rev0.data, pages: [] });
    const top = rev0.data.pages as any[];
    const flat: any[] = [];
    const walk = (list: any[]) => list.forEach((p) => (flat.push(p), walk(p.pages ?? [])));
    walk(top);
    const docs = flat.filter((p) => p.type === 'document');
    const [a, b, c] = docs.filter((p) => !p.pages?.length);
    const parentWithKids = docs.find((p) => p.pages?.length && p.id !== a.id);
    expect(a && b && c && parentWithKids).toBeTruthy();
    const aBody0 = (await api.spaces.getPageInRevisionById(spaceId, r0, a.id)).data.markdown as string;

    // Ten revisions: edits, an insertion, a move, a deletion, a file, a rename, variables, and a merge.
    const revs: string[] = [r0];
    revs.push((await editContent(t, spaceId, (d) => d.updatePage(a.id, { markdown: 'Rewritten body, revision 1.' }))).id);
    let created = '';
    revs.push((await editContent(t, spaceId, (d) => (created = d.insertPage(null, { title: 'Brand new page', markdown: 'New.' }, 0)))).id);
    revs.push((await editContent(t, spaceId, (d) => d.movePage(b.id, parentWithKids.id, 0))).id);
    revs.push((await editContent(t, spaceId, (d) => d.deletePage(c.id))).id);
    await addFile(t, spaceId, 'diagram.png', 'image/png', PNG_2x1);
    revs.push((await api.spaces.getSpaceById(spaceId)).data.revision);
    revs.push((await editContent(t, spaceId, (d) => d.updatePage(a.id, { title: 'Renamed page' }))).id);
    revs.push((await editContent(t, spaceId, (d) => d.setVariables({ product: 'PACE' }))).id);
    revs.push((await editContent(t, spaceId, (d) => d.updatePage(a.id, { markdown: 'Product: {{ space.vars.product }}' }))).id);
    // A change request, read before its merge, then merged.
    const cr = (await api.spaces.createChangeRequest(spaceId, { subject: 'Add a page' })).data;
    const added = await t.api('POST', `/v1/spaces/${spaceId}/change-requests/${cr.id}/content`, {
      token: org.adminToken,
      body: { changes: [{ operation: 'insert_page', title: 'From a change request', document: { markdown: 'CR body.' } }] },
    });
    expect(added.status).toBe(200);
    const crChanges = await api.spaces.getChangeRequestChanges(spaceId, cr.id);
    assertChanges('GET', '/spaces/{spaceId}/change-requests/{changeRequestId}/changes', crChanges.data);
    expect(crChanges.data.changes.map((x: any) => [x.type, x.page?.title])).toEqual([['page_created', 'From a change request']]);
    revs.push((await api.spaces.mergeChangeRequest(spaceId, cr.id)).data.revision);
    revs.push((await editContent(t, spaceId, (d) => d.updatePage(created, { markdown: 'New, then edited.' }))).id);
    expect(new Set(revs).size).toBe(11);

    // Old bodies, by revision.
    const bodyAt = async (rev: string) => (await api.spaces.getPageInRevisionById(spaceId, rev, a.id)).data;
    const at0 = await bodyAt(r0);
    assertMatchesSpec('GET', '/spaces/{spaceId}/revisions/{revisionId}/page/{pageId}', 200, at0);
    expect(at0.markdown).toBe(aBody0);
    expect((await bodyAt(revs[1])).markdown).toBe('Rewritten body, revision 1.');
    expect((await bodyAt(revs[5])).title).toBe(a.title);
    expect((await bodyAt(revs[6])).title).toBe('Renamed page');
    expect((await bodyAt(revs[8])).markdown).toBe('Product: {{ space.vars.product }}');
    // evaluated (true or deterministic-only) substitutes variables; getPageById takes it too.
    const evaluated = await api.spaces.getPageInRevisionById(spaceId, revs[8], a.id, { evaluated: 'deterministic-only' });
    expect(evaluated.data.markdown).toBe('Product: PACE');
    const current = await api.spaces.getPageById(spaceId, a.id, { evaluated: 'deterministic-only' });
    assertMatchesSpec('GET', '/spaces/{spaceId}/content/page/{pageId}', 200, current.data);
    expect(current.data.markdown).toBe('Product: PACE');
    // By path, in an old revision and in the current content; a deleted page is still in its old revision.
    const byPath = await api.spaces.getPageInRevisionByPath(spaceId, r0, c.path);
    assertMatchesSpec('GET', '/spaces/{spaceId}/revisions/{revisionId}/path/{pagePath}', 200, byPath.data);
    expect(byPath.data.id).toBe(c.id);
    expect((await t.api('GET', `/v1/spaces/${spaceId}/content/path/${c.path}`, { token: org.adminToken })).status).toBe(404);
    const newByPath = await api.spaces.getPageByPath(spaceId, 'brand-new-page', { format: 'document' });
    assertMatchesSpec('GET', '/spaces/{spaceId}/content/path/{pagePath}', 200, newByPath.data);
    expect(newByPath.data.document.nodes.length).toBeGreaterThan(0);

    // Documents: of a page in a revision, and by id.
    const doc0 = await api.spaces.getPageDocumentInRevisionById(spaceId, r0, a.id);
    assertMatchesSpec('GET', '/spaces/{spaceId}/revisions/{revisionId}/page/{pageId}/document', 200, doc0.data);
    const docById = await api.spaces.getDocumentById(spaceId, a.documentId);
    assertMatchesSpec('GET', '/spaces/{spaceId}/documents/{documentId}', 200, docById.data);
    expect(docById.data).toEqual(doc0.data);
    expect((await t.api('GET', `/v1/spaces/${spaceId}/documents/${'A'.repeat(24)}`, { token: org.adminToken })).status).toBe(404);

    // Pages and files of old revisions.
    const pages0 = await api.spaces.listPagesInRevisionById(spaceId, r0);
    assertMatchesSpec('GET', '/spaces/{spaceId}/revisions/{revisionId}/pages', 200, { pages: [] });
    expect(pages0.data.pages.map((p: any) => p.id)).toEqual(top.map((p) => p.id));
    const files0 = await api.spaces.listFilesInRevisionById(spaceId, r0, { limit: 1000 });
    assertMatchesSpec('GET', '/spaces/{spaceId}/revisions/{revisionId}/files', 200, files0.data);
    const files4 = await api.spaces.listFilesInRevisionById(spaceId, revs[5], { limit: 1000 });
    expect(files4.data.count).toBe(files0.data.count + 1);
    const png = files4.data.items.find((f: any) => f.name === 'diagram.png');
    const file = await api.spaces.getFileInRevisionById(spaceId, revs[5], png.id);
    assertMatchesSpec('GET', '/spaces/{spaceId}/revisions/{revisionId}/files/{fileId}', 200, file.data);
    expect((await t.api('GET', `/v1/spaces/${spaceId}/revisions/${r0}/files/${png.id}`, { token: org.adminToken })).status).toBe(404);

    // Semantic changes of each revision against its parent.
    const changes = async (rev: string, query?: object) => {
      const res = await api.spaces.getRevisionSemanticChanges(spaceId, rev, query);
      assertChanges('GET', '/spaces/{spaceId}/revisions/{revisionId}/changes', res.data);
      return res.data;
    };
    const kinds = (x: any) => x.changes.map((ch: any) => [ch.type, ch.page?.id ?? ch.file?.name ?? Object.keys(ch.variables ?? {}).join()]);
    const c1 = await changes(revs[1]);
    expect(kinds(c1)).toEqual([['page_edited', a.id]]);
    expect(Object.keys(c1.changes[0].attributes)).toEqual(['document']);
    expect(kinds(await changes(revs[2]))).toEqual([['page_created', created]]);
    const moved = await changes(revs[3]);
    expect(kinds(moved)).toEqual([['page_moved', b.id]]);
    expect(moved.changes[0]).toMatchObject({ page: { id: b.id }, parent: { after: { id: parentWithKids.id } } });
    expect(kinds(await changes(revs[4]))).toEqual([['page_deleted', c.id]]);
    expect(kinds(await changes(revs[5]))).toEqual([['file_created', 'diagram.png']]);
    const renamed = await changes(revs[6]);
    expect(kinds(renamed)).toEqual([['page_edited', a.id]]);
    expect(renamed.changes[0].attributes.title).toEqual({ before: a.title, after: 'Renamed page' });
    expect(kinds(await changes(revs[7]))).toEqual([['variables_edited', 'product']]);
    expect(kinds(await changes(revs[8]))).toEqual([['page_edited', a.id]]);
    const mergeRev = (await api.spaces.getRevisionById(spaceId, revs[9])).data;
    assertMatchesSpec('GET', '/spaces/{spaceId}/revisions/{revisionId}', 200, { ...mergeRev, pages: [] });
    expect(mergeRev).toMatchObject({ type: 'merge', mergedFrom: { id: cr.id, status: 'merged' } });
    const merge = await changes(revs[9]);
    expect(merge.mergedFrom.id).toBe(cr.id);
    expect(kinds(merge).map((k: any) => k[0])).toEqual(['page_created']);
    // The import's revision created every page: bounded by `limit`, the rest counted in `more`.
    const first = await changes(r0, { limit: 5 });
    expect(first.changes).toHaveLength(5);
    expect(first.changes.every((ch: any) => ch.type === 'page_created')).toBe(true);
    expect(first.more).toBeGreaterThan(flat.length - 5 - 1);

    // Reusable content: the imported .gitbook/includes file, in every base; dereferenced expands it.
    const include = files0.data.items.find((f: any) => f.name === 'shared-note.md');
    expect(include).toBeTruthy();
    const rc = await api.spaces.getReusableContentById(spaceId, include.id);
    assertMatchesSpec('GET', '/spaces/{spaceId}/content/reusable-contents/{reusableContentId}', 200, rc.data);
    expect(rc.data).toMatchObject({ id: include.id, title: 'Shared note' });
    const rcOld = await api.spaces.getReusableContentInRevisionById(spaceId, r0, include.id);
    assertMatchesSpec('GET', '/spaces/{spaceId}/revisions/{revisionId}/reusable-contents/{reusableContentId}', 200, rcOld.data);
    const rcDoc = await api.spaces.getReusableContentDocumentInRevisionById(spaceId, r0, include.id);
    assertMatchesSpec('GET', '/spaces/{spaceId}/revisions/{revisionId}/reusable-contents/{reusableContentId}/document', 200, rcDoc.data);
    expect(JSON.stringify(rcDoc.data)).toContain('This note is shared between pages.');
    const cr2 = (await api.spaces.createChangeRequest(spaceId, { subject: 'Reusable' })).data;
    const rcCr = await api.spaces.getReusableContentInChangeRequestById(spaceId, cr2.id, include.id);
    assertMatchesSpec(
      'GET',
      '/spaces/{spaceId}/change-requests/{changeRequestId}/content/reusable-contents/{reusableContentId}',
      200,
      rcCr.data,
    );
    expect((await t.api('GET', `/v1/spaces/${spaceId}/content/reusable-contents/${png.id}`, { token: org.adminToken })).status).toBe(404);
    const readme = top.find((p) => p.type === 'document')!;
    const plain = await api.spaces.getPageInRevisionById(spaceId, r0, readme.id);
    expect(plain.data.markdown).toContain('{% include');
    const expanded = await api.spaces.getPageInRevisionById(spaceId, r0, readme.id, { dereferenced: 'reusable-contents' });
    expect(expanded.data.markdown).not.toContain('{% include');
    expect(expanded.data.markdown).toContain('This note is shared between pages.');

    // Meta links of a page, in the three bases.
    const links = await api.spaces.listRevisionPageMetaLinks(spaceId, r0, a.id);
    assertMatchesSpec('GET', '/spaces/{spaceId}/revisions/{revisionId}/page/{pageId}/meta-links', 200, links.data);
    assertMatchesSpec(
      'GET',
      '/spaces/{spaceId}/content/page/{pageId}/meta-links',
      200,
      (await api.spaces.listSpacePageMetaLinks(spaceId, a.id)).data,
    );
    const crLinks = await api.spaces.listChangeRequestPageMetaLinks(spaceId, cr2.id, a.id);
    assertMatchesSpec('GET', '/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}/meta-links', 200, crLinks.data);
    expect(
      (await t.api('GET', `/v1/spaces/${spaceId}/revisions/${r0}/page/missing-page/meta-links`, { token: org.adminToken })).status,
    ).toBe(404);

    // Non-members see none of it; an unknown revision, or another space's, is a 404.
    const outsider = await t.seedUser(undefined, undefined, 'Oscar Outsider');
    for (const p of [`/revisions/${r0}`, `/revisions/${r0}/changes`, `/revisions/${r0}/page/${a.id}`, `/documents/${a.documentId}`]) {
      expect((await t.api('GET', `/v1/spaces/${spaceId}${p}`, { token: outsider.token })).status).toBe(404);
    }
    expect((await t.api('GET', `/v1/spaces/${spaceId}/revisions/no-such-revision`, { token: org.adminToken })).status).toBe(404);
    const otherSpace = (await api.orgs.createSpace(org.orgId, { title: 'Other' })).data.id;
    expect((await t.api('GET', `/v1/spaces/${otherSpace}/revisions/${r0}`, { token: org.adminToken })).status).toBe(404);
    expect((await t.api('GET', `/v1/spaces/${spaceId}/revisions/${r0}/changes?limit=100000`, { token: org.adminToken })).status).toBe(400);
    assertMatchesSchema('Revision', { ...(await api.spaces.getRevisionById(spaceId, revs[10])).data, pages: [] });
  });
});
