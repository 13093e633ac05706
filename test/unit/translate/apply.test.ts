import { describe, expect, it } from 'vitest';
import { Draft } from '../../../src/content/draft.js';
import { mirrorInto } from '../../../src/translate/apply.js';
import { memoryObjects, outline } from '../../helpers/memory-objects.js';

function base(d: Draft) {
  d.insertPage(null, { id: 'intro', title: 'Introduction', markdown: 'Welcome.\n' });
  d.insertPage(null, { id: 'guide', title: 'Guide' });
  d.insertPage('guide', { id: 'install', title: 'Install', emoji: '1f4e6', markdown: 'Download.\n' });
  d.insertPage('guide', { id: 'setup', title: 'Setup', markdown: 'Configure.\n' });
  d.insertPage('setup', { id: 'advanced', title: 'Advanced' });
  d.insertPage(null, { id: 'faq', title: 'FAQ', markdown: 'Questions.\n' });
  d.insertFile({ id: 'f1', name: 'a.png', contentType: 'image/png', size: 1, blobKey: 'files/a', sha256: 'a'.repeat(64) });
  d.setVariables({ v: '1' });
}

describe('mirrorInto', () => {
  it('applies moves, reorders, inserts, deletes, field changes and files without touching kept text', async () => {
    const src = memoryObjects();
    const res = memoryObjects();
    const d0 = new Draft(null);
    base(d0);
    let source = await src.commit(d0);
    const r0 = new Draft(null);
    base(r0);
    r0.updatePage('intro', { title: 'Introduction (fr)', markdown: 'Bienvenue.\n' });
    const result = await res.commit(r0);

    const d1 = new Draft(source);
    d1.movePage('faq', null, 0);
    d1.movePage('advanced', 'guide', 0);
    d1.deletePage('setup');
    d1.insertPage('intro', { id: 'child', title: 'Child', markdown: 'New.\n' });
    d1.updatePage('install', { emoji: '1f680', hidden: true });
    d1.deleteFile('f1');
    d1.insertFile({ id: 'f2', name: 'b.png', contentType: 'image/png', size: 1, blobKey: 'files/b', sha256: 'b'.repeat(64) });
    d1.setVariables({ v: '2' });
    source = await src.commit(d1);

    const m = new Draft(result);
    mirrorInto(m, result, source, new Map([['child', { title: 'Enfant', markdown: 'Nouveau.\n' }]]));
    const out = await res.commit(m);
    expect(outline(out)).toBe(outline(source));
    expect(outline(out)).toBe('faq intro(child) guide(advanced install)');
    expect(out.byId.get('intro')!.node.title).toBe('Introduction (fr)');
    expect(await res.body(out, 'intro')).toBe('Bienvenue.\n');
    expect(out.byId.get('child')!.node.title).toBe('Enfant');
    expect(await res.body(out, 'child')).toBe('Nouveau.\n');
    expect(out.byId.get('install')!.node).toMatchObject({ emoji: '1f680', hidden: true, title: 'Install' });
    expect(out.files.map((f) => f.id)).toEqual(['f2']);
    expect(out.root.variables).toEqual({ v: '2' });

    // Mirroring again changes nothing.
    const again = new Draft(out);
    mirrorInto(again, out, source, new Map());
    expect(again.unchanged).toBe(true);
  });
});
