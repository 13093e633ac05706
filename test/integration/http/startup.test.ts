// What an operator sees when the platform starts: the real entrypoints (src/api.ts, and src/main.ts
// behind `npm start`) as child processes against a fresh database. The first start prints the
// admin token, the addresses (home, API, reference, dashboard, health) and how to get a new token;
// later starts print the addresses. Logs are JSON when stdout is not a terminal, pretty lines on
// a terminal (a real pseudo-terminal, made by util-linux `script`), and as LOG_FORMAT says.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../helpers/db.js';
import { TEST_REDIS_URL } from '../../helpers/env.js';
import { freePort, waitFor } from '../../helpers/http.js';
import { ROOT, runTs } from '../../helpers/processes.js';
import { deleteRedisPrefix } from '../../helpers/app.js';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let dir: string;
let base: string;
let env: Record<string, string>;
const prefix = `dpt_${randomBytes(5).toString('hex')}`;
const running = new Set<ChildProcess>();

beforeAll(async () => {
  db = await createTestDatabase();
  dir = await mkdtemp(path.join(tmpdir(), 'dp-startup-'));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  env = {
    DATABASE_URL: db.url,
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: prefix,
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: base,
    LOCAL_STORAGE_DIR: path.join(dir, 'blobs'),
    GIT_CACHE_DIR: path.join(dir, 'git'),
    LOG_LEVEL: 'info',
    BOOTSTRAP: 'true',
    RATE_LIMIT_PER_MINUTE: '0',
    MARKDOWN_THREADS: '1',
    SHUTDOWN_TIMEOUT_MS: '3000',
  };
});

afterAll(async () => {
  for (const child of running) child.kill('SIGKILL');
  await db?.drop();
  await deleteRedisPrefix(TEST_REDIS_URL, prefix);
  if (dir) await rm(dir, { recursive: true, force: true });
});

interface Started {
  /** Everything written so far (stdout and stderr), colours removed, CRLF as LF. */
  output(): string;
  /** SIGTERM to `pid` (the process itself by default), then its exit code. */
  stop(pid?: number): Promise<number | null>;
}

/**
 * Run an entrypoint as production does (node --import tsx), its stdout a pipe, or with
 * `terminal` a pseudo-terminal. LOG_FORMAT is only what `extra` sets.
 */
