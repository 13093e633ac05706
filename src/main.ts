// One command for a newcomer (`npm start`): the API plus WORKER_PROCESSES worker processes on this
// machine, each a supervised child process (src/supervisor.ts): a child that crashes is logged and
// restarted with backoff; SIGTERM/SIGINT stops them all gracefully. Production runs them as
// separate containers.
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { checkConnectionBudget, loadConfig } from './config.js';
import { createLogger } from './log.js';
import { createPool } from './db/pool.js';
import { migrate } from './db/migrate.js';
import { ensureDatabase } from './db/ensure-database.js';
import { Supervisor } from './supervisor.js';
import { isSecondSignal, orExitOnConfigError } from './lifecycle.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// A setting the children could not run with stops here, once, rather than in a restart loop.
const config = orExitOnConfigError(() => {
  const c = loadConfig();
  if (c.workers.processes > 0) checkConnectionBudget(c, c.workers.queues);
  return c;
});
const log = createLogger(config.logLevel, 'supervisor', config.logFormat);

// Migrate once before the children start (they would also do it safely under the advisory lock).
await ensureDatabase(config.databaseUrl);
const db = createPool(config.databaseUrl, 1);
await migrate(db);
await db.end();

const supervisor = new Supervisor({
  root,
  // The children write to this process's stdout (inherited): they log in the format chosen here,
  // even where their own view of the terminal would differ.
  env: { ...process.env, LOG_FORMAT: config.logFormat },
  log,
  // Children honour SHUTDOWN_TIMEOUT_MS themselves; this is the margin before their groups are killed.
  stopTimeoutMs: config.shutdownTimeoutMs + 10_000,
});
supervisor.add({ name: 'api', entry: 'src/api.ts' });
for (let i = 0; i < config.workers.processes; i++) supervisor.add({ name: `worker ${i + 1}`, entry: 'workers/main.ts' });

let stoppingSince = 0;
const stop = (signal: NodeJS.Signals) => {
  if (stoppingSince) {
    if (!isSecondSignal(stoppingSince)) return; // the same Ctrl-C, relayed by npm or tsx
    log.warn({ signal }, 'second signal: killing every child now');
    supervisor.killAll();
    process.exit(1);
  }
  stoppingSince = Date.now();
  log.info({ signal }, 'stopping the API and the workers');
  void supervisor.stop().then(() => process.exit(0));
};
process.on('SIGTERM', () => stop('SIGTERM'));
process.on('SIGINT', () => stop('SIGINT'));
