import { describe, expect, it } from 'vitest';
import type { AppContext } from '../../../src/context.js';
import { Draft } from '../../../src/content/draft.js';
import { buildSnapshot, type Snapshot, type TreePage } from '../../../src/content/snapshot.js';
import type { RevisionRow } from '../../../src/db/repos/revisions.js';
import { toRevision, toRevisionParts, toTreePage, treePagesParts } from '../../../src/presenters/content.js';
import { memoryObjects, type MemoryObjects } from '../../helpers/memory-objects.js';

// A new revision's snapshot shares the previous snapshot's unchanged subtrees, and its tree JSON
// is spliced from cached subtree JSON. Both must equal what a build from nothing gives, after any
// edit: in particular edits that change a page's place or path without changing its own hash (a
// parent's slug, title or type, a move).

const app = { config: { publicUrl: 'https://docs.example.test' } } as unknown as AppContext;
const options = [
  { metadata: true, computed: true },
  { metadata: false, computed: false },
];

/** Everything a snapshot holds, by id, in a comparable form. */
function view(s: Snapshot) {
  const page = (p: TreePage) => ({
    id: p.node.id,
    hash: p.hash,
    parentId: p.parentId,
    path: p.path,
    ancestors: p.ancestors,
    children: p.children.map((c) => c.node.id),
  });
  return {
    top: s.pages.map((p) => p.node.id),
    ordered: s.ordered.map(page),
    byId: [...s.byId].map(([id, p]) => [id, p.node.id, p.path]),
    byPath: [...s.byPath].map(([path, p]) => [path, p.node.id]),
    files: s.files.map((f) => f.id),
  };
}

async function expectFresh(store: MemoryObjects, s: Snapshot) {
  const fresh = await buildSnapshot(store.db, store.spaceId, s.rootHash);
  expect(view(s)).toEqual(view(fresh));
  const rev: RevisionRow = {
    id: 'rev1',
    space_id: store.spaceId,
    root_hash: s.rootHash,
    parents: ['rev0'],
    type: 'edits',
    git: { oid: 'abc' },
    change_request_id: null,
    created_by: null,
    created_at: new Date(0),
  };
  for (const o of options) {
    expect(Buffer.concat(treePagesParts(app, store.spaceId, s.pages, o, '{"pages":', '}')).toString('utf8')).toBe(
      JSON.stringify({ pages: fresh.pages.map((p) => toTreePage(app, store.spaceId, p, o)) }),
    );
    expect(Buffer.concat(toRevisionParts(app, store.spaceId, rev, s, o)).toString('utf8')).toBe(
      JSON.stringify(toRevision(app, store.spaceId, rev, fresh, o)),
    );
  }
}

/** guide(install(linux windows) setup(advanced)) api(ref(get post)) faq */
function seed(d: Draft) {
  for (const [parent, id, title] of [
    [null, 'guide', 'Guide'],
    ['guide', 'install', 'Install'],
    ['install', 'linux', 'Linux'],
    ['install', 'windows', 'Windows'],
    ['guide', 'setup', 'Setup'],
    ['setup', 'advanced', 'Advanced'],
    [null, 'api', 'API'],
    ['api', 'ref', 'Reference'],
    ['ref', 'get', 'GET'],
    ['ref', 'post', 'POST'],
    [null, 'faq', 'FAQ — Ünïcødé 文档'],
  ] as const) {
    d.insertPage(parent, { id, title, markdown: `${title} text.\n` });
  }
}

describe('snapshots built from the previous revision', () => {
  it('equal a fresh build after every kind of edit, and the tree JSON equals a full serialization', async () => {
    const store = memoryObjects();
    const first = new Draft(null);
    seed(first);
    let snap = await store.commit(first);
    // Serialize every subtree once, so that the edits below would be served stale if the keys were wrong.
    await expectFresh(store, snap);
    const edits: [string, (d: Draft) => void][] = [
      ['a body', (d) => d.updatePage('linux', { markdown: 'New text.\n' })],
      ["a parent's slug (children keep their hashes, not their paths)", (d) => d.updatePage('install', { slug: 'installing' })],
      ["a grandparent's slug", (d) => d.updatePage('guide', { slug: 'handbook' })],
      ["a parent's title (children's ancestors)", (d) => d.updatePage('ref', { title: 'API reference' })],
      ['a parent becomes a group (its children move up a path level)', (d) => d.updatePage('api', { type: 'group' })],
      ['a group becomes a document again', (d) => d.updatePage('api', { type: 'document' })],
      ['a move to another parent', (d) => d.movePage('install', 'api')],
      ['a move to the top level', (d) => d.movePage('ref', null, 0)],
      ['a move back into a group', (d) => d.movePage('ref', 'api')],
      ['siblings reordered', (d) => d.movePage('faq', null, 0)],
      ['a deletion', (d) => d.deletePage('setup')],
      ['an insertion', (d) => d.insertPage('linux', { id: 'debian', title: 'Debian', slug: 'debian' })],
      ['a page whose slug another page had', (d) => d.insertPage(null, { id: 'guide2', title: 'Guide', slug: 'handbook' })],
      ['emptied', (d) => ['guide', 'api', 'faq', 'ref', 'guide2'].forEach((id) => d.has(id) && d.deletePage(id))],
    ];
    for (const [what, edit] of edits) {
      const d = new Draft(snap);
      edit(d);
      const next = await store.commit(d);
      expect(next.rootHash, what).not.toBe(snap.rootHash);
      await expectFresh(store, next);
      snap = next;
    }
  });

  it('shares the unchanged subtrees with the previous snapshot and loads only the changed path', async () => {
    const store = memoryObjects();
    const first = new Draft(null);
    seed(first);
    const before = await store.commit(first);
    const d = new Draft(before);
    d.updatePage('get', { markdown: 'Changed.\n' });
    const rootHash = await d.writeObjects(store.db, store.spaceId);
    const after = await buildSnapshot(store.db, store.spaceId, rootHash, before);
    expect(after.byId.get('guide')).toBe(before.byId.get('guide'));
    expect(after.byId.get('post')).toBe(before.byId.get('post'));
    expect(after.byId.get('faq')).toBe(before.byId.get('faq'));
    for (const id of ['api', 'ref', 'get']) expect(after.byId.get(id)).not.toBe(before.byId.get(id));
    // Renaming a parent's slug: its children are not shared (their paths differ).
    const r = new Draft(after);
    r.updatePage('api', { slug: 'rest' });
    const renamed = await buildSnapshot(store.db, store.spaceId, await r.writeObjects(store.db, store.spaceId), after);
    expect(renamed.byId.get('ref')).not.toBe(after.byId.get('ref'));
    expect(renamed.byId.get('get')!.path).toBe('rest/reference/get');
    expect(renamed.byId.get('guide')).toBe(after.byId.get('guide'));
  });
});
