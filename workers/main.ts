// Worker process entrypoint: `npm run start:worker`. Runs the queues named in WORKER_QUEUES.
import { loadConfig } from '../src/config.js';
import { createAppContext, closeAppContext } from '../src/context.js';
import { startWorkers } from './start.js';

const config = loadConfig();
const app = await createAppContext(config, 'worker');
const pool = startWorkers(app);

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  app.log.info({ signal }, 'worker shutting down');
  await pool.close();
  await closeAppContext(app);
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
