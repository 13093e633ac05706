// The git cache is keyed by repository, not by space (issue 27, item 6): the spellings of one remote
// URL share a cache, credentials never enter the key, and a repoCacheID belongs to its organization.
import { describe, expect, it } from 'vitest';
import { cacheKey, normalizedRemote } from '../../../src/git/repo.js';

describe('git cache key', () => {
  it('is one per repository whatever the spelling of its URL, and never holds credentials', () => {
    const same = [
      'https://git.example.com/acme/docs',
      'https://git.example.com/acme/docs.git',
      'https://GIT.example.com:443/acme/docs.git/',
      'https://bot:s3cret@git.example.com/acme/docs',
      'https://git.example.com/acme/docs?x=1#top',
    ];
    for (const url of same) {
      expect(normalizedRemote(url), url).toBe('https://git.example.com/acme/docs');
      expect(cacheKey(url, undefined, 'org-1'), url).toBe(cacheKey(same[0]!, undefined, 'org-2'));
    }
    expect(normalizedRemote('https://bot:s3cret@git.example.com/acme/docs')).not.toContain('s3cret');
    expect(cacheKey(same[0]!, undefined, 'org-1')).toMatch(/^[0-9a-f]{40}$/);
    // Another repository, path case included (servers may tell them apart), another cache.
    for (const other of ['https://git.example.com/acme/site', 'https://git.example.com/Acme/docs', 'http://git.example.com/acme/docs'])
      expect(cacheKey(other, undefined, 'org-1'), other).not.toBe(cacheKey(same[0]!, undefined, 'org-1'));
  });

  it('with a repoCacheID: that id, within its organization', () => {
    const a = cacheKey('https://git.example.com/acme/docs', 'shared', 'org-1');
    expect(cacheKey('https://mirror.example.com/acme/docs', 'shared', 'org-1')).toBe(a);
    expect(cacheKey('https://git.example.com/acme/docs', 'shared', 'org-2')).not.toBe(a);
    expect(cacheKey('https://git.example.com/acme/docs', undefined, 'org-1')).not.toBe(a);
  });
});
