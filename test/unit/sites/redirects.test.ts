// The pure rules of site redirects (src/sites/redirects.ts): which source a path takes, what a
// captured wildcard adds, how the query string is kept, and which sets of redirects loop.
import { describe, expect, it } from 'vitest';
import { compile, findLoop, match, SOURCE_PATTERN, withCaptured, withQuery } from '../../../src/sites/redirects.js';

const r = (source: string, to: string | null, capture = false) => ({ source, to, capture });
type R = ReturnType<typeof r>;
const target = (x: R, rest: string) => (x.to === null ? null : x.capture ? withCaptured(x.to, rest) : x.to);

describe('matching', () => {
  const c = compile([r('/a', '/1'), r('/docs/*', '/2'), r('/docs/api/*', '/3'), r('/pre*', '/4'), r('/caf%C3%A9', '/5')]);
  it('prefers an exact source, then the longest wildcard; compares decoded and without a trailing slash', () => {
    expect(match(c, '/a/')?.item.to).toBe('/1');
    expect(match(c, 'a')?.item.to).toBe('/1');
    expect(match(c, '/docs')).toMatchObject({ item: { to: '/2' }, rest: '' });
    expect(match(c, '/docs/x/y')).toMatchObject({ item: { to: '/2' }, rest: 'x/y' });
    expect(match(c, '/docs/api/v1')).toMatchObject({ item: { to: '/3' }, rest: 'v1' });
    expect(match(c, '/docsx')).toBeNull();
    expect(match(c, '/prefix/z')).toMatchObject({ item: { to: '/4' }, rest: 'fix/z' });
    expect(match(c, '/café')?.item.to).toBe('/5');
    expect(match(c, '/b')).toBeNull();
  });

  it('appends a captured rest before the query and keeps the request query after the target one', () => {
    expect(withCaptured('https://x.test/new?v=1#h', 'a b/c')).toBe('https://x.test/new/a%20b/c?v=1#h');
    expect(withCaptured('/new/', '')).toBe('/new/');
    expect(withQuery('https://x.test/p', '?utm=1')).toBe('https://x.test/p?utm=1');
    expect(withQuery('https://x.test/p?v=1#top', '?utm=1')).toBe('https://x.test/p?v=1&utm=1#top');
    expect(withQuery('/p', '')).toBe('/p');
  });

  it('takes the description source pattern', () => {
    for (const ok of ['/a', '/a/b', '/a/*', '/a*', '/%C3%A9', '/a.b~c+d']) expect(SOURCE_PATTERN.test(ok), ok).toBe(true);
    for (const bad of ['a', '/', '/*', '/a/*/b', '/a b', '/a?x=1', '//a', '/a/']) expect(SOURCE_PATTERN.test(bad), bad).toBe(false);
  });
});

describe('loops', () => {
  it('finds a self loop, a chain back to its start, and a wildcard that catches its own destination', () => {
    expect(findLoop([r('/a', '/a/')], target)?.source).toBe('/a');
    expect(findLoop([r('/a', '/b'), r('/b', '/c'), r('/c', '/a')], target)).not.toBeNull();
    expect(findLoop([r('/old/*', '/old/new', true)], target)).not.toBeNull();
  });

  it('lets chains that end, leave the site, or pass by a wildcard without coming back', () => {
    expect(findLoop([r('/a', '/b'), r('/b', '/c')], target)).toBeNull();
    expect(findLoop([r('/a', null), r('/b', '/a')], target)).toBeNull();
    expect(findLoop([r('/old/*', '/new', true), r('/new/x', '/done')], target)).toBeNull();
  });
});
