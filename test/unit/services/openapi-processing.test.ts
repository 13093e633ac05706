// The OpenAPI processing service (the `openapi.process` job's body) without PostgreSQL or Redis:
// the spec rows live in a Map behind the repository's functions, the bytes in a memory BlobStore,
// fetches are answered by a fake safeFetch; parsing and validation are the real ones.
import pino from 'pino';
import { beforeEach, describe, expect, it, vi, type Mock } from 'vitest';
import type { AppContext } from '../../../src/context.js';
import type { SpecRow } from '../../../src/db/repos/openapi.js';
import { FetchFailedError, FetchTimeoutError } from '../../../src/net/safe-fetch.js';
import { sealUrl } from '../../../src/net/url-secrets.js';
import { JobFailure, JobSkipped } from '../../../src/queue/errors.js';
import { processOpenAPISpec, SpecProcessingError } from '../../../src/services/openapi-processing.js';
import type { OperationRun } from '../../../src/services/operation-run.js';
import { asJobFailure } from '../../../jobs/failures.js';
import { memoryBlobs, type MemoryBlobs } from '../../helpers/memory-blobs.js';

const fake = vi.hoisted(() => {
  const specs = new Map<string, Record<string, unknown>>();
  const versions: Record<string, unknown>[] = [];
  /** What the fake safeFetch answers per URL: a body, or an error to throw. */
  const web = new Map<string, string | Error>();
  const txClient = { tx: true };
  return { specs, versions, web, txClient };
});

vi.mock('../../../src/db/repos/openapi.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../../src/db/repos/openapi.js')>();
  const owned = (id: string, operationId: string) => {
    const row = fake.specs.get(id);
    return row && row.processing_operation_id === operationId ? row : null;
  };
  return {
    ...original,
    getSpec: async (_db: unknown, id: string) => (fake.specs.has(id) ? { ...fake.specs.get(id) } : null),
    markSpecInProgress: async (_db: unknown, id: string, operationId: string) => {
      const row = owned(id, operationId);
      if (row) row.processing_state = 'progress';
      return !!row;
    },
    completeSpec: async (_db: unknown, id: string, operationId: string, outcome: Record<string, unknown>) => {
      const row = owned(id, operationId);
      if (!row) return false;
      const ok = 'versionId' in outcome;
      Object.assign(row, {
        processing_state: 'complete',
        last_version: ok ? outcome.versionId : row.last_version,
        last_process_error_code: ok ? null : outcome.errorCode,
        last_process_error: ok ? null : outcome.error,
        last_process_warning_count: ok ? outcome.warningCount : 0,
      });
      return true;
    },
    insertVersion: async (db: unknown, v: Record<string, unknown>) => {
      fake.versions.push({ ...v, insertedOn: db });
    },
  };
});

vi.mock('../../../src/db/pool.js', () => ({
  withTx: async (_db: unknown, fn: (c: unknown) => Promise<unknown>) => fn(fake.txClient),
}));

vi.mock('../../../src/net/safe-fetch.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../../src/net/safe-fetch.js')>();
  return {
    ...original,
    safeFetch: async (url: string) => {
      const answer = fake.web.get(url) ?? new original.FetchFailedError(`${new URL(url).host} answered HTTP 404`, 404);
      if (answer instanceof Error) throw answer;
      return { url, status: 200, headers: {}, body: Buffer.from(answer) };
    },
  };
});

const SECRET = 'k'.repeat(64);
const PETS = JSON.stringify({
  openapi: '3.0.3',
  info: { title: 'Pets', version: '1.2.0' },
  paths: { '/pets': { get: { tags: ['pets'], responses: { '200': { description: 'The pets' } } } } },
});

let blobs: MemoryBlobs;
let app: AppContext;
let run: OperationRun & { progress: Mock<OperationRun['progress']>; fence: Mock<OperationRun['fence']> };

