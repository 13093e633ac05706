import { randomBytes } from 'node:crypto';
import type { Config } from './config.js';
import { createPool, type Db } from './db/pool.js';
import { migrate } from './db/migrate.js';
import { ensureDatabase } from './db/ensure-database.js';
import { createLogger, type Logger } from './log.js';
import { createBlobStore, type BlobStore } from './storage/index.js';
import { JobClient } from '../jobs/client.js';
import { MarkdownPool } from './render/pool.js';

/** Everything a service or job processor needs, built once per process and passed in (never global). */
export interface AppContext {
  config: Config;
  db: Db;
  log: Logger;
  blobs: BlobStore;
  jobs: JobClient;
  /** Server secret: signs visitor-claim JWTs and encrypts stored credentials. */
  secret: string;
  /** Markdown of user content is parsed, converted and rendered here, off the event loop (src/render/pool.ts). */
  markdown: MarkdownPool;
}

export async function createAppContext(config: Config, name: string, log?: Logger): Promise<AppContext> {
  const logger = log ?? createLogger(config.logLevel, name);
  if (config.autoMigrate && (await ensureDatabase(config.databaseUrl))) logger.info('database created');
  const db = createPool(config.databaseUrl, config.pgPoolMax);
  if (config.autoMigrate) {
    const applied = await migrate(db);
    if (applied.length) logger.info({ applied }, 'database migrations applied');
  }
  const blobs = await createBlobStore(config.storage);
  const jobs = new JobClient(config);
  const secret = config.secretKey ?? (await sharedSecret(db));
  const markdown = new MarkdownPool({ ...config.markdown, log: logger });
  return { config, db, log: logger, blobs, jobs, secret, markdown };
}

/** A secret generated once and shared through PostgreSQL by every process, when SECRET_KEY is not set. */
async function sharedSecret(db: Db): Promise<string> {
  await db.query(`INSERT INTO settings (key, value) VALUES ('secret_key', $1) ON CONFLICT (key) DO NOTHING`, [
    randomBytes(32).toString('base64url'),
  ]);
  const { rows } = await db.query(`SELECT value FROM settings WHERE key = 'secret_key'`);
  return rows[0].value;
}

export async function closeAppContext(app: AppContext): Promise<void> {
  await Promise.allSettled([app.jobs.close(), app.blobs.close(), app.markdown.close()]);
  await app.db.end().catch(() => {});
}
