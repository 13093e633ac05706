import { spawn, execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtemp, mkdir, writeFile, cp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { serve } from './http.js';

const exec = promisify(execFile);

/** Run the git command line (tests create and inspect repositories with real git). */
export async function gitCli(args: string[], cwd: string): Promise<string> {
  const { stdout } = await exec('git', args, {
    cwd,
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'Test',
      GIT_AUTHOR_EMAIL: 'test@example.com',
      GIT_COMMITTER_NAME: 'Test',
      GIT_COMMITTER_EMAIL: 'test@example.com',
      GIT_CONFIG_NOSYSTEM: '1',
      HOME: cwd,
    },
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}

export interface GitServer {
  /** Base URL without credentials, e.g. http://127.0.0.1:1234 */
  url: string;
  root: string;
  /** Every request: method, path and whether an Authorization header came with it. */
  requests: { method: string; path: string; authorization?: string }[];
  /** A new bare repository (optionally seeded from a folder of files, committed on `branch`). */
  createRepo(
    name: string,
    seed?: { dir?: string; files?: Record<string, string | Buffer>; branch?: string; message?: string },
  ): Promise<string>;
  /** Clone a repository into a fresh working folder. */
  clone(name: string, branch?: string): Promise<string>;
  close(): Promise<void>;
}

export interface GitServerOptions {
  auth?: { username: string; password: string };
  /**
   * Called before each request is served; when it returns a promise, the request waits for it
   * (a slow remote, under the test's control: e.g. hold fetches until the test lets them go).
   */
  hold?: (req: { method: string; path: string }) => Promise<void> | undefined;
}

/**
 * A real git smart-HTTP remote: `git http-backend` (CGI) behind node:http. With `auth`, every
 * request must carry those basic-auth credentials (401 otherwise), as a private hosting would.
 */
export async function startGitServer(opts: GitServerOptions = {}): Promise<GitServer> {
  const root = await mkdtemp(path.join(tmpdir(), 'dp-git-remote-'));
  const work = await mkdtemp(path.join(tmpdir(), 'dp-git-work-'));
  const requests: GitServer['requests'] = [];
  const expected = opts.auth ? `Basic ${Buffer.from(`${opts.auth.username}:${opts.auth.password}`).toString('base64')}` : null;
  const srv = await serve(async (req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    requests.push({ method: req.method ?? 'GET', path: u.pathname, authorization: req.headers.authorization });
    if (expected && req.headers.authorization !== expected) {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="git"' }).end('authentication required');
      return;
    }
    const held = opts.hold?.({ method: req.method ?? 'GET', path: u.pathname });
    if (held) {
      await held;
      if (!res.socket || res.socket.destroyed) return; // the client went away meanwhile (a killed worker)
    }
    const child = spawn('git', ['http-backend'], {
      env: {
        ...process.env,
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: '1',
        PATH_INFO: decodeURIComponent(u.pathname),
        REQUEST_METHOD: req.method ?? 'GET',
        QUERY_STRING: u.search.slice(1),
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        ...(req.headers['content-length'] ? { CONTENT_LENGTH: req.headers['content-length'] } : {}),
        ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: req.headers['content-encoding'] } : {}),
        ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
        REMOTE_USER: opts.auth?.username ?? 'anonymous',
        REMOTE_ADDR: '127.0.0.1',
      },
    });
    req.pipe(child.stdin);
    let buffer = Buffer.alloc(0);
    let headersDone = false;
    // Backpressure: a client reading slowly holds git back instead of this process buffering the
    // whole response (the remote runs inside the benchmark's process, whose memory is measured).
    const write = (chunk: Buffer) => {
      if (!res.write(chunk)) {
        child.stdout.pause();
        res.once('drain', () => child.stdout.resume());
      }
    };
    child.stdout.on('data', (chunk: Buffer) => {
      if (headersDone) return write(chunk);
      buffer = Buffer.concat([buffer, chunk]);
      const end = buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      headersDone = true;
      let status = 200;
      const headers: Record<string, string> = {};
      for (const line of buffer.subarray(0, end).toString('utf8').split('\r\n')) {
        const i = line.indexOf(':');
        const k = line.slice(0, i).trim();
        const v = line.slice(i + 1).trim();
        if (k.toLowerCase() === 'status') status = Number(v.split(' ')[0]);
        else headers[k] = v;
      }
      res.writeHead(status, headers);
      write(buffer.subarray(end + 4));
    });
    child.stdout.on('end', () => res.end());
    child.on('error', () => res.destroy());
  });

  const server: GitServer = {
    url: srv.url,
    root,
    requests,
    async createRepo(name, seed) {
      const bare = path.join(root, `${name}.git`);
      const branch = seed?.branch ?? 'main';
      await mkdir(bare, { recursive: true });
      await gitCli(['init', '--bare', '--initial-branch', branch, bare], root);
      await gitCli(['config', 'http.receivepack', 'true'], bare);
      if (seed?.dir || seed?.files) {
        const w = await mkdtemp(path.join(work, `${name}-`));
        await gitCli(['init', '--initial-branch', branch], w);
        if (seed.dir) await cp(seed.dir, w, { recursive: true });
        for (const [p, content] of Object.entries(seed.files ?? {})) {
          await mkdir(path.dirname(path.join(w, p)), { recursive: true });
          await writeFile(path.join(w, p), content);
        }
        await gitCli(['add', '-A'], w);
        await gitCli(['commit', '-q', '-m', seed.message ?? 'Initial docs'], w);
        await gitCli(['push', '-q', bare, `HEAD:refs/heads/${branch}`], w);
      }
      return `${srv.url}/${name}.git`;
    },
    async clone(name, branch = 'main') {
      const w = await mkdtemp(path.join(work, `clone-${name}-`));
      await gitCli(['clone', '-q', '--branch', branch, path.join(root, `${name}.git`), w], work);
      return w;
    },
    async close() {
      await srv.close();
      await rm(root, { recursive: true, force: true });
      await rm(work, { recursive: true, force: true });
    },
  };
  return server;
}
