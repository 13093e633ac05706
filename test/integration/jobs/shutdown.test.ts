import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { freePort, serve, waitFor } from '../../helpers/http.js';
import { spawnTs } from '../../helpers/processes.js';
import { fixture } from '../../helpers/spec-server.js';

/** Open (and close) a new TCP connection to the port. */
const connect = (port: number) =>
  new Promise<void>((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve();
    });
    socket.on('error', reject);
  });

const { t } = useTestApp();

it('on SIGTERM stops accepting, finishes the request in flight, then exits 0', async () => {
  const org = await t.seedOrg();
  const port = await freePort();
  const child = spawnTs('src/api.ts', [], {
    ...t.env,
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    SHUTDOWN_TIMEOUT_MS: '10000',
  });
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  const base = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(`${base}/healthz`)).ok, { what: 'API child to listen' });

  // A PATCH whose body is still arriving when the signal comes.
  const body = JSON.stringify({ title: 'Renamed during shutdown' });
  const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = http.request(`${base}/v1/orgs/${org.orgId}`, {
      method: 'PATCH',
      headers: {
        authorization: `Bearer ${org.adminToken}`,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        connection: 'close',
      },
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
    if (opts.body !== undefined)
      Object.assign(headers, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(opts.body) });
    const req = http.request(url, { method: opts.method, agent, headers });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection, text }));
      res.on('error', reject);
    });
    req.on('error', (err: NodeJS.ErrnoException) =>
      reject(new Error(`${err.code ?? err.message}${req.reusedSocket ? ' on a reused socket' : ''}`)),
    );
    if (opts.body === undefined) return void req.end();
    req.write(opts.body.slice(0, 5));
    setTimeout(() => req.end(opts.body!.slice(5)), opts.pauseMs ?? 0);
  });
}

it('on SIGTERM under keep-alive load, every request sent is answered: in-flight and kept-alive ones with Connection: close', async () => {
  const org = await t.seedOrg();
  const port = await freePort();
  const child = spawnTs('src/api.ts', [], {
    ...t.env,
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    SHUTDOWN_TIMEOUT_MS: '20000',
  });
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
  const loopers = [...[0, 1, 2, 3, 4].map((i) => loop('read', i)), ...[5, 6].map((i) => loop('write', i)), loop('slow-write', 7)];
  try {
    // Under way on every socket (the members list reads PostgreSQL; the writes commit).
    await waitFor(
      async () =>
        (
          await fetch(`${base}/metrics`)
            .then((x) => x.text())
            .catch(() => '')
        ).length > 0 && agents.length === 8,
      { what: 'loopers' },
    );
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

describe('a worker on SIGTERM', () => {
  const { t: w } = useTestApp({ env: { JOB_LOCK_DURATION_MS: '2000', JOB_STALLED_INTERVAL_MS: '1000', RECONCILE_MIN_AGE_MS: '600000' } });
  // A source server whose answers wait until the test opens the gate: the job fetching it runs
  // for exactly as long as the test wants.
  let gate: { open: boolean; waiting: (() => void)[]; hits: number; url: string; close(): Promise<void> };
  beforeAll(async () => {
    const spec = await fixture('petstore.yaml');
    const state = { open: false, waiting: [] as (() => void)[], hits: 0 };
    const srv = await serve((req, res) => {
      state.hits++;
      const answer = () => res.writeHead(200, { 'content-type': 'application/yaml' }).end(spec);
      if (state.open) answer();
      else state.waiting.push(answer);
    });
    gate = Object.assign(state, { url: `${srv.url}/spec.yaml`, close: srv.close });
  });
  afterAll(() => gate?.close()); // before the app closes
  const openGate = () => {
    gate.open = true;
    for (const answer of gate.waiting.splice(0)) answer();
  };
  const status = async (token: string, id: string) => (await w.api('GET', `/v1/operations/${id}`, { token })).body.status as string;
  const addSpec = async (org: { orgId: string; adminToken: string }, slug: string) => {
    const r = await w.api('POST', `/v1/orgs/${org.orgId}/openapi`, { token: org.adminToken, body: { slug, source: { url: gate.url } } });
    expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
    return r.headers.get('location')!.split('/').pop()!;
  };
  const startChild = (timeoutMs: number) => {
    const child = spawnTs('workers/main.ts', [], {
      ...w.env,
      WORKER_QUEUES: 'openapi',
      FETCH_TIMEOUT_MS: '120000',
      AUTO_MIGRATE: 'false',
      LOG_LEVEL: 'info',
      SHUTDOWN_TIMEOUT_MS: String(timeoutMs),
    });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    return { child, exited, output: () => out };
  };

  it('takes no new job, finishes the running one, then exits 0', { timeout: 120_000 }, async () => {
    const org = await w.seedOrg();
    gate.open = false;
    const worker = startChild(60_000);
    try {
      const hitsBefore = gate.hits;
      const running = await addSpec(org, 'running-at-sigterm');
      await waitFor(async () => gate.hits > hitsBefore && (await status(org.adminToken, running)) === 'running', {
        what: 'the child to start the job',
      });
      worker.child.kill('SIGTERM');
      await waitFor(async () => /worker shutting down/.test(worker.output()), { what: 'the worker to begin its shutdown' });
      const later = await addSpec(org, 'accepted-during-shutdown');
      // Still running: the worker waits for its job rather than exiting.
      expect(await Promise.race([worker.exited.then(() => 'exited'), new Promise((r) => setTimeout(() => r('running'), 1000))])).toBe(
        'running',
      );
      openGate();
      expect(await worker.exited).toBe(0);
      expect(await status(org.adminToken, running)).toBe('succeeded');
      // The job accepted during the shutdown was left for another worker, which completes it.
      expect(await status(org.adminToken, later)).toBe('queued');
      const pool = w.startWorkers(['openapi']);
      await waitFor(async () => (await status(org.adminToken, later)) === 'succeeded', {
        timeoutMs: 60_000,
        what: 'the other worker to run the later job',
      });
      await pool.close(5000);
    } finally {
      if (worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill('SIGKILL');
    }
  });

  it('after SHUTDOWN_TIMEOUT_MS exits with its job unfinished, and another worker completes it', { timeout: 120_000 }, async () => {
    const org = await w.seedOrg();
    gate.open = false;
    const worker = startChild(1000);
    try {
      const hitsBefore = gate.hits;
      const op = await addSpec(org, 'outlives-the-timeout');
      await waitFor(async () => gate.hits > hitsBefore && (await status(org.adminToken, op)) === 'running', {
        what: 'the child to start the job',
      });
      worker.child.kill('SIGTERM');
      // The gate is still closed: the job cannot have finished, yet the worker exits.
      expect(await worker.exited).toBe(0);
      expect(gate.open).toBe(false);
      expect(await status(org.adminToken, op)).toBe('running');
      openGate();
      const pool = w.startWorkers(['openapi']);
      await waitFor(async () => (await status(org.adminToken, op)) === 'succeeded', {
        timeoutMs: 60_000,
        what: 'another worker to complete the abandoned job',
      });
      await pool.close(5000);
    } finally {
      if (worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill('SIGKILL');
    }
  });
});
