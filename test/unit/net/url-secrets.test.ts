import { describe, expect, it } from 'vitest';
import { isCredentialParam, openSealedUrl, scrubSecrets, sealUrl, splitUrlSecrets } from '../../../src/net/url-secrets.js';
import { openText, sealText } from '../../../src/util/seal.js';
import { openCredentials, sealCredentials } from '../../../src/git/credentials.js';
import { redactUrl } from '../../../src/log.js';
import { operationError } from '../../../workers/runner.js';

describe('credentials in URLs', () => {
  it('splits user info and credential parameters out of a URL, keeping the rest as given', () => {
    expect(splitUrlSecrets('https://bob:s%40cret@specs.example.com/api.yaml')).toEqual({
      display: 'https://specs.example.com/api.yaml',
      secrets: ['bob', 's@cret'],
    });
    expect(splitUrlSecrets('https://ghp_abcdef123456@specs.example.com/x.yaml')).toEqual({
      display: 'https://specs.example.com/x.yaml',
      secrets: ['ghp_abcdef123456'],
    });
    expect(splitUrlSecrets('https://h.example/x.yaml?access_token=T0k3n&v=2')).toEqual({
      display: 'https://h.example/x.yaml?access_token=redacted&v=2',
      secrets: ['T0k3n'],
    });
    expect(
      splitUrlSecrets('https://b.s3.amazonaws.com/x.json?X-Amz-Credential=AKIA%2F1&X-Amz-Signature=abc123&X-Amz-Expires=60').display,
    ).toBe('https://b.s3.amazonaws.com/x.json?X-Amz-Credential=redacted&X-Amz-Signature=redacted&X-Amz-Expires=60');
    expect(splitUrlSecrets('https://h.example/x.yaml#id_token=abcd1234').display).toBe('https://h.example/x.yaml#id_token=redacted');
    // Nothing to hide: the URL comes back byte for byte (query encoding untouched).
    expect(splitUrlSecrets('https://h.example/x.yaml?q=a%20b&page=2')).toEqual({
      display: 'https://h.example/x.yaml?q=a%20b&page=2',
      secrets: [],
    });
    expect(splitUrlSecrets('not a url //user:pw@host')).toEqual({ display: 'not a url //host', secrets: [] });
  });

  it('names credential parameters by their usual names, not by chance substrings', () => {
    for (const n of [
      'token',
      'access_token',
      'api_key',
      'apiKey',
      'API-KEY',
      'key',
      'sig',
      'signature',
      'client_secret',
      'password',
      'X-Goog-Signature',
      'private_token',
      'auth',
    ]) {
      expect(isCredentialParam(n), n).toBe(true);
    }
    for (const n of ['page', 'version', 'format', 'lang', 'keyword', 'monkey', 'expires']) expect(isCredentialParam(n), n).toBe(false);
  });

  it('scrubs URLs and known secret values (raw and encoded) out of free text', () => {
    const msg = 'Error parsing http://bob:p%40ss-w0rd@h.example/a.yaml?token=zzz9: bad; saw p@ss-w0rd and p%40ss-w0rd';
    const out = scrubSecrets(msg, ['p@ss-w0rd']);
    expect(out).toBe('Error parsing http://h.example/a.yaml?token=redacted: bad; saw redacted and redacted');
    expect(redactUrl('https://user:s3cret@git.example.com/repo.git?private_token=abc')).toBe(
      'https://git.example.com/repo.git?private_token=redacted',
    );
  });

  it('seals with AES-256-GCM: round trip, random IV, bound to the secret and the purpose, tamper-evident', () => {
    const url = 'https://bob:s3cret@h.example/api.yaml?token=T';
    const a = sealUrl(url, 'server-secret');
    const b = sealUrl(url, 'server-secret');
    expect(a).not.toBe(b);
    expect(a).not.toContain('s3cret');
    expect(openSealedUrl(a, 'server-secret')).toBe(url);
    expect(() => openSealedUrl(a, 'another-secret')).toThrow();
    expect(() => openText(a, 'server-secret', 'git-credentials')).toThrow();
    const [v, iv, tag, data] = a.split('.');
    const flipped = `${data[0] === 'A' ? 'B' : 'A'}${data.slice(1)}`;
    expect(() => openSealedUrl([v, iv, tag, flipped].join('.'), 'server-secret')).toThrow();
    expect(() => openSealedUrl('v1.x', 'server-secret')).toThrow();
  });

  it('keeps the git credentials format: values sealed before the shared helper still open', () => {
    const sealed = sealCredentials({ username: 'u', password: 'p' }, 'k');
    expect(JSON.parse(openText(sealed, 'k', 'git-credentials'))).toEqual({ username: 'u', password: 'p' });
    expect(openCredentials(sealText('{"username":"a","password":"b"}', 'k', 'git-credentials'), 'k')).toEqual({
      username: 'a',
      password: 'b',
    });
  });
});

describe('credentials stay out of text', () => {
  it('redacts user info from URLs in logs and operation errors', () => {
    expect(redactUrl('https://user:s3cret@git.example.com/repo.git')).toBe('https://git.example.com/repo.git');
    const msg = operationError(new Error('could not clone https://bob:hunter2@git.example.com/x.git: 401\nstack...'));
    expect(msg).toBe('could not clone https://git.example.com/x.git: 401');
    expect(msg).not.toContain('hunter2');
  });
});
