import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { freePort, waitFor } from '../helpers/http.js';
import { spawnTs } from '../helpers/processes.js';

/** Open (and close) a new TCP connection to the port. */
const connect = (port: number) =>
  new Promise<void>((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve();
    });
    socket.on('error', reject);
  });

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
        await expect(connect(port)).rejects.toThrow(/ECONNREFUSED/);
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

interface LoopResult {
  answered: number;
  /** The looper stopped because a response said `Connection: close`. */
  toldToClose: boolean;
  failures: string[];
}

/** One request on a keep-alive agent; the body, when given, is sent in two parts with a pause. */
function keepAliveRequest(agent: http.Agent, url: string, opts: { method: string; token: string; body?: string; pauseMs?: number }) {
  return new Promise<{ status: number; connection: string | undefined; text: string }>((resolve, reject) => {
    const headers: http.OutgoingHttpHeaders = { authorization: `Bearer ${opts.token}` };
    if (opts.body !== undefined) Object.assign(headers, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(opts.body) });
    const req = http.request(url, { method: opts.method, agent, headers });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection, text }));
      res.on('error', reject);
    });
    req.on('error', (err: NodeJS.ErrnoException) => reject(new Error(`${err.code ?? err.message}${req.reusedSocket ? ' on a reused socket' : ''}`)));
    if (opts.body === undefined) return void req.end();
    req.write(opts.body.slice(0, 5));
    setTimeout(() => req.end(opts.body!.slice(5)), opts.pauseMs ?? 0);
  });
}

it('on SIGTERM under keep-alive load, every request sent is answered: in-flight and kept-alive ones with Connection: close', async () => {
  const org = await t.seedOrg();
  const port = await freePort();
  const child = spawnTs('src/api.ts', [], { ...t.env, PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`, SHUTDOWN_TIMEOUT_MS: '20000' });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  const base = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(`${base}/healthz`)).ok, { what: 'API child to listen' });

  const agents: http.Agent[] = [];
  // Each looper is one client with one kept-alive socket, sending its next request as soon as the
  // previous one is answered, until a response tells it the connection closes (or a bound).
  const loop = async (kind: 'read' | 'write' | 'slow-write', i: number): Promise<LoopResult> => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    agents.push(agent);
    const r: LoopResult = { answered: 0, toldToClose: false, failures: [] };
    for (let n = 0; n < 5000 && !r.toldToClose; n++) {
      try {
        const res =
          kind === 'read'
            ? await keepAliveRequest(agent, `${base}/v1/orgs/${org.orgId}/members`, { method: 'GET', token: org.adminToken })
            : await keepAliveRequest(agent, `${base}/v1/orgs/${org.orgId}`, {
                method: 'PATCH',
                token: org.adminToken,
                body: JSON.stringify({ title: `Writer ${i} #${n}` }),
                pauseMs: kind === 'slow-write' ? 150 : 0,
              });
        r.answered++;
        if (res.status !== 200) r.failures.push(`${res.status} ${res.text.slice(0, 200)}`);
        r.toldToClose = res.connection === 'close';
      } catch (err) {
        r.failures.push((err as Error).message);
        break;
      }
    }
    return r;
  };
  const loopers = [
    ...[0, 1, 2, 3, 4].map((i) => loop('read', i)),
    ...[5, 6].map((i) => loop('write', i)),
    loop('slow-write', 7),
  ];
  try {
    // Under way on every socket (the members list reads PostgreSQL; the writes commit).
    await waitFor(async () => (await fetch(`${base}/metrics`).then((x) => x.text()).catch(() => '')).length > 0 && agents.length === 8, { what: 'loopers' });
    await new Promise((r) => setTimeout(r, 500));
    child.kill('SIGTERM');
    const results = await Promise.all(loopers);
    expect(await exited).toBe(0);
    for (const r of results) {
      expect(r.failures, stderr).toEqual([]);
      expect(r.toldToClose).toBe(true);
      expect(r.answered).toBeGreaterThan(1);
    }
    // No new connection is accepted any more, and the last writes were committed before the
    // pool closed: the organization's title is one a writer was answered for.
    await expect(connect(port)).rejects.toThrow(/ECONNREFUSED/);
    const title = (await t.api('GET', `/v1/orgs/${org.orgId}`, { token: org.adminToken })).body.title;
    expect(title).toMatch(/^Writer [567] #\d+$/);
  } finally {
    for (const a of agents) a.destroy();
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
});
