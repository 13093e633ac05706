// Where a write-back puts the site's external links among the sections and groups of their level
// (placeLinks), and how a link row becomes a docs.yaml entry (linkNode).
import { describe, expect, it } from 'vitest';
import { linkNode, placeLinks } from '../../../../src/services/git-sync/site-links.js';
import type { DocsYamlExternalLink, DocsYamlNode } from '../../../../src/git/format/docs-yaml.js';
import type { ExternalLinkRow } from '../../../../src/db/repos/site-external-links.js';

const section = (key: string) => ({ type: 'section', key, title: key, path: key, children: [] }) as DocsYamlNode;
const link = (key: string) => ({ type: 'external-link', key, title: key, url: `https://${key}.example/` }) as DocsYamlExternalLink;
const keys = (nodes: DocsYamlNode[]) => nodes.map((n) => n.key);

describe('placeLinks', () => {
  it('puts each link after the section it followed in the file, in the site order, and new ones at the end', () => {
    const stored = [link('first'), section('a'), link('l1'), link('l2'), section('b'), section('c'), link('l3')];
    const level = [section('a'), section('b'), section('c')];
    expect(keys(placeLinks(level, [link('first'), link('l1'), link('l2'), link('l3')], stored))).toEqual(keys(stored));
    // A link the file never had (added through the API) goes at the end of its level.
    expect(keys(placeLinks(level, [link('l1'), link('new')], stored))).toEqual(['a', 'l1', 'b', 'c', 'new']);
    // Its section gone, a link follows the one before it; with none left before it, it comes first.
    expect(keys(placeLinks([section('a'), section('c')], [link('l1'), link('l3')], stored))).toEqual(['a', 'l1', 'c', 'l3']);
    expect(keys(placeLinks([section('c')], [link('l1')], stored))).toEqual(['l1', 'c']);
    // Nothing stored (a site's first write-back): links after the sections.
    expect(keys(placeLinks(level, [link('x'), link('y')], undefined))).toEqual(['a', 'b', 'c', 'x', 'y']);
  });
});

describe('linkNode', () => {
  const row: ExternalLinkRow = {
    id: 'l1',
    site_id: 's',
    section_group_id: null,
    title: 'Status',
    localized_title: { fr: 'État' },
    description: '',
    localized_description: {},
    icon: null,
    url: 'https://status.example/',
    draft: false,
    condition: null,
    position: 1,
    git_key: 'link-status',
    created_at: new Date(0),
  };

  it('writes what the link holds, keeps an explicit draft: false and the unknown keys of the file', () => {
    expect(linkNode(row, 'link-status', undefined)).toEqual({
      type: 'external-link',
      key: 'link-status',
      title: 'Status',
      localizedTitle: { fr: 'État' },
      url: 'https://status.example/',
      description: '',
    });
    const was = { ...link('link-status'), draft: false, extra: { rank: 2 } };
    expect(linkNode({ ...row, draft: false }, 'link-status', was)).toMatchObject({ draft: false, extra: { rank: 2 } });
    expect(linkNode({ ...row, draft: true, condition: 'visitor.claims.beta' }, 'link-status', was)).toMatchObject({
      draft: true,
      condition: 'visitor.claims.beta',
    });
  });
});
