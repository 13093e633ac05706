// The process supervisor behind `npm start` (src/main.ts): it runs the API and the worker
// processes as children, restarts a child that exits with a growing delay, and stops them all
// gracefully on SIGTERM/SIGINT. Production runs each process as its own container instead, where
// the orchestrator does this job.
//
// Each child runs in a process group of its own (`detached`), and when it exits the whole group
// is killed, so nothing it started outlives it. (Chromium, which puppeteer starts in yet another
// group, ends by itself when its worker's pipe closes: src/render/browser.ts.) A child that loses
// its supervisor (the IPC channel closes) stops itself (src/lifecycle.ts).
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { Logger } from './log.js';

export interface BackoffPolicy {
  /** Delay before restarting a child after its first quick exit. */
  initialMs: number;
  /** Largest delay: repeated quick exits double it up to this. */
  maxMs: number;
  /** A child up for this long counts as healthy: its next restart is quick again. */
  stableMs: number;
}

const DEFAULT_BACKOFF: BackoffPolicy = { initialMs: 1_000, maxMs: 30_000, stableMs: 60_000 };

/**
 * When to start a child again that exited after `uptimeMs`, having exited quickly `quickExits`
 * times in a row before: the delay and the new count of quick exits in a row.
 */
export function nextRestart(policy: BackoffPolicy, quickExits: number, uptimeMs: number): { delayMs: number; quickExits: number } {
  const run = uptimeMs >= policy.stableMs ? 0 : quickExits;
  return { delayMs: Math.min(policy.maxMs, policy.initialMs * 2 ** Math.min(run, 30)), quickExits: run + 1 };
}

interface ChildSpec {
  /** For logs: "api", "worker 1", ... */
  name: string;
  /** TypeScript entrypoint, relative to `root`. */
  entry: string;
}

interface Supervised {
  spec: ChildSpec;
  proc: ChildProcess | null;
  startedAt: number;
  quickExits: number;
  restart: NodeJS.Timeout | null;
}

interface SupervisorOptions {
  root: string;
  env: NodeJS.ProcessEnv;
  log: Logger;
  /** How long children get to stop after SIGTERM before their process groups are killed. */
  stopTimeoutMs: number;
  backoff?: BackoffPolicy;
}

/** Kill a process group; a group already gone is fine. */
function killGroup(pgid: number | undefined, signal: NodeJS.Signals) {
  if (!pgid) return;
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: nothing left in it
  }
}

export class Supervisor {
  private readonly children: Supervised[] = [];
  private stopping = false;
  private stopped: Promise<void> | null = null;
  private readonly backoff: BackoffPolicy;

  constructor(private readonly opts: SupervisorOptions) {
    this.backoff = opts.backoff ?? DEFAULT_BACKOFF;
  }

  /** Start a child and keep it running until `stop()`. */
  add(spec: ChildSpec): void {
    const child: Supervised = { spec, proc: null, startedAt: 0, quickExits: 0, restart: null };
    this.children.push(child);
    this.start(child);
  }

  private start(child: Supervised) {
    child.restart = null;
    const { spec } = child;
    const proc = fork(path.join(this.opts.root, spec.entry), [], {
      execArgv: ['--import', 'tsx'],
      stdio: 'inherit',
      env: this.opts.env,
      detached: true, // its own process group, killed as a whole when it exits
    });
    child.proc = proc;
    child.startedAt = Date.now();
    this.opts.log.info({ child: spec.name, childPid: proc.pid }, `${spec.name} started`);
    let exited = false;
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      if (exited) return;
      exited = true;
      killGroup(proc.pid, 'SIGKILL'); // whatever the child left behind in its group
      if (child.proc === proc) child.proc = null;
      const uptimeMs = Date.now() - child.startedAt;
      if (this.stopping) {
        this.opts.log.info({ child: spec.name, childPid: proc.pid, code, signal }, `${spec.name} stopped`);
        return;
      }
      const next = nextRestart(this.backoff, child.quickExits, uptimeMs);
      child.quickExits = next.quickExits;
      this.opts.log.error(
        { child: spec.name, childPid: proc.pid, code, signal, uptimeMs, restartInMs: next.delayMs },
        `${spec.name} exited (${signal ?? `code ${code}`}); restarting it in ${next.delayMs} ms`,
      );
      child.restart = setTimeout(() => this.start(child), next.delayMs);
    };
    proc.on('exit', onExit);
    proc.on('error', (err) => {
      this.opts.log.error({ child: spec.name, err }, `${spec.name}: process error`);
      if (proc.pid === undefined) onExit(null, null); // it never started: try again later
    });
  }

  /** Processes running now (for logs and tests). */
  pids(): { name: string; pid: number }[] {
    return this.children.flatMap((c) => (c.proc?.pid ? [{ name: c.spec.name, pid: c.proc.pid }] : []));
  }

  /**
   * SIGTERM every child and wait for them to exit; a child still running after `stopTimeoutMs`
   * has its process group killed. No restart happens once stopping.
   */
  stop(): Promise<void> {
    if (this.stopped) return this.stopped;
    this.stopping = true;
    this.stopped = Promise.all(
      this.children.map((child) => {
        if (child.restart) clearTimeout(child.restart);
        const proc = child.proc;
        if (!proc || proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
        return new Promise<void>((resolve) => {
          const timer = setTimeout(() => {
            this.opts.log.warn({ child: child.spec.name, childPid: proc.pid }, `${child.spec.name} did not stop in time; killing it`);
            killGroup(proc.pid, 'SIGKILL');
          }, this.opts.stopTimeoutMs);
          proc.once('exit', () => {
            clearTimeout(timer);
            resolve();
          });
          proc.kill('SIGTERM');
        });
      }),
    ).then(() => {});
    return this.stopped;
  }

  /** Last resort (a second signal, the supervisor itself exiting): kill every child's group now. */
  killAll(): void {
    for (const child of this.children) {
      if (child.restart) clearTimeout(child.restart);
      killGroup(child.proc?.pid, 'SIGKILL');
    }
  }
}
