import { describe, expect, it } from 'vitest';
import { Draft } from '../../../src/content/draft.js';
import { mergeInto, type MergeConflict } from '../../../src/content/merge.js';
import { runTask } from '../../../src/render/tasks.js';
import type { Snapshot } from '../../../src/content/snapshot.js';
import type { FileNode } from '../../../src/content/types.js';
import { memoryObjects, outline, type MemoryObjects } from '../../helpers/memory-objects.js';

// The three-way merge the API runs to merge a change request into main ("theirs" onto "ours") and
// to update a change request from main: `base` is the revision both sides started from; the draft
// is opened on `ours`, as the callers open it.

const file = (id: string, name: string, sha = name): Omit<FileNode, 'kind' | 'createdAt' | 'id'> & { id: string } => ({
  id,
  name,
  contentType: 'text/plain',
  size: sha.length,
  blobKey: `files/${sha}`,
  sha256: sha.padEnd(64, '0'),
});

const TEXT = ['# Install', '', 'Download the installer.', '', 'Run it as an administrator.', '', 'Restart when asked.', ''].join('\n');

/** intro, guide(install, setup(advanced, hidden)), faq; two files; two variables. */
function buildBase(d: Draft) {
  d.insertPage(null, { id: 'intro', title: 'Introduction', markdown: 'Welcome.\n' });
  d.insertPage(null, { id: 'guide', title: 'Guide' });
  d.insertPage('guide', { id: 'install', title: 'Install', emoji: '1f4e6', markdown: TEXT });
  d.insertPage('guide', { id: 'setup', title: 'Setup', markdown: 'Configure.\n' });
  d.insertPage('setup', { id: 'advanced', title: 'Advanced', hidden: true });
  d.insertPage(null, { id: 'faq', title: 'FAQ', markdown: 'Questions.\n' });
  d.insertFile(file('logo', 'logo.png'));
  d.insertFile(file('manual', 'manual.pdf'));
  d.setVariables({ product: 'Acme', version: '1' });
}

interface Merged {
  conflicts: MergeConflict[];
  /** The merged revision (what the caller would commit when there is no conflict). */
  merged: Snapshot;
  draft: Draft;
  store: MemoryObjects;
  /** Statements mergeInto sent. */
  statements: number;
}

/** Edit `base` on two sides and merge theirs into ours. */
async function merge(ours: (d: Draft) => unknown, theirs: (d: Draft) => unknown): Promise<Merged> {
  const store = memoryObjects();
  const base = new Draft(null);
  buildBase(base);
  const baseSnap = await store.commit(base);
  const side = async (edit: (d: Draft) => unknown) => {
    const d = new Draft(baseSnap);
    edit(d);
    return store.commit(d);
  };
  const [oursSnap, theirsSnap] = [await side(ours), await side(theirs)];
  const draft = new Draft(oursSnap);
  const before = store.queries;
  const conflicts = await mergeInto(store.db, store.spaceId, baseSnap, oursSnap, theirsSnap, draft, mergeText);
  const statements = store.queries - before;
  return { conflicts, merged: await store.commit(draft), draft, store, statements };
}

const BASE_OUTLINE = 'intro guide(install setup(advanced)) faq';
const nothing = () => {};
const replaceLine = (from: string, to: string) => TEXT.replace(from, to);

/** The line merge the Markdown pool runs, run here on the test's own thread (no pool needed). */
const mergeText = async (base: string, ours: string, theirs: string) =>
  runTask({ op: 'diff3', base, ours, theirs }) as { merged: string } | { conflict: string };

