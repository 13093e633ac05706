// One command for a newcomer (`npm start`): the API plus WORKER_PROCESSES worker processes on this
// machine, each a child process, all stopped together. Production runs them as separate containers.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { loadConfig } from './config.js';
import { createPool } from './db/pool.js';
import { migrate } from './db/migrate.js';
import { ensureDatabase } from './db/ensure-database.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const config = loadConfig();

// Migrate once before the children start (they would also do it safely under the advisory lock).
await ensureDatabase(config.databaseUrl);
const db = createPool(config.databaseUrl, 1);
await migrate(db);
await db.end();

const children: ChildProcess[] = [];
const start = (entry: string, name: string) => {
  const child = fork(path.join(root, entry), [], { execArgv: ['--import', 'tsx'], stdio: 'inherit', env: process.env });
  child.on('exit', (code, signal) => {
    if (!stopping) {
      console.error(`${name} exited (${signal ?? code}); stopping everything`);
      void stop(1);
    }
  });
  children.push(child);
};

let stopping = false;
async function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  await Promise.all(
    children.map(
      (c) =>
        new Promise<void>((resolve) => {
          if (c.exitCode !== null || c.signalCode !== null) return resolve();
          c.once('exit', () => resolve());
          c.kill('SIGTERM');
        }),
    ),
  );
  process.exit(code);
}

start('src/api.ts', 'api');
for (let i = 0; i < config.workers.processes; i++) start('workers/main.ts', `worker ${i + 1}`);
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