function start(entry: string, extra: Record<string, string> = {}, terminal = false): Started {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env, ...extra };
  if (!('LOG_FORMAT' in extra)) delete childEnv.LOG_FORMAT;
  const command = [process.execPath, '--import', 'tsx', path.join(ROOT, entry)];
  const child = terminal
    ? spawn('script', ['-qfec', `exec ${command.join(' ')}`, '/dev/null'], { cwd: ROOT, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn(command[0], command.slice(1), { cwd: ROOT, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let raw = '';
  child.stdout!.on('data', (d) => (raw += d));
  child.stderr!.on('data', (d) => (raw += d));
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  return {
    output: () => raw.replace(/\x1b\[[0-9;]*m/g, '').replace(/\r\n/g, '\n'),
    stop: async (pid = child.pid!) => {
      process.kill(pid, 'SIGTERM');
      return exited;
    },
  };
}

const addressLines = () => [
  `  Home           ${base}/`,
  `  API            ${base}/v1   e.g. curl -H "Authorization: Bearer $TOKEN" ${base}/v1/orgs`,
  `  Reference      ${base}/docs   (OpenAPI: ${base}/openapi.json)`,
  `  Job dashboard  ${base}/admin/queues   (operators; in a browser, open it once with ?token=$TOKEN)`,
  `  Health         ${base}/healthz   readiness: ${base}/readyz`,
  '  New token      npm run cli -- token create --email admin@localhost',
];

const untilAddresses = (s: Started) =>
  waitFor(async () => s.output().includes('  New token  '), { timeoutMs: 120_000, what: 'the start-up lines with the addresses' });

/** Lines that are neither the banner (indented) nor empty: the log lines. */
const logLines = (output: string) => output.split('\n').filter((l) => l.trim() && !l.startsWith('  '));

/** A pretty log line: `[HH:MM:ss.mmm] LEVEL (name/pid): message {fields}`. */
const PRETTY = /^\[\d{2}:\d{2}:\d{2}\.\d{3}\] (TRACE|DEBUG|INFO|WARN|ERROR|FATAL) \((\w+)\/(\d+)\): /;

const get = (p: string, token?: string) => fetch(`${base}${p}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });

describe('start-up', { timeout: 300_000 }, () => {
  let token: string;

  it('first start, stdout not a terminal: the token, then the addresses; JSON log lines', async () => {
    const api = start('src/api.ts');
    try {
      await untilAddresses(api);
      const out = api.output();
      // The token, once, before the addresses, with what was created.
      expect(out).toMatch(
        / {2}First start: created the organization "Default organization" \(\w+\)\n {2}and its admin admin@localhost \(\w+\)/,
      );
      const tokens = [...out.matchAll(/^ {4}(dp_\S+)$/gm)].map((m) => m[1]);
      expect(tokens).toHaveLength(1);
      token = tokens[0];
      expect(out.indexOf(token)).toBeLessThan(out.indexOf('  Home  '));
      for (const line of addressLines()) expect(out.split('\n')).toContain(line);

      // Every other line is a JSON log object; "API listening" carries the same addresses.
      const logs = logLines(out).map((l) => JSON.parse(l) as { name: string; msg: string; urls?: Record<string, string> });
      const listening = logs.find((l) => l.msg === 'API listening');
      expect(listening?.name).toBe('api');
      expect(listening?.urls).toMatchObject({ reference: `${base}/docs`, dashboard: `${base}/admin/queues`, health: `${base}/healthz` });

      // The printed token and addresses work.
      const orgs = await get('/v1/orgs', token);
      expect(orgs.status).toBe(200);
      expect(JSON.stringify(await orgs.json())).toContain('Default organization');
      expect((await get('/')).status).toBe(200);
      expect((await get('/docs')).status).toBe(200);
      expect((await get('/healthz')).status).toBe(200);
      const dashboard = await get('/admin/queues', token);
      expect(dashboard.status).toBe(200);
      // The printed command issues another token for the admin.
      const cli = await runTs('src/cli.ts', ['token', 'create', '--email', 'admin@localhost'], env);
      expect(cli.code, cli.stderr).toBe(0);
      expect((await get('/v1/orgs', cli.stdout.trim())).status).toBe(200);
    } finally {
      expect(await api.stop()).toBe(0);
    }
  });

  it('a later start with LOG_FORMAT=pretty: the addresses, no token; one readable line per event', async () => {
    const api = start('src/api.ts', { LOG_FORMAT: 'pretty' });
    try {
      await untilAddresses(api);
      await get('/healthz'); // one request line
      await waitFor(async () => api.output().includes(' request {'), { what: 'the request line' });
      const out = api.output();
      expect(out).not.toContain('First start');
      expect(out).not.toMatch(/dp_/);
      for (const line of addressLines()) expect(out.split('\n')).toContain(line);
      const logs = logLines(out);
      for (const line of logs) expect(line).toMatch(PRETTY);
      expect(logs.find((l) => l.includes('API listening'))).toMatch(/ INFO \(api\/\d+\): API listening \{"port":\d+,/);
      expect(logs.find((l) => l.includes(' request {'))).toMatch(/"path":"\/healthz","route":"\/healthz","status":200/);
    } finally {
      expect(await api.stop()).toBe(0);
    }
  });

  it('npm start on a terminal: pretty lines from the supervisor, the API and the worker; the addresses', async () => {
    const main = start('src/main.ts', { WORKER_PROCESSES: '1', WORKER_QUEUES: 'maintenance' }, true);
    let supervisorPid = 0;
    try {
      await untilAddresses(main);
      await waitFor(async () => / INFO \(worker\/\d+\): workers started/.test(main.output()), {
        timeoutMs: 120_000,
        what: 'the worker to start',
      });
      const out = main.output();
      for (const line of addressLines()) expect(out.split('\n')).toContain(line);
      expect(out).not.toMatch(/dp_/);
      const logs = logLines(out);
      for (const line of logs) expect(line).toMatch(PRETTY);
      const names = new Set(logs.map((l) => PRETTY.exec(l)![2]));
      expect([...names].sort()).toEqual(['api', 'supervisor', 'worker']);
      supervisorPid = Number(logs.map((l) => PRETTY.exec(l)!).find((m) => m[2] === 'supervisor')![3]);
    } finally {
      await main.stop(supervisorPid || undefined);
    }
    expect(main.output()).toMatch(/ INFO \(supervisor\/\d+\): api stopped/);
  });

  it('on a terminal with LOG_FORMAT=json: JSON lines all the same', async () => {
    const api = start('src/api.ts', { LOG_FORMAT: 'json' }, true);
    let pid = 0;
    try {
      await untilAddresses(api);
      const logs = logLines(api.output()).map((l) => JSON.parse(l) as { pid: number; msg: string });
      expect(logs.map((l) => l.msg)).toContain('API listening');
      pid = logs[0].pid;
    } finally {
      await api.stop(pid || undefined);
    }
  });

  it('refuses an unknown LOG_FORMAT in one line', async () => {
    const r = await runTs('src/api.ts', [], { ...env, LOG_FORMAT: 'xml' });
    expect(r.code).not.toBe(0);
    expect(r.stderr + r.stdout).toContain('LOG_FORMAT must be pretty or json, got "xml"');
  });
});