describe('merge: work follows what changed', () => {
  it('applies their edits deep in the tree without indexing every page of ours', async () => {
    const store = memoryObjects();
    const base = new Draft(null);
    buildBase(base);
    for (let i = 0; i < 30; i++) base.insertPage(null, { id: `top${i}`, title: `Top ${i}` });
    const baseSnap = await store.commit(base);
    const side = async (edit: (d: Draft) => unknown) => {
      const d = new Draft(baseSnap);
      edit(d);
      return store.commit(d);
    };
    const oursSnap = await side((d) => d.updatePage('faq', { markdown: 'Our questions.\n' }));
    const theirsSnap = await side((d) => d.updatePage('advanced', { title: 'Expert', markdown: 'Deep.\n' }));
    const draft = new Draft(oursSnap);
    let indexed = 0;
    const byId = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(oursSnap), 'byId')!.get!;
    Object.defineProperty(oursSnap, 'byId', { get: () => (indexed++, byId.call(oursSnap)) });
    expect(await mergeInto(store.db, store.spaceId, baseSnap, oursSnap, theirsSnap, draft, mergeText)).toEqual([]);
    expect(indexed).toBe(0);
    const merged = await store.commit(draft);
    expect(merged.byId.get('advanced')?.node.title).toBe('Expert');
    expect(merged.byId.get('advanced')?.parentId).toBe('setup');
    expect(await store.body(merged, 'faq')).toBe('Our questions.\n');
  });
});

describe('merge: reading their texts', () => {
  it('reads the texts of every page they changed or added in one statement', async () => {
    const { conflicts, merged, store, statements } = await merge(
      (d) => d.setVariables({ product: 'Acme', version: '2' }),
      (d) => {
        d.updatePage('intro', { markdown: 'Welcome aboard.\n' });
        d.updatePage('install', { markdown: `${TEXT}Done.\n` });
        d.insertPage('setup', { id: 'proxy', title: 'Proxy', markdown: 'Set HTTPS_PROXY.\n' });
      },
    );
    expect(conflicts).toEqual([]);
    expect(statements).toBe(1);
    expect(await store.body(merged, 'intro')).toBe('Welcome aboard.\n');
    expect(await store.body(merged, 'install')).toBe(`${TEXT}Done.\n`);
    expect(await store.body(merged, 'proxy')).toBe('Set HTTPS_PROXY.\n');
    expect(merged.root.variables).toEqual({ product: 'Acme', version: '2' });
  });
});

describe('merge: page text', () => {
  it('changes nothing when their side did not change', async () => {
    const { conflicts, draft } = await merge((d) => d.updatePage('intro', { markdown: 'Hello.\n' }), nothing);
    expect(conflicts).toEqual([]);
    expect(draft.unchanged).toBe(true);
  });

  it('takes their text of a page that only they changed, and keeps ours of another', async () => {
    const { conflicts, merged, store } = await merge(
      (d) => d.updatePage('intro', { markdown: 'Hello.\n' }),
      (d) => d.updatePage('faq', { markdown: 'Answers.\n' }),
    );
    expect(conflicts).toEqual([]);
    expect(await store.body(merged, 'intro')).toBe('Hello.\n');
    expect(await store.body(merged, 'faq')).toBe('Answers.\n');
    expect(await store.body(merged, 'setup')).toBe('Configure.\n');
  });

  it('merges changes to different lines of one page', async () => {
    const { conflicts, merged, store } = await merge(
      (d) => d.updatePage('install', { markdown: replaceLine('Download the installer.', 'Download the installer from the website.') }),
      (d) => d.updatePage('install', { markdown: replaceLine('Restart when asked.', 'Restart twice when asked.') }),
    );
    expect(conflicts).toEqual([]);
    expect(await store.body(merged, 'install')).toBe(
      TEXT.replace('Download the installer.', 'Download the installer from the website.').replace(
        'Restart when asked.',
        'Restart twice when asked.',
      ),
    );
  });

  it('reports a conflict naming the page when both sides changed the same lines', async () => {
    const { conflicts } = await merge(
      (d) => d.updatePage('install', { markdown: replaceLine('Run it as an administrator.', 'Run it as root.') }),
      (d) =>
        d.updatePage('install', { title: 'Installation', markdown: replaceLine('Run it as an administrator.', 'Run it as yourself.') }),
    );
    expect(conflicts).toEqual([{ pageId: 'install', title: 'Installation', reason: 'both sides changed the same lines of the page' }]);
  });

  it('accepts the same change made on both sides', async () => {
    const edit = (d: Draft) => d.updatePage('install', { title: 'Installation', markdown: 'Just run it.\n' });
    const { conflicts, merged, store } = await merge(edit, edit);
    expect(conflicts).toEqual([]);
    expect(merged.byId.get('install')!.node.title).toBe('Installation');
    expect(await store.body(merged, 'install')).toBe('Just run it.\n');
  });

  it('empties a page they emptied', async () => {
    const { conflicts, merged, store } = await merge(nothing, (d) => d.updatePage('faq', { markdown: '' }));
    expect(conflicts).toEqual([]);
    expect(await store.body(merged, 'faq')).toBe('');
  });
});

