import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { loadConfig, type Config, type QueueName } from '../../src/config.js';
import { createAppContext, closeAppContext, type AppContext } from '../../src/context.js';
import { createLogger } from '../../src/log.js';
import { createApiServer, type ApiServer } from '../../src/server.js';
import { startWorkers, type WorkerPool } from '../../workers/start.js';
import { createOrganization, createToken, createUser, addMember } from '../../src/services/identity.js';
import type { Role } from '../../src/core/roles.js';
import { createTestDatabase } from './db.js';
import { CHROMIUM_PATH, TEST_REDIS_URL } from './env.js';
import { client, freePort } from './http.js';
import { lateBound } from './late.js';

export interface TestApp {
  app: AppContext;
  config: Config;
  env: Record<string, string>;
  baseUrl: string;
  api: ReturnType<typeof client>;
  /** The HTTP server itself (its `close()` drains it, as on SIGTERM). */
  apiServer: ApiServer;
  workers?: WorkerPool;
  startWorkers(queues?: QueueName[]): WorkerPool;
  /** Log lines, when started with `captureLogs`. */
  logs: string[];
  /** A new organization with an admin; returns ids and the admin's token. */
  seedOrg(title?: string): Promise<{ orgId: string; adminId: string; adminToken: string }>;
  /** A new user, member of `orgId` with `role` (null: guest; undefined: not a member). */
  seedUser(orgId?: string, role?: Role | null, name?: string): Promise<{ userId: string; token: string; email: string }>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  /** Start in-process workers for these queues (true: all). */
  workers?: boolean | QueueName[];
  env?: Record<string, string>;
  storage?: 'local' | { s3: { endpoint: string; bucket: string } };
  /** Keep every log line (at debug level) in `t.logs`. */
  captureLogs?: boolean;
}

/**
 * A real API server on a free port against its own PostgreSQL database, its own Redis key prefix
 * and its own storage folder, optionally with in-process workers. Everything real; nothing shared
 * with other test files.
 */
