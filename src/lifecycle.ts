// How the API and worker processes end (src/api.ts, workers/main.ts).
import type { Logger } from './log.js';

/**
 * Run `stop` once when the process is asked to end, then exit 0:
 * - on SIGTERM or SIGINT;
 * - when started by the `npm start` supervisor (src/main.ts, an IPC channel) and that channel
 *   closes, i.e. the supervisor died without stopping its children: they stop rather than run on
 *   unsupervised.
 * A second signal exits at once, and so does a `stop` still running after `backstopMs` (exit 1):
 * whatever is still open then (a job abandoned after SHUTDOWN_TIMEOUT_MS, a hung connection) is
 * left to the database's rollback and BullMQ's stalled-job handling.
 */
export function stopOnSignals(log: Logger, backstopMs: number, stop: () => Promise<void>): void {
  let stopping = false;
  const begin = (reason: string) => {
    if (stopping) {
      if (reason === 'SIGTERM' || reason === 'SIGINT') {
        log.warn({ reason }, 'second signal during shutdown: exiting now');
        process.exit(1);
      }
      return;
    }
    stopping = true;
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
