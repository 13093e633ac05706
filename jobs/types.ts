import type { Job } from 'bullmq';
import type { AppContext } from '../src/context.js';
import type { Queryable } from '../src/db/pool.js';
import type { ClaimedOperation } from '../src/db/repos/operations.js';
import type { Logger } from '../src/log.js';
import type { AtOnceJobName, JobData, JobName, JobPayloads } from '../src/queue/registry.js';

/** What every processor gets, including one that starts before its claim is back (`startsAtOnce`). */
export interface RunContext {
  app: AppContext;
  job: Job<JobData>;
  log: Logger;
}

/** What a processor that runs after its claim gets besides: the operation it holds, progress and fencing. */
export interface JobContext extends RunContext {
  operation: ClaimedOperation;
  /** Report progress in [0, 1]; written to the operation row and the BullMQ job. */
  progress(fraction: number): Promise<void>;
  /**
   * Call inside the transaction that commits the operation's effect, before committing: locks the
   * operation row and throws `LeaseLost` if another run of the operation took it over (this run
   * stalled past its lease), so the effect is committed by one run only.
   */
  fence(c: Queryable): Promise<void>;
}

/**
 * A processor returns the operation's result (stored as JSON) or throws. One that starts at once
 * gets a `RunContext` only: it must not depend on holding the operation.
 */
export type Processor<K extends JobName> = (
  payload: JobPayloads[K],
  ctx: K extends AtOnceJobName ? RunContext : JobContext,
) => Promise<unknown>;
