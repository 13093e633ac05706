// External links in the section tabs (src/reader/layout-links.ts): a link in its group's run, the rest at the root.
import { describe, expect, it } from 'vitest';
import { tabRuns } from '../../../src/reader/layout-links.js';

describe('tabRuns', () => {
  const tab = (title: string, groupId: string | null, group: string | null = groupId) => ({
    title,
    href: `/${title}`,
    current: false,
    groupId,
    group,
  });
  it('puts a link in the last run of its group, and a link of a group not shown with the root links', () => {
    const { runs, rootLinks } = tabRuns(
      [tab('a', null), tab('b', 'g1', 'Group'), tab('c', 'g2', 'Nested'), tab('d', 'g1', 'Group')],
      [
        { title: 'root', href: 'https://r.test/' },
        { title: 'in g1', href: 'https://g1.test/', parent: 'g1' },
        { title: 'in g3', href: 'https://g3.test/', parent: 'g3' },
      ],
    );
    expect(runs.map((r) => [r.group, r.sections.map((s) => s.title), r.links.map((l) => l.title)])).toEqual([
      [null, ['a'], []],
      ['Group', ['b'], []],
      ['Nested', ['c'], []],
      ['Group', ['d'], ['in g1']],
    ]);
    expect(rootLinks.map((l) => l.title)).toEqual(['root', 'in g3']);
    // No tabs (one section): every link is a root link.
    expect(tabRuns([tab('a', 'g1')], [{ title: 'in g1', href: 'https://g1.test/', parent: 'g1' }]).rootLinks.map((l) => l.title)).toEqual([
      'in g1',
    ]);
  });
});
