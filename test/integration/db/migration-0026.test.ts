// Migration 0026: indexes built before conditional content stopped being indexed held {% if %}
// branches (raw tags and all), so a reader whose claims hide a branch could still find it by search.
// The migration drops those pages' rows and marks their space stale; the next search rebuilds them
// under the new rule, and pages without conditions keep their rows.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { editContent } from '../../helpers/content.js';
import { withTx } from '../../../src/db/pool.js';
import { catchUpSpace } from '../../../src/search/indexer.js';

// PostgreSQL answers every search (no in-memory copy), so the rows written below are what is searched.
const { t, org } = useTestApp({ seedOrg: true, env: { SEARCH_MEMORY_MB: '0' } });
const MIGRATION = fileURLToPath(new URL('../../../src/db/migrations/0026_search_conditional_blocks.sql', import.meta.url));

const search = async (spaceId: string, query: string) => {
  const r = await t.api('GET', `/v1/spaces/${spaceId}/search?query=${encodeURIComponent(query)}`, { token: org.adminToken });
  expect(r.status).toBe(200);
  return r.body.items.map((p: any) => p.title as string);
};

it('drops the index rows of pages indexed with their {% if %} branches and rebuilds them without', async () => {
  const { body } = await t.api('POST', `/v1/orgs/${org.orgId}/spaces`, { token: org.adminToken, body: { title: 'Plans', empty: true } });
  const s = body.id as string;
  let gated = '';
  let plain = '';
  await editContent(t, s, (d) => {
    gated = d.insertPage(null, {
      title: 'Pricing',
      markdown:
        'Everyone reads about the capybara.\n\n{% if visitor.claims.plan == "pro" %}\nOnly pro readers meet the pangolin.\n{% endif %}\n',
    });
    plain = d.insertPage(null, { title: 'Welcome', markdown: 'The axolotl says hello.\n' });
  });
  await catchUpSpace(t.app, s);
  expect(await search(s, 'capybara')).toEqual(['Pricing']);
  expect(await search(s, 'pangolin')).toEqual([]);

  // The index as an older version built it: the branch's text, tag included, in the page's section.
  await t.app.db.query(
    `UPDATE search_sections SET body = body || ' {% if visitor.claims.plan == "pro" %} Only pro readers meet the pangolin. {% endif %}',
            tsv = tsv || to_tsvector('simple', 'pangolin') WHERE space_id = $1 AND page_id = $2`,
    [s, gated],
  );
  expect(await search(s, 'pangolin')).toEqual(['Pricing']);
  const before = await t.app.db.query('SELECT page_id, ord, tsv::text FROM search_sections WHERE space_id = $1 AND page_id = $2', [
    s,
    plain,
  ]);

  const sql = await readFile(MIGRATION, 'utf8');
  await withTx(t.app.db, (c) => c.query(sql));
  const state = await t.app.db.query('SELECT revision_id, root_hash FROM search_spaces WHERE space_id = $1', [s]);
  expect(state.rows).toEqual([{ revision_id: null, root_hash: null }]);
  expect((await t.app.db.query('SELECT 1 FROM search_pages WHERE space_id = $1 AND page_id = $2', [s, gated])).rowCount).toBe(0);

  await catchUpSpace(t.app, s);
  expect(await search(s, 'pangolin')).toEqual([]);
  expect(await search(s, 'capybara')).toEqual(['Pricing']);
  // The page without conditions kept its rows as they were.
  const after = await t.app.db.query('SELECT page_id, ord, tsv::text FROM search_sections WHERE space_id = $1 AND page_id = $2', [
    s,
    plain,
  ]);
  expect(after.rows).toEqual(before.rows);
});
