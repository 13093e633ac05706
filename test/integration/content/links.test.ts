import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { assertMatchesSchema } from '../../helpers/spec.js';
import { addFile, editContent, PNG_2x1 } from '../../helpers/content.js';
import { loadLinkIndex } from '../../../src/content/links.js';
import { revisionSnapshot } from '../../../src/content/commit.js';
import { getSpace } from '../../../src/db/repos/spaces.js';

const { t, org } = useTestApp({ seedOrg: true });

async function createSpace(title = 'Docs', token = org.adminToken) {
  const r = await t.api('POST', `/v1/orgs/${org.orgId}/spaces`, { token, body: { title, empty: true } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.id as string;
}

async function get(path: string, token = org.adminToken) {
  return t.api('GET', path, { token });
}

/** Every item of a list, following `next.page`. */
async function all(path: string, limit: number, token = org.adminToken) {
  const items: any[] = [];
  let page: string | undefined;
  for (let i = 0; i < 100; i++) {
    const sep = path.includes('?') ? '&' : '?';
    const r = await get(`${path}${sep}limit=${limit}${page ? `&page=${page}` : ''}`, token);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.items.length).toBeLessThanOrEqual(limit);
    items.push(...r.body.items);
    if (!r.body.next) return items;
    page = r.body.next.page;
  }
  throw new Error('pagination did not end');
}

/** A short, comparable description of a link item. */
function describeItem(i: any): string {
  const tr = i.targetReference;
  const target =
    tr.kind === 'page'
      ? `page:${tr.page.id}${tr.internalLocation ? `#${tr.internalLocation.anchor}` : ''}`
      : tr.kind === 'file'
        ? `file:${tr.file.id}`
        : `url:${tr.url}`;
  return `${i.status} ${i.relation} ${target} <- ${i.locationReferences.map((l: any) => l.page.id).join(',')}`;
}

/**
 * intro                 [guide/install.md] [example.com] [app URL] [nowhere.md] ![.gitbook/assets/shot.png]
 * guide (folder)        [install.md] [setup.md#configure]
 *   install             [setup.md] [../intro.md] [example.com] [#prerequisites]
 *   setup               (no links)
 */
async function seedDocs() {
  const spaceId = await createSpace();
  const shot = await addFile(t, spaceId, 'shot.png', 'image/png', PNG_2x1);
  await editContent(t, spaceId, (d) => {
    d.insertPage(null, {
      id: 'intro',
      title: 'Intro',
      markdown: [
        'Start with [the installation](guide/install.md).',
        '',
        `Visit [our site](https://example.com), [the app](${t.baseUrl}/app/o/${org.orgId}) or [old notes](nowhere.md).`,
        '',
        '![A screenshot](.gitbook/assets/shot.png)',
      ].join('\n'),
    });
    const guide = d.insertPage(null, {
      id: 'guide',
      title: 'Guide',
      markdown: 'See [install](install.md) and [configuration](setup.md#configure).',
    });
    d.insertPage(guide, {
      id: 'install',
      title: 'Install',
      markdown:
        'Read [setup](setup.md), go [back](../intro.md), visit [the site](https://example.com) or jump to [prerequisites](#prerequisites).',
    });
    d.insertPage(guide, { id: 'setup', title: 'Setup', markdown: 'Nothing links out from here.' });
  });
  return { spaceId, shot };
}

describe('space links', () => {
  it('lists every link with its status, the pages it appears on and stats', async () => {
    const { spaceId, shot } = await seedDocs();
    const space = await get(`/v1/spaces/${spaceId}`);
    const r = await get(`/v1/spaces/${spaceId}/links`);
    expect(r.status).toBe(200);
    expect(r.body.items.map(describeItem).sort()).toEqual(
      [
        'broken link url:nowhere.md <- intro',
        `in-app link url:${t.baseUrl}/app/o/${org.orgId} <- intro`,
        'ok image file:' + shot + ' <- intro',
        'ok link page:install <- intro,guide',
        'ok link page:intro <- install',
        'ok link page:setup <- install',
        'ok link page:setup#configure <- guide',
        'ok link url:https://example.com <- intro,install',
      ].sort(),
    );
    expect(r.body.count).toBe(8);
    expect(r.body.stats).toEqual({ total: 8, broken: { total: 1, changeRequest: 0 } });
    expect(r.body.next).toBeUndefined();

    // References carry the organization, the space (with the caller's permissions) and the revision.
    const pageItem = r.body.items.find((i: any) => i.targetReference.kind === 'page' && i.targetReference.page.id === 'install');
    const target = pageItem.targetReference;
    expect(target.page).toMatchObject({ id: 'install', title: 'Install', path: 'guide/install', type: 'document' });
    expect(target.page.pages).toBeUndefined();
    expect(target.organization).toMatchObject({ object: 'organization', id: org.orgId });
    expect(target.space).toMatchObject({
      object: 'space',
      id: spaceId,
      revision: space.body.revision,
      permissions: { view: true, admin: true },
    });
    expect(target.versionContext).toEqual({ type: 'revision', revision: space.body.revision });
    expect(pageItem.locationReferences.map((l: any) => [l.kind, l.page.id, l.page.path])).toEqual([
      ['page', 'intro', 'intro'],
      ['page', 'guide', 'guide'],
    ]);
    assertMatchesSchema('Organization', target.organization);
    assertMatchesSchema('Space', target.space);
    // ContentLocationPage of the public description, except that the page comes without its
    // children and body, and versionContext names the revision by ID.
    expect(Object.keys(target).sort()).toEqual(['kind', 'organization', 'page', 'space', 'versionContext']);
    assertMatchesSchema('RevisionPageBase', target.page);
    const anchored = r.body.items.find((i: any) => i.targetReference.internalLocation);
    expect(anchored.targetReference.internalLocation).toEqual({ type: 'anchor', anchor: 'configure' });
    const fileItem = r.body.items.find((i: any) => i.targetReference.kind === 'file');
    expect(fileItem.targetReference.file).toMatchObject({ id: shot, name: 'shot.png', contentType: 'image/png' });
    const { versionContext: _w, ...fileLocation } = fileItem.targetReference;
    assertMatchesSchema('ContentLocationFile', fileLocation);
    const broken = r.body.items.find((i: any) => i.status === 'broken');
    assertMatchesSchema('ContentLocationURL', broken.targetReference);
  });

  it('filters by status without changing the stats', async () => {
    const { spaceId } = await seedDocs();
    const broken = await get(`/v1/spaces/${spaceId}/links?status=broken`);
    expect(broken.body.items.map(describeItem)).toEqual(['broken link url:nowhere.md <- intro']);
    expect(broken.body.count).toBe(1);
    expect(broken.body.stats).toEqual({ total: 8, broken: { total: 1, changeRequest: 0 } });
    const inApp = await get(`/v1/spaces/${spaceId}/links?status=in-app`);
    expect(inApp.body.items.map((i: any) => i.targetReference.url)).toEqual([`${t.baseUrl}/app/o/${org.orgId}`]);
    const okOnes = await get(`/v1/spaces/${spaceId}/links?status=ok`);
    expect(okOnes.body.count).toBe(6);
    expect(okOnes.body.items.every((i: any) => i.status === 'ok')).toBe(true);
    const bad = await get(`/v1/spaces/${spaceId}/links?status=dead`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('query.status');
    expect((await get(`/v1/spaces/${spaceId}/links?limit=1001`)).status).toBe(400);
  });

  it('a link breaks when its target page is deleted and works again when a page takes that path', async () => {
    const spaceId = await createSpace();
    await editContent(t, spaceId, (d) => {
      d.insertPage(null, { id: 'home', title: 'Home', markdown: '[Setup](guide/setup.md) and [by id](/pages/setup1)' });
      const guide = d.insertPage(null, { id: 'guide', title: 'Guide' });
      d.insertPage(guide, { id: 'setup1', title: 'Setup' });
    });
    const before = await get(`/v1/spaces/${spaceId}/links`);
    expect(before.body.items.map(describeItem).sort()).toEqual(['ok link page:setup1 <- home']);
    expect(before.body.stats.broken.total).toBe(0);

    await editContent(t, spaceId, (d) => void d.deletePage('setup1'));
    const after = await get(`/v1/spaces/${spaceId}/links?status=broken`);
    expect(after.body.items.map(describeItem).sort()).toEqual([
      'broken link url:/pages/setup1 <- home',
      'broken link url:guide/setup.md <- home',
    ]);
    expect(after.body.stats).toEqual({ total: 2, broken: { total: 2, changeRequest: 0 } });
    expect((await get(`/v1/spaces/${spaceId}/content/page/home/links?status=broken`)).body.count).toBe(2);

    // A new page at guide/setup: the path link works again; the link to the old id stays broken.
    await editContent(t, spaceId, (d) => void d.insertPage('guide', { id: 'setup2', title: 'Setup' }));
    const again = await get(`/v1/spaces/${spaceId}/links`);
    expect(again.body.items.map(describeItem).sort()).toEqual(['broken link url:/pages/setup1 <- home', 'ok link page:setup2 <- home']);
    expect(again.body.stats.broken.total).toBe(1);
    expect((await get(`/v1/spaces/${spaceId}/content/page/setup2/backlinks`)).body.items.map((i: any) => i.page.id)).toEqual(['home']);
  });

  it('resolves relative docs-as-code paths through nested folders, READMEs and ../', async () => {
    const spaceId = await createSpace();
    await editContent(t, spaceId, (d) => {
      d.insertPage(null, {
        id: 'welcome',
        title: 'Welcome',
        markdown: '[Tuning](/platform/advanced/tuning) [Platform](platform/README.md)',
      });
      const platform = d.insertPage(null, {
        id: 'platform',
        title: 'Platform',
        markdown: '[Advanced](advanced/README.md) [Tuning](./advanced/tuning.md)',
      });
      const advanced = d.insertPage(platform, {
        id: 'advanced',
        title: 'Advanced',
        markdown: '[Tuning](tuning.md) [Up](../README.md) [Home](../../README.md)',
      });
      d.insertPage(advanced, {
        id: 'tuning',
        title: 'Tuning',
        markdown:
          '[Sibling folder](README.md) [Platform](../../platform/README.md) [Welcome](../../welcome.md) [Too far](../../../x.md) [Limits](limits.md)',
      });
      d.insertPage(advanced, { id: 'limits', title: 'Limits' });
    });
    const targets = async (pageId: string) =>
      (await get(`/v1/spaces/${spaceId}/content/page/${pageId}/links`)).body.items.map((i: any) =>
        i.targetReference.kind === 'page' ? i.targetReference.page.id : `${i.status}:${i.targetReference.url}`,
      );
    expect((await targets('welcome')).sort()).toEqual(['platform', 'tuning']);
    expect((await targets('platform')).sort()).toEqual(['advanced', 'tuning']);
    expect((await targets('advanced')).sort()).toEqual(['platform', 'tuning', 'welcome']);
    expect((await targets('tuning')).sort()).toEqual(['advanced', 'broken:../../../x.md', 'limits', 'platform', 'welcome']);
  });
});

describe('page links', () => {
  it('lists the links of one page with their own stats; 404 for an unknown page', async () => {
    const { spaceId } = await seedDocs();
    const r = await get(`/v1/spaces/${spaceId}/content/page/install/links`);
    expect(r.status).toBe(200);
    expect(r.body.items.map(describeItem).sort()).toEqual([
      'ok link page:intro <- install',
      'ok link page:setup <- install',
      'ok link url:https://example.com <- install',
    ]);
    expect(r.body.stats).toEqual({ total: 3, broken: { total: 0, changeRequest: 0 } });
    const intro = await get(`/v1/spaces/${spaceId}/content/page/intro/links?status=broken`);
    expect(intro.body.items.map(describeItem)).toEqual(['broken link url:nowhere.md <- intro']);
    expect(intro.body.stats).toEqual({ total: 5, broken: { total: 1, changeRequest: 0 } });
    const none = await get(`/v1/spaces/${spaceId}/content/page/setup/links`);
    expect(none.body).toEqual({ items: [], count: 0, stats: { total: 0, broken: { total: 0, changeRequest: 0 } } });
    const missing = await get(`/v1/spaces/${spaceId}/content/page/noSuchPage/links`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.message).toContain('noSuchPage');
  });
});

describe('backlinks', () => {
  it('lists the pages linking to a page, each once; 404 for an unknown page', async () => {
    const { spaceId } = await seedDocs();
    const r = await get(`/v1/spaces/${spaceId}/content/page/install/backlinks`);
    expect(r.status).toBe(200);
    expect(r.body.items.map((i: any) => [i.kind, i.page.id])).toEqual([
      ['page', 'guide'],
      ['page', 'intro'],
    ]);
    expect(r.body.count).toBe(2);
    const ref = r.body.items[0];
    expect(ref.space.id).toBe(spaceId);
    expect(ref.organization.id).toBe(org.orgId);
    expect(ref.versionContext.type).toBe('revision');
    // `guide` links to setup twice (with and without an anchor): listed once.
    expect((await get(`/v1/spaces/${spaceId}/content/page/setup/backlinks`)).body.items.map((i: any) => i.page.id)).toEqual([
      'guide',
      'install',
    ]);
    // `install` links to itself with `#prerequisites`, which is not a backlink.
    expect((await get(`/v1/spaces/${spaceId}/content/page/intro/backlinks`)).body.items.map((i: any) => i.page.id)).toEqual(['install']);
    expect((await get(`/v1/spaces/${spaceId}/content/page/noSuchPage/backlinks`)).status).toBe(404);
  });

  it('counts a link to the app URL of a page as a backlink', async () => {
    const spaceId = await createSpace();
    await editContent(t, spaceId, (d) => {
      d.insertPage(null, { id: 'target', title: 'Target' });
      d.insertPage(null, { id: 'linker', title: 'Linker', markdown: `[absolute](${t.baseUrl}/app/s/${spaceId}/page/target)` });
    });
    const links = await get(`/v1/spaces/${spaceId}/links`);
    expect(links.body.items.map(describeItem)).toEqual([`in-app link url:${t.baseUrl}/app/s/${spaceId}/page/target <- linker`]);
    expect((await get(`/v1/spaces/${spaceId}/content/page/target/backlinks`)).body.items.map((i: any) => i.page.id)).toEqual(['linker']);
  });

  it('lists the pages showing or linking to a file; 404 for an unknown file', async () => {
    const spaceId = await createSpace();
    const diagram = await addFile(t, spaceId, 'diagram.png', 'image/png', PNG_2x1);
    const manual = await addFile(t, spaceId, 'manual.pdf', 'application/pdf', Buffer.from('%PDF-1.4'));
    await editContent(t, spaceId, (d) => {
      d.insertPage(null, { id: 'shows', title: 'Shows', markdown: '![Diagram](.gitbook/assets/diagram.png)' });
      d.insertPage(null, { id: 'links', title: 'Links', markdown: `[Download the diagram](/files/${diagram})` });
      d.insertPage(null, {
        id: 'embeds',
        title: 'Embeds',
        markdown: '{% file src=".gitbook/assets/manual.pdf" %}\nThe manual\n{% endfile %}',
      });
      d.insertPage(null, {
        id: 'unrelated',
        title: 'Unrelated',
        markdown: '[Elsewhere](https://example.com) ![Gone](.gitbook/assets/gone.png)',
      });
    });
    const r = await get(`/v1/spaces/${spaceId}/content/files/${diagram}/backlinks`);
    expect(r.status).toBe(200);
    expect(r.body.items.map((i: any) => i.page.id)).toEqual(['links', 'shows']);
    expect(r.body.items[0]).toMatchObject({ kind: 'page', space: { id: spaceId }, organization: { id: org.orgId } });
    expect((await get(`/v1/spaces/${spaceId}/content/files/${manual}/backlinks`)).body.items.map((i: any) => i.page.id)).toEqual([
      'embeds',
    ]);
    const links = await get(`/v1/spaces/${spaceId}/links`);
    expect(links.body.items.map(describeItem).sort()).toEqual(
      [
        'broken image url:.gitbook/assets/gone.png <- unrelated',
        `ok image file:${diagram} <- shows`,
        `ok link file:${diagram} <- links`,
        `ok link file:${manual} <- embeds`,
        'ok link url:https://example.com <- unrelated',
      ].sort(),
    );
    const missing = await get(`/v1/spaces/${spaceId}/content/files/noSuchFile/backlinks`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.message).toContain('noSuchFile');

    // The file is removed from the content: its references break.
    await editContent(t, spaceId, (d) => d.deleteFile(diagram));
    expect((await get(`/v1/spaces/${spaceId}/content/files/${diagram}/backlinks`)).status).toBe(404);
    const broken = await get(`/v1/spaces/${spaceId}/links?status=broken`);
    expect(broken.body.items.map(describeItem).sort()).toEqual(
      [
        'broken image url:.gitbook/assets/diagram.png <- shows',
        'broken image url:.gitbook/assets/gone.png <- unrelated',
        `broken link url:/files/${diagram} <- links`,
      ].sort(),
    );
  });
});

describe('pagination', () => {
  it('pages through links and backlinks with limit and cursor, stable when content changes in between', async () => {
    const spaceId = await createSpace();
    await editContent(t, spaceId, (d) => {
      d.insertPage(null, { id: 'hub', title: 'Hub' });
      for (let i = 0; i < 7; i++)
        d.insertPage(null, { id: `p${i}`, title: `Page ${i}`, markdown: `[hub](hub.md) [site ${i}](https://site${i}.example)` });
    });
    const everything = await get(`/v1/spaces/${spaceId}/links`);
    expect(everything.body.count).toBe(8);
    const paged = await all(`/v1/spaces/${spaceId}/links`, 3);
    expect(paged.map(describeItem)).toEqual(everything.body.items.map(describeItem));
    const first = await get(`/v1/spaces/${spaceId}/links?limit=3`);
    expect(first.body.items).toHaveLength(3);
    expect(first.body.count).toBe(8);
    expect(first.body.stats.total).toBe(8);
    expect(first.body.next.page).toEqual(expect.any(String));

    // A link sorting before the cursor is added between two reads: the next page neither repeats
    // nor skips what followed the cursor.
    const seen = first.body.items.map(describeItem);
    await editContent(t, spaceId, (d) => void d.insertPage(null, { id: 'early', title: 'Early', markdown: '[a](https://aaa.example)' }));
    const rest = await get(`/v1/spaces/${spaceId}/links?limit=1000&page=${first.body.next.page}`);
    expect(rest.body.items.map(describeItem)).toEqual(everything.body.items.map(describeItem).slice(3));
    expect(rest.body.items.map(describeItem).some((d: string) => seen.includes(d))).toBe(false);
    expect(rest.body.count).toBe(9);
    expect((await get(`/v1/spaces/${spaceId}/links?limit=3`)).body.items.map(describeItem)[0]).toBe(
      'ok link url:https://aaa.example <- early',
    );

    const backlinks = await all(`/v1/spaces/${spaceId}/content/page/hub/backlinks`, 2);
    expect(backlinks.map((i: any) => i.page.id)).toEqual(['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6']);
    const zero = await get(`/v1/spaces/${spaceId}/content/page/hub/backlinks?limit=0`);
    expect(zero.body).toMatchObject({ items: [], count: 7 });
    expect((await get(`/v1/spaces/${spaceId}/links?page=not-a-cursor`)).status).toBe(400);
  });
});

describe('permissions', () => {
  it('needs read access: invisible spaces are a 404, readers see references with their permissions', async () => {
    const { spaceId, shot } = await seedDocs();
    const paths = [
      `/v1/spaces/${spaceId}/links`,
      `/v1/spaces/${spaceId}/content/page/intro/links`,
      `/v1/spaces/${spaceId}/content/page/install/backlinks`,
      `/v1/spaces/${spaceId}/content/files/${shot}/backlinks`,
    ];
    const reader = await t.seedUser(org.orgId, 'read');
    for (const p of paths) expect((await get(p, reader.token)).status, p).toBe(200);
    const asReader = await get(paths[0], reader.token);
    expect(asReader.body.items[0].locationReferences[0].space.permissions).toMatchObject({ view: true, edit: false, admin: false });

    await t.api('PATCH', `/v1/spaces/${spaceId}`, { token: org.adminToken, body: { defaultLevel: null } });
    const outsider = await t.seedUser();
    for (const token of [reader.token, outsider.token]) {
      for (const p of paths) {
        const r = await get(p, token);
        expect(r.status, p).toBe(404);
        expect(r.body.error.message).toContain(spaceId);
      }
    }
    expect((await t.api('GET', paths[0])).status).toBe(401);
  });
});

describe('link index', () => {
  it('is built once per revision and rebuilt for a new one', async () => {
    const { spaceId } = await seedDocs();
    const index = async () => {
      const space = (await getSpace(t.app.db, spaceId))!;
      const { snapshot } = await revisionSnapshot(t.app.db, spaceId, space.revision_id);
      return loadLinkIndex(t.app.db, snapshot, { publicUrl: t.app.config.publicUrl }, (mds) => t.app.markdown.links(mds));
    };
    const a = await index();
    expect(await index()).toBe(a);
    await editContent(t, spaceId, (d) => d.updatePage('setup', { markdown: '[Intro](../intro.md)' }));
    const b = await index();
    expect(b).not.toBe(a);
    expect(b.pageBacklinks.get('intro')).toEqual(['install', 'setup']);
    expect(a.pageBacklinks.get('intro')).toEqual(['install']);
  });
});
