// Credentials never reach the logs: the logger censors known fields at the top level and one level down.
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';

describe('createLogger', () => {
  it('censors tokens, passwords, secrets and authorization headers, top level and nested', () => {
    const lines: string[] = [];
    const log = createLogger('info', 'test', { write: (line: string) => void lines.push(line) });
    log.info(
      {
        token: 'top-token',
        password: 'top-password',
        secret: 'top-secret',
        apiToken: 'top-api-token',
        auth: { password: 'nested-password', token: 'nested-token' },
        req: { headers: { authorization: 'Bearer header-token', cookie: 'session=cookie-value' } },
        spaceId: 'kept',
      },
      'a line',
    );
    expect(lines).toHaveLength(1);
    for (const leaked of [
      'top-token',
      'top-password',
      'top-secret',
      'top-api-token',
      'nested-password',
      'nested-token',
      'header-token',
      'cookie-value',
    ])
      expect(lines[0]).not.toContain(leaked);
    expect(JSON.parse(lines[0])).toMatchObject({ spaceId: 'kept', token: '[redacted]', auth: { password: '[redacted]' } });
  });
});
