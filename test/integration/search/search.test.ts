import { describe, expect, it } from 'vitest';
import { startTestApp, useTestApp, type TestApp } from '../../helpers/app.js';
import { assertMatchesSpec } from '../../helpers/spec.js';
import { editContent } from '../../helpers/content.js';
import { reindexSpace } from '../../../src/search/indexer.js';

const { t, org } = useTestApp({ seedOrg: true });

async function createSpace(title: string, token = org.adminToken, orgId = org.orgId, extra: Record<string, unknown> = {}) {
  const r = await t.api('POST', `/v1/orgs/${orgId}/spaces`, { token, body: { title, empty: true, ...extra } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.id as string;
}

async function search(spaceId: string, query: string, opts: { token?: string; page?: string; limit?: number; app?: TestApp } = {}) {
  const qs = new URLSearchParams({ query });
  if (opts.page) qs.set('page', opts.page);
  if (opts.limit !== undefined) qs.set('limit', String(opts.limit));
  const r = await (opts.app ?? t).api('GET', `/v1/spaces/${spaceId}/search?${qs}`, { token: opts.token ?? org.adminToken });
  if (r.status === 200) assertMatchesSpec('GET', '/spaces/{spaceId}/search', 200, r.body);
  return r;
}

async function orgSearch(orgId: string, query: string, token: string, extra = '') {
  const r = await t.api('GET', `/v1/orgs/${orgId}/search?query=${encodeURIComponent(query)}${extra}`, { token });
  if (r.status === 200) assertMatchesSpec('GET', '/orgs/{organizationId}/search', 200, r.body);
  return r;
}

const titles = (body: any) => body.items.map((p: any) => p.title);

describe('space search', () => {
  it('finds a word in a section of a nested page, naming the section and the page path', async () => {
    const s = await createSpace('Handbook');
    let child = '';
    await editContent(t, s, (d) => {
      const parent = d.insertPage(null, { title: 'Guides', markdown: 'All our guides.' });
      child = d.insertPage(parent, {
        title: 'Setup',
        markdown:
          '# Setup\n\nSome introduction.\n\n## Requirements\n\nYou will need a **quokka** licence before anything else.\n\n## Next steps\n\nRead on.\n',
      });
    });
    const r = await search(s, 'quokka');
    expect(r.status).toBe(200);
    expect(r.body.count).toBe(1);
    const [page] = r.body.items;
    expect(page).toMatchObject({
      id: child,
      title: 'Setup',
      path: 'guides/setup',
      rank: 1,
      resultType: 'section',
      ancestors: [{ title: 'Guides' }],
      urls: { app: `${t.baseUrl}/app/s/${s}/page/${child}` },
    });
    expect(page.score).toBeGreaterThan(0);
    expect(page.sections).toHaveLength(1);
    expect(page.sections[0]).toMatchObject({
      id: 'requirements',
      title: 'Requirements',
      path: 'guides/setup#requirements',
      resultType: 'section',
      urls: { app: `${t.baseUrl}/app/s/${s}/page/${child}#requirements` },
    });
    expect(page.sections[0].body).toBe('You will need a quokka licence before anything else.');
    expect((await search(s, 'platypus')).body).toEqual({ items: [], count: 0 });
  });

  it('keeps the snippet short and around the first match', async () => {
    const s = await createSpace('Long');
    const filler = 'Nothing to see in this sentence at all. '.repeat(30);
    await editContent(t, s, (d) => {
      d.insertPage(null, { title: 'Essay', markdown: `${filler}Here the wombat finally appears in the text. ${filler}` });
    });
    const body = (await search(s, 'wombat')).body.items[0].sections[0].body as string;
    expect(body.length).toBeLessThanOrEqual(200);
    expect(body).toContain('Here the wombat finally appears');
    expect(body).not.toMatch(/<|\uE000/);
  });

  it('ranks a title match above a body-only match', async () => {
    const s = await createSpace('Ranking');
    await editContent(t, s, (d) => {
      d.insertPage(null, { title: 'Other things', markdown: 'Mentions the zebra once, and the zebra twice, zebra zebra.' });
      d.insertPage(null, { title: 'Zebra care', markdown: 'Feeding and grooming.' });
    });
    const r = await search(s, 'zebra');
    expect(titles(r.body)).toEqual(['Zebra care', 'Other things']);
    expect(r.body.items.map((p: any) => p.rank)).toEqual([1, 2]);
    expect(r.body.items[0].score).toBeGreaterThan(r.body.items[1].score);
    // The title match has no section matching on its own text: it shows its first section as a page match.
    expect(r.body.items[0].resultType).toBe('page');
    expect(r.body.items[0].sections).toEqual([expect.objectContaining({ id: '', resultType: 'page', body: 'Feeding and grooming.' })]);
    expect(r.body.items[1].resultType).toBe('section');
  });

  it('matches words spread over the page title and a section', async () => {
    const s = await createSpace('Hierarchy');
    await editContent(t, s, (d) => {
      d.insertPage(null, { title: 'Docker', markdown: '## Installation\n\nRun the package manager.\n\n## Usage\n\nStart containers.' });
    });
    const r = await search(s, 'docker installation');
    expect(r.body.items).toHaveLength(1);
    expect(r.body.items[0].sections.map((x: any) => x.id)).toEqual(['installation']);
  });

  it('follows the current revision: edits, moves, deletions, noIndex and link pages', async () => {
    const s = await createSpace('Moving target');
    let a = '';
    let b = '';
    let folder = '';
    await editContent(t, s, (d) => {
      folder = d.insertPage(null, { title: 'Folder', markdown: '' });
      a = d.insertPage(folder, { title: 'Alpha', markdown: 'The original armadillo text.' });
      b = d.insertPage(null, { title: 'Beta', markdown: 'Bravo page about the badger.' });
      d.insertPage(null, { title: 'Hidden from search', markdown: 'A secret armadillo.', noIndex: true });
      d.insertPage(null, { title: 'Armadillo link', type: 'link', href: 'https://example.com/armadillo' });
    });
    expect(titles((await search(s, 'armadillo')).body)).toEqual(['Alpha']);

    await editContent(t, s, (d) => d.updatePage(a, { markdown: 'The rewritten aardvark text.' }));
    expect((await search(s, 'armadillo')).body.count).toBe(0);
    expect(titles((await search(s, 'aardvark')).body)).toEqual(['Alpha']);

    await editContent(t, s, (d) => d.updatePage(a, { title: 'Alpha renamed' }));
    expect(titles((await search(s, 'aardvark')).body)).toEqual(['Alpha renamed']);

    await editContent(t, s, (d) => d.updatePage(folder, { slug: 'shelf', title: 'Shelf' }));
    const moved = (await search(s, 'aardvark')).body.items[0];
    expect(moved).toMatchObject({ path: 'shelf/alpha', ancestors: [{ title: 'Shelf' }] });

    await editContent(t, s, (d) => d.deletePage(b));
    expect((await search(s, 'badger')).body.count).toBe(0);
    await editContent(t, s, (d) => d.updatePage(a, { noIndex: true }));
    expect((await search(s, 'aardvark')).body.count).toBe(0);
    // Removed and re-parsed pages took their section rows with them: every section has its page.
    const rows = await t.app.db.query(
      `SELECT s.page_id, (p.page_id IS NOT NULL) AS has_page FROM search_sections s
         LEFT JOIN search_pages p ON p.space_id = s.space_id AND p.page_id = s.page_id WHERE s.space_id = $1`,
      [s],
    );
    expect(rows.rows.length).toBeGreaterThan(0);
    expect(rows.rows.filter((r) => !r.has_page)).toEqual([]);
  });

  it('an incremental reindex leaves the rows a rebuild from scratch would: moves, re-parenting, renames, type and noIndex changes', async () => {
    const s = await createSpace('Incremental');
    const ids: Record<string, string> = {};
    await editContent(t, s, (d) => {
      ids.a = d.insertPage(null, { title: 'Alpha', markdown: '# One\n\nAlpha wombat.\n\n## Two\n\nMore.' });
      ids.a1 = d.insertPage(ids.a, { title: 'Alpha child', markdown: 'Child text.' });
      ids.a2 = d.insertPage(ids.a1, { title: 'Alpha grandchild', markdown: 'Grandchild text.' });
      ids.b = d.insertPage(null, { title: 'Beta', markdown: 'Beta text.' });
      ids.g = d.insertPage(null, { type: 'group', title: 'Group' });
      ids.c = d.insertPage(ids.g, { title: 'Gamma', markdown: 'Gamma text.' });
      for (let i = 0; i < 30; i++) d.insertPage(ids.b, { title: `Filler ${i}`, markdown: `Filler ${i} text.` });
    });
    const rows = async () => ({
      pages: (
        await t.app.db.query(
          'SELECT page_id, body_hash, title, description, path, ancestors FROM search_pages WHERE space_id = $1 ORDER BY page_id',
          [s],
        )
      ).rows,
      sections: (
        await t.app.db.query(
          'SELECT page_id, ord, section_id, title, body, path, tsv::text FROM search_sections WHERE space_id = $1 ORDER BY page_id, ord',
          [s],
        )
      ).rows,
    });
    const edits: ((d: Parameters<Parameters<typeof editContent>[2]>[0]) => unknown)[] = [
      (d) => d.movePage(ids.a1, ids.b), // a subtree re-parented
      (d) => d.updatePage(ids.b, { slug: 'beta-renamed', title: 'Beta renamed' }), // every descendant moves
      (d) => d.updatePage(ids.a2, { noIndex: true }),
      (d) => d.updatePage(ids.c, { markdown: 'Gamma rewritten.' }),
      (d) => d.movePage(ids.c, null, 0),
      (d) => d.deletePage(ids.a),
      (d) => d.updatePage(ids.a2, { noIndex: false, description: 'Back' }),
    ];
    for (const edit of edits) {
      await editContent(t, s, edit); // afterContentChange: the incremental reindex
      const incremental = await rows();
      await t.app.db.query(`UPDATE search_spaces SET config = 'rebuild' WHERE space_id = $1`, [s]);
      await reindexSpace(t.app, s); // another configuration: everything from scratch
      expect(incremental).toEqual(await rows());
    }
  });

  it('orders pages of equal score by their path, following moves', async () => {
    const s = await createSpace('Ties');
    let c = '';
    await editContent(t, s, (d) => {
      d.insertPage(null, { title: 'Bb', markdown: 'The same walrus text.' });
      c = d.insertPage(null, { title: 'Cc', markdown: 'The same walrus text.' });
    });
    expect(titles((await search(s, 'walrus')).body)).toEqual(['Bb', 'Cc']);
    await editContent(t, s, (d) => d.updatePage(c, { slug: 'aa' }));
    const r = (await search(s, 'walrus')).body;
    expect(titles(r)).toEqual(['Cc', 'Bb']);
    expect(r.items.map((i: { path: string }) => i.path)).toEqual(['aa', 'bb']);
  });

  it('re-parses only the pages that changed', async () => {
    const s = await createSpace('Big');
    const ids: string[] = [];
    await editContent(t, s, (d) => {
      for (let i = 0; i < 30; i++) ids.push(d.insertPage(null, { title: `Page ${i}`, markdown: `Body of page ${i} about koalas.` }));
    });
    const versions = async () => {
      const { rows } = await t.app.db.query('SELECT page_id, xmin::text AS v FROM search_sections WHERE space_id = $1', [s]);
      return new Map(rows.map((r) => [r.page_id, r.v]));
    };
    const before = await versions();
    expect(before.size).toBe(30);
    await editContent(t, s, (d) => d.updatePage(ids[7], { markdown: 'Now about kangaroos.' }));
    const after = await versions();
    const rewritten = ids.filter((id) => before.get(id) !== after.get(id));
    expect(rewritten).toEqual([ids[7]]);
    const { rows } = await t.app.db.query(
      'SELECT ss.revision_id = s.revision_id AS current FROM search_spaces ss JOIN spaces s ON s.id = ss.space_id WHERE ss.space_id = $1',
      [s],
    );
    expect(rows).toEqual([{ current: true }]);
    expect((await search(s, 'koalas')).body.count).toBe(29);
  });

  it('is safe when two reindexings of a space run at once', async () => {
    const s = await createSpace('Concurrent');
    await editContent(t, s, (d) => {
      for (let i = 0; i < 20; i++) d.insertPage(null, { title: `Doc ${i}`, markdown: `Text ${i} about emus.` });
    });
    // Forget the index, then rebuild it twice at the same time.
    await t.app.db.query('DELETE FROM search_pages WHERE space_id = $1', [s]);
    await t.app.db.query('UPDATE search_spaces SET revision_id = NULL, root_hash = NULL, config = NULL WHERE space_id = $1', [s]);
    // Hold the state row so that both block once under way (writing pages needs a key-share lock
    // on it), let both get there, then let them go.
    const blocker = await t.app.db.connect();
    await blocker.query('BEGIN');
    await blocker.query('SELECT 1 FROM search_spaces WHERE space_id = $1 FOR UPDATE', [s]);
    const runs = Promise.allSettled([reindexSpace(t.app, s), reindexSpace(t.app, s)]);
    for (let i = 0; i < 500; i++) {
      const { rows } = await t.app.db.query(
        `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type IN ('Lock') AND pid <> $1`,
        [(await blocker.query('SELECT pg_backend_pid() AS pid')).rows[0].pid],
      );
      if (rows[0].n >= 2) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    await blocker.query('COMMIT');
    blocker.release();
    expect((await runs).map((r) => r.status)).toEqual(['fulfilled', 'fulfilled']);
    const { rows } = await t.app.db.query('SELECT count(*) AS n FROM search_pages WHERE space_id = $1', [s]);
    expect(rows[0].n).toBe(20);
    expect((await search(s, 'emus')).body.count).toBe(20);
  });

  it('indexes a space whose index is missing or stale at its next search', async () => {
    const s = await createSpace('Stale');
    await editContent(t, s, (d) => d.insertPage(null, { title: 'Lost', markdown: 'The narwhal page.' }));
    await t.app.db.query('DELETE FROM search_spaces WHERE space_id = $1', [s]);
    expect(titles((await search(s, 'narwhal')).body)).toEqual(['Lost']);
  });

  it('finds CJK phrases and not unrelated CJK text', async () => {
    const s = await createSpace('中文');
    await editContent(t, s, (d) => {
      d.insertPage(null, { title: '介绍', markdown: '这是一个文档平台的介绍。\n\n## 安装\n\nインストールの手順を説明します。' });
      d.insertPage(null, { title: '한국어', markdown: '문서 플랫폼을 소개합니다.' });
    });
    const found = await search(s, '文档平台');
    expect(titles(found.body)).toEqual(['介绍']);
    expect(found.body.items[0].sections[0].body).toContain('文档平台');
    expect((await search(s, '数据库')).body.count).toBe(0);
    expect((await search(s, '平文')).body.count).toBe(0);
    expect(titles((await search(s, '档')).body)).toEqual(['介绍']);
    const kana = await search(s, 'インストール');
    expect(kana.body.items[0].sections.map((x: any) => x.title)).toEqual(['安装']);
    expect(titles((await search(s, '플랫폼')).body)).toEqual(['한국어']);
    // Mixed with Latin words: both must match.
    await editContent(t, s, (d) => d.insertPage(null, { title: 'Mixed', markdown: 'GitBook 文档平台 guide' }));
    expect(titles((await search(s, 'guide 文档平台')).body)).toEqual(['Mixed']);
  });

  it('stems Latin words under the configured text search configuration (english by default)', async () => {
    const s = await createSpace('Stems');
    await editContent(t, s, (d) => d.insertPage(null, { title: 'CLI', markdown: 'How to install the command line tool.' }));
    const r = await search(s, 'installing');
    expect(titles(r.body)).toEqual(['CLI']);
    expect(r.body.items[0].sections[0].body).toBe('How to install the command line tool.');
    // Websearch syntax: exclusion and quoted phrases.
    expect((await search(s, 'install -tool')).body.count).toBe(0);
    expect((await search(s, '"command line"')).body.count).toBe(1);
    expect((await search(s, '"line command"')).body.count).toBe(0);
  });

  it('uses the configuration of the space language when PostgreSQL has one', async () => {
    const s = await createSpace('Écurie');
    await editContent(t, s, (d) => d.insertPage(null, { title: 'Chevaux', markdown: 'Le cheval mange.' }));
    expect((await search(s, 'chevaux')).body.items[0].sections).toEqual([expect.objectContaining({ resultType: 'page' })]);
    expect((await t.api('PATCH', `/v1/spaces/${s}`, { token: org.adminToken, body: { language: 'fr' } })).status).toBe(200);
    // Reindexed under french at this search: "chevaux" now finds "cheval" in the body.
    const r = await search(s, 'chevaux');
    expect(r.body.items[0].sections).toEqual([expect.objectContaining({ resultType: 'section', body: 'Le cheval mange.' })]);
  });

  it('paginates ranked results with an opaque cursor bound to the query', async () => {
    const s = await createSpace('Many');
    await editContent(t, s, (d) => {
      for (let i = 0; i < 7; i++) d.insertPage(null, { title: `Item ${i}`, markdown: 'ocelot '.repeat(i + 1) });
    });
    const seen: any[] = [];
    let page: string | undefined;
    let calls = 0;
    do {
      const r = await search(s, 'ocelot', { limit: 3, page });
      expect(r.status).toBe(200);
      expect(r.body.count).toBe(7);
      seen.push(...r.body.items);
      page = r.body.next?.page;
      calls++;
    } while (page && calls < 10);
    expect(calls).toBe(3);
    expect(seen.map((p) => p.rank)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(new Set(seen.map((p) => p.id)).size).toBe(7);
    const scores = seen.map((p) => p.score);
    expect([...scores].sort((x, y) => y - x)).toEqual(scores);
    // The same query gives the same cursor; another query refuses it.
    const first = await search(s, 'ocelot', { limit: 3 });
    expect((await search(s, 'ocelot', { limit: 3 })).body.next).toEqual(first.body.next);
    const other = await search(s, 'lynx', { page: first.body.next.page });
    expect(other.status).toBe(400);
    expect(other.body.error.message).toContain('query.page');
    expect((await search(s, 'ocelot', { page: 'garbage!' })).status).toBe(400);
  });

  it('requires a query of at most 512 characters', async () => {
    const s = await createSpace('Validation');
    for (const qs of ['', '?query=', '?query=%20%20', `?query=${'a'.repeat(513)}`]) {
      const r = await t.api('GET', `/v1/spaces/${s}/search${qs}`, { token: org.adminToken });
      expect(r.status, qs).toBe(400);
      expect(r.body.error.message).toContain('query.query');
    }
    expect((await search(s, 'a'.repeat(512))).status).toBe(200);
    const o = await t.api('GET', `/v1/orgs/${org.orgId}/search`, { token: org.adminToken });
    expect(o.status).toBe(400);
    expect(o.body.error.message).toContain('query.query');
  });

  it('needs read access: an invisible or deleted space is a 404', async () => {
    const s = await createSpace('Private notes');
    await editContent(t, s, (d) => d.insertPage(null, { title: 'Secret', markdown: 'The hidden gecko.' }));
    await t.api('PATCH', `/v1/spaces/${s}`, { token: org.adminToken, body: { defaultLevel: null } });
    const member = await t.seedUser(org.orgId, 'edit');
    const outsider = await t.seedUser();
    for (const token of [member.token, outsider.token]) expect((await search(s, 'gecko', { token })).status).toBe(404);
    const reader = await t.seedUser(org.orgId, 'read');
    await t.api('PATCH', `/v1/spaces/${s}`, { token: org.adminToken, body: { defaultLevel: 'inherit' } });
    expect((await search(s, 'gecko', { token: reader.token })).body.count).toBe(1);
    await t.api('DELETE', `/v1/spaces/${s}`, { token: org.adminToken });
    expect((await search(s, 'gecko')).status).toBe(404);
  });
});

describe('organization search', () => {
  it('groups results by space, only spaces the caller can see, never deleted ones', async () => {
    const o = await t.seedOrg('Search org');
    const open = await createSpace('Open space', o.adminToken, o.orgId);
    const closed = await createSpace('Closed space', o.adminToken, o.orgId);
    const gone = await createSpace('Deleted space', o.adminToken, o.orgId);
    await editContent(t, open, (d) => {
      d.insertPage(null, { title: 'Penguin facts', markdown: 'Penguins swim.' });
      d.insertPage(null, { title: 'Birds', markdown: 'A penguin is a bird.' });
    });
    await editContent(t, closed, (d) => d.insertPage(null, { title: 'Penguin secrets', markdown: 'Classified penguin data.' }));
    await editContent(t, gone, (d) => d.insertPage(null, { title: 'Penguin archive', markdown: 'Old penguin notes.' }));
    await t.api('PATCH', `/v1/spaces/${closed}`, { token: o.adminToken, body: { defaultLevel: null } });
    expect((await t.api('DELETE', `/v1/spaces/${gone}`, { token: o.adminToken })).status).toBe(204);

    const admin = await orgSearch(o.orgId, 'penguin', o.adminToken);
    expect(admin.status).toBe(200);
    expect(admin.body.count).toBe(2);
    expect(admin.body.items.map((x: any) => x.id).sort()).toEqual([open, closed].sort());
    const openResult = admin.body.items.find((x: any) => x.id === open);
    expect(openResult).toMatchObject({ type: 'space', title: 'Open space' });
    expect(openResult.pages.map((p: any) => p.title).sort()).toEqual(['Birds', 'Penguin facts']);
    expect(openResult.score).toBe(Math.max(...openResult.pages.map((p: any) => p.score)));
    // Ranks are positions in the organization-wide ranking, spaces ordered by their best page.
    const ranks = admin.body.items.flatMap((x: any) => x.pages.map((p: any) => p.rank)).sort();
    expect(ranks).toEqual([1, 2, 3]);
    expect(admin.body.items[0].pages[0].rank).toBe(1);

    const member = await t.seedUser(o.orgId, 'edit');
    const r = await orgSearch(o.orgId, 'penguin', member.token);
    expect(r.body.items.map((x: any) => x.id)).toEqual([open]);
    expect(r.body.count).toBe(1);

    // Restored: searchable again.
    await t.api('POST', `/v1/spaces/${gone}/restore`, { token: o.adminToken });
    expect((await orgSearch(o.orgId, 'penguin', member.token)).body.items.map((x: any) => x.id).sort()).toEqual([open, gone].sort());
  });

  it('paginates spaces', async () => {
    const o = await t.seedOrg('Paged org');
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const s = await createSpace(`Space ${i}`, o.adminToken, o.orgId);
      await editContent(t, s, (d) => d.insertPage(null, { title: `Heron ${i}`, markdown: 'heron '.repeat(i + 1) }));
      ids.push(s);
    }
    const p1 = await orgSearch(o.orgId, 'heron', o.adminToken, '&limit=2');
    expect(p1.body.count).toBe(3);
    expect(p1.body.items).toHaveLength(2);
    const p2 = await orgSearch(o.orgId, 'heron', o.adminToken, `&limit=2&page=${p1.body.next.page}`);
    expect(p2.body.items).toHaveLength(1);
    expect(p2.body.next).toBeUndefined();
    expect([...p1.body.items, ...p2.body.items].map((x: any) => x.id).sort()).toEqual([...ids].sort());
  });

  it('needs membership of the organization', async () => {
    const outsider = await t.seedUser();
    const r = await orgSearch(org.orgId, 'anything', outsider.token);
    expect(r.status).toBe(403);
  });
});

describe('text search configuration', () => {
  it('is settable, and an unknown one falls back to simple', async () => {
    const other = await startTestApp({ env: { SEARCH_TEXT_CONFIG: 'klingon' } });
    try {
      const o = await other.seedOrg();
      const created = await other.api('POST', `/v1/orgs/${o.orgId}/spaces`, {
        token: o.adminToken,
        body: { title: 'Simple', empty: true },
      });
      const s = created.body.id;
      await editContent(other, s, (d) => d.insertPage(null, { title: 'CLI', markdown: 'How to install the tool.' }));
      // simple: no stemming, no stop words.
      expect((await search(s, 'installing', { app: other, token: o.adminToken })).body.count).toBe(0);
      expect((await search(s, 'install', { app: other, token: o.adminToken })).body.count).toBe(1);
      expect((await search(s, 'the', { app: other, token: o.adminToken })).body.count).toBe(1);
      const { rows } = await other.app.db.query('SELECT config FROM search_spaces WHERE space_id = $1', [s]);
      expect(rows).toEqual([{ config: 'simple' }]);
    } finally {
      await other.close();
    }
  });
});

describe('duplicate', () => {
  it('a duplicated space is searchable at once with the index copied, not rebuilt', async () => {
    const o = await t.seedOrg();
    const s = (await t.api('POST', `/v1/orgs/${o.orgId}/spaces`, { token: o.adminToken, body: { title: 'Source', empty: true } })).body;
    await editContent(t, s.id, (d) => {
      d.insertPage(null, { title: 'Zebra facts', markdown: '## Stripes\n\nZebras have quagga cousins.' });
    });
    await t.api('GET', `/v1/spaces/${s.id}/search?query=quagga`, { token: o.adminToken });
    const copy = (await t.api('POST', `/v1/spaces/${s.id}/duplicate`, { token: o.adminToken })).body;
    const { rows } = await t.app.db.query('SELECT count(*) AS n FROM search_sections WHERE space_id = $1', [copy.id]);
    expect(rows[0].n).toBeGreaterThan(0);
    const found = await t.api('GET', `/v1/spaces/${copy.id}/search?query=quagga`, { token: o.adminToken });
    expect(found.body.items.map((x: any) => x.title)).toEqual(['Zebra facts']);
  });
});
