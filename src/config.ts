// Environment -> typed, frozen configuration. Every variable read here is documented in
// docs/operations.md (section "Configuration"). Nothing else in the code base reads process.env.

import proxyaddr from 'proxy-addr';

export const ALL_QUEUES = ['openapi', 'git', 'import', 'pdf', 'translation', 'search', 'maintenance'] as const;
export type QueueName = (typeof ALL_QUEUES)[number];

export interface Config {
  port: number;
  host: string;
  publicUrl: string;
  /**
   * Domain under which an organization's `hostname` label serves its published sites
   * (`{hostname}.{sitesDomain}/{basename}`), lowercase; null: organization hostnames serve nothing.
   */
  sitesDomain: string | null;
  databaseUrl: string;
  pgPoolMax: number;
  redisUrl: string;
  queuePrefix: string;
  storage:
    | { driver: 'local'; dir: string }
    | {
        driver: 's3';
        endpoint?: string;
        region: string;
        bucket: string;
        accessKeyId?: string;
        secretAccessKey?: string;
        forcePathStyle: boolean;
      };
  bodyLimitBytes: number;
  /** How long a signed, token-free file download URL (`downloadURL`, published images) stays valid. */
  fileUrlTtlSeconds: number;
  /** Requests per token (or per client address without one) per minute; 0 disables. */
  rateLimitPerMinute: number;
  /**
   * The reverse proxies whose `X-Forwarded-For` is believed (src/http/client-address.ts): addresses,
   * CIDRs and proxy-addr's names `loopback`, `linklocal`, `uniquelocal`. Empty (the default): the
   * socket's address is the client and the header is ignored.
   */
  trustProxy: readonly string[];
  logLevel: string;
  /**
   * How logs are written (src/log.ts): `pretty` (one readable line per event, for a terminal) or
   * `json` (one JSON object per line, for collectors). Default: pretty when stdout is a terminal.
   */
  logFormat: LogFormat;
  secretKey?: string;
  bootstrap: boolean;
  autoMigrate: boolean;
  adminPath: string;
  shutdownTimeoutMs: number;
  /** Chromium (or Chrome) binary that renders PDF exports (src/render/browser.ts). */
  chromiumPath: string;
  workers: {
    queues: QueueName[];
    concurrency: number;
    processes: number;
    attempts: number;
    backoffMs: number;
    lockDurationMs: number;
    stalledIntervalMs: number;
    keepCompleted: number;
    keepFailed: number;
    reconcileIntervalMs: number;
    reconcileMinAgeMs: number;
  };
  fetch: {
    timeoutMs: number;
    maxBytes: number;
    allowPrivate: boolean;
  };
  /** GitBook's renderer on this API: where a site's content change is announced (src/services/sites/revalidation.ts). */
  renderer: {
    revalidateUrl: string | null;
    revalidateSecret: string | null;
    allowPrivate: boolean;
  };
  /** Git sync (src/git/): local cache of fetched repositories, per-file size limit, network time limit. */
  git: {
    cacheDir: string;
    maxFileBytes: number;
    /** Most bytes one git HTTP response may bring (a fetched pack). */
    maxFetchBytes: number;
    timeoutMs: number;
  };
  /** Git Sync (src/services/git-sync/): how often due syncs are polled, the debounce of an export after a change, the back-off cap. */
  gitSync: {
    pollTickMs: number;
    debounceMs: number;
    maxBackoffSeconds: number;
  };
  /** Website import (jobs/import-website.ts): most pages one import crawls. */
  import: {
    maxPages: number;
  };
  /**
   * Markdown work on user content (parsing, documents, HTML, search sections) runs on this many
   * worker threads, each task within `timeoutMs` (src/render/pool.ts). 0: on the calling thread.
   */
  markdown: {
    threads: number;
    timeoutMs: number;
  };
  /**
   * How long a link, backlink or broken-link read waits for the link index of a revision that is not
   * built yet (the `links.index` job builds it ahead) before answering 503 with Retry-After
   * (src/services/links.ts). 0: never wait.
   */
  linkIndexWaitMs: number;
  /** PostgreSQL text search configuration for spaces without a language of their own (src/search/text-config.ts). */
  searchTextConfig: string;
  /**
   * How long a search waits for a stale index of a space to catch up with its revision (src/search/search.ts);
   * past it the search answers from the index as it is while the catch-up goes on. 0: never wait.
   */
  searchCatchUpMs: number;
  /** Megabytes the in-memory copies of search indexes may hold per process (src/search/memory.ts); 0: none, PostgreSQL only. */
  searchMemoryMb: number;
  /** Permanent removal of deleted spaces (src/services/purge.ts). */
  purge: {
    /** How often the scheduled purge runs (a BullMQ job scheduler). */
    intervalMs: number;
    /** Days a deleted space stays restorable before it is purged. */
    retentionDays: number;
  };
  /**
   * Outgoing e-mail (src/mail/): an smtp:// or smtps:// URL (credentials in it are never logged);
   * null: messages are written to the log instead. `from`: the sender address.
   */
  mail: {
    smtpUrl: string | null;
    from: string;
  };
  /** Days audit events are kept before the maintenance purge removes them (src/services/audit.ts). */
  auditRetentionDays: number;
  /** Site insights (src/services/sites/insights.ts): the `insights.aggregate` timer, raw event retention, per-visitor limit. */
  insights: {
    intervalMs: number;
    retentionDays: number;
    /** Event requests per visitor and site per minute (beyond it: 429). */
    perVisitorPerMinute: number;
  };
  /** Translations (src/translate/): the back-end every translation run uses. */
  translation: {
    provider: 'pseudo' | 'libretranslate' | 'deepl' | 'openai';
    url?: string;
    apiKey?: string;
    model?: string;
    concurrency: number;
    timeoutMs: number;
    retries: number;
    backoffMs: number;
    /** The provider URL may be a private or loopback address (a self-hosted LibreTranslate). */
    allowPrivate: boolean;
  };
  /** Answers to readers' questions (src/answer/): built-in extractive, or an OpenAI-compatible chat endpoint. */
  ask: {
    provider: 'extractive' | 'openai';
    url?: string;
    model?: string;
    /** Sent as a bearer to the endpoint; never logged or returned. */
    apiKey?: string;
    timeoutMs: number;
    /** Largest prompt (characters of quoted passages) sent to the model. */
    maxPromptChars: number;
    /** The endpoint may be a private or loopback address (a self-hosted model server). */
    allowPrivate: boolean;
  };
}

