// The contract between the API (which enqueues) and the workers (which process): every job name,
// the queue it runs on, the payload it carries and its default options. Redis only ever holds
// `{ operationId }`: the payload lives in the operation's PostgreSQL row, so a flushed Redis loses
// nothing and no secret (a git credential, say) sits in Redis.
import type { QueueName } from '../src/config.js';

export interface JobPayloads {
  /** Fetch (or read inline), parse, validate and store one version of an OpenAPI spec. */
  'openapi.process': { specId: string };
}

export type JobName = keyof JobPayloads;

export interface JobSpec {
  queue: QueueName;
  /** Attempts override; defaults to config.workers.attempts. */
  attempts?: number;
  /** Human description for the dashboard and README. */
  description: string;
}

export const JOBS: { readonly [K in JobName]: JobSpec } = {
  'openapi.process': { queue: 'openapi', description: 'Fetch, parse, validate and store an OpenAPI spec version' },
};

export const JOB_NAMES = Object.keys(JOBS) as JobName[];

/** What a BullMQ job carries. */
export interface JobData {
  operationId: string;
}

export function isJobName(name: string): name is JobName {
  return Object.prototype.hasOwnProperty.call(JOBS, name);
}
