// An AppContext for unit tests of services: a real configuration, the fake database of store.ts,
// a job client that records the jobs it would add (no Redis: the queue, job id and data the real
// JobClient would send), and a logger that keeps its lines in memory. Blob storage and the Markdown pool are absent: a service that reaches them fails
// loudly, so a test that needs them says so.
import { loadConfig, type Config } from '../../../src/config.js';
import type { AppContext } from '../../../src/context.js';
import type { JobClient } from '../../../src/queue/client.js';
import { isJobName, queueFor, startsAtOnce, type JobData } from '../../../src/queue/registry.js';
import { createLogger } from '../../../src/log.js';
import { fakeDb } from './store.js';

/** One job `app.jobs.enqueue` added: its id (the operation's), name, queue and data, as src/queue/client.ts makes them. */
export interface EnqueuedJob {
  id: string;
  kind: string;
  queue: string;
  data: JobData;
}

export interface FakeJobs {
  enqueued: EnqueuedJob[];
  /** Make the next `count` enqueues fail as an unreachable Redis would. */
  failNext(count?: number): void;
}

export interface FakeApp extends AppContext {
  /** What was enqueued, in order. */
  fakeJobs: FakeJobs;
  /** Log lines written so far (pino objects: `msg`, `level`, ...). */
  logs: Record<string, unknown>[];
}

export const PUBLIC_URL = 'https://docs.example.test';

function fakeJobs(): FakeJobs & Pick<JobClient, 'enqueue' | 'close'> {
  let failures = 0;
  const enqueued: EnqueuedJob[] = [];
  return {
    enqueued,
    failNext(count = 1) {
      failures = count;
    },
    async enqueue(op) {
      if (failures > 0) {
        failures--;
        throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
      }
      if (!isJobName(op.kind)) throw new Error(`Unknown job kind "${op.kind}"`);
      const data: JobData = startsAtOnce(op.kind) && op.payload ? { operationId: op.id, payload: op.payload } : { operationId: op.id };
      enqueued.push(structuredClone({ id: op.id, kind: op.kind, queue: queueFor(op.kind, op.queue), data }));
    },
    async close() {},
  };
}

function absent(name: string): never {
  throw new Error(`fake app: ${name} is not available in service unit tests`);
}

export function fakeApp(env: Record<string, string> = {}, overrides: { config?: Partial<Config> } = {}): FakeApp {
  const config = { ...loadConfig({ PUBLIC_URL, ...env }), ...overrides.config };
  const logs: Record<string, unknown>[] = [];
  const log = createLogger('debug', 'test', { write: (line: string) => void logs.push(JSON.parse(line)) });
  const jobs = fakeJobs();
  return {
    config,
    db: fakeDb(),
    log,
    jobs: jobs as unknown as JobClient,
    fakeJobs: jobs,
    logs,
    secret: 'unit-test-secret-0123456789abcdef',
    blobs: new Proxy({}, { get: (_t, p) => (p === 'then' ? undefined : absent(`blobs.${String(p)}`)) }) as AppContext['blobs'],
    markdown: new Proxy({}, { get: (_t, p) => (p === 'then' ? undefined : absent(`markdown.${String(p)}`)) }) as AppContext['markdown'],
  };
}
