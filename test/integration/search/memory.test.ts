import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { editContent } from '../../helpers/content.js';
import { searchPages } from '../../../src/search/search.js';
import { indexKey, loadsSettled, memoryIndex, memoryUse } from '../../../src/search/memory.js';

// The in-memory index (src/search/memory.ts) answers a space's search only while it holds the
// space's current index, and then answers exactly what PostgreSQL does: same pages, same scores
// (ts_rank's float4 arithmetic), same order and ties, same count, same sections.

const { t, org } = useTestApp({ seedOrg: true });

async function createSpace(title: string) {
  const r = await t.api('POST', `/v1/orgs/${org.orgId}/spaces`, { token: org.adminToken, body: { title, empty: true } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.id as string;
}

/** Whether this process holds the in-memory copy of the space's current index. */
async function inMemory(spaceId: string): Promise<boolean> {
  const { rows } = await t.app.db.query('SELECT root_hash, config FROM search_spaces WHERE space_id = $1', [spaceId]);
  return !!rows[0]?.root_hash && !!memoryIndex(t.app, spaceId, indexKey(rows[0].root_hash, rows[0].config));
}

const QUERIES = [
  'zebra',
  'zebras',
  'docker installation',
  'installing',
  'zebra or walrus',
  'zebra -stripes',
  'walrus',
  'care',
  '-zebra',
  'grooming feeding zebra',
  '文档平台',
  '档',
  'guide 文档平台',
  'インストール',
  'the',
  'nothingmatchesthis',
  '"command line"',
  'wombat',
  'wombats appearing',
  '1.5',
  'https',
];

describe('in-memory search index', () => {
  it('ranks, counts and pages exactly as PostgreSQL does', async () => {
    const s = await createSpace('Memory');
    await editContent(t, s, (d) => {
      const docker = d.insertPage(null, {
        title: 'Docker',
        description: 'Containers and zebra images',
        markdown: '## Installation\n\nRun the package manager.\n\n## Usage\n\nStart containers.\n\nThe command line tool.',
      });
      d.insertPage(docker, { title: 'Zebra care', markdown: 'Feeding and grooming. A zebra needs care.' });
      d.insertPage(docker, {
        title: 'Other things',
        markdown: 'Mentions the zebra once, and the zebra twice, zebra zebra.\n\n## Stripes\n\nZebra stripes.',
      });
      for (let i = 0; i < 12; i++)
        d.insertPage(null, { title: `Walrus ${i}`, markdown: `The same walrus text.${' walrus'.repeat(i % 3)}` });
      d.insertPage(null, { title: '介绍', markdown: '这是一个文档平台的介绍。\n\n## 安装\n\nインストールの手順を説明します。' });
      d.insertPage(null, { title: 'Mixed', markdown: 'GitBook 文档平台 guide, installing it.' });
      // Long bodies: the snippet is placed at the first match (a word, or a token only PostgreSQL's parser reads).
      const filler = 'Nothing to see in this sentence at all. '.repeat(12);
      d.insertPage(null, {
        title: 'Essay',
        markdown: `${filler}Here the wombat finally appears, version 1.5 of https://example.com/wombat. ${filler}\n\n## More\n\n${filler}Wombats appear again.`,
      });
    });
    const sql = (q: string, offset = 0, limit = 50) => searchPages(t.app, [s], q, { offset, limit }, undefined, { memory: false });
    const ours = (q: string, offset = 0, limit = 50) => searchPages(t.app, [s], q, { offset, limit });

    await ours('zebra'); // the first search is PostgreSQL's, and queues the load
    await loadsSettled(t.app);
    expect(await inMemory(s)).toBe(true);
    expect(memoryUse(t.app).bytes).toBeGreaterThan(0);

    for (const q of QUERIES) {
      const expected = await sql(q);
      expect(await ours(q), q).toEqual(expected);
    }
    expect((await sql('zebra')).total).toBeGreaterThan(2);
    // Pages of the ranking: offsets and limits, ties (equal scores) in path order.
    for (const [offset, limit] of [
      [0, 3],
      [3, 3],
      [5, 4],
      [11, 50],
    ])
      expect(await ours('walrus', offset, limit)).toEqual(await sql('walrus', offset, limit));
  });

  it('answers at once after an edit (PostgreSQL meanwhile), then from the reloaded copy', async () => {
    const s = await createSpace('Fresh');
    let page = '';
    await editContent(t, s, (d) => {
      page = d.insertPage(null, { title: 'Alpha', markdown: 'The original armadillo text.' });
      d.insertPage(null, { title: 'Beta', markdown: 'Another armadillo.' });
    });
    await searchPages(t.app, [s], 'armadillo', { offset: 0, limit: 10 });
    await loadsSettled(t.app);
    expect(await inMemory(s)).toBe(true);

    await editContent(t, s, (d) => d.updatePage(page, { markdown: 'The rewritten aardvark text.' }));
    expect(await inMemory(s)).toBe(false); // the copy is of the previous index: not used
    const right = async () => {
      expect((await searchPages(t.app, [s], 'armadillo', { offset: 0, limit: 10 })).pages.map((p) => p.title)).toEqual(['Beta']);
      expect((await searchPages(t.app, [s], 'aardvark', { offset: 0, limit: 10 })).pages.map((p) => p.title)).toEqual(['Alpha']);
    };
    await right();
    await loadsSettled(t.app);
    expect(await inMemory(s)).toBe(true);
    await right();
  });
});

describe('SEARCH_MEMORY_MB=0', () => {
  const off = useTestApp({ seedOrg: true, env: { SEARCH_MEMORY_MB: '0' } });

  it('keeps no copy: every search is answered by PostgreSQL, with the same results', async () => {
    const r = await off.t.api('POST', `/v1/orgs/${off.org.orgId}/spaces`, {
      token: off.org.adminToken,
      body: { title: 'Off', empty: true },
    });
    const s = r.body.id as string;
    await editContent(off.t, s, (d) => {
      d.insertPage(null, { title: 'Alpha', markdown: 'The armadillo text.' });
    });
    const found = await searchPages(off.t.app, [s], 'armadillo', { offset: 0, limit: 10 });
    expect(found.pages.map((p) => p.title)).toEqual(['Alpha']);
    await loadsSettled(off.t.app);
    const { rows } = await off.t.app.db.query('SELECT root_hash, config FROM search_spaces WHERE space_id = $1', [s]);
    expect(rows[0].root_hash).toBeTruthy();
    expect(memoryIndex(off.t.app, s, indexKey(rows[0].root_hash, rows[0].config))).toBeUndefined();
    expect(memoryUse(off.t.app).bytes).toBe(0);
  });
});
