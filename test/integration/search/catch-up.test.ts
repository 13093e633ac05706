import { afterAll, beforeAll, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { startGitServer, type GitServer } from '../../helpers/git-server.js';
import { operationSettled } from '../../helpers/operations.js';
import { editContent } from '../../helpers/content.js';
import { freshness } from '../../../src/db/repos/search.js';
import { catchUpSettled, catchUpSpace } from '../../../src/search/indexer.js';

// A search never waits longer than SEARCH_CATCH_UP_MS for a stale index (here 0: not at all): it
// answers from the index as it is while the catch-up goes on in the background. This app runs no
// `search` worker, so after an import only searches bring the index up to date.

let g: GitServer;
beforeAll(async () => {
  g = await startGitServer();
});
afterAll(() => g.close());
const { t, org } = useTestApp({ workers: ['git'], env: { SEARCH_CATCH_UP_MS: '0' }, seedOrg: true });

async function importInto(spaceId: string, url: string) {
  const r = await t.api('POST', `/v1/spaces/${spaceId}/git/import`, { token: org.adminToken, body: { url, ref: 'refs/heads/main' } });
  expect(r.status, JSON.stringify(r.body)).toBe(204);
  const op = await operationSettled(t, r.headers.get('location')!, { token: org.adminToken, timeoutMs: 60_000 });
  expect(op.status, op.error).toBe('succeeded');
}

const search = async (spaceId: string, query: string) => {
  const r = await t.api('GET', `/v1/spaces/${spaceId}/search?query=${encodeURIComponent(query)}`, { token: org.adminToken });
  expect(r.status).toBe(200);
  return r.body.items.map((p: any) => p.title);
};

it('answers at once from the previous index while the catch-up runs, and finds the new content once it ran', async () => {
  const first = await g.createRepo('first', {
    files: { 'SUMMARY.md': '* [Walrus](walrus.md)\n', 'walrus.md': '# Walrus\n\nThe tusked walrus.\n' },
  });
  const second = await g.createRepo('second', {
    files: {
      'SUMMARY.md': '* [Walrus](walrus.md)\n* [Otter](otter.md)\n',
      'walrus.md': '# Walrus\n\nThe tusked walrus.\n',
      'otter.md': '# Otter\n\nThe whiskered otter.\n',
    },
  });
  const { body } = await t.api('POST', `/v1/orgs/${org.orgId}/spaces`, { token: org.adminToken, body: { title: 'Seals', empty: true } });
  const s = body.id as string;
  await importInto(s, first);
  await catchUpSpace(t.app, s);
  expect(await search(s, 'walrus')).toEqual(['Walrus']);

  await importInto(s, second);
  const [stale] = await freshness(t.app.db, [s]);
  expect(stale.indexed_revision).not.toBe(stale.revision_id);
  // Not waited for: the previous revision's index answers (it has no otter yet).
  expect(await search(s, 'otter')).toEqual([]);
  expect(await search(s, 'walrus')).toEqual(['Walrus']);
  // The catch-up that search started goes on in the background; then the new page is found.
  await catchUpSettled(t.app, s);
  const [fresh] = await freshness(t.app.db, [s]);
  expect(fresh.indexed_revision).toBe(fresh.revision_id);
  expect(await search(s, 'otter')).toEqual(['Otter']);
});

it('runs one reindex of a space at a time in a process: calls during one join the single one queued behind it', async () => {
  const { body } = await t.api('POST', `/v1/orgs/${org.orgId}/spaces`, { token: org.adminToken, body: { title: 'Queued', empty: true } });
  const s = body.id as string;
  const repo = await g.createRepo('queued', { files: { 'SUMMARY.md': '* [Seal](seal.md)\n', 'seal.md': '# Seal\n\nThe harbour seal.\n' } });
  await importInto(s, repo);
  const running = catchUpSpace(t.app, s);
  const queued = [catchUpSpace(t.app, s), catchUpSpace(t.app, s), catchUpSpace(t.app, s)];
  expect(queued[1]).toBe(queued[0]);
  expect(queued[2]).toBe(queued[0]);
  expect(queued[0]).not.toBe(running);
  await Promise.all([running, ...queued]);
  await catchUpSettled(t.app, s);
  const again = catchUpSpace(t.app, s); // nothing runs any more: a new one starts
  expect(again).not.toBe(queued[0]);
  await again;
  expect(await search(s, 'seal')).toEqual(['Seal']);
});

it('indexes a space of many batches, parsed ahead of the one being written, each page with its own sections', async () => {
  const { body } = await t.api('POST', `/v1/orgs/${org.orgId}/spaces`, { token: org.adminToken, body: { title: 'Many', empty: true } });
  const s = body.id as string;
  const word = (i: number) => `zorb${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`;
  // Links and emphasis: bodies the Markdown pool's threads parse (not the plain-text shortcut).
  await editContent(t, s, (d) => {
    for (let i = 0; i < 450; i++)
      d.insertPage(null, {
        title: `Doc ${i}`,
        markdown: `# Doc ${i}\n\nAbout *${word(i)}*, see [next](https://example.com/${i}).\n\n## More\n\nNothing.\n`,
      });
  });
  await t.app.db.query('DELETE FROM search_spaces WHERE space_id = $1', [s]);
  await catchUpSpace(t.app, s);
  const { rows } = await t.app.db.query('SELECT count(*)::int AS n FROM search_sections WHERE space_id = $1', [s]);
  expect(rows[0].n).toBe(900);
  for (const i of [0, 199, 200, 201, 399, 449]) {
    const r = await t.api('GET', `/v1/spaces/${s}/search?query=${word(i)}`, { token: org.adminToken });
    expect(r.body.items.map((p: any) => [p.title, p.sections[0].id])).toEqual([[`Doc ${i}`, `doc-${i}`]]);
  }
});