describe('merge: page fields', () => {
  it('combines changes to different fields of one page', async () => {
    const { conflicts, merged, store } = await merge(
      (d) => d.updatePage('install', { title: 'Installation', description: 'How to install' }),
      (d) => d.updatePage('install', { emoji: '1f680', hidden: true, markdown: 'New text.\n' }),
    );
    expect(conflicts).toEqual([]);
    expect(merged.byId.get('install')!.node).toMatchObject({
      title: 'Installation',
      description: 'How to install',
      emoji: '1f680',
      hidden: true,
    });
    expect(await store.body(merged, 'install')).toBe('New text.\n');
  });

  it('applies a field they removed or switched off', async () => {
    const { conflicts, merged } = await merge(
      (d) => d.updatePage('install', { title: 'Installation', hidden: true }),
      (d) => d.updatePage('install', { emoji: null, description: 'Set up' }),
    );
    expect(conflicts).toEqual([]);
    const node = merged.byId.get('install')!.node;
    expect(node).not.toHaveProperty('emoji');
    expect(node).toMatchObject({ title: 'Installation', description: 'Set up', hidden: true });

    const off = await merge(
      (d) => d.updatePage('faq', { hidden: true, noIndex: true }),
      (d) => d.updatePage('faq', { hidden: true, noIndex: true, title: 'Questions' }),
    );
    expect(off.conflicts).toEqual([]);
    expect(off.merged.byId.get('faq')!.node).toMatchObject({ title: 'Questions', hidden: true, noIndex: true });
    const shown = await merge(
      (d) => d.updatePage('advanced', { title: 'Tuning' }),
      (d) => d.updatePage('advanced', { hidden: false }),
    );
    expect(shown.conflicts).toEqual([]);
    expect(shown.merged.byId.get('advanced')!.node.title).toBe('Tuning');
    expect(shown.merged.byId.get('advanced')!.node).not.toHaveProperty('hidden');
  });

  it('reports the fields both sides changed differently', async () => {
    const { conflicts } = await merge(
      (d) => d.updatePage('install', { title: 'Setup guide', emoji: '1f600', description: 'same' }),
      (d) => d.updatePage('install', { title: 'Installing', emoji: '1f680', description: 'same' }),
    );
    expect(conflicts).toEqual([{ pageId: 'install', title: 'Installing', reason: 'both sides changed title, emoji' }]);
  });

  it('merges slugs like any other field', async () => {
    const ok = await merge(
      (d) => d.updatePage('faq', { title: 'Questions' }),
      (d) => d.updatePage('faq', { slug: 'questions' }),
    );
    expect(ok.conflicts).toEqual([]);
    expect(ok.merged.byPath.get('questions')?.node).toMatchObject({ id: 'faq', title: 'Questions' });
    const clash = await merge(
      (d) => d.updatePage('faq', { slug: 'help' }),
      (d) => d.updatePage('faq', { slug: 'questions' }),
    );
    expect(clash.conflicts).toEqual([{ pageId: 'faq', title: 'FAQ', reason: 'both sides changed slug' }]);
  });
});

