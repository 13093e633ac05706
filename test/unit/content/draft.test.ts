import { describe, expect, it } from 'vitest';
import { Draft, DraftError } from '../../../src/content/draft.js';
import type { FileNode } from '../../../src/content/types.js';
import { ObjectsAhead } from '../../../src/content/objects.js';
import { loadSnapshot } from '../../../src/content/snapshot.js';
import type { Db, Queryable } from '../../../src/db/pool.js';
import { memoryObjects, outline, type MemoryObjects } from '../../helpers/memory-objects.js';

/** The DraftError `fn` throws (fails when it throws nothing or something else). */
function draftError(fn: () => unknown): DraftError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(DraftError);
    return err as DraftError;
  }
  throw new Error('expected a DraftError');
}

/** The store's connection, noting the hash of every object an INSERT sends (in `sent`). */
function insertSpy(store: MemoryObjects): { spy: Queryable; sent: string[] } {
  const sent: string[] = [];
  const spy = {
    query: (text: string, values: unknown[]) => {
      if (/^\s*INSERT INTO content_objects/.test(text)) sent.push(...(values[1] as string[]));
      return store.db.query(text, values);
    },
  } as unknown as Queryable;
  return { spy, sent };
}

const file = (name: string, id?: string): Omit<FileNode, 'kind' | 'createdAt' | 'id'> & { id?: string } => ({
  id,
  name,
  contentType: 'image/png',
  size: 3,
  blobKey: `files/${name}`,
  sha256: name.padEnd(64, '0'),
});

/**
 * A committed revision: intro, guide(install, setup(advanced)), faq; intro and install have text;
 * one file; one variable.
 */
async function baseRevision(store: MemoryObjects) {
  const d = new Draft(null);
  d.insertPage(null, { id: 'intro', title: 'Introduction', markdown: '# Welcome\n' });
  d.insertPage(null, { id: 'guide', title: 'Guide' });
  d.insertPage('guide', { id: 'install', title: 'Install', markdown: 'Run the installer.\n' });
  d.insertPage('guide', { id: 'setup', title: 'Setup' });
  d.insertPage('setup', { id: 'advanced', title: 'Advanced' });
  d.insertPage(null, { id: 'faq', title: 'FAQ' });
  d.insertFile(file('logo.png', 'logo'));
  d.setVariables({ product: 'Acme' });
  return store.commit(d);
}

