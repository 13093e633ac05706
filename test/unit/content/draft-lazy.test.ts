import { afterEach, describe, expect, it, vi } from 'vitest';
import { Draft } from '../../../src/content/draft.js';
import { memoryObjects, outline } from '../../helpers/memory-objects.js';

// A draft makes its editable tree lazily (the top level, then the subpages of what an edit
// reaches). Whatever the edits, it must commit exactly what a draft whose every page was reached
// first commits, fail the same way, and report the same touched pages.

describe('a lazily made draft', () => {
  afterEach(() => vi.useRealTimers());

  it('commits what a fully made draft commits, over random edits', async () => {
    const store = memoryObjects();
    const seed = new Draft(null);
    const ids: string[] = [];
    for (let t = 0; t < 6; t++) {
      const top = seed.insertPage(null, { id: `t${t}`, title: `Top ${t}`, markdown: `top ${t}` });
      ids.push(top);
      for (let c = 0; c < 4; c++) {
        const child = seed.insertPage(top, { id: `t${t}c${c}`, title: `Child ${c}`, markdown: `child ${t} ${c}` });
        ids.push(child);
        for (let g = 0; g < 3; g++) ids.push(seed.insertPage(child, { id: `t${t}c${c}g${g}`, title: `Leaf ${g}` }));
      }
    }
    let snap = await store.commit(seed);
    let state = 20261123;
    // mulberry32: the same edits every run.
    const random = () => {
      state = (state + 0x6d2b79f5) | 0;
      let x = Math.imul(state ^ (state >>> 15), 1 | state);
      x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
      return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
    };
    const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)];
    let fresh = 0;
    for (let round = 0; round < 40; round++) {
      // Both drafts stamp the same time on what they change.
      vi.useFakeTimers({ toFake: ['Date'], now: Date.UTC(2026, 0, 1, 0, round) });
      const lazy = new Draft(snap, 'r');
      const full = new Draft(snap, 'r');
      for (const p of snap.ordered) full.has(p.node.id);
      for (let k = 0; k < 6; k++) {
        const target = pick(ids);
        const parent = random() < 0.15 ? null : pick(ids);
        const index = Math.floor(random() * 5);
        const op = Math.floor(random() * 6);
        const [title, slug] = [pick(['Leaf 1', 'New', 'Top 2']), pick(['leaf-1', 'child-0', 'x'])];
        const run = (d: Draft) => {
          try {
            if (op === 0) return d.insertPage(parent, { id: `n${fresh}`, title });
            if (op === 1) return d.updatePage(target, { title: `T${round}`, markdown: `r${round}` });
            if (op === 2) return d.updatePage(target, { slug });
            if (op === 3) return d.movePage(target, parent, index);
            if (op === 4) return d.deletePage(target).join(' ');
            return `${d.has(target)} ${d.parentOf(target)} ${d.childIds(parent).join(',')} ${d.page(target)?.slug}`;
          } catch (err) {
            return `error: ${(err as Error).message}`;
          }
        };
        expect(run(lazy), `round ${round} op ${op} ${target} ${parent}`).toEqual(run(full));
        if (op === 0) ids.push(`n${fresh++}`);
      }
      expect([...lazy.touched].sort()).toEqual([...full.touched].sort());
      const [a, b] = [await lazy.writeObjects(store.db, store.spaceId), await full.writeObjects(store.db, store.spaceId)];
      expect(a, `round ${round}`).toBe(b);
      snap = await store.commit(lazy);
    }
    expect(outline(snap)).not.toBe('');
  });
});
