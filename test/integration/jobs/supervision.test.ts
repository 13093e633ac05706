import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { useTestApp, type TestApp } from '../../helpers/app.js';
import { freePort, waitFor } from '../../helpers/http.js';
import { spawnTs } from '../../helpers/processes.js';
import { fixture } from '../../helpers/spec-server.js';

// `npm start` (src/main.ts) under crashes, and Chromium's lifetime when its worker is killed.
// Real child processes against this file's own database and Redis prefix; the in-process API of
// startTestApp only seeds data and reads results (it runs no workers).

const { t } = useTestApp();

interface Proc {
  pid: number;
  ppid: number;
  stat: string;
  args: string;
}

/** The process table, as `ps` shows it. */
async function processes(): Promise<Proc[]> {
  const { stdout } = await promisify(execFile)('ps', ['-eo', 'pid=,ppid=,stat=,args='], { maxBuffer: 16 * 1024 * 1024 });
  return stdout
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), stat: m[3], args: m[4] }));
}

/** Every process below `pid` (children, their children, ...). */
function descendants(table: Proc[], pid: number): Proc[] {
  const out: Proc[] = [];
  const queue = [pid];
  while (queue.length) {
    const parent = queue.shift()!;
    for (const p of table) {
      if (p.ppid === parent) {
        out.push(p);
        queue.push(p.pid);
      }
    }
  }
  return out;
}

/** Those of `procs` still alive: same pid, same command line, not a zombie. */
async function stillRunning(procs: Proc[]): Promise<Proc[]> {
  const now = await processes();
  return procs.filter((p) => now.some((q) => q.pid === p.pid && q.args === p.args && !q.stat.startsWith('Z')));
}

const opStatus = async (id: string) => (await t.api('GET', `/v1/operations/${id}`, { token: admin.adminToken })).body.status as string;
const opIdOf = (location: string | null) => location!.split('/').pop()!;
let admin: Awaited<ReturnType<TestApp['seedOrg']>>;

it('npm start restarts a killed worker and a killed API, logs it, and stops everything on SIGTERM', { timeout: 240_000 }, async () => {
  admin = await t.seedOrg();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const supervisor = spawnTs('src/main.ts', [], {
    ...t.env,
    PORT: String(port),
    PUBLIC_URL: base,
    WORKER_PROCESSES: '1',
    WORKER_QUEUES: 'openapi',
    LOG_LEVEL: 'info',
    SHUTDOWN_TIMEOUT_MS: '5000',
  });
  let output = '';
  supervisor.stdout!.on('data', (d) => (output += d));
  supervisor.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((r) => supervisor.on('exit', (code) => r(code)));
  const supervisorLines = () =>
    output
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { name: string; msg: string; child?: string; childPid?: number; signal?: string })
      .filter((l) => l.name === 'supervisor');
  const childPid = async (entry: string) => {
    const table = await processes();
    return table.find((p) => p.ppid === supervisor.pid && p.args.includes(entry))?.pid;
  };
  let everyChild: number[] = [];
  try {
    await waitFor(async () => (await fetch(`${base}/healthz`)).ok, { timeoutMs: 90_000, what: 'the API child to listen' });
    const worker1 = await waitFor(() => childPid('workers/main.ts'), { what: 'the worker child' });
    const api1 = (await childPid('src/api.ts'))!;
    expect(api1).toBeGreaterThan(0);

    // The worker dies without a chance to clean up: it is logged and another one takes its place.
    process.kill(worker1, 'SIGKILL');
    await waitFor(async () => supervisorLines().some((l) => l.child === 'worker 1' && l.childPid === worker1 && l.signal === 'SIGKILL'), {
      what: 'the supervisor to log the worker exit',
    });
    const worker2 = await waitFor(
      async () => {
        const pid = await childPid('workers/main.ts');
        return pid !== worker1 ? pid : undefined;
      },
      { timeoutMs: 90_000, what: 'a new worker child' },
    );
    expect(supervisorLines().some((l) => l.child === 'worker 1' && l.childPid === worker2 && /started/.test(l.msg))).toBe(true);

    // The new worker consumes jobs: an operation accepted after the kill completes.
    const spec = await t.api('POST', `/v1/orgs/${admin.orgId}/openapi`, {
      token: admin.adminToken,
      body: { slug: 'after-crash', source: { text: await fixture('petstore.yaml') } },
    });
    expect(spec.status, JSON.stringify(spec.body)).toBeLessThan(300);
    const op = opIdOf(spec.headers.get('location'));
    await waitFor(async () => (await opStatus(op)) === 'succeeded', {
      timeoutMs: 90_000,
      what: 'the operation to complete on the new worker',
    });

    // The API dies: it is logged, restarted, and answers again on the same port.
    process.kill(api1, 'SIGKILL');
    await waitFor(async () => supervisorLines().some((l) => l.child === 'api' && l.childPid === api1 && l.signal === 'SIGKILL'), {
      what: 'the supervisor to log the API exit',
    });
    const api2 = await waitFor(
      async () => {
        const pid = await childPid('src/api.ts');
        return pid !== api1 ? pid : undefined;
      },
      { timeoutMs: 90_000, what: 'a new API child' },
    );
    const org = await waitFor(
      async () => {
        const r = await fetch(`${base}/v1/orgs/${admin.orgId}`, { headers: { authorization: `Bearer ${admin.adminToken}` } });
        return r.status === 200 ? ((await r.json()) as { id: string }) : undefined;
      },
      { timeoutMs: 90_000, what: 'the restarted API to answer' },
    );
    expect(org.id).toBe(admin.orgId);
    everyChild = [worker1, worker2, api1, api2];

    // SIGTERM to the supervisor stops the children gracefully and exits 0, leaving none behind.
    supervisor.kill('SIGTERM');
    expect(await exited).toBe(0);
    const table = await processes();
    expect(table.filter((p) => everyChild.includes(p.pid) && !p.stat.startsWith('Z'))).toEqual([]);
    expect(
      supervisorLines()
        .filter((l) => /stopped/.test(l.msg))
        .map((l) => l.child)
        .sort(),
    ).toEqual(['api', 'worker 1']);
  } finally {
    if (supervisor.exitCode === null && supervisor.signalCode === null) {
      supervisor.kill('SIGKILL');
      for (const pid of [
        ...everyChild,
        ...[await childPid('workers/main.ts'), await childPid('src/api.ts')].filter((x): x is number => !!x),
      ]) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
  }
});