function addSpec(fields: Partial<SpecRow>): string {
  const id = `spec${fake.specs.size + 1}`;
  fake.specs.set(id, {
    id,
    source_url: null,
    source_url_sealed: null,
    source_text: null,
    processing_state: 'pending',
    processing_operation_id: 'op1',
    last_version: null,
    last_process_error_code: null,
    last_process_error: null,
    ...fields,
  });
  return id;
}

const spec = (id: string) => fake.specs.get(id)!;

beforeEach(() => {
  fake.specs.clear();
  fake.versions.length = 0;
  fake.web.clear();
  blobs = memoryBlobs();
  app = {
    db: {},
    blobs,
    secret: SECRET,
    config: { fetch: { timeoutMs: 1000, maxBytes: 1_000_000, allowPrivate: false } },
  } as unknown as AppContext;
  run = {
    operation: { id: 'op1', created_by: null },
    log: pino({ level: 'silent' }),
    progress: vi.fn(async () => {}),
    fence: vi.fn(async () => {}),
  };
});

describe('processOpenAPISpec', () => {
  it('stores an inline description as a version, makes it current and returns what it stored', async () => {
    const id = addSpec({ source_text: PETS });
    const result = await processOpenAPISpec(app, id, run);

    expect(result).toMatchObject({ openapi: '3.0.3', title: 'Pets', warnings: 0 });
    expect(spec(id)).toMatchObject({ processing_state: 'complete', last_version: result.version, last_process_error_code: null });
    expect(fake.versions).toHaveLength(1);
    expect(fake.versions[0]).toMatchObject({ id: result.version, specId: id, title: 'Pets', apiVersion: '1.2.0', size: result.size });
    // The version row is written in the transaction the run fences.
    expect(fake.versions[0].insertedOn).toBe(fake.txClient);
    expect(run.fence).toHaveBeenCalledWith(fake.txClient);
    // The bytes the version names are there: the bundle and the source as it was read.
    const bundle = await blobs.get(fake.versions[0].blobKey as string);
    expect(JSON.parse(bundle!.toString('utf8'))).toEqual(JSON.parse(PETS));
    expect((await blobs.get(`openapi/${id}/${result.version}/source.txt`))!.toString('utf8')).toBe(PETS);
    expect(run.progress.mock.calls).toEqual([[0.3], [0.7]]);
  });

  it('fetches a description from its source URL, with the credentials only the sealed URL holds', async () => {
    const whole = 'https://reader:p4ssw0rd@specs.example/pets.json';
    fake.web.set(whole, PETS);
    const id = addSpec({ source_url: 'https://specs.example/pets.json', source_url_sealed: sealUrl(whole, SECRET) });
    const result = await processOpenAPISpec(app, id, run);
    expect(result.title).toBe('Pets');
    expect(spec(id).last_version).toBe(result.version);
  });

  it('skips an operation the spec no longer waits for, without touching the spec', async () => {
    const id = addSpec({ source_text: PETS, processing_operation_id: 'op2' });
    const err = await processOpenAPISpec(app, id, run).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(JobSkipped);
    expect((err as JobSkipped).reason).toBe('Superseded by a newer update of the spec');
    expect(spec(id).processing_state).toBe('pending');
    expect(fake.versions).toHaveLength(0);
    expect(blobs.objects.size).toBe(0);
  });

  it('skips a spec deleted before processing', async () => {
    const err = await processOpenAPISpec(app, 'gone', run).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(JobSkipped);
    expect((err as JobSkipped).reason).toBe('The OpenAPI spec was deleted before processing');
  });

  it('superseded while it worked: stores no version and deletes the bytes it wrote', async () => {
    const id = addSpec({ source_text: PETS });
    run.progress.mockImplementation(async (f: number) => {
      if (f === 0.7) spec(id).processing_operation_id = 'op2'; // a newer PUT arrives meanwhile
    });
    const err = await processOpenAPISpec(app, id, run).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(JobSkipped);
    expect((err as JobSkipped).reason).toBe('Superseded by a newer update of the spec');
    expect(fake.versions).toHaveLength(0);
    expect(spec(id).last_version).toBeNull();
    expect(blobs.objects.size).toBe(0);
  });

  it('a document that does not parse: the spec gets PARSE_ERROR, the operation fails for good with the code in its message', async () => {
    const id = addSpec({ source_text: 'openapi: [3.0' });
    const err = await processOpenAPISpec(app, id, run).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SpecProcessingError);
    expect((err as SpecProcessingError).code).toBe('PARSE_ERROR');
    expect(spec(id).last_process_error_code).toBe('PARSE_ERROR');
    expect(spec(id).last_process_error).toMatch(/^The document is neither valid JSON nor valid YAML/);
    expect((err as Error).message).toBe(`PARSE_ERROR: ${spec(id).last_process_error}`);
    expect(spec(id)).toMatchObject({ processing_state: 'complete', last_version: null });
    // As a job: a final failure (no retry) with the same message.
    const failure = (() => {
      try {
        asJobFailure(err);
      } catch (e) {
        return e;
      }
    })();
    expect(failure).toBeInstanceOf(JobFailure);
    expect((failure as Error).message).toBe((err as Error).message);
  });

  it('a failed or timed-out fetch: FETCH_ERROR or FETCH_TIMEOUT, the credentials scrubbed from both messages', async () => {
    const whole = 'https://reader:p4ssw0rd@specs.example/pets.json';
    const sealed = sealUrl(whole, SECRET);
    fake.web.set(whole, new FetchFailedError('Could not fetch specs.example as reader:p4ssw0rd: connection reset'));
    const failed = addSpec({ source_url: 'https://specs.example/pets.json', source_url_sealed: sealed });
    const err = await processOpenAPISpec(app, failed, run).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SpecProcessingError);
    expect((err as Error).message).toMatch(/^FETCH_ERROR: Could not fetch specs\.example/);
    expect(spec(failed).last_process_error_code).toBe('FETCH_ERROR');
    for (const text of [(err as Error).message, spec(failed).last_process_error as string]) expect(text).not.toContain('p4ssw0rd');

    fake.web.set(whole, new FetchTimeoutError('Timed out after 1000 ms fetching specs.example'));
    const slow = addSpec({ source_url: 'https://specs.example/pets.json', source_url_sealed: sealed });
    const timeout = await processOpenAPISpec(app, slow, run).catch((e: unknown) => e);
    expect((timeout as Error).message).toBe('FETCH_TIMEOUT: Timed out after 1000 ms fetching specs.example');
    expect(spec(slow).last_process_error_code).toBe('FETCH_TIMEOUT');
  });

  it('stored credentials that cannot be opened: FETCH_ERROR asking for the source again', async () => {
    const id = addSpec({
      source_url: 'https://specs.example/pets.json',
      source_url_sealed: sealUrl('https://a:b@specs.example/x', 'other'.repeat(13)),
    });
    const err = await processOpenAPISpec(app, id, run).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SpecProcessingError);
    expect((err as Error).message).toBe(
      'FETCH_ERROR: The stored credentials of the source URL cannot be read (was SECRET_KEY changed?); put the source again',
    );
    expect(spec(id).last_process_error_code).toBe('FETCH_ERROR');
  });

  it('an unexpected error is thrown as it is for a retry (not a final failure), scrubbed, and leaves the spec in progress', async () => {
    const whole = 'https://reader:p4ssw0rd@specs.example/pets.json';
    fake.web.set(whole, new Error('socket hang up while reading p4ssw0rd'));
    const id = addSpec({ source_url: 'https://specs.example/pets.json', source_url_sealed: sealUrl(whole, SECRET) });
    const err = await processOpenAPISpec(app, id, run).catch((e: unknown) => e);
    expect(err).not.toBeInstanceOf(SpecProcessingError);
    expect((err as Error).message).toMatch(/^socket hang up while reading \S+$/);
    expect((err as Error).message).not.toContain('p4ssw0rd');
    expect((err as Error).stack).not.toContain('p4ssw0rd');
    expect(() => asJobFailure(err)).toThrow(err as Error);
    expect(spec(id)).toMatchObject({ processing_state: 'progress', last_process_error_code: null });
  });
});