describe('Draft: pages', () => {
  it('inserts pages with the ids given, or new 20-character ids', () => {
    const d = new Draft(null);
    expect(d.insertPage(null, { id: 'home', title: 'Home' })).toBe('home');
    const id = d.insertPage('home', { title: 'Child' });
    expect(id).toMatch(/^[A-Za-z0-9]{20}$/);
    expect(d.has(id)).toBe(true);
    expect(d.parentOf(id)).toBe('home');
    expect(d.parentOf('home')).toBeNull();
    expect(d.parentOf('nowhere')).toBeUndefined();
    expect(d.page(id)).toMatchObject({ kind: 'page', id, title: 'Child', type: 'document', slug: 'child' });
  });

  it('inserts at an index among the siblings (last by default, clamped to the list)', () => {
    const d = new Draft(null);
    d.insertPage(null, { id: 'b', title: 'B' });
    d.insertPage(null, { id: 'd', title: 'D' });
    d.insertPage(null, { id: 'a', title: 'A' }, 0);
    d.insertPage(null, { id: 'c', title: 'C' }, 2);
    d.insertPage(null, { id: 'e', title: 'E' }, 99);
    d.insertPage(null, { id: 'z', title: 'Z' }, -5);
    expect(d.childIds(null)).toEqual(['z', 'a', 'b', 'c', 'd', 'e']);
  });

  it('refuses a page id that exists (409) and a parent that does not (404)', () => {
    const d = new Draft(null);
    d.insertPage(null, { id: 'home', title: 'Home' });
    const dup = draftError(() => d.insertPage(null, { id: 'home', title: 'Again' }));
    expect(dup.status).toBe(409);
    expect(dup.message).toContain('home');
    const orphan = draftError(() => d.insertPage('ghost', { title: 'Orphan' }));
    expect(orphan.status).toBe(404);
    expect(orphan.message).toContain('ghost');
    expect(draftError(() => d.childIds('ghost')).status).toBe(404);
  });

  it('slugs titles and keeps slugs unique among siblings only', () => {
    const d = new Draft(null);
    d.insertPage(null, { id: 'p1', title: 'Getting Started' });
    d.insertPage(null, { id: 'p2', title: 'Getting started!' });
    d.insertPage(null, { id: 'p3', title: 'x', slug: 'getting-started' });
    d.insertPage('p1', { id: 'c1', title: 'Getting Started' });
    d.insertPage(null, { id: 'p4', title: '' });
    expect(['p1', 'p2', 'p3', 'c1', 'p4'].map((id) => d.page(id)!.slug)).toEqual([
      'getting-started',
      'getting-started-2',
      'getting-started-3',
      'getting-started',
      'page',
    ]);
  });

  it('updates fields, removes those set to null or false, and keeps the slug when the title changes', () => {
    const d = new Draft(null);
    d.insertPage(null, { id: 'p', title: 'Old', emoji: '1f600', description: 'About', hidden: true });
    d.updatePage('p', { title: 'New', emoji: null, hidden: false, noIndex: true });
    const page = d.page('p')!;
    expect(page).toMatchObject({ title: 'New', slug: 'old', description: 'About', noIndex: true });
    expect(page).not.toHaveProperty('emoji');
    expect(page).not.toHaveProperty('hidden');
    expect(draftError(() => d.updatePage('ghost', { title: 'x' })).status).toBe(404);
  });

  it('gives an updated slug a suffix when a sibling has it, not when the page itself does', () => {
    const d = new Draft(null);
    d.insertPage(null, { id: 'a', title: 'A' });
    d.insertPage(null, { id: 'b', title: 'B' });
    d.updatePage('b', { slug: 'a' });
    d.updatePage('a', { slug: 'a' });
    expect([d.page('a')!.slug, d.page('b')!.slug]).toEqual(['a', 'a-2']);
  });

  it('moves a page with its subtree under another parent, at an index', () => {
    const d = new Draft(null);
    for (const id of ['a', 'b', 'c']) d.insertPage(null, { id, title: id.toUpperCase() });
    d.insertPage('a', { id: 'a1', title: 'A1' });
    d.insertPage('a1', { id: 'a11', title: 'A11' });
    d.movePage('a1', 'c');
    expect(d.childIds('a')).toEqual([]);
    expect(d.childIds('c')).toEqual(['a1']);
    expect(d.childIds('a1')).toEqual(['a11']);
    expect(d.parentOf('a1')).toBe('c');
    d.movePage('c', null, 0);
    expect(d.childIds(null)).toEqual(['c', 'a', 'b']);
    d.movePage('a1', null, 1);
    expect(d.childIds(null)).toEqual(['c', 'a1', 'a', 'b']);
  });

  it('renames a moved page whose slug its new siblings already use', () => {
    const d = new Draft(null);
    d.insertPage(null, { id: 'a', title: 'A' });
    d.insertPage(null, { id: 'b', title: 'B' });
    d.insertPage('a', { id: 'x1', title: 'Setup' });
    d.insertPage('b', { id: 'x2', title: 'Setup' });
    d.movePage('x2', 'a');
    expect(d.childIds('a')).toEqual(['x1', 'x2']);
    expect([d.page('x1')!.slug, d.page('x2')!.slug]).toEqual(['setup', 'setup-2']);
  });

  it('refuses to move a page inside itself or its own subtree (400), or a page that does not exist (404)', () => {
    const d = new Draft(null);
    d.insertPage(null, { id: 'a', title: 'A' });
    d.insertPage('a', { id: 'a1', title: 'A1' });
    d.insertPage('a1', { id: 'a11', title: 'A11' });
    for (const target of ['a', 'a1', 'a11']) {
      const err = draftError(() => d.movePage('a', target));
      expect(err.status, target).toBe(400);
      expect(err.message).toBe('A page cannot be moved inside itself');
    }
    expect(d.childIds(null)).toEqual(['a']);
    expect(d.parentOf('a11')).toBe('a1');
    expect(draftError(() => d.movePage('ghost', null)).status).toBe(404);
  });

  it('refuses a move under a parent that does not exist (404) and leaves the page where it was', () => {
    const d = new Draft(null);
    d.insertPage(null, { id: 'a', title: 'A' });
    d.insertPage('a', { id: 'a1', title: 'A1' });
    expect(draftError(() => d.movePage('a1', 'ghost')).status).toBe(404);
    expect(d.parentOf('a1')).toBe('a');
    expect(d.childIds('a')).toEqual(['a1']);
  });

  it('deletes a page with its subtree and returns the ids removed', () => {
    const d = new Draft(null);
    d.insertPage(null, { id: 'a', title: 'A' });
    d.insertPage('a', { id: 'a1', title: 'A1' });
    d.insertPage('a1', { id: 'a11', title: 'A11' });
    d.insertPage('a', { id: 'a2', title: 'A2' });
    d.insertPage(null, { id: 'b', title: 'B' });
    expect(d.deletePage('a')).toEqual(['a', 'a1', 'a11', 'a2']);
    for (const id of ['a', 'a1', 'a11', 'a2']) expect(d.has(id)).toBe(false);
    expect(d.childIds(null)).toEqual(['b']);
    expect(draftError(() => d.deletePage('a')).status).toBe(404);
  });

  it('lists the pages it touched, for incremental indexing', () => {
    const d = new Draft(null);
    d.insertPage(null, { id: 'a', title: 'A' });
    d.insertPage('a', { id: 'a1', title: 'A1' });
    d.insertPage(null, { id: 'b', title: 'B' });
    d.insertPage(null, { id: 'c', title: 'C' });
    d.touched.clear();
    d.updatePage('b', { title: 'Bee' });
    d.movePage('c', 'b');
    d.deletePage('a');
    d.insertFile(file('x.png'));
    expect([...d.touched].sort()).toEqual(['a', 'a1', 'b', 'c']);
  });
});

