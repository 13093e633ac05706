import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { isPrivateAddress } from '../../src/net/address-policy.js';
import { checkFetchUrl } from '../../src/net/safe-fetch.js';
import { buildPage, decodeCursor, encodeCursor } from '../../src/core/pagination.js';
import { checkProcessors, PROCESSORS } from '../../jobs/index.js';
import { JOBS, JOB_NAMES } from '../../src/queue/registry.js';
import { redactUrl } from '../../src/log.js';
import { operationError } from '../../workers/runner.js';
import { newId, derivedId } from '../../src/util/ids.js';
import { ApiError } from '../../src/core/errors.js';
import { atLeast } from '../../src/core/roles.js';

describe('config', () => {
  it('has working defaults: local storage, all queues, loopback fetches refused', () => {
    const c = loadConfig({});
    expect(c.storage).toEqual({ driver: 'local', dir: './data/blobs' });
    expect(c.workers.queues).toEqual(['openapi', 'git', 'import', 'pdf', 'translation', 'maintenance']);
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

describe('address policy', () => {
  it.each(['127.0.0.1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', 'fd00::1', 'fe80::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1'])(
    'refuses %s',
    (ip) => expect(isPrivateAddress(ip)).toBe(true),
  );
  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700::1111', '::ffff:8.8.8.8'])('allows %s', (ip) => expect(isPrivateAddress(ip)).toBe(false));

  it('checks literal hosts and schemes before connecting', () => {
    expect(() => checkFetchUrl('http://127.0.0.1/x', false)).toThrow(/private/);
    expect(() => checkFetchUrl('http://[::1]:8080/x', false)).toThrow(/private/);
    expect(() => checkFetchUrl('http://localhost/x', false)).toThrow(/private/);
    expect(() => checkFetchUrl('file:///etc/passwd', true)).toThrow(/scheme/);
    expect(checkFetchUrl('http://127.0.0.1/x', true).host).toBe('127.0.0.1');
    expect(checkFetchUrl('https://example.com/spec.yaml', false).host).toBe('example.com');
  });
});

describe('cursors', () => {
  it('round-trips and rejects foreign values', () => {
    const c = encodeCursor(['2026-01-01 00:00:00.123456+00', 'abc']);
    expect(decodeCursor(c, 2)).toEqual(['2026-01-01 00:00:00.123456+00', 'abc']);
    expect(decodeCursor(undefined, 2)).toBeUndefined();
    expect(() => decodeCursor('not-base64-json', 2)).toThrow(ApiError);
    expect(() => decodeCursor(encodeCursor(['one']), 2)).toThrow(/query.page/);
  });

  it('builds a next page only when an extra row was fetched', () => {
    const rows = [{ k: 1 }, { k: 2 }, { k: 3 }];
    const page = buildPage(rows, 2, 10, (r) => [r.k], (r) => r.k);
    expect(page.items).toEqual([1, 2]);
    expect(decodeCursor(page.next!.page, 1)).toEqual([2]);
    expect(buildPage(rows, 3, 3, (r) => [r.k], (r) => r.k).next).toBeUndefined();
  });
});

describe('job registry', () => {
  it('has exactly one processor per job name, each on a known queue', () => {
    expect(() => checkProcessors()).not.toThrow();
    expect(Object.keys(PROCESSORS).sort()).toEqual([...JOB_NAMES].sort());
    for (const name of JOB_NAMES) expect(loadConfig({}).workers.queues).toContain(JOBS[name].queue);
  });

  it('refuses to start with a missing or unknown processor', () => {
    expect(() => checkProcessors({})).toThrow(/missing processors \[openapi\.process[,\]]/);
    expect(() => checkProcessors({ ...PROCESSORS, 'mystery.job': () => {} })).toThrow(/unknown processors \[mystery.job\]/);
  });
});

describe('credentials stay out of text', () => {
  it('redacts user info from URLs in logs and operation errors', () => {
    expect(redactUrl('https://user:s3cret@git.example.com/repo.git')).toBe('https://git.example.com/repo.git');
    const msg = operationError(new Error('could not clone https://bob:hunter2@git.example.com/x.git: 401\nstack...'));
    expect(msg).toBe('could not clone https://git.example.com/x.git: 401');
    expect(msg).not.toContain('hunter2');
  });
});

describe('small pieces', () => {
  it('makes 20-character identifiers valid as entity ids', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => newId()));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9]{20}$/);
  });

  it('derives the same valid identifier from the same parts, and different ones from different parts', () => {
    const ids = new Set(Array.from({ length: 1000 }, (_, i) => derivedId('git.import', `op${i}`)));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9]{20}$/);
    expect(derivedId('git.import', 'op1')).toBe(derivedId('git.import', 'op1'));
    expect(derivedId('git.import', 'op1')).not.toBe(derivedId('git.export', 'op1'));
  });

  it('orders roles', () => {
    expect(atLeast('admin', 'create')).toBe(true);
    expect(atLeast('edit', 'review')).toBe(false);
    expect(atLeast(null, 'read')).toBe(false);
  });
});
