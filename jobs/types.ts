import type { Job } from 'bullmq';
import type { AppContext } from '../src/context.js';
import type { Queryable } from '../src/db/pool.js';
import type { ClaimedOperation } from '../src/db/repos/operations.js';
import type { Logger } from '../src/log.js';
import type { JobData, JobName, JobPayloads } from '../src/queue/registry.js';

export interface JobContext {
  app: AppContext;
  operation: ClaimedOperation;
  job: Job<JobData>;
  log: Logger;
  /** Report progress in [0, 1]; written to the operation row and the BullMQ job. */
  progress(fraction: number): Promise<void>;
  /**
   * Call inside the transaction that commits the operation's effect, before committing: locks the
   * operation row and throws `LeaseLost` if another run of the operation took it over (this run
   * stalled past its lease), so the effect is committed by one run only.
   */
  fence(c: Queryable): Promise<void>;
}

/** A processor returns the operation's result (stored as JSON) or throws. */
export type Processor<K extends JobName> = (payload: JobPayloads[K], ctx: JobContext) => Promise<unknown>;
