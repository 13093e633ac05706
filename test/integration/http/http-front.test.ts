import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { startTestApp, useTestApp } from '../../helpers/app.js';

const { t, org } = useTestApp({ env: { BODY_LIMIT_BYTES: '2048' }, seedOrg: true });

describe('authentication', () => {
  it('answers 401 with the error body when the token is missing', async () => {
    const r = await t.api('GET', `/v1/orgs/${org.orgId}`);
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ error: { code: 401, message: expect.stringContaining('Bearer') } });
    expect(r.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('answers 401 for an unknown token and for a malformed Authorization header', async () => {
    expect((await t.api('GET', '/v1/orgs', { token: 'dp_not-a-real-token' })).status).toBe(401);
    const basic = await t.api('GET', '/v1/orgs', { headers: { authorization: 'Basic dXNlcjpwYXNz' } });
    expect(basic.status).toBe(401);
    expect(basic.body.error.code).toBe(401);
  });

  it('answers 403 to a known token without the right', async () => {
    const reader = await t.seedUser(org.orgId, 'read');
    const r = await t.api('PATCH', `/v1/orgs/${org.orgId}`, { token: reader.token, body: { title: 'Hijacked' } });
    expect(r.status).toBe(403);
    expect(r.body.error).toEqual({ code: 403, message: expect.any(String) });
    const outsider = await t.seedUser();
    expect((await t.api('GET', `/v1/orgs/${org.orgId}`, { token: outsider.token })).status).toBe(403);
    // Nothing changed.
    const after = await t.api('GET', `/v1/orgs/${org.orgId}`, { token: org.adminToken });
    expect(after.body.title).toBe('Test organization');
  });

  it('stores tokens hashed, never in clear', async () => {
    const { rows } = await t.app.db.query('SELECT token_hash FROM api_tokens');
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) {
      expect(r.token_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(r.token_hash).not.toBe(org.adminToken);
    }
  });
});

describe('routing and errors', () => {
  it('answers 404 for an unknown route and 405 with Allow for a wrong method', async () => {
    const missing = await t.api('GET', '/v1/nothing-here', { token: org.adminToken });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe(404);
    const wrong = await t.api('DELETE', `/v1/orgs/${org.orgId}`, { token: org.adminToken });
    expect(wrong.status).toBe(405);
    expect(wrong.body.error.code).toBe(405);
    expect(wrong.headers.get('allow')).toContain('GET');
    expect(wrong.headers.get('allow')).toContain('PATCH');
  });

  it('answers 404 for an organization that does not exist', async () => {
    const r = await t.api('GET', '/v1/orgs/doesNotExist123', { token: org.adminToken });
    expect(r.status).toBe(404);
    expect(r.body.error.message).toContain('doesNotExist123');
  });

  it('returns a request id header, echoing a valid incoming one', async () => {
    const r = await t.api('GET', '/healthz');
    expect(r.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const echoed = await t.api('GET', '/healthz', { headers: { 'x-request-id': 'trace-abc.123' } });
    expect(echoed.headers.get('x-request-id')).toBe('trace-abc.123');
    const refused = await t.api('GET', '/healthz', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(refused.headers.get('x-request-id')).not.toBe('bad id with spaces');
  });
});

describe('bodies and validation', () => {
  it('refuses a body over the limit with 413', async () => {
    const r = await t.api('PATCH', `/v1/orgs/${org.orgId}`, { token: org.adminToken, body: { title: 'x'.repeat(5000) } });
    expect(r.status).toBe(413);
    expect(r.body.error).toEqual({ code: 413, message: expect.stringContaining('2048') });
  });

  it('refuses invalid JSON with 400', async () => {
    const r = await t.api('PATCH', `/v1/orgs/${org.orgId}`, {
      token: org.adminToken,
      rawBody: '{"title": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toMatch(/not valid JSON/);
  });

  it('names the offending field in body validation errors', async () => {
    const r = await t.api('PATCH', `/v1/orgs/${org.orgId}`, { token: org.adminToken, body: { title: 'ok title', sso: 'yes' } });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toContain('body.sso');
    const unknown = await t.api('PATCH', `/v1/orgs/${org.orgId}`, { token: org.adminToken, body: { colour: 'red' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toContain('colour');
  });

  it('names the offending query parameter; limit above 1000 is 400', async () => {
    const over = await t.api('GET', '/v1/orgs?limit=1001', { token: org.adminToken });
    expect(over.status).toBe(400);
    expect(over.body.error.message).toContain('query.limit');
    const nan = await t.api('GET', '/v1/orgs?limit=ten', { token: org.adminToken });
    expect(nan.status).toBe(400);
    expect(nan.body.error.message).toContain('query.limit');
    const ok = await t.api('GET', '/v1/orgs?limit=1000', { token: org.adminToken });
    expect(ok.status).toBe(200);
    const twice = await t.api('GET', '/v1/orgs?limit=1&limit=2', { token: org.adminToken });
    expect(twice.status).toBe(400);
    expect(twice.body.error.message).toContain('query.limit');
    const badPage = await t.api('GET', '/v1/orgs?page=garbage', { token: org.adminToken });
    expect(badPage.status).toBe(400);
    expect(badPage.body.error.message).toContain('query.page');
  });

  it('answers 400, not 500, for a page cursor edited to hold values of the wrong type', async () => {
    const forged = Buffer.from(JSON.stringify(['not a date', 'x'])).toString('base64url');
    const r = await t.api('GET', `/v1/orgs/${org.orgId}/members?page=${forged}`, { token: org.adminToken });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe(400);
  });

  it('names the offending path parameter', async () => {
    const r = await t.api('GET', `/v1/orgs/${encodeURIComponent('bad id!')}`, { token: org.adminToken });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toContain('path.organizationId');
  });

  it('requires a body where one is expected', async () => {
    const r = await t.api('PATCH', `/v1/orgs/${org.orgId}/members/${org.adminId}`, { token: org.adminToken });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toContain('body');
  });
});

describe('operators', () => {
  it('serves /healthz, /readyz and Prometheus /metrics with HTTP and job series', async () => {
    expect((await t.api('GET', '/healthz')).body).toEqual({ status: 'ok' });
    const ready = await t.api('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.checks).toEqual({ postgres: 'ok', redis: 'ok' });
    await t.app.db.query(
      `INSERT INTO operations (id, kind, queue, status, started_at, finished_at) VALUES
       ('opmetric1', 'openapi.process', 'openapi', 'succeeded', now() - interval '3 seconds', now()),
       ('opmetric2', 'openapi.process', 'openapi', 'failed', now() - interval '1 second', now())`,
    );
    const m = await t.api('GET', '/metrics');
    expect(m.status).toBe(200);
    expect(m.text).toMatch(/http_requests_total\{route="\/readyz",method="GET",status="200"\} \d+/);
    expect(m.text).toContain('jobs_total{queue="openapi",kind="openapi.process",outcome="succeeded"} 1');
    expect(m.text).toContain('jobs_total{queue="openapi",kind="openapi.process",outcome="failed"} 1');
    expect(m.text).toMatch(/job_duration_seconds_bucket\{queue="openapi",le="2"\} 1/);
    expect(m.text).toMatch(/job_duration_seconds_count\{queue="openapi"\} 2/);
    expect(m.text).toMatch(/queue_jobs\{queue="openapi",state="waiting"\} 0/);
  });

  it('counts every request in its route, method and status series, and times it', async () => {
    const series = async () => {
      const text = (await t.api('GET', '/metrics')).text;
      const num = (re: RegExp) => Number(re.exec(text)?.[1] ?? 0);
      return {
        ok: num(/http_requests_total\{route="\/healthz",method="GET",status="200"\} (\d+)/),
        timed: num(/http_request_duration_seconds_count\{route="\/healthz",method="GET"\} (\d+)/),
        unmatched: num(/http_requests_total\{route="unmatched",method="GET",status="404"\} (\d+)/),
      };
    };
    const before = await series();
    for (let i = 0; i < 3; i++) expect((await t.api('GET', '/healthz')).status).toBe(200);
    expect((await t.api('GET', '/no-such-route')).status).toBe(404);
    const after = await series();
    expect(after).toEqual({ ok: before.ok + 3, timed: before.timed + 3, unmatched: before.unmatched + 1 });
  });

  it('shows the job dashboard to operators only', async () => {
    const anonymous = await t.api('GET', '/admin/queues');
    expect(anonymous.status).toBe(401);
    // An organization admin is not an operator.
    expect((await t.api('GET', '/admin/queues', { token: org.adminToken })).status).toBe(403);
    const { createUser, createToken } = await import('../../../src/services/identity.js');
    const op = await createUser(t.app.db, { email: 'ops@example.com', operator: true });
    const token = await createToken(t.app.db, op.id);
    const page = await t.api('GET', '/admin/queues', { token });
    expect(page.status).toBe(200);
    expect(page.text).toContain('<html');
    const queues = await t.api('GET', '/admin/queues/api/queues', { token });
    expect(queues.status).toBe(200);
    const names = queues.body.queues.map((q: { name: string }) => q.name).sort();
    expect(names).toEqual(['git', 'import', 'maintenance', 'openapi', 'pdf', 'search', 'translation']);
    // A browser passes the token once in the query; it moves into an HttpOnly cookie.
    const redirect = await t.api('GET', `/admin/queues?token=${encodeURIComponent(token)}`);
    expect(redirect.status).toBe(303);
    expect(redirect.headers.get('location')).toBe('/admin/queues');
    const cookie = redirect.headers.get('set-cookie')!;
    expect(cookie).toContain('HttpOnly');
    const withCookie = await t.api('GET', '/admin/queues', { headers: { cookie: cookie.split(';')[0] } });
    expect(withCookie.status).toBe(200);
  });
});

describe('rate limit', () => {
  it('answers 429 with Retry-After once a token exceeds its requests per minute, per token, not for probes', async () => {
    const limited = await startTestApp({ env: { RATE_LIMIT_PER_MINUTE: '5' } });
    try {
      const o = await limited.seedOrg();
      const other = await limited.seedUser(o.orgId, 'read');
      // 12 requests with a limit of 5: even split across a minute boundary, one window gets 6 or more.
      const responses = [];
      for (let i = 0; i < 12; i++) responses.push(await limited.api('GET', `/v1/orgs/${o.orgId}`, { token: o.adminToken }));
      const refused = responses.filter((r) => r.status === 429);
      expect(refused.length).toBeGreaterThanOrEqual(1);
      expect(responses.filter((r) => r.status !== 429).every((r) => r.status === 200)).toBe(true);
      expect(refused[0].body.error).toEqual({ code: 429, message: expect.stringContaining('5 requests per minute') });
      expect(Number(refused[0].headers.get('retry-after'))).toBeGreaterThan(0);
      // A refused request says where the caller stands too: the limit, nothing left, when it resets.
      expect(refused[0].headers.get('x-ratelimit-limit')).toBe('5');
      expect(refused[0].headers.get('x-ratelimit-remaining')).toBe('0');
      expect(Number(refused[0].headers.get('x-ratelimit-reset'))).toBeGreaterThan(0);
      expect(Number(refused[0].headers.get('x-ratelimit-reset'))).toBeLessThanOrEqual(60);
      // Made-up tokens are counted per client address: they cannot buy fresh budgets.
      const guesses = [];
      for (let i = 0; i < 12; i++) guesses.push((await limited.api('GET', `/v1/orgs/${o.orgId}`, { token: `dp_guess${i}` })).status);
      expect(guesses).toContain(429);
      expect(guesses.filter((x) => x !== 429).every((x) => x === 401)).toBe(true);
      // Another token has its own budget; health probes are never limited.
      expect((await limited.api('GET', `/v1/orgs/${o.orgId}`, { token: other.token })).status).toBe(200);
      for (let i = 0; i < 8; i++) expect((await limited.api('GET', '/healthz')).status).toBe(200);
      const ok = await limited.api('GET', `/v1/orgs/${o.orgId}`, { token: other.token });
      expect(ok.headers.get('x-ratelimit-limit')).toBe('5');
      expect(Number(ok.headers.get('x-ratelimit-remaining'))).toBeLessThan(5);
    } finally {
      await limited.close();
    }
  });
});

describe('readiness while draining', () => {
  it('answers /readyz 503 (with Connection: close) once shutdown began, so a load balancer stops sending', async () => {
    const own = await startTestApp();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const get = (path: string) =>
      new Promise<{ status: number; connection: string | undefined; body: string }>((resolve, reject) => {
        http
          .get(`${own.baseUrl}${path}`, { agent }, (res) => {
            let body = '';
            res.on('data', (d) => (body += d));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body }));
          })
          .on('error', reject);
      });
    try {
      expect((await get('/readyz')).status).toBe(200);
      const drained = own.apiServer.close(); // what SIGTERM does
      const during = await get('/readyz'); // on the kept-alive socket
      expect(during.status).toBe(503);
      expect(JSON.parse(during.body).status).toBe('draining');
      expect(during.connection).toBe('close');
      await drained;
    } finally {
      agent.destroy();
      await own.close();
    }
  });
});