describe('merge: insertions and deletions', () => {
  it('inserts the pages they added, where they added them, with their text', async () => {
    const { conflicts, merged, store } = await merge(
      (d) => d.insertPage(null, { id: 'ours1', title: 'Ours' }),
      (d) => {
        d.insertPage('guide', { id: 'theirs1', title: 'Requirements', markdown: 'A computer.\n' }, 0);
        d.insertPage('theirs1', { id: 'theirs2', title: 'Hardware' });
        d.insertPage('guide', { id: 'theirs3', title: 'Upgrade' }, 2);
      },
    );
    expect(conflicts).toEqual([]);
    expect(outline(merged)).toBe('intro guide(theirs1(theirs2) install theirs3 setup(advanced)) faq ours1');
    expect(await store.body(merged, 'theirs1')).toBe('A computer.\n');
  });

  it('reports a page added on both sides with the same id but different content', async () => {
    const { conflicts } = await merge(
      (d) => d.insertPage(null, { id: 'new', title: 'News' }),
      (d) => d.insertPage(null, { id: 'new', title: 'Changelog' }),
    );
    expect(conflicts).toEqual([{ pageId: 'new', title: 'Changelog', reason: 'added on both sides with different content' }]);
    const same = await merge(
      (d) => d.insertPage(null, { id: 'new', title: 'News', markdown: 'x\n' }),
      (d) => d.insertPage(null, { id: 'new', title: 'News', markdown: 'x\n' }),
    );
    expect(same.conflicts).toEqual([]);
    expect(outline(same.merged)).toBe(`${BASE_OUTLINE} new`);
  });

  it('reports a page they added under a page we deleted', async () => {
    const { conflicts } = await merge(
      (d) => d.deletePage('setup'),
      (d) => d.insertPage('advanced', { id: 'deep', title: 'Deep dive' }),
    );
    expect(conflicts).toEqual([{ pageId: 'deep', title: 'Deep dive', reason: 'added under a page that was deleted on the other side' }]);
  });

  it('deletes what they deleted, with its subtree, when we did not change it', async () => {
    const { conflicts, merged } = await merge(
      (d) => d.updatePage('intro', { title: 'Welcome' }),
      (d) => d.deletePage('setup'),
    );
    expect(conflicts).toEqual([]);
    expect(outline(merged)).toBe('intro guide(install) faq');
  });

  it('keeps what we deleted deleted, and does nothing when both sides deleted a page', async () => {
    const ours = await merge((d) => d.deletePage('faq'), nothing);
    expect(ours.conflicts).toEqual([]);
    expect(ours.draft.unchanged).toBe(true);
    const both = await merge(
      (d) => d.deletePage('faq'),
      (d) => d.deletePage('faq'),
    );
    expect(both.conflicts).toEqual([]);
    expect(outline(both.merged)).toBe('intro guide(install setup(advanced))');
  });

  it('reports a page deleted on one side and changed on the other, whichever side deleted it', async () => {
    const theirsDeleted = await merge(
      (d) => d.updatePage('faq', { markdown: 'More questions.\n' }),
      (d) => d.deletePage('faq'),
    );
    expect(theirsDeleted.conflicts).toEqual([{ pageId: 'faq', title: 'FAQ', reason: 'deleted on one side and changed on the other' }]);
    const oursDeleted = await merge(
      (d) => d.deletePage('faq'),
      (d) => d.updatePage('faq', { title: 'Help' }),
    );
    expect(oursDeleted.conflicts).toEqual([{ pageId: 'faq', title: 'Help', reason: 'deleted on one side and changed on the other' }]);
  });

  it('reports a page they deleted while we added pages under it', async () => {
    const { conflicts } = await merge(
      (d) => d.insertPage('advanced', { id: 'tuning', title: 'Tuning' }),
      (d) => d.deletePage('setup'),
    );
    expect(conflicts).toEqual([
      { pageId: 'setup', title: 'Setup', reason: 'deleted on one side while pages were added under it on the other' },
      { pageId: 'advanced', title: 'Advanced', reason: 'deleted on one side while pages were added under it on the other' },
    ]);
  });
});

