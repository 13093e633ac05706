import { describe, expect, it } from 'vitest';
import {
  outlineOf,
  readerContext,
  resolveSitePath,
  signedClaims,
  sitePath,
  unsignedClaims,
  visibleSite,
  type ReaderSection,
  type ReaderSiteSpace,
} from '../../../src/sites/reader.js';

const section = (id: string, path: string, extra: Partial<ReaderSection> = {}): ReaderSection => ({
  id,
  path,
  title: id,
  condition: null,
  is_default: false,
  group_id: null,
  ...extra,
});
const variant = (id: string, sectionId: string | null, path: string, extra: Partial<ReaderSiteSpace> = {}): ReaderSiteSpace => ({
  id,
  section_id: sectionId,
  space_id: `space-${id}`,
  path,
  title: id,
  condition: null,
  hidden: false,
  is_default: false,
  ...extra,
});

const sections = [section('guides', 'guides', { is_default: true }), section('api', 'api', { condition: 'visitor.claims.beta == true' })];
const variants = [
  variant('v1', 'guides', 'v1', { is_default: true }),
  variant('v2', 'guides', 'v2'),
  variant('old', 'guides', 'old', { hidden: true }),
  variant('ref', 'api', 'ref', { is_default: true }),
];

describe('site path resolution', () => {
  const everyone = visibleSite(sections, variants, readerContext({}, {}));
  const beta = visibleSite(sections, variants, readerContext({ beta: true }, {}));

  it('omits the default section and variant; names the others', () => {
    expect(resolveSitePath(beta, [])).toMatchObject({ section: { id: 'guides' }, siteSpace: { id: 'v1' }, pagePath: '' });
    expect(resolveSitePath(beta, ['intro', 'nested'])).toMatchObject({ siteSpace: { id: 'v1' }, pagePath: 'intro/nested' });
    expect(resolveSitePath(beta, ['v2', 'intro'])).toMatchObject({ siteSpace: { id: 'v2' }, pagePath: 'intro' });
    expect(resolveSitePath(beta, ['api', 'x'])).toMatchObject({ section: { id: 'api' }, siteSpace: { id: 'ref' }, pagePath: 'x' });
    // A hidden variant stays reachable by URL.
    expect(resolveSitePath(beta, ['old'])).toMatchObject({ siteSpace: { id: 'old' }, pagePath: '' });
    expect(sitePath(beta, beta.sections[1], beta.variants.get('api')![0], 'x/y')).toBe('api/x/y');
    expect(sitePath(beta, beta.sections[0], beta.variants.get('guides')![1], '')).toBe('v2');
    expect(sitePath(beta, beta.sections[0], beta.variants.get('guides')![0], 'a b')).toBe('a%20b');
  });

  it('leaves out what conditions hide: the segment is then read as a page path (a 404 later)', () => {
    expect(everyone.sections.map((s) => s.id)).toEqual(['guides']);
    expect(resolveSitePath(everyone, ['api', 'x'])).toMatchObject({ section: { id: 'guides' }, pagePath: 'api/x' });
  });

  it('makes the first visible section the landing one when the default is hidden', () => {
    const hiddenDefault = [section('guides', 'guides', { is_default: true, condition: 'false' }), section('api', 'api')];
    const v = visibleSite(hiddenDefault, variants, readerContext({}, {}));
    expect(resolveSitePath(v, [])).toMatchObject({ section: { id: 'api' } });
    expect(sitePath(v, v.sections[0], v.variants.get('api')![0], '')).toBe('');
  });

  it('serves a site without sections from its root site spaces', () => {
    const v = visibleSite([], [variant('a', null, 'a', { is_default: true }), variant('b', null, 'b')], readerContext({}, {}));
    expect(resolveSitePath(v, ['b', 'p'])).toMatchObject({ section: null, siteSpace: { id: 'b' }, pagePath: 'p' });
    expect(resolveSitePath(visibleSite([], [], {}), [])).toBeNull();
  });
});

describe('visitor claims', () => {
  it('keeps signed claims minus the registered time and id claims', () => {
    expect(signedClaims({ sub: 'u', exp: 1, iat: 2, nbf: 3, jti: 'j', aud: 'a', plan: 'pro', unsigned: { x: 1 } })).toEqual({
      sub: 'u',
      plan: 'pro',
    });
  });

  it('reads visitor.* parameters only where the adaptive schema declares them, typed', () => {
    const schema = {
      properties: {
        unsigned: {
          properties: {
            lang: { type: 'string', enum: ['en', 'fr'] },
            beta: { type: 'boolean' },
            seats: { type: 'number' },
            tags: { type: 'array', items: { type: 'string' } },
            org: { type: 'object', properties: { plan: { type: 'string' } } },
          },
        },
      },
    };
    const params = new URLSearchParams(
      'visitor.lang=fr&visitor.beta=true&visitor.seats=3&visitor.tags=["a",1]&visitor.org.plan=pro&visitor.org.x=1&visitor.admin=true&visitor.__proto__.x=1&other=1',
    );
    expect(unsignedClaims(params, schema)).toEqual({ lang: 'fr', beta: true, seats: 3, tags: ['a', '1'], org: { plan: 'pro' } });
    expect(unsignedClaims(new URLSearchParams('visitor.lang=de&visitor.seats=many'), schema)).toEqual({});
    expect(unsignedClaims(params, null)).toEqual({});
    expect(({} as any).x).toBeUndefined();
  });
});

describe('outline', () => {
  it('lists h2/h3 headings with ids, text only', () => {
    const html = '<h2 id="content--a">A &amp; <code>b</code></h2><p>x</p><h3 id="content--c">C</h3><h4 id="d">D</h4><h2>No id</h2>';
    expect(outlineOf(html)).toEqual([
      { level: 2, id: 'content--a', title: 'A & b' },
      { level: 3, id: 'content--c', title: 'C' },
    ]);
  });
});

describe('preview tokens', () => {
  it('are valid about an hour for their site only', async () => {
    const { previewToken, checkPreviewToken } = await import('../../../src/sites/preview.js');
    const now = 1_800_000_000;
    const token = previewToken('secret', 'site-a', now);
    expect(checkPreviewToken('secret', 'site-a', token, now)).toBeGreaterThanOrEqual(now + 3600);
    expect(checkPreviewToken('secret', 'site-b', token, now)).toBeNull();
    expect(checkPreviewToken('other', 'site-a', token, now)).toBeNull();
    expect(checkPreviewToken('secret', 'site-a', token, now + 4300)).toBeNull();
    expect(checkPreviewToken('secret', 'site-a', `${now + 99999}.${token.split('.')[1]}`, now)).toBeNull();
    expect(checkPreviewToken('secret', 'site-a', 'garbage', now)).toBeNull();
  });
});

describe('edit on git', () => {
  it('points at the page file of the synced repository', async () => {
    const { editOnGitUrl } = await import('../../../src/sites/reader.js');
    expect(editOnGitUrl('https://github.com/acme/docs.git', 'docs/a b.md')).toBe('https://github.com/acme/docs/blob/HEAD/docs/a%20b.md');
    expect(editOnGitUrl('https://github.com/acme/docs/tree/main/', 'docs/a.md')).toBe('https://github.com/acme/docs/tree/main/docs/a.md');
    expect(editOnGitUrl('https://user:pw@example.test/r.git', 'a.md')).toBeNull();
    expect(editOnGitUrl('file:///srv/r.git', 'a.md')).toBeNull();
    expect(editOnGitUrl(null, 'a.md')).toBeNull();
    expect(editOnGitUrl('https://example.test/r', undefined)).toBeNull();
  });
});