export async function startTestApp(opts: TestAppOptions = {}): Promise<TestApp> {
  const db = await createTestDatabase();
  const blobDir = await mkdtemp(path.join(tmpdir(), 'dp-blobs-'));
  const port = await freePort();
  const prefix = `dpt_${randomBytes(5).toString('hex')}`;
  const env: Record<string, string> = {
    DATABASE_URL: db.url,
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: prefix,
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    LOCAL_STORAGE_DIR: blobDir,
    GIT_CACHE_DIR: `${blobDir}-git`,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    ALLOW_PRIVATE_FETCH: 'true', // tests serve specs and sites on loopback
    FETCH_TIMEOUT_MS: '1500',
    JOB_BACKOFF_MS: '50',
    PG_POOL_MAX: '5',
    SHUTDOWN_TIMEOUT_MS: '3000',
    BOOTSTRAP: 'false',
    RATE_LIMIT_PER_MINUTE: '0', // tests that poll would trip it; test/integration/http/http-front.test.ts enables it
    // The bounds on waiting for a derived index guard production latency; a test that checks content
    // must not depend on how busy the machine is. The tests of those bounds set them (0 ms).
    LINK_INDEX_WAIT_MS: '60000',
    SEARCH_CATCH_UP_MS: '60000',
    CHROMIUM_PATH, // the same browser as test/helpers/browser.ts launches
    ...(typeof opts.storage === 'object'
      ? {
          S3_BUCKET: opts.storage.s3.bucket,
          S3_ENDPOINT: opts.storage.s3.endpoint,
          S3_ACCESS_KEY_ID: 'S3RVER',
          S3_SECRET_ACCESS_KEY: 'S3RVER',
        }
      : {}),
    ...opts.env,
  };
  const logs: string[] = [];
  if (opts.captureLogs) env.LOG_LEVEL = 'debug';
  const config = loadConfig(env);
  const logger = opts.captureLogs ? createLogger('debug', 'test', { write: (line: string) => void logs.push(line) }) : undefined;
  const app = await createAppContext(config, 'test', logger);
  const server: ApiServer = createApiServer(app);
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject); // fail the set-up at once rather than time it out
    server.server.listen(port, '127.0.0.1', () => {
      server.server.off('error', reject);
      resolve();
    });
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const pools: WorkerPool[] = [];
  const t: TestApp = {
    app,
    config,
    env,
    baseUrl,
    logs,
    api: client(baseUrl),
    apiServer: server,
    startWorkers(queues) {
      const pool = startWorkers(app, queues ?? config.workers.queues);
      pools.push(pool);
      return pool;
    },
    async seedOrg(title = 'Test organization') {
      const admin = await createUser(app.db, { email: `admin-${randomBytes(4).toString('hex')}@example.com`, displayName: 'Ada Admin' });
      const org = await createOrganization(app.db, { title, adminUserId: admin.id });
      return { orgId: org.id, adminId: admin.id, adminToken: await createToken(app.db, admin.id) };
    },
    async seedUser(orgId, role, name) {
      const email = `user-${randomBytes(4).toString('hex')}@example.com`;
      const user = await createUser(app.db, { email, displayName: name ?? `User ${email.slice(5, 13)}` });
      if (orgId && role !== undefined) await addMember(app.db, orgId, user.id, role);
      return { userId: user.id, token: await createToken(app.db, user.id), email };
    },
    async close() {
      await Promise.all(pools.map((p) => p.close(2000)));
      await server.close();
      await closeAppContext(app);
      await deleteRedisPrefix(TEST_REDIS_URL, prefix);
      await db.drop();
      await rm(blobDir, { recursive: true, force: true });
      await rm(`${blobDir}-git`, { recursive: true, force: true });
    },
  };
  if (opts.workers) t.workers = t.startWorkers(opts.workers === true ? undefined : opts.workers);
  return t;
}

/** An organization made by `seedOrg`: its id, its admin and the admin's token. */
export type SeededOrg = Awaited<ReturnType<TestApp['seedOrg']>>;

export interface UseTestAppOptions extends TestAppOptions {
  /** Seed an organization once the app is up (a string: its title); read it as `org`. */
  seedOrg?: boolean | string;
}

/**
 * The test app of a file, or of a `describe` block when called inside one: `beforeAll` starts it
 * (`startTestApp(opts)`), `afterAll` closes it. Returns stand-ins to use at module level: `t` is the
 * running app, `org` the organization seeded with `seedOrg`; using either outside the hooks' span
 * fails with one clear line. `opts` may be a function, called in the hook, for options that depend
 * on a server the file starts first (in a `beforeAll` registered before this call).
 *
 * Vitest runs `beforeAll` hooks in the order they are registered and `afterAll` hooks in reverse
 * (`sequence.hooks: 'stack'`): a file's own set-up registered after this call sees the app started,
 * and its own tear-down runs before the app closes.
 */
export function useTestApp(opts: UseTestAppOptions | (() => UseTestAppOptions) = {}): { t: TestApp; org: SeededOrg } {
  const app = lateBound<TestApp>('the test app (useTestApp)');
  const org = lateBound<SeededOrg>('the seeded organization (useTestApp with seedOrg)');
  beforeAll(async () => {
    const { seedOrg, ...options } = typeof opts === 'function' ? opts() : opts;
    const t = await startTestApp(options);
    app.set(t);
    if (seedOrg) org.set(await t.seedOrg(typeof seedOrg === 'string' ? seedOrg : undefined));
  });
  afterAll(async () => {
    const t = app.current();
    app.set(undefined);
    org.set(undefined);
    await t?.close();
  });
  return { t: app.handle, org: org.handle };
}

export async function deleteRedisPrefix(url: string, prefix: string) {
  const redis = new Redis(url);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