it('a worker killed with SIGKILL leaves no Chromium behind', { timeout: 240_000 }, async () => {
  admin ??= await t.seedOrg();
  const worker = spawnTs('workers/main.ts', [], { ...t.env, WORKER_QUEUES: 'pdf', AUTO_MIGRATE: 'false' });
  const exited = new Promise<void>((r) => worker.on('exit', () => r()));
  let chromium: Proc[] = [];
  try {
    // A PDF export makes the worker launch Chromium, which it keeps for the next render.
    const space = await t.api('POST', `/v1/orgs/${admin.orgId}/spaces`, { token: admin.adminToken, body: { title: 'Printed' } });
    expect(space.status, JSON.stringify(space.body)).toBe(201);
    const pdf = await t.api('GET', `/v1/spaces/${space.body.id}/pdf`, { token: admin.adminToken });
    expect(pdf.status, JSON.stringify(pdf.body)).toBe(200);
    const op = opIdOf(pdf.headers.get('location'));
    await waitFor(async () => (await opStatus(op)) === 'succeeded', { timeoutMs: 150_000, what: 'the PDF render' });
    chromium = descendants(await processes(), worker.pid!).filter((p) => /chrom/i.test(p.args));
    expect(chromium.length).toBeGreaterThan(0);

    worker.kill('SIGKILL');
    await exited;
    // Chromium notices its worker is gone and exits, with every process it started.
    await waitFor(async () => (await stillRunning(chromium)).length === 0, {
      timeoutMs: 60_000,
      intervalMs: 250,
      what: 'Chromium to exit after its worker',
    });
  } finally {
    if (worker.exitCode === null && worker.signalCode === null) worker.kill('SIGKILL');
    for (const p of await stillRunning(chromium)) {
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    // The killed worker could not remove its Chromium profile folder: do it for it.
    for (const dir of new Set(
      chromium.map((p) => /--user-data-dir=(\S+)/.exec(p.args)?.[1]).filter((d): d is string => !!d && d.includes('dp-chromium-')),
    )) {
      await rm(dir, { recursive: true, force: true });
    }
  }
});
