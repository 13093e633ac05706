import type { Config } from './config.js';
import { createPool, type Db } from './db/pool.js';
import { migrate } from './db/migrate.js';
import { ensureDatabase } from './db/ensure-database.js';
import { sealStoredSecrets } from './db/sealed-secrets.js';
import { sharedSecret } from './db/repos/settings.js';
import { createLogger, type Logger } from './log.js';
import { createBlobStore, type BlobStore } from './storage/index.js';
import { JobClient } from './queue/client.js';
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
  const logger = log ?? createLogger(config.logLevel, name, config.logFormat);
  if (config.autoMigrate && (await ensureDatabase(config.databaseUrl))) logger.info('database created');
  const db = createPool(config.databaseUrl, config.pgPoolMax);
  if (config.autoMigrate) {
    const applied = await migrate(db);
    if (applied.length) logger.info({ applied }, 'database migrations applied');
  }
  const blobs = await createBlobStore(config.storage);
  const jobs = new JobClient(config);
  const secret = config.secretKey ?? (await sharedSecret(db));
  if (config.autoMigrate) {
    const sealed = await sealStoredSecrets(db, secret);
    if (sealed) logger.info({ sealed }, 'credentials stored in clear by an earlier version sealed');
  }
  const markdown = new MarkdownPool({ ...config.markdown, log: logger });
  return { config, db, log: logger, blobs, jobs, secret, markdown };
}

export async function closeAppContext(app: AppContext): Promise<void> {
  await Promise.allSettled([app.jobs.close(), app.blobs.close(), app.markdown.close()]);
  await app.db.end().catch(() => {});
}