describe('merge: moves', () => {
  it('moves a page they moved, keeping the changes we made to it', async () => {
    const { conflicts, merged, store } = await merge(
      (d) => d.updatePage('advanced', { markdown: 'Tuning tips.\n' }),
      (d) => d.movePage('advanced', 'guide', 0),
    );
    expect(conflicts).toEqual([]);
    expect(outline(merged)).toBe('intro guide(advanced install setup) faq');
    expect(await store.body(merged, 'advanced')).toBe('Tuning tips.\n');
  });

  it('follows their order of siblings', async () => {
    const { conflicts, merged } = await merge(
      (d) => d.updatePage('intro', { title: 'Welcome' }),
      (d) => d.movePage('faq', null, 0),
    );
    expect(conflicts).toEqual([]);
    expect(outline(merged)).toBe('faq intro guide(install setup(advanced))');
  });

  it('reports a page moved to different parents on both sides', async () => {
    const { conflicts } = await merge(
      (d) => d.movePage('advanced', null),
      (d) => d.movePage('advanced', 'guide'),
    );
    expect(conflicts).toEqual([{ pageId: 'advanced', title: 'Advanced', reason: 'moved to different places on both sides' }]);
  });

  it('keeps our place for a page both sides moved under the same parent', async () => {
    const { conflicts, merged } = await merge(
      (d) => d.movePage('advanced', 'guide', 0),
      (d) => d.movePage('advanced', 'guide'),
    );
    expect(conflicts).toEqual([]);
    expect(outline(merged)).toBe('intro guide(advanced install setup) faq');
  });

  it('reports a page they moved under a page we deleted', async () => {
    const { conflicts } = await merge(
      (d) => d.deletePage('faq'),
      (d) => d.movePage('intro', 'faq'),
    );
    expect(conflicts).toEqual([
      { pageId: 'intro', title: 'Introduction', reason: 'moved under a page that was deleted on the other side' },
    ]);
  });
});

describe('merge: files and variables', () => {
  it('adds the files they added and deletes the ones they deleted', async () => {
    const { conflicts, merged } = await merge(
      (d) => d.insertFile(file('ours', 'ours.txt')),
      (d) => {
        d.insertFile(file('theirs', 'theirs.txt'));
        d.deleteFile('manual');
      },
    );
    expect(conflicts).toEqual([]);
    expect(merged.files.map((f) => f.id).sort()).toEqual(['logo', 'ours', 'theirs']);
  });

  it('keeps a file we replaced when they deleted it', async () => {
    const { conflicts, merged } = await merge(
      (d) => {
        d.deleteFile('manual');
        d.insertFile(file('manual', 'manual.pdf', 'v2'));
      },
      (d) => d.deleteFile('manual'),
    );
    expect(conflicts).toEqual([]);
    expect(merged.filesById.get('manual')?.sha256).toBe(file('manual', 'manual.pdf', 'v2').sha256);
  });

  it('reports a file replaced differently on both sides', async () => {
    const replace = (sha: string) => (d: Draft) => {
      d.deleteFile('logo');
      d.insertFile(file('logo', 'logo.png', sha));
    };
    const { conflicts } = await merge(replace('ours'), replace('theirs'));
    expect(conflicts).toEqual([{ pageId: 'logo', title: 'logo.png', reason: 'file changed on both sides' }]);
  });

  it('merges variables key by key', async () => {
    const { conflicts, merged } = await merge(
      (d) => d.setVariables({ product: 'Acme Cloud', version: '1' }),
      (d) => d.setVariables({ product: 'Acme', region: 'eu' }),
    );
    expect(conflicts).toEqual([]);
    expect(merged.root.variables).toEqual({ product: 'Acme Cloud', region: 'eu' });
  });

  it('reports a variable changed differently on both sides', async () => {
    const { conflicts } = await merge(
      (d) => d.setVariables({ product: 'Acme', version: '2' }),
      (d) => d.setVariables({ product: 'Acme', version: '3' }),
    );
    expect(conflicts).toEqual([{ pageId: 'variables.version', title: 'version', reason: 'variable changed on both sides' }]);
  });
});

describe('merge: conflicts together', () => {
  it('lists every conflict, not only the first', async () => {
    const { conflicts } = await merge(
      (d) => {
        d.updatePage('intro', { title: 'Hello' });
        d.updatePage('faq', { markdown: 'Ours.\n' });
        d.setVariables({ product: 'A', version: '1' });
      },
      (d) => {
        d.updatePage('intro', { title: 'Hi' });
        d.deletePage('faq');
        d.setVariables({ product: 'B', version: '1' });
      },
    );
    expect(conflicts.map((c) => c.pageId).sort()).toEqual(['faq', 'intro', 'variables.product']);
  });
});
