import http from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { freePort, waitFor } from '../helpers/http.js';
import { spawnTs } from '../helpers/processes.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

it('on SIGTERM stops accepting, finishes the request in flight, then exits 0', async () => {
  const org = await t.seedOrg();
  const port = await freePort();
  const child = spawnTs('src/api.ts', [], { ...t.env, PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`, SHUTDOWN_TIMEOUT_MS: '10000' });
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  const base = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(`${base}/healthz`)).ok, { what: 'API child to listen' });

  // A PATCH whose body is still arriving when the signal comes.
  const body = JSON.stringify({ title: 'Renamed during shutdown' });
  const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = http.request(`${base}/v1/orgs/${org.orgId}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${org.adminToken}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), connection: 'close' },
    });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, body: text }));
    });
    req.on('error', reject);
    req.write(body.slice(0, 10));
    setTimeout(() => {
      child.kill('SIGTERM');
      setTimeout(async () => {
        // New connections are refused while the old one is still being served.
        await expect(fetch(`${base}/healthz`)).rejects.toThrow();
        req.end(body.slice(10));
      }, 400);
    }, 200);
  });

  const r = await response;
  expect(r.status).toBe(200);
  expect(JSON.parse(r.body).title).toBe('Renamed during shutdown');
  expect(await exited).toBe(0);
  const after = await t.api('GET', `/v1/orgs/${org.orgId}`, { token: org.adminToken });
  expect(after.body.title).toBe('Renamed during shutdown');
});
