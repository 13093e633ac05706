import { describe, expect, it } from 'vitest';
import { checkConnectionBudget, loadConfig } from '../../src/config.js';
import { runTs } from '../helpers/processes.js';

describe('config', () => {
  it('has working defaults: local storage, all queues, loopback fetches refused', () => {
    const c = loadConfig({});
    expect(c.storage).toEqual({ driver: 'local', dir: './data/blobs' });
    expect(c.workers.queues).toEqual(['openapi', 'git', 'import', 'pdf', 'translation', 'search', 'maintenance']);
    expect(c.fetch.allowPrivate).toBe(false);
    expect(c.bodyLimitBytes).toBe(1024 * 1024);
    expect(Object.isFrozen(c.workers)).toBe(true);
  });

  it('switches to S3 when a bucket is configured', () => {
    const c = loadConfig({ S3_BUCKET: 'docs', S3_ENDPOINT: 'http://minio:9000' });
    expect(c.storage).toMatchObject({ driver: 's3', bucket: 'docs', endpoint: 'http://minio:9000', forcePathStyle: true });
  });

  it('refuses bad values with the variable name', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => loadConfig({ WORKER_QUEUES: 'openapi,emails' })).toThrow(/emails/);
    expect(() => loadConfig({ ALLOW_PRIVATE_FETCH: 'maybe' })).toThrow(/ALLOW_PRIVATE_FETCH/);
  });
});

describe('SEARCH_TEXT_CONFIG', () => {
  it('defaults to english and accepts only configuration names', () => {
    expect(loadConfig({}).searchTextConfig).toBe('english');
    expect(loadConfig({ SEARCH_TEXT_CONFIG: 'public.my_docs' }).searchTextConfig).toBe('public.my_docs');
    expect(() => loadConfig({ SEARCH_TEXT_CONFIG: "english'; drop table spaces" })).toThrow(/SEARCH_TEXT_CONFIG/);
  });
});

describe('LOG_FORMAT', () => {
  it('defaults to pretty on a terminal and to json elsewhere; a set value wins either way', () => {
    expect(loadConfig({}, true).logFormat).toBe('pretty');
    expect(loadConfig({}, false).logFormat).toBe('json');
    expect(loadConfig({ LOG_FORMAT: 'json' }, true).logFormat).toBe('json');
    expect(loadConfig({ LOG_FORMAT: 'Pretty' }, false).logFormat).toBe('pretty');
    expect(() => loadConfig({ LOG_FORMAT: 'xml' })).toThrow('LOG_FORMAT must be pretty or json, got "xml"');
  });
});

describe('the connection budget of a git worker', () => {
  it('refuses PG_POOL_MAX below WORKER_CONCURRENCY + 1 on a process that runs git jobs, and only there', async () => {
    const config = (env: Record<string, string>) => loadConfig(env);
    expect(() => checkConnectionBudget(config({ PG_POOL_MAX: '2', WORKER_CONCURRENCY: '2' }), ['git'])).toThrow(
      /PG_POOL_MAX \(2\) is too small for WORKER_CONCURRENCY 2 .*at least 3/,
    );
    expect(() => checkConnectionBudget(config({ PG_POOL_MAX: '3', WORKER_CONCURRENCY: '2' }), ['git', 'pdf'])).not.toThrow();
    expect(() => checkConnectionBudget(config({ PG_POOL_MAX: '2', WORKER_CONCURRENCY: '2' }), ['pdf', 'openapi'])).not.toThrow();
    // The defaults leave room.
    expect(() => checkConnectionBudget(config({}), config({}).workers.queues)).not.toThrow();
  });

  it('stops a process with a setting it cannot run with on one line, exit code 2, before connecting anywhere', async () => {
    // Nothing listens at these addresses: the process must stop before it tries them.
    const unreachable = { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', REDIS_URL: 'redis://127.0.0.1:1' };
    const cases: [string, Record<string, string>, RegExp][] = [
      ['workers/main.ts', { WORKER_QUEUES: 'git', PG_POOL_MAX: '2', WORKER_CONCURRENCY: '2' }, /PG_POOL_MAX \(2\) is too small/],
      ['src/main.ts', { WORKER_QUEUES: 'git', PG_POOL_MAX: '2', WORKER_CONCURRENCY: '2' }, /PG_POOL_MAX \(2\) is too small/],
      ['src/api.ts', { WORKER_CONCURRENCY: 'lots' }, /WORKER_CONCURRENCY must be an integer/],
    ];
    for (const [entry, env, reason] of cases) {
      const { code, stderr } = await runTs(entry, [], { ...unreachable, ...env });
      expect(code, `${entry}: ${stderr}`).toBe(2);
      expect(stderr).toMatch(reason);
      expect(stderr.trim().split('\n')).toHaveLength(1);
      expect(stderr).toMatch(/^Configuration error: /);
    }
  });
});