describe('Draft: files and variables', () => {
  it('inserts files with the ids given or new ones, and deletes them', () => {
    const d = new Draft(null);
    expect(d.insertFile(file('a.png', 'fileA'))).toBe('fileA');
    const id = d.insertFile(file('b.png'));
    expect(id).toMatch(/^[A-Za-z0-9]{20}$/);
    expect(d.hasFile('fileA') && d.hasFile(id)).toBe(true);
    d.deleteFile('fileA');
    expect(d.hasFile('fileA')).toBe(false);
  });

  it('refuses a file id that exists (409) and deleting one that does not (404)', () => {
    const d = new Draft(null);
    d.insertFile(file('a.png', 'fileA'));
    expect(draftError(() => d.insertFile(file('again.png', 'fileA'))).status).toBe(409);
    expect(draftError(() => d.deleteFile('ghost')).status).toBe(404);
  });
});

describe('Draft: revisions', () => {
  it('writes a tree that loads back with its fields, bodies, files and variables', async () => {
    const store = memoryObjects();
    const s = await baseRevision(store);
    expect(outline(s)).toBe('intro guide(install setup(advanced)) faq');
    expect(s.byPath.get('guide/setup/advanced')?.node.id).toBe('advanced');
    expect(await store.body(s, 'intro')).toBe('# Welcome\n');
    expect(await store.body(s, 'install')).toBe('Run the installer.\n');
    expect(await store.body(s, 'faq')).toBe('');
    expect(s.byId.get('faq')!.node.body).toBeUndefined();
    expect(s.files.map((f) => [f.id, f.name])).toEqual([['logo', 'logo.png']]);
    expect(s.root.variables).toEqual({ product: 'Acme' });
  });

  it('is unchanged when opened on a revision and not edited, and then writes nothing', async () => {
    const store = memoryObjects();
    const base = await baseRevision(store);
    const d = new Draft(base);
    expect(d.unchanged).toBe(true);
    const [size, queries] = [store.size, store.queries];
    expect(await d.writeObjects(store.db, store.spaceId)).toBe(base.rootHash);
    expect([store.size, store.queries]).toEqual([size, queries]);
  });

  it('names the bodies stored ahead of it (a git import) and writes only the others', async () => {
    const store = memoryObjects();
    // A pool whose one connection is the in-memory store, released once the bodies are in.
    let held = 0;
    const pool = {
      connect: async () => (held++, { query: store.db.query.bind(store.db), release: () => held-- }),
    } as unknown as Db;
    const objectsAhead = new ObjectsAhead(pool, store.spaceId);
    expect(held).toBe(1); // taken at once, before the caller's transaction
    const ahead = await objectsAhead.bodies(['# One\n', 'Two.\n', '# One\n', '']);
    await objectsAhead.release();
    expect(held).toBe(0);
    await objectsAhead.release(); // again (the caller's finally): nothing more is given back
    expect(held).toBe(0);
    await expect(objectsAhead.objects(new Map([['h', '{}']]))).rejects.toThrow('after the connection was given back');
    expect(store.size).toBe(2); // one object per distinct non-empty body
    const { spy, sent } = insertSpy(store);
    const d = new Draft(null);
    d.insertPage(null, { id: 'one', title: 'One', markdown: '# One\n' });
    d.insertPage(null, { id: 'two', title: 'Two', markdown: 'Two.\n' });
    d.insertPage(null, { id: 'three', title: 'Three', markdown: 'Three.\n' });
    d.knowStoredBodies(ahead);
    const s = await loadSnapshot(store.db, store.spaceId, await d.writeObjects(spy, store.spaceId));
    expect(s.byId.get('one')!.node.body).toBe(ahead.get('# One\n'));
    expect(sent).not.toContain(ahead.get('# One\n'));
    expect(sent).not.toContain(ahead.get('Two.\n'));
    // Three page nodes, the body nobody stored, the root.
    expect(sent).toHaveLength(5);
    expect(await store.body(s, 'one')).toBe('# One\n');
    expect(await store.body(s, 'two')).toBe('Two.\n');
    expect(await store.body(s, 'three')).toBe('Three.\n');
  });

  it("gives its pages' objects for storing ahead, then commits only what changed after them", async () => {
    const store = memoryObjects();
    const pool = { connect: async () => ({ query: store.db.query.bind(store.db), release: () => {} }) } as unknown as Db;
    const { spy, sent } = insertSpy(store);
    const d = new Draft(null);
    const parent = d.insertPage(null, { id: 'guide', title: 'Guide', markdown: '# Guide\n' });
    d.insertPage(parent, { id: 'setup', title: 'Setup', markdown: 'Set it up.\n' });
    d.insertPage(null, { id: 'faq', title: 'FAQ', markdown: 'Questions.\n' });
    const ahead = new ObjectsAhead(pool, store.spaceId);
    const early = d.pageObjectsNow();
    expect(early.size).toBe(6); // three pages, three bodies
    await ahead.objects(early);
    await ahead.release();
    // After the objects went ahead: a page changes, and a file comes.
    d.updatePage('setup', { title: 'Set-up' });
    d.insertFile(file('a.png'));
    const s = await loadSnapshot(store.db, store.spaceId, await d.writeObjects(spy, store.spaceId));
    // The changed page and its parent, the file, the root; no body, nothing of FAQ.
    expect(sent).toHaveLength(4);
    for (const hash of sent) expect(early.has(hash)).toBe(false);
    expect(outline(s)).toBe('guide(setup) faq');
    expect(s.byId.get('setup')!.node.title).toBe('Set-up');
    expect(await store.body(s, 'setup')).toBe('Set it up.\n');
    expect(await store.body(s, 'faq')).toBe('Questions.\n');
    expect(s.files.map((f) => f.name)).toEqual(['a.png']);
  });

  it('is never unchanged without a base revision', () => {
    expect(new Draft(null).unchanged).toBe(false);
  });

  it('counts any edit as a change, even one that sets what is already there', async () => {
    const store = memoryObjects();
    const base = await baseRevision(store);
    const edits: Array<(d: Draft) => unknown> = [
      (d) => d.updatePage('faq', { title: 'FAQ' }),
      (d) => d.movePage('faq', null),
      (d) => d.setVariables({ product: 'Acme' }),
      (d) => d.insertFile(file('new.png')),
      (d) => d.deleteFile('logo'),
      (d) => d.deletePage('advanced'),
    ];
    for (const edit of edits) {
      const d = new Draft(base);
      edit(d);
      expect(d.unchanged).toBe(false);
    }
  });

  it('gives back the same root hash when an edit is undone in the same draft', async () => {
    const store = memoryObjects();
    const base = await baseRevision(store);
    const d = new Draft(base);
    d.insertPage('guide', { id: 'tmp', title: 'Temporary' });
    d.deletePage('tmp');
    expect(d.unchanged).toBe(false);
    expect((await store.commit(d)).rootHash).toBe(base.rootHash);
  });

  it('writes only the changed page, its body, its ancestors and the root; other pages keep their hashes', async () => {
    const store = memoryObjects();
    const base = await baseRevision(store);
    const before = store.size;
    const d = new Draft(base);
    d.updatePage('advanced', { markdown: 'Tune it.\n' });
    const next = await store.commit(d);
    expect(store.size - before).toBe(5); // body, advanced, setup, guide, root
    for (const id of ['intro', 'install', 'faq']) expect(next.byId.get(id)!.hash).toBe(base.byId.get(id)!.hash);
    for (const id of ['advanced', 'setup', 'guide']) expect(next.byId.get(id)!.hash).not.toBe(base.byId.get(id)!.hash);
    expect(next.files[0].hash).toBe(base.files[0].hash);
    expect(await store.body(next, 'advanced')).toBe('Tune it.\n');
  });

  it('empties a page when its markdown is set to the empty string', async () => {
    const store = memoryObjects();
    const base = await baseRevision(store);
    const d = new Draft(base);
    d.updatePage('intro', { markdown: '' });
    const next = await store.commit(d);
    expect(next.byId.get('intro')!.node.body).toBeUndefined();
    expect(await store.body(next, 'intro')).toBe('');
  });

  it('never writes into the nodes of the revision it was opened on, whatever it changes', async () => {
    const store = memoryObjects();
    const base = await baseRevision(store);
    const nodes = () => JSON.stringify([...base.byId.values()].map((p) => p.node));
    const before = nodes();
    const d = new Draft(base);
    d.updatePage('install', { markdown: 'Run it twice.\n', slug: 'setup', description: 'How' });
    d.updatePage('advanced', { markdown: '' });
    d.updatePage('intro', { hidden: true, emoji: null });
    d.insertPage('guide', { id: 'faq2', title: 'FAQ' });
    d.movePage('faq', 'guide', 0); // its slug is taken among its new siblings: renamed
    const next = await store.commit(d);
    expect(nodes()).toBe(before);
    expect(next.byId.get('install')!.node).toMatchObject({ slug: 'setup-2', description: 'How' });
    expect(next.byId.get('faq')!.node.slug).toBe('faq-2');
    expect(await store.body(next, 'install')).toBe('Run it twice.\n');
    expect(await store.body(base, 'install')).toBe('Run the installer.\n');
  });

  it('leaves the revision it was opened on as it was', async () => {
    const store = memoryObjects();
    const base = await baseRevision(store);
    const d = new Draft(base);
    d.updatePage('intro', { title: 'Hello', emoji: '1f44b' });
    d.movePage('faq', 'guide', 0);
    d.deletePage('install');
    d.deleteFile('logo');
    d.setVariables({});
    await store.commit(d);
    expect(outline(base)).toBe('intro guide(install setup(advanced)) faq');
    expect(base.byId.get('intro')!.node.title).toBe('Introduction');
    expect(base.byId.get('intro')!.node).not.toHaveProperty('emoji');
    expect(base.files.map((f) => f.id)).toEqual(['logo']);
    expect(base.root.variables).toEqual({ product: 'Acme' });
  });
});
