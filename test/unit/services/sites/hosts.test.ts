import { describe, expect, it } from 'vitest';
import type { AppContext } from '../../../../src/context.js';
import { siteHostName } from '../../../../src/services/sites/hosts.js';

const app = { config: { publicUrl: 'https://api.example.com' } } as unknown as AppContext;

describe('siteHostName', () => {
  it('lowercases and drops the port and a trailing dot', () => {
    expect(siteHostName(app, 'Docs.Example.COM:8443')).toBe('docs.example.com');
    expect(siteHostName(app, 'docs.example.com.')).toBe('docs.example.com');
    expect(siteHostName(app, 'docs.example.com.:80')).toBe('docs.example.com');
  });

  it("never looks up what cannot name a site: missing, the API's own host, IP literals, single labels, odd characters", () => {
    for (const h of [
      undefined,
      '',
      'API.example.com:443',
      'localhost:3000',
      '127.0.0.1:3000',
      '[::1]:3000',
      'api',
      'a_b.example.com',
      'x'.repeat(700),
    ])
      expect(siteHostName(app, h), String(h)).toBeNull();
  });
});