type Env = Record<string, string | undefined>;

export const LOG_FORMATS = ['pretty', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** A setting the process cannot run with (src/lifecycle.ts `orExitOnConfigError` prints it as one line). */
export class ConfigError extends Error {}

function int(env: Env, name: string, def: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new ConfigError(`${name} must be an integer >= ${min}, got "${raw}"`);
  return n;
}

function bool(env: Env, name: string, def: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be a boolean, got "${raw}"`);
}

function str(env: Env, name: string, def: string): string {
  const raw = env[name];
  return raw === undefined || raw === '' ? def : raw;
}

/**
 * TRUST_PROXY: a comma-separated list of what proxy-addr accepts (addresses, CIDRs, `loopback`,
 * `linklocal`, `uniquelocal`), each checked here so a typo stops the start instead of silently
 * trusting nothing (or, worse, something else). No `true` and no hop count: trusting every hop, or
 * the N nearest whoever they are, lets any client choose the address it is counted under.
 */
function trustProxy(env: Env): string[] {
  const entries = str(env, 'TRUST_PROXY', '')
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .filter(Boolean);
  for (const entry of entries) {
    if (/^(true|false|yes|no|on|off|all|\*|\d+)$/.test(entry)) {
      throw new ConfigError(
        `TRUST_PROXY takes the addresses or CIDRs of your proxies (or loopback, linklocal, uniquelocal), not "${entry}": ` +
          'trusting every hop or a hop count lets any client choose its address; leave it unset when no proxy is in front',
      );
    }
    try {
      proxyaddr.compile(entry);
    } catch (err) {
      throw new ConfigError(
        `TRUST_PROXY: "${entry}" is not an address, a CIDR, loopback, linklocal or uniquelocal (${(err as Error).message})`,
      );
    }
  }
  return entries;
}

/**
 * `stdoutIsTTY` decides LOG_FORMAT's default: a terminal gets pretty lines, a pipe or a file
 * (containers, CI, log collectors) JSON.
 */
export function loadConfig(env: Env = process.env, stdoutIsTTY: boolean = process.stdout.isTTY === true): Config {
  const port = int(env, 'PORT', 3000);
  const logFormat = str(env, 'LOG_FORMAT', stdoutIsTTY ? 'pretty' : 'json').toLowerCase();
  if (!(LOG_FORMATS as readonly string[]).includes(logFormat)) {
    throw new ConfigError(`LOG_FORMAT must be ${LOG_FORMATS.join(' or ')}, got "${env.LOG_FORMAT}"`);
  }
  const queues = str(env, 'WORKER_QUEUES', ALL_QUEUES.join(','))
    .split(',')
    .map((q) => q.trim())
    .filter(Boolean);
  for (const q of queues) {
    if (!(ALL_QUEUES as readonly string[]).includes(q)) {
      throw new ConfigError(`WORKER_QUEUES names unknown queue "${q}" (known: ${ALL_QUEUES.join(', ')})`);
    }
  }
  const bucket = env.S3_BUCKET;
  const storage: Config['storage'] = bucket
    ? {
        driver: 's3',
        endpoint: env.S3_ENDPOINT || undefined,
        region: str(env, 'S3_REGION', 'us-east-1'),
        bucket,
        accessKeyId: env.S3_ACCESS_KEY_ID || undefined,
        secretAccessKey: env.S3_SECRET_ACCESS_KEY || undefined,
        forcePathStyle: bool(env, 'S3_FORCE_PATH_STYLE', true),
      }
    : { driver: 'local', dir: str(env, 'LOCAL_STORAGE_DIR', './data/blobs') };

  const config: Config = {
    port,
    host: str(env, 'HOST', '0.0.0.0'),
    publicUrl: str(env, 'PUBLIC_URL', `http://localhost:${port}`).replace(/\/+$/, ''),
    sitesDomain:
      str(env, 'SITES_DOMAIN', '')
        .toLowerCase()
        .replace(/^\.+|\.+$/g, '') || null,
    databaseUrl: str(env, 'DATABASE_URL', 'postgres://postgres@127.0.0.1:5432/docsplatform'),
    pgPoolMax: int(env, 'PG_POOL_MAX', 10, 1),
    redisUrl: str(env, 'REDIS_URL', 'redis://127.0.0.1:6379'),
    queuePrefix: str(env, 'QUEUE_PREFIX', 'dp'),
    storage,
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 1),
    fileUrlTtlSeconds: int(env, 'FILE_URL_TTL_SECONDS', 3600, 1),
    rateLimitPerMinute: int(env, 'RATE_LIMIT_PER_MINUTE', 1200),
    trustProxy: trustProxy(env),
    logLevel: str(env, 'LOG_LEVEL', 'info'),
    logFormat: logFormat as LogFormat,
    secretKey: env.SECRET_KEY || undefined,
    bootstrap: bool(env, 'BOOTSTRAP', true),
    autoMigrate: bool(env, 'AUTO_MIGRATE', true),
    adminPath: str(env, 'ADMIN_DASHBOARD_PATH', '/admin/queues').replace(/\/+$/, ''),
    shutdownTimeoutMs: int(env, 'SHUTDOWN_TIMEOUT_MS', 10_000),
    chromiumPath: str(env, 'CHROMIUM_PATH', '/usr/bin/chromium'),
    workers: {
      queues: queues as QueueName[],
      concurrency: int(env, 'WORKER_CONCURRENCY', 2, 1),
      processes: int(env, 'WORKER_PROCESSES', 1, 0),
      attempts: int(env, 'JOB_ATTEMPTS', 3, 1),
      backoffMs: int(env, 'JOB_BACKOFF_MS', 2000),
      lockDurationMs: int(env, 'JOB_LOCK_DURATION_MS', 30_000, 1000),
      stalledIntervalMs: int(env, 'JOB_STALLED_INTERVAL_MS', 30_000, 500),
      keepCompleted: int(env, 'JOB_KEEP_COMPLETED', 1000),
      keepFailed: int(env, 'JOB_KEEP_FAILED', 5000),
      reconcileIntervalMs: int(env, 'RECONCILE_INTERVAL_MS', 30_000, 100),
      reconcileMinAgeMs: int(env, 'RECONCILE_MIN_AGE_MS', 10_000),
    },
    fetch: {
      timeoutMs: int(env, 'FETCH_TIMEOUT_MS', 15_000, 1),
      maxBytes: int(env, 'FETCH_MAX_BYTES', 20 * 1024 * 1024, 1),
      allowPrivate: bool(env, 'ALLOW_PRIVATE_FETCH', false),
    },
    renderer: {
      revalidateUrl: env.RENDERER_REVALIDATE_URL || null,
      revalidateSecret: env.RENDERER_REVALIDATE_SECRET || null,
      allowPrivate: bool(env, 'RENDERER_ALLOW_PRIVATE', false),
    },
    git: {
      cacheDir: str(env, 'GIT_CACHE_DIR', './data/git-cache'),
      maxFileBytes: int(env, 'GIT_MAX_FILE_BYTES', 20 * 1024 * 1024, 1),
      maxFetchBytes: int(env, 'GIT_MAX_FETCH_BYTES', 1024 * 1024 * 1024, 1),
      timeoutMs: int(env, 'GIT_TIMEOUT_MS', 120_000, 1),
    },
    gitSync: {
      pollTickMs: int(env, 'GIT_SYNC_POLL_TICK_MS', 5_000, 100),
      debounceMs: int(env, 'GIT_SYNC_DEBOUNCE_MS', 2_000),
      maxBackoffSeconds: int(env, 'GIT_SYNC_MAX_BACKOFF_SECONDS', 3_600, 5),
    },
    import: {
      maxPages: int(env, 'IMPORT_MAX_PAGES', 200, 1),
    },
    markdown: {
      threads: int(env, 'MARKDOWN_THREADS', 2),
      timeoutMs: int(env, 'MARKDOWN_TIMEOUT_MS', 10_000, 1),
    },
    linkIndexWaitMs: int(env, 'LINK_INDEX_WAIT_MS', 2_000),
    searchTextConfig: str(env, 'SEARCH_TEXT_CONFIG', 'english'),
    searchCatchUpMs: int(env, 'SEARCH_CATCH_UP_MS', 2_000),
    searchMemoryMb: int(env, 'SEARCH_MEMORY_MB', 256),
    purge: {
      intervalMs: int(env, 'PURGE_INTERVAL_MS', 3_600_000, 1000),
      retentionDays: int(env, 'SPACE_RETENTION_DAYS', 7, 1),
    },
    mail: {
      smtpUrl: env.SMTP_URL || null,
      from: str(env, 'MAIL_FROM', 'Docs platform <no-reply@localhost>'),
    },
    auditRetentionDays: int(env, 'AUDIT_RETENTION_DAYS', 365, 1),
    insights: {
      intervalMs: int(env, 'INSIGHTS_AGGREGATE_INTERVAL_MS', 300_000, 1000),
      retentionDays: int(env, 'INSIGHTS_RETENTION_DAYS', 90, 1),
      perVisitorPerMinute: int(env, 'INSIGHTS_EVENTS_PER_MINUTE', 60, 1),
    },
    translation: {
      provider: str(env, 'TRANSLATION_PROVIDER', 'pseudo') as Config['translation']['provider'],
      url: env.TRANSLATION_URL || undefined,
      apiKey: env.TRANSLATION_API_KEY || undefined,
      model: env.TRANSLATION_MODEL || undefined,
      concurrency: int(env, 'TRANSLATION_CONCURRENCY', 2, 1),
      timeoutMs: int(env, 'TRANSLATION_TIMEOUT_MS', 60_000, 1),
      retries: int(env, 'TRANSLATION_RETRIES', 4),
      backoffMs: int(env, 'TRANSLATION_BACKOFF_MS', 1000),
      allowPrivate: bool(env, 'TRANSLATION_ALLOW_PRIVATE', false),
    },
    ask: {
      provider: str(env, 'ASK_PROVIDER', 'extractive') as Config['ask']['provider'],
      url: env.ASK_OPENAI_URL || undefined,
      model: env.ASK_OPENAI_MODEL || undefined,
      apiKey: env.ASK_OPENAI_KEY || undefined,
      timeoutMs: int(env, 'ASK_TIMEOUT_MS', 30_000, 100),
      maxPromptChars: int(env, 'ASK_MAX_PROMPT_CHARS', 12_000, 500),
      allowPrivate: bool(env, 'ASK_ALLOW_PRIVATE', false),
    },
  };
  if (!['extractive', 'openai'].includes(config.ask.provider)) {
    throw new ConfigError(`ASK_PROVIDER must be extractive or openai, got "${config.ask.provider}"`);
  }
  if (config.ask.provider === 'openai' && !config.ask.url) {
    throw new ConfigError('ASK_OPENAI_URL is required when ASK_PROVIDER is openai');
  }
  if (!['pseudo', 'libretranslate', 'deepl', 'openai'].includes(config.translation.provider)) {
    throw new ConfigError(`TRANSLATION_PROVIDER must be pseudo, libretranslate, deepl or openai, got "${config.translation.provider}"`);
  }
  if (config.translation.provider !== 'pseudo' && !config.translation.url) {
    throw new ConfigError(`TRANSLATION_URL is required when TRANSLATION_PROVIDER is ${config.translation.provider}`);
  }
  if (config.mail.smtpUrl && !/^smtps?:\/\//i.test(config.mail.smtpUrl)) {
    throw new ConfigError('SMTP_URL must be an smtp:// or smtps:// URL');
  }
  if (!/^[A-Za-z_][\w$]*(\.[A-Za-z_][\w$]*)?$/.test(config.searchTextConfig)) {
    throw new ConfigError(`SEARCH_TEXT_CONFIG must be a text search configuration name such as english, got "${config.searchTextConfig}"`);
  }
  return deepFreeze(config);
}

function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object') {
    for (const v of Object.values(o)) deepFreeze(v);
    Object.freeze(o);
  }
  return o;
}

/**
 * Refuse a pool of database connections too small for the git jobs this process would run at once:
 * each holds one connection for its space's git lock for the whole job and needs another for its
 * transaction, so with PG_POOL_MAX <= WORKER_CONCURRENCY they could all wait for one forever.
 */
export function checkConnectionBudget(config: Pick<Config, 'pgPoolMax' | 'workers'>, queues: readonly QueueName[]): void {
  const need = config.workers.concurrency + 1;
  if (queues.includes('git') && config.pgPoolMax < need) {
    throw new ConfigError(
      `PG_POOL_MAX (${config.pgPoolMax}) is too small for WORKER_CONCURRENCY ${config.workers.concurrency} on the git queue: ` +
        `each running git job holds a connection for its lock and needs another, so set PG_POOL_MAX to at least ${need}`,
    );
  }
}
