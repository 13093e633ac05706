// How the API and worker processes end (src/api.ts, workers/main.ts).
import type { Logger } from './log.js';
import { ConfigError } from './config.js';

/**
 * `fn`'s value; a setting the process cannot run with (ConfigError) ends it with the reason on one
 * line of stderr and exit code 2, rather than a stack trace. Other errors are thrown as they are.
 */
export function orExitOnConfigError<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`Configuration error: ${err.message}\n`);
    process.exit(2);
  }
}

/**
 * Run `stop` once when the process is asked to end, then exit 0:
 * - on SIGTERM or SIGINT;
 * - when started by the `npm start` supervisor (src/main.ts, an IPC channel) and that channel
 *   closes, i.e. the supervisor died without stopping its children: they stop rather than run on
 *   unsupervised.
 * A second signal exits at once (see `isSecondSignal`), and so does a `stop` still running after
 * `backstopMs` (exit 1):
 * whatever is still open then (a job abandoned after SHUTDOWN_TIMEOUT_MS, a hung connection) is
 * left to the database's rollback and BullMQ's stalled-job handling.
 */
export function stopOnSignals(log: Logger, backstopMs: number, stop: () => Promise<void>): void {
  let stoppingSince = 0;
  const begin = (reason: string) => {
    if (stoppingSince) {
      if ((reason === 'SIGTERM' || reason === 'SIGINT') && isSecondSignal(stoppingSince)) {
        log.warn({ reason }, 'second signal during shutdown: exiting now');
        process.exit(1);
      }
      return;
    }
    stoppingSince = Date.now();
    log.info({ reason }, 'shutdown requested');
    setTimeout(() => {
      log.error({ backstopMs }, 'shutdown did not finish in time: exiting now');
      process.exit(1);
    }, backstopMs);
    stop().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => begin('SIGTERM'));
  process.on('SIGINT', () => begin('SIGINT'));
  if (process.send) process.on('disconnect', () => begin('supervisor gone'));
}

/**
 * Whether a signal arriving during a shutdown begun at `since` is a person asking again (Ctrl-C
 * pressed twice) rather than the same Ctrl-C delivered twice: the terminal signals the whole
 * foreground process group, and wrappers (npm, tsx) relay it too, within milliseconds.
 */
export function isSecondSignal(since: number, now = Date.now()): boolean {
  return now - since >= 1_000;
}
