import { describe, expect, it } from 'vitest';
import { parseCertificate } from '../../../src/sso/saml.js';
import { failurePage, loginPage, tokenPage } from '../../../src/sso/pages.js';

// A PEM frame around a truncated DER body: it looks like a certificate but does not parse.
const TRUNCATED = `-----BEGIN CERTIFICATE-----
MIIBfzCCASWgAwIBAgIUJ8X1mNqHqF8gk5d4p1k8b6vYQ2owCgYIKoZIzj0EAwIw
DzENMAsGA1UEAwwEdW5pdDAeFw0yNjAxMDEwMDAwMDBaFw0zNjAxMDEwMDAwMDBa
MA8xDTALBgNVBAMMBHVuaXQwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAAQ=
-----END CERTIFICATE-----`;

describe('parseCertificate', () => {
  it('refuses what is not X.509 with a readable reason (valid ones: test/integration/sso)', () => {
    expect(() => parseCertificate('hello')).toThrow('not a PEM-encoded X.509 certificate');
    expect(() => parseCertificate(TRUNCATED)).toThrow('not a PEM-encoded X.509 certificate');
  });
});

describe('pages', () => {
  it('escape everything they show', () => {
    const html = loginPage('<Acme & "Co">', [{ label: '<script>', startURL: 'https://x.test/start?a=1&b="2"' }]);
    expect(html).toContain('&lt;Acme &amp; &quot;Co&quot;&gt;');
    expect(html).not.toContain('<script>');
    expect(html).toContain('href="https://x.test/start?a=1&amp;b=&quot;2&quot;"');
    expect(tokenPage('<b>', 'a@b', 'dp_x')).toContain('<code id="token">dp_x</code>');
    expect(tokenPage('<b>', 'a@b', null)).not.toContain('id="token"');
    expect(failurePage()).toContain('Sign-in failed');
  });
});
