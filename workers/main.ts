// Worker process entrypoint: `npm run start:worker`. Runs the queues named in WORKER_QUEUES.
import { checkConnectionBudget, loadConfig } from '../src/config.js';
import { createAppContext, closeAppContext } from '../src/context.js';
import { startWorkers } from './start.js';
import { orExitOnConfigError, stopOnSignals } from '../src/lifecycle.js';

const config = orExitOnConfigError(() => {
  const c = loadConfig();
  checkConnectionBudget(c, c.workers.queues);
  return c;
});
const app = await createAppContext(config, 'worker');
const pool = startWorkers(app);
// The Markdown pool's threads load their modules now, not during the first job.
app.markdown.start().catch((err) => app.log.warn({ err }, 'the Markdown pool did not start; it starts on first use'));

// SIGTERM: stop taking jobs and give running ones SHUTDOWN_TIMEOUT_MS to finish. Jobs still
// running then are abandoned: the process exits without waiting for them (their open transactions
// roll back) and BullMQ's stalled-job check hands them to another worker.
stopOnSignals(app.log, config.shutdownTimeoutMs + 5_000, async () => {
  app.log.info('worker shutting down: taking no new jobs, finishing running ones');
  const { forced } = await pool.close();
  if (!forced) await closeAppContext(app);
});
