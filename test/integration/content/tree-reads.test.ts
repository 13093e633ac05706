import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';

// Tree reads of a new revision are made from the previous revision's snapshot and cached subtree
// JSON. An edit that changes where a page sits or what its path is without changing the page
// itself (a parent's slug or title, a move, a deletion) must show in the very next read.

const { t, org } = useTestApp({ seedOrg: true });

const api = (method: string, path: string, body?: unknown) => t.api(method, path, { token: org.adminToken, body });

/** Each page as `path` (title), children indented, in order. */
function outline(pages: any[], depth = 0): string[] {
  return pages.flatMap((p) => [`${'  '.repeat(depth)}${p.path ?? '-'} (${p.title})`, ...outline(p.pages ?? [], depth + 1)]);
}

describe('pages tree reads after edits', () => {
  it('show a renamed parent slug, a retitled parent, a move and a deletion in the next read', async () => {
    const s = (await api('POST', `/v1/orgs/${org.orgId}/spaces`, { title: 'Tree', empty: true })).body.id;
    const c = (await api('POST', `/v1/spaces/${s}/change-requests`, { subject: 'Tree edits' })).body;
    const batch = async (changes: unknown[]) => {
      const r = await api('POST', `/v1/spaces/${s}/change-requests/${c.id}/content?compat=false`, { changes });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body;
    };
    const read = async (path = `/v1/spaces/${s}/change-requests/${c.id}/content/pages`) => {
      const r = await api('GET', path);
      expect(r.status).toBe(200);
      return outline(r.body.pages);
    };
    const created = await batch([
      { operation: 'insert_page', title: 'Guide', ref: 'guide', document: { markdown: 'Guide.' } },
      { operation: 'insert_page', title: 'API', ref: 'api', document: { markdown: 'API.' } },
    ]);
    const [guide, apiPage] = created.changes.map((x: any) => x.id ?? x.page?.id);
    const kids = await batch([
      { operation: 'insert_page', title: 'Install', into: guide, document: { markdown: 'Install.' } },
      { operation: 'insert_page', title: 'Setup', into: guide, document: { markdown: 'Setup.' } },
    ]);
    const [install, setup] = kids.changes.map((x: any) => x.id ?? x.page?.id);
    await batch([{ operation: 'insert_page', title: 'Linux', into: install, document: { markdown: 'Linux.' } }]);
    expect(await read()).toEqual([
      'guide (Guide)',
      '  guide/install (Install)',
      '    guide/install/linux (Linux)',
      '  guide/setup (Setup)',
      'api (API)',
    ]);

    await batch([{ operation: 'update_page', page: guide, slug: 'handbook' }]);
    expect(await read()).toEqual([
      'handbook (Guide)',
      '  handbook/install (Install)',
      '    handbook/install/linux (Linux)',
      '  handbook/setup (Setup)',
      'api (API)',
    ]);

    await batch([{ operation: 'update_page', page: install, title: 'Installation' }]);
    expect(await read()).toEqual([
      'handbook (Guide)',
      '  handbook/install (Installation)',
      '    handbook/install/linux (Linux)',
      '  handbook/setup (Setup)',
      'api (API)',
    ]);

    await batch([{ operation: 'update_page', page: install, into: apiPage }]);
    expect(await read()).toEqual([
      'handbook (Guide)',
      '  handbook/setup (Setup)',
      'api (API)',
      '  api/install (Installation)',
      '    api/install/linux (Linux)',
    ]);

    await batch([{ operation: 'delete_page', page: setup }]);
    expect(await read()).toEqual(['handbook (Guide)', 'api (API)', '  api/install (Installation)', '    api/install/linux (Linux)']);

    // The revision object carries the same tree; after the merge, main reads the same.
    const rev = await api('GET', `/v1/spaces/${s}/change-requests/${c.id}/content`);
    expect(outline(rev.body.pages)).toEqual(await read());
    expect((await api('POST', `/v1/spaces/${s}/change-requests/${c.id}/merge`)).status).toBe(200);
    const main = await api('GET', `/v1/spaces/${s}/content/pages`);
    expect(main.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(outline(main.body.pages)).toEqual(await read());
  });
});
