// TRUST_PROXY through the real HTTP server: the test client connects from 127.0.0.1, so with
// TRUST_PROXY=loopback it stands for a reverse proxy and its X-Forwarded-For names the client;
// without the setting the same header is ignored.
import { describe, expect, it } from 'vitest';
import { useTestApp, type TestApp } from '../../helpers/app.js';
import type { TestResponse } from '../../helpers/http.js';

const LIMIT = 3;

/** A token-free API call (counted per client address, then 401) sent with this X-Forwarded-For. */
function anonymous(t: TestApp, forwardedFor: string): Promise<TestResponse> {
  return t.api('GET', '/v1/orgs/any', { headers: { 'x-forwarded-for': forwardedFor } });
}

/**
 * Runs `scenario` (with a fresh `round` number to pick addresses no earlier round used) until it
 * ran inside one rate-limit window: the limit counts per minute, and a request after a minute
 * boundary starts every bucket again. A window began when `X-RateLimit-Reset` went up.
 */
async function inOneWindow(t: TestApp, scenario: (call: (xff: string) => Promise<TestResponse>, round: number) => Promise<void>) {
  for (let round = 1; ; round++) {
    const resets: number[] = [];
    const call = async (xff: string) => {
      const r = await anonymous(t, xff);
      resets.push(Number(r.headers.get('x-ratelimit-reset')));
      return r;
    };
    try {
      await scenario(call, round);
      return;
    } catch (err) {
      const crossed = resets.some((reset, i) => i > 0 && reset > resets[i - 1]);
      if (!crossed || round >= 3) throw err;
    }
  }
}

/** Calls with this X-Forwarded-For until one is refused (at most a few past the limit). */
async function exhaust(call: (xff: string) => Promise<TestResponse>, xff: string): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i <= LIMIT + 2 && !statuses.includes(429); i++) statuses.push((await call(xff)).status);
  return statuses;
}

/** The client address the audit log recorded for a space created with this X-Forwarded-For. */
async function auditedAddress(t: TestApp, forwardedFor: string): Promise<unknown> {
  const org = await t.seedOrg();
  const as = { token: org.adminToken, headers: { 'x-forwarded-for': forwardedFor } };
  const made = await t.api('POST', `/v1/orgs/${org.orgId}/spaces`, { ...as, body: { title: 'Behind the proxy' } });
  expect(made.status).toBe(201);
  const list = await t.api('GET', `/v1/orgs/${org.orgId}/audit-events?action=spaces.create`, { token: org.adminToken });
  expect(list.status).toBe(200);
  const [event] = list.body.items;
  const details = await t.api('GET', `/v1/orgs/${org.orgId}/audit-events/${event.id}`, { token: org.adminToken });
  expect(details.status).toBe(200);
  return details.body.payload.clientAddress;
}

describe('behind a trusted proxy (TRUST_PROXY=loopback)', () => {
  const { t } = useTestApp({ env: { TRUST_PROXY: 'loopback', RATE_LIMIT_PER_MINUTE: String(LIMIT) } });

  it('gives each forwarded client its own rate-limit bucket', async () => {
    await inOneWindow(t, async (call, round) => {
      const first = `203.0.113.${round}`;
      const second = `203.0.113.${round + 100}`;
      const statuses = await exhaust(call, first);
      expect(statuses).toEqual([...Array(LIMIT).fill(401), 429]);
      // Another client behind the same proxy is not refused: its bucket is untouched.
      const other = await call(second);
      expect(other.status).toBe(401);
      expect(other.headers.get('x-ratelimit-remaining')).toBe(String(LIMIT - 1));
      // The refused client cannot get out by writing its own X-Forwarded-For: the proxy appends the
      // address it saw, and that right-most untrusted entry is the client.
      expect((await call(`198.51.100.${round}, ${first}`)).status).toBe(429);
    });
  });

  it("records the forwarded client's address in the audit log", async () => {
    expect(await auditedAddress(t, '198.51.100.7, 203.0.113.50')).toBe('203.0.113.50');
  });
});

describe('without TRUST_PROXY', () => {
  const { t } = useTestApp({ env: { RATE_LIMIT_PER_MINUTE: String(LIMIT) } });

  it('ignores X-Forwarded-For: every value shares the one bucket of the connecting address', async () => {
    await inOneWindow(t, async (call, round) => {
      // (A retried round finds the one bucket partly used already: only the refusal matters.)
      const statuses = await exhaust(call, `203.0.113.${round}`);
      expect(statuses.at(-1)).toBe(429);
      expect(statuses.slice(0, -1).every((s) => s === 401)).toBe(true);
      expect((await call(`203.0.113.${round + 100}`)).status).toBe(429);
      expect((await call(`127.0.0.${round + 1}`)).status).toBe(429);
    });
  });

  it('records the connecting address in the audit log, not the header', async () => {
    expect(await auditedAddress(t, '203.0.113.50')).toBe('127.0.0.1');
  });
});
